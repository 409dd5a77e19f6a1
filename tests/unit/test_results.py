"""Results: single / gammon / backgammon, forfeit levels, Jacoby, points."""

import random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.position import BAR, OFF, Position
from engine.results import (
    EndReason,
    ForfeitReason,
    Result,
    ResultKind,
    jacoby_applies,
    result_kind,
    worst_possible,
)

WINNER = (15,) + (0,) * 25  # everything borne off


def board(points: dict[int, int]):
    return Position.from_points(points, {}).mover


@pytest.mark.parametrize(
    ("loser", "kind"),
    [
        ({6: 14}, ResultKind.SINGLE),  # one checker off
        ({24: 1, 6: 13}, ResultKind.SINGLE),  # back checker, but a checker is off
        ({7: 15}, ResultKind.GAMMON),
        ({18: 15}, ResultKind.GAMMON),  # just outside the winner's home board
        ({19: 1, 7: 14}, ResultKind.BACKGAMMON),  # winner's 6-point
        ({24: 2, 13: 13}, ResultKind.BACKGAMMON),
        ({BAR: 1, 8: 14}, ResultKind.BACKGAMMON),
    ],
)
def test_result_kind(loser, kind):
    assert result_kind(board(loser), WINNER) is kind


def test_worst_possible_follows_the_forfeit_rule():
    # x1 as soon as a checker is off, whatever else
    pos = Position.from_points({BAR: 1, 24: 1, 6: 12}, {6: 15})
    assert worst_possible(pos.mover, pos.opponent) is ResultKind.SINGLE
    # x3: on the bar / in the opponent's home board / in contact
    for mover, opponent in [
        ({BAR: 1, 6: 14}, {6: 15}),
        ({20: 1, 6: 14}, {6: 15}),
        ({13: 15}, {13: 15}),  # the two stacks still have to pass each other
    ]:
        pos = Position.from_points(mover, opponent)
        assert worst_possible(pos.mover, pos.opponent) is ResultKind.BACKGAMMON, (mover, opponent)
    # x2: no checker off, nothing back, no contact
    pos = Position.from_points({12: 15}, {12: 15})
    assert not pos.is_contact()
    assert worst_possible(pos.mover, pos.opponent) is ResultKind.GAMMON


def _random_board_pair(rng: random.Random):
    mover = [0] * 26
    opponent = [0] * 26
    for own, other in ((mover, opponent), (opponent, mover)):
        for _ in range(15):
            while True:
                p = rng.choice([OFF, BAR, *range(1, 25)])
                if p in (OFF, BAR) or other[25 - p] == 0:
                    own[p] += 1
                    break
    return tuple(mover), tuple(opponent)


@given(st.integers(0, 2**32))
def test_worst_possible_is_at_least_the_result_if_the_game_ended_now(seed):
    # Whatever the board, finishing the winner's bear-off right now never gives more than
    # worst_possible: the loser's checkers only ever get worse by being hit, which needs contact.
    loser, winner = _random_board_pair(random.Random(seed))
    assert result_kind(loser, WINNER) <= worst_possible(loser, winner)


def test_jacoby():
    assert jacoby_applies(ResultKind.BACKGAMMON, jacoby=True, cube_turned=False)
    assert not jacoby_applies(ResultKind.BACKGAMMON, jacoby=False, cube_turned=False)
    assert not jacoby_applies(ResultKind.BACKGAMMON, jacoby=True, cube_turned=True)
    assert not jacoby_applies(ResultKind.SINGLE, jacoby=True, cube_turned=False)


@given(
    st.sampled_from(list(ResultKind)),
    st.sampled_from([1, 2, 4, 8, 16, 32, 64]),
    st.booleans(),
)
def test_points_are_multiplier_times_cube(kind, cube, jacoby):
    jacoby = jacoby and kind > ResultKind.SINGLE
    result = Result(0, kind, cube, EndReason.BEAR_OFF, jacoby=jacoby)
    assert result.points == (1 if jacoby else int(kind)) * cube
    assert result.counted == (ResultKind.SINGLE if jacoby else kind)


def test_result_validation():
    with pytest.raises(ValueError, match="seat"):
        Result(2, ResultKind.SINGLE, 1, EndReason.BEAR_OFF)
    with pytest.raises(ValueError, match="power of two"):
        Result(0, ResultKind.SINGLE, 3, EndReason.BEAR_OFF)
    with pytest.raises(ValueError, match="forfeit reason"):
        Result(0, ResultKind.SINGLE, 1, EndReason.FORFEIT)
    with pytest.raises(ValueError, match="forfeit reason"):
        Result(0, ResultKind.SINGLE, 1, EndReason.RESIGN, forfeit=ForfeitReason.TIMEOUT)
    with pytest.raises(ValueError, match="Jacoby"):
        Result(0, ResultKind.GAMMON, 1, EndReason.FORFEIT, ForfeitReason.TIMEOUT, jacoby=True)
    result = Result(1, 3, 2, EndReason.FORFEIT, ForfeitReason.NO_REVEAL)
    assert result.kind is ResultKind.BACKGAMMON and result.points == 6 and result.loser == 0


def test_stable_values():
    # These strings travel on the wire and into transcripts.
    assert [r.value for r in EndReason] == [
        "bear_off", "drop", "resign", "forfeit", "mother", "mothers"
    ]
    assert [r.value for r in ForfeitReason] == [
        "timeout", "no_reveal", "invalid_reveal", "abandoned"
    ]
    assert [int(k) for k in ResultKind] == [1, 2, 3]
