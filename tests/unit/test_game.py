"""The single-game state machine: roll-off, turns, passes, cube, resignations, forfeits."""

import random
import typing

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cube import Cube
from engine.errors import CubeError, ErrorCode, GameError
from engine.events import (
    Beavered,
    Doubled,
    Dropped,
    Forfeited,
    GameOver,
    Moved,
    Passed,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    Rolled,
    RolledOff,
    Taken,
)
from engine.game import Action, Game, GameOptions, IllegalPlayError, Phase
from engine.movegen import legal_plays
from engine.position import BAR, CHECKERS, OFF, Position
from engine.results import EndReason, ForfeitReason, ResultKind, result_kind, worst_possible
from engine.validate import IllegalPlay, Reason
from harness.random_play import Policy, game_step, play_game
from protocol.events import Decision

START = Position.start()


def code_of(excinfo) -> str:
    return excinfo.value.code.value


def started(d0=3, d1=1, options=None) -> Game:
    game, _ = Game.new(options).roll_off(d0, d1)
    return game


def play_first(game: Game) -> Game:
    """The seat on roll plays the first legal play of its dice."""
    return game.move(game.on_roll, game.legal_plays()[0].moves)[0]


# ----------------------------------------------------------------------- phase names


def test_the_phases_are_the_decisions_the_protocol_names():
    assert [p.value for p in Phase] == ["rolloff", "decide", "move", "take", "resign", "over"]
    assert {p.value for p in Phase} <= set(typing.get_args(Decision))


def test_a_phase_stored_before_the_protocol_names_loads_as_its_new_member():
    assert Phase("roll_off") is Phase.ROLLOFF
    assert Phase("roll") is Phase.DECIDE
    assert Phase("resignation") is Phase.RESIGN
    assert Phase("decide") is Phase.DECIDE and Phase("move") is Phase.MOVE
    assert [p.value for p in Phase] == [p.value for p in Phase.__members__.values()]  # no aliases
    for value in ["play", "waiting", "reveal", "ROLL", "Roll_off", " roll", "", b"roll", 1, None]:
        with pytest.raises(ValueError, match="is not a valid Phase"):
            Phase(value)


# ------------------------------------------------------------------ roll-off and turns


def test_roll_off_ties_repeat_and_the_higher_die_moves_first_with_both_numbers():
    game = Game.new()
    assert game.phase is Phase.ROLLOFF and game.expected().seat is None
    assert game.expected().actions == {Action.ROLL_OFF}
    same, events = game.roll_off(5, 5)
    assert same == game and events == (RolledOff((5, 5), None),)
    for d0, d1, first in [(2, 6, 1), (6, 2, 0), (1, 2, 1)]:
        after, events = game.roll_off(d0, d1)
        assert events == (RolledOff((d0, d1), first),)
        assert (after.phase, after.on_roll, after.dice) == (Phase.MOVE, first, (d0, d1))
        assert after.legal_plays() == legal_plays(START, d0, d1)
        assert after.turns == 0


def test_roll_off_refusals():
    for dice in [(0, 3), (3, 7), (True, 2), (2.0, 3), ("4", 1)]:
        with pytest.raises(GameError) as exc:
            Game.new().roll_off(*dice)
        assert code_of(exc) == "bad_dice"
    game = started()
    with pytest.raises(GameError) as exc:
        game.roll_off(3, 1)
    assert code_of(exc) == "wrong_phase"
    for action in (
        lambda g: g.roll(0, 3, 1), lambda g: g.double(0), lambda g: g.move(0, ()),
        lambda g: g.resign(0, 1),
    ):
        with pytest.raises(GameError) as exc:
            action(Game.new())
        assert code_of(exc) == "wrong_phase"


def test_turns_alternate_and_only_the_seat_to_act_may_act():
    game = started(3, 1)  # seat 0 moves
    with pytest.raises(GameError) as exc:
        game.move(1, ((8, 5), (6, 5)))
    assert code_of(exc) == "not_your_turn"
    with pytest.raises(GameError) as exc:
        game.roll(0, 2, 2)
    assert code_of(exc) == "wrong_phase"
    with pytest.raises(GameError) as exc:
        game.double(0)
    assert code_of(exc) == "wrong_phase"  # only before rolling
    game, events = game.move(0, ((8, 5), (6, 5)))
    assert events == (Moved(0, (3, 1), ((8, 5), (6, 5))),)
    assert (game.phase, game.on_roll, game.dice, game.turns) == (Phase.DECIDE, 1, None, 1)
    # seat 0's board changed, seat 1 sees it from its own side
    assert game.boards[0][5] == 2 and game.position(1).opponent[5] == 2
    with pytest.raises(GameError) as exc:
        game.roll(0, 4, 2)
    assert code_of(exc) == "not_your_turn"
    with pytest.raises(GameError) as exc:
        game.move(1, ())
    assert code_of(exc) == "wrong_phase"
    game, events = game.roll(1, 4, 2)
    assert events == (Rolled(1, (4, 2)),)
    assert (game.phase, game.on_roll, game.dice) == (Phase.MOVE, 1, (4, 2))
    for bad_seat in (2, -1, None, "0", True):
        with pytest.raises(GameError) as exc:
            game.move(bad_seat, ())
        assert code_of(exc) == "bad_seat"


