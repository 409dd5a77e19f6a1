"""Positions and GNU Backgammon Position IDs, checked against gnubg's own encoder."""

import random

import gnubg_nn as gnubg
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import position_id
from engine.position import BAR, OFF, Position, PositionError
from engine.reference import reference_plays


def to_gnubg(position: Position) -> list[list[int]]:
    """gnubg's board: [side not on roll, side on roll], each points 1..24 then the bar."""
    return [list(position.opponent[1:26]), list(position.mover[1:26])]


def random_position(rng: random.Random) -> Position:
    """A random possible position (any mix of bar, points and borne-off checkers)."""
    mover = [0] * 26
    opponent = [0] * 26
    for board, other in ((mover, opponent), (opponent, mover)):
        for _ in range(15):
            while True:
                p = rng.choice([OFF, BAR, *range(1, 25)])
                if p in (OFF, BAR) or other[25 - p] == 0:
                    board[p] += 1
                    break
    return Position(tuple(mover), tuple(opponent))


@st.composite
def positions(draw) -> Position:
    return random_position(random.Random(draw(st.integers(0, 2**32))))


def test_start_position_id():
    assert position_id.encode(Position.start()) == "4HPwATDgc/ABMA"
    assert gnubg.position_id(to_gnubg(Position.start())) == "4HPwATDgc/ABMA"


def test_position_id_matches_gnubg_on_random_positions():
    rng = random.Random(2026)
    for _ in range(3000):
        pos = random_position(rng)
        ours = position_id.encode(pos)
        assert ours == gnubg.position_id(to_gnubg(pos))
        assert gnubg.board_from_position_id(ours) == to_gnubg(pos)


def test_encoding_puts_the_side_not_on_roll_first():
    # Only the mover has a checker on the bar: gnubg's ID of that board has it in the second half.
    pos = Position.from_points({25: 1, 6: 14}, {6: 15})
    assert position_id.decode(position_id.encode(pos)) == pos
    assert position_id.encode(pos) != position_id.encode(pos.swapped())
    assert position_id.encode(pos) == gnubg.position_id(to_gnubg(pos))


@given(positions())
def test_position_id_round_trips(pos):
    assert position_id.decode(position_id.encode(pos)) == pos


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ("4HPwATDgc/ABM", "14 characters"),
        ("4HPwATDgc/ABM!", "not base64"),
        ("4HPwATDgc/ABMB", "non-canonical"),  # unused low bits set
        ("//////////////", "truncated"),
        ("AAAAAAAAAAAAAA", "both players"),  # everything on point 1 of both... 0 checkers: 15 off
    ],
)
def test_bad_position_ids_are_rejected(bad, reason):
    if bad == "AAAAAAAAAAAAAA":
        # all zero bits: no checker on the board, all 15 borne off by both: a valid (finished)
        # position, so it must decode rather than fail.
        assert position_id.decode(bad).is_over()
        return
    with pytest.raises(position_id.PositionIdError, match=reason):
        position_id.decode(bad)


def test_position_rejects_impossible_boards():
    start = Position.start()
    with pytest.raises(PositionError, match="16 checkers"):
        Position((*start.mover[:6], 6, *start.mover[7:]), start.opponent)
    with pytest.raises(PositionError, match="both players"):
        Position.from_points({24: 15}, {1: 15})
    with pytest.raises(PositionError, match="26 counts"):
        Position(start.mover[:25], start.opponent)


def test_pips_and_swap():
    pos = Position.from_points({25: 1, 3: 2}, {20: 1})
    assert pos.pips() == (31, 20)
    assert pos.swapped().pips() == (20, 31)
    assert pos.swapped().swapped() == pos


# rules.md: distinct legal plays from the start position for each of the 21 rolls.
OPENING_COUNTS = {
    (2, 1): 15,
    (3, 1): 16,
    (3, 2): 17,
    (4, 1): 14,
    (4, 2): 18,
    (4, 3): 17,
    (5, 1): 8,
    (5, 2): 8,
    (5, 3): 9,
    (5, 4): 9,
    (6, 1): 10,
    (6, 2): 14,
    (6, 3): 14,
    (6, 4): 14,
    (6, 5): 7,
    (1, 1): 42,
    (2, 2): 75,
    (3, 3): 73,
    (4, 4): 52,
    (5, 5): 4,
    (6, 6): 11,
}


@pytest.mark.parametrize(("dice", "count"), OPENING_COUNTS.items())
def test_reference_generator_opening_counts(dice, count):
    assert len(reference_plays(Position.start(), *dice)) == count