def test_a_roll_with_no_legal_play_passes_automatically():
    # Seat 0 on the bar against a closed board: nothing enters.
    closed = Position.from_points({BAR: 1, 12: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5})
    game = Game.from_position(closed, on_roll=0)
    after, events = game.roll(0, 6, 5)
    assert events == (Rolled(0, (6, 5)), Passed(0, (6, 5)))
    assert (after.phase, after.on_roll, after.dice, after.turns) == (Phase.DECIDE, 1, None, 1)
    assert after.boards == game.boards


def test_the_opening_roll_off_can_pass_too():
    closed = Position.from_points({BAR: 1, 12: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 5})
    game = Game(boards=(closed.mover, closed.opponent))
    after, events = game.roll_off(6, 5)
    assert events == (RolledOff((6, 5), 0), Passed(0, (6, 5)))
    assert (after.phase, after.on_roll) == (Phase.DECIDE, 1)


def test_illegal_and_malformed_plays_are_refused_with_a_reason():
    game = started(3, 1)
    with pytest.raises(IllegalPlayError) as exc:
        game.move(0, ((8, 5), (8, 5)))
    assert code_of(exc) == "illegal_play"
    assert isinstance(exc.value.illegal, IllegalPlay)
    assert isinstance(exc.value.__cause__, IllegalPlay)
    with pytest.raises(IllegalPlayError):
        game.move(0, ())  # a play exists, so passing is illegal
    for malformed in ["8/5 6/5", [(8, 5, 1)], [(8, "5")], [8, 5], 42, [(8.0, 5)]]:
        with pytest.raises(IllegalPlayError) as exc:
            game.move(0, malformed)
        assert exc.value.illegal.reason is Reason.MALFORMED
    # lists are accepted as well as tuples
    after, _ = game.move(0, [[8, 5], [6, 5]])
    assert after.boards[0][5] == 2


# --------------------------------------------------------------------------- results


@pytest.mark.parametrize(
    ("opponent", "kind"),
    [
        ({6: 14}, ResultKind.SINGLE),
        ({7: 15}, ResultKind.GAMMON),
        ({19: 1, 7: 14}, ResultKind.BACKGAMMON),
        ({BAR: 1, 7: 14}, ResultKind.BACKGAMMON),
    ],
)
@pytest.mark.parametrize("seat", [0, 1])
def test_bearing_off_the_last_checker_wins(opponent, kind, seat):
    position = Position.from_points({1: 1}, opponent)
    game = Game.from_position(position, on_roll=seat, cube=Cube(4, owner=1 - seat))
    game, _ = game.roll(seat, 2, 1)
    game, events = game.move(seat, game.legal_plays()[0].moves)
    assert game.is_over and game.phase is Phase.OVER and game.dice is None
    result = game.result
    assert events[-1] == GameOver(result)
    assert (result.winner, result.kind, result.reason) == (seat, kind, EndReason.BEAR_OFF)
    assert result.points == int(kind) * 4
    assert game.boards[seat][OFF] == CHECKERS
    assert game.expected().actions == frozenset() and game.to_act is None
    for action in (lambda g: g.roll(1 - seat, 1, 2), lambda g: g.forfeit(seat, "timeout")):
        with pytest.raises(GameError) as exc:
            action(game)
        assert code_of(exc) == "game_over"


def test_jacoby_counts_gammons_as_single_until_the_cube_is_turned():
    position = Position.from_points({1: 1}, {7: 15})
    jacoby = GameOptions(jacoby=True)
    game = Game.from_position(position, on_roll=0, options=jacoby)
    game, _ = game.roll(0, 2, 1)
    game, _ = game.move(0, game.legal_plays()[0].moves)
    assert game.result.kind is ResultKind.GAMMON and game.result.jacoby
    assert game.result.points == 1
    # once the cube has been turned, the gammon counts
    game = Game.from_position(position, on_roll=0, options=jacoby, cube=Cube(2, owner=0))
    game, _ = game.roll(0, 2, 1)
    game, _ = game.move(0, game.legal_plays()[0].moves)
    assert not game.result.jacoby and game.result.points == 4


# ------------------------------------------------------------------------------ cube


def test_double_take_and_the_doubler_rolls_on():
    game = play_first(started(3, 1))  # seat 1 on roll
    assert game.can_double(1) and not game.can_double(0)
    assert Action.DOUBLE in game.expected().actions
    game, events = game.double(1)
    assert events == (Doubled(1, 2),)
    assert game.phase is Phase.TAKE and game.to_act == 0
    assert game.expected().actions == {Action.TAKE, Action.DROP}
    with pytest.raises(CubeError) as exc:
        game.take(1)
    assert code_of(exc) == "not_your_turn"
    with pytest.raises(GameError) as exc:
        game.roll(1, 3, 3)
    assert code_of(exc) == "not_your_turn"
    game, events = game.take(0)
    assert events == (Taken(0, 2),)
    assert game.cube == Cube(2, owner=0)
    assert (game.phase, game.to_act) == (Phase.DECIDE, 1)
    assert not game.can_double(1)  # the cube is now seat 0's
    with pytest.raises(CubeError) as exc:
        game.double(1)
    assert code_of(exc) == "cube_unavailable"
    game, _ = game.roll(1, 6, 5)
    game = play_first(game)
    assert game.can_double(0)
    game, events = game.double(0)
    assert events == (Doubled(0, 4),)


def test_drop_ends_the_game_at_the_pre_double_value():
    game = Game.from_position(START, on_roll=0, cube=Cube(4, owner=0))
    game, _ = game.double(0)
    game, events = game.drop(1)
    result = game.result
    assert events == (Dropped(1, 4), GameOver(result))
    assert (result.winner, result.kind, result.reason, result.points) == (
        0, ResultKind.SINGLE, EndReason.DROP, 4
    )
    assert game.cube == Cube(4, owner=0)  # no offer left pending


def test_no_cube_in_cubeless_and_crawford_games():
    game = started(3, 1, GameOptions(cube=False))
    game = play_first(game)
    assert not game.can_double(1) and Action.DOUBLE not in game.expected().actions
    with pytest.raises(CubeError) as exc:
        game.double(1)
    assert code_of(exc) == "cube_unavailable"


def test_answers_without_a_pending_double():
    game = play_first(started())
    for answer in (game.take, game.drop, game.beaver):
        with pytest.raises(CubeError) as exc:
            answer(0)
        assert code_of(exc) == "no_double_pending"


def test_beaver_only_with_the_option():
    game, _ = Game.from_position(START, on_roll=0).double(0)
    assert not game.can_beaver(1)
    with pytest.raises(CubeError) as exc:
        game.beaver(1)
    assert code_of(exc) == "beaver_unavailable"

    beavers = GameOptions(beavers=True)
    game, _ = Game.from_position(START, on_roll=0, options=beavers).double(0)
    assert game.can_beaver(1) and Action.BEAVER in game.expected().actions
    game, events = game.beaver(1)
    assert events == (Beavered(1, 4),)
    assert (game.phase, game.to_act, game.cube) == (
        Phase.TAKE, 0, Cube(2, owner=1, offered_by=1, beaver=True)
    )
    assert not game.can_beaver(0)
    taken, events = game.take(0)
    assert events == (Taken(0, 4),)
    assert taken.cube == Cube(4, owner=1) and (taken.phase, taken.to_act) == (Phase.DECIDE, 0)
    dropped, events = game.drop(0)
    assert dropped.result.winner == 1 and dropped.result.points == 2


# ----------------------------------------------------------------------- resignation


def test_resignation_accepted_ends_the_game_at_level_times_cube():
    game = Game.from_position(START, on_roll=1, cube=Cube(2, owner=0))
    assert game.resignation_levels(1) == tuple(ResultKind)
    assert game.resignation_levels(0) == ()
    game, events = game.resign(1, ResultKind.GAMMON)
    assert events == (ResignOffered(1, ResultKind.GAMMON),)
    assert (game.phase, game.to_act) == (Phase.RESIGN, 0)
    assert game.expected().actions == {Action.ACCEPT, Action.REJECT}
    with pytest.raises(GameError) as exc:
        game.accept_resignation(1)
    assert code_of(exc) == "not_your_turn"
    game, events = game.accept_resignation(0)
    result = game.result
    assert events == (ResignAccepted(0, ResultKind.GAMMON), GameOver(result))
    assert (result.winner, result.kind, result.reason, result.points) == (
        0, ResultKind.GAMMON, EndReason.RESIGN, 4
    )


def test_rejected_resignation_resumes_play_and_blocks_repeats():
    game = started(6, 5)  # seat 0 must move
    game, _ = game.resign(0, 1)
    game, events = game.reject_resignation(1)
    assert events == (ResignRejected(1, ResultKind.SINGLE),)
    assert (game.phase, game.on_roll, game.dice) == (Phase.MOVE, 0, (6, 5))
    with pytest.raises(GameError) as exc:
        game.resign(0, 1)
    assert code_of(exc) == "resignation_declined"
    assert game.resignation_levels(0) == (ResultKind.GAMMON, ResultKind.BACKGAMMON)
    game, _ = game.resign(0, 3)
    game, _ = game.reject_resignation(1)
    assert game.resignation_levels(0) == ()
    assert Action.RESIGN not in game.expected().actions
    # once play moves on, any level may be offered again
    game = play_first(game)
    game, _ = game.roll(1, 2, 1)
    game = play_first(game)
    assert game.resignation_levels(0) == tuple(ResultKind)


def test_resignation_refusals():
    game = Game.from_position(Position.from_points({6: 3}, {6: 3}), on_roll=0)
    assert game.resignation_levels(0) == (ResultKind.SINGLE,)
    for level in (2, 3):  # a checker is off: only a single is still possible
        with pytest.raises(GameError) as exc:
            game.resign(0, level)
        assert code_of(exc) == "bad_resignation_level"
    for level in (0, 4, "gammon", None):
        with pytest.raises(GameError) as exc:
            game.resign(0, level)
        assert code_of(exc) == "bad_resignation_level"
    with pytest.raises(GameError) as exc:
        game.resign(1, 1)
    assert code_of(exc) == "not_your_turn"
    for answer in (game.accept_resignation, game.reject_resignation):
        with pytest.raises(GameError) as exc:
            answer(1)
        assert code_of(exc) == "no_resignation_pending"
    # nobody resigns instead of answering a double or a resignation
    doubled, _ = game.double(0)
    with pytest.raises(GameError) as exc:
        doubled.resign(1, 1)
    assert code_of(exc) == "wrong_phase"
    offered, _ = game.resign(0, 1)
    with pytest.raises(GameError) as exc:
        offered.resign(1, 1)
    assert code_of(exc) == "wrong_phase"


def test_jacoby_applies_to_resignations():
    game = Game.from_position(START, on_roll=0, options=GameOptions(jacoby=True))
    game, _ = game.resign(0, 2)
    game, _ = game.accept_resignation(1)
    assert game.result.kind is ResultKind.GAMMON and game.result.points == 1


# --------------------------------------------------------------------------- forfeit


@pytest.mark.parametrize(
    ("forfeiter", "other", "kind"),
    [
        ({6: 14}, {6: 15}, ResultKind.SINGLE),
        ({BAR: 1, 6: 14}, {6: 15}, ResultKind.BACKGAMMON),
        ({20: 1, 6: 14}, {6: 15}, ResultKind.BACKGAMMON),
        ({13: 15}, {13: 15}, ResultKind.BACKGAMMON),  # contact
        ({12: 15}, {12: 15}, ResultKind.GAMMON),  # a race with nothing off
    ],
)
def test_forfeit_loses_at_the_worst_possible_result_times_the_cube(forfeiter, other, kind):
    position = Position.from_points(forfeiter, other)
    for seat in (0, 1):
        game = Game.from_position(position, on_roll=seat, cube=Cube(8, owner=1 - seat))
        game, events = game.forfeit(seat, ForfeitReason.NO_REVEAL)
        result = game.result
        assert events == (Forfeited(seat, ForfeitReason.NO_REVEAL), GameOver(result))
        assert (result.winner, result.kind, result.points) == (1 - seat, kind, int(kind) * 8)
        assert result.forfeit is ForfeitReason.NO_REVEAL and not result.jacoby


def test_forfeit_in_any_phase():
    game = Game.new()
    assert game.forfeit(0, "timeout")[0].result.points == 3  # roll-off pending
    doubled, _ = Game.from_position(START, on_roll=0, cube=Cube(2, owner=0)).double(0)
    # the doubled player forfeits instead of answering: at least the drop value
    result = doubled.forfeit(1, "timeout")[0].result
    assert result.winner == 0 and result.points == 3 * 2 >= doubled.cube.dropped(1)
    beavered, _ = Game(
        options=GameOptions(beavers=True), phase=doubled.phase, on_roll=0, cube=doubled.cube
    ).beaver(1)
    assert beavered.forfeit(0, "abandoned")[0].result.points == 3 * 4
    offered, _ = Game.from_position(START, on_roll=0).resign(0, 1)
    assert offered.forfeit(1, "abandoned")[0].result.winner == 0
    with pytest.raises(GameError) as exc:
        Game.new().forfeit(0, "bored")
    assert code_of(exc) == "bad_forfeit_reason"


# ------------------------------------------------------------------------ properties


def _check_expected_matches_what_is_accepted(game: Game) -> None:
    expected = game.expected()
    seat = expected.seat
    assert expected.phase is game.phase and seat == game.to_act
    if seat is None:
        return
    probes = {
        Action.ROLL: lambda: game.roll(seat, 1, 2),
        Action.DOUBLE: lambda: game.double(seat),
        Action.TAKE: lambda: game.take(seat),
        Action.DROP: lambda: game.drop(seat),
        Action.BEAVER: lambda: game.beaver(seat),
        Action.RESIGN: lambda: game.resign(seat, (game.resignation_levels(seat) or (1,))[-1]),
        Action.ACCEPT: lambda: game.accept_resignation(seat),
        Action.REJECT: lambda: game.reject_resignation(seat),
    }
    for action, probe in probes.items():
        if action in expected.actions:
            probe()
        else:
            with pytest.raises(GameError):
                probe()
    other = 1 - seat
    with pytest.raises(GameError) as exc:
        game.roll(other, 1, 2)
    assert exc.value.code in (ErrorCode.NOT_YOUR_TURN, ErrorCode.WRONG_PHASE)


@settings(max_examples=25)
@given(st.integers(0, 2**32), st.booleans(), st.booleans())
def test_random_games_end_consistently_and_forfeit_is_never_better(seed, jacoby, beavers):
    rng = random.Random(seed)
    options = GameOptions(cube=True, jacoby=jacoby, beavers=beavers)
    forfeit_levels: list[tuple[ResultKind, ResultKind]] = []

    def visit(game: Game) -> None:
        forfeit_levels.append(
            (
                worst_possible(game.boards[0], game.boards[1]),
                worst_possible(game.boards[1], game.boards[0]),
            )
        )
        if rng.random() < 0.05:
            _check_expected_matches_what_is_accepted(game)

    policy = Policy(double=0.03, resign=0.005)
    game, events = play_game(Game.new(options), rng, policy, visit)
    result = game.result
    assert events[-1] == GameOver(result)
    assert sum(isinstance(e, GameOver) for e in events) == 1
    assert game.turns == sum(isinstance(e, Moved | Passed) for e in events)
    assert result.points == int(result.counted) * result.cube
    assert result.cube == game.cube.value
    assert result.jacoby == (jacoby and game.cube.centred and result.kind > ResultKind.SINGLE)
    if result.reason is EndReason.BEAR_OFF:
        winner, loser = game.boards[result.winner], game.boards[result.loser]
        assert winner[OFF] == CHECKERS and loser[OFF] < CHECKERS
        assert result.kind == result_kind(loser, winner)
        # forfeiting at any earlier point would have cost the loser at least as much
        for levels in forfeit_levels:
            assert levels[result.loser] >= result.kind
    if result.reason is EndReason.RESIGN:
        assert result.kind <= forfeit_levels[-1][result.loser]
    # the forfeit levels of a seat never grow: the position only gets safer for the loser
    for seat in (0, 1):
        levels = [pair[seat] for pair in forfeit_levels]
        assert levels == sorted(levels, reverse=True)


@settings(max_examples=10)
@given(st.integers(0, 2**32))
def test_every_reachable_state_answers_forfeit_with_worst_possible(seed):
    rng = random.Random(seed)
    game = Game.new(GameOptions(beavers=True))
    while not game.is_over:
        seat = rng.randrange(2)
        over, _ = game.forfeit(seat, "timeout")
        assert over.result.kind == worst_possible(game.boards[seat], game.boards[1 - seat])
        assert over.result.points == int(over.result.kind) * game.cube.value
        game, _ = game_step(game, rng, Policy(double=0.1, resign=0.02))
