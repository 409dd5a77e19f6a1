"""Matches across games: single game, match to N with the Crawford rule, money sessions,
forfeits and complete random matches of every mode."""

import random
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cube import Cube
from engine.errors import ErrorCode, GameError, MatchError
from engine.events import (
    Doubled,
    EndOfMatch,
    Forfeited,
    GameOver,
    GameScored,
    GameStarted,
    MatchOver,
)
from engine.game import Game, GameOptions
from engine.match import Match, MatchOptions, Mode
from engine.position import Position
from engine.results import EndReason
from harness.random_play import Policy, play_match


def code_of(excinfo) -> str:
    return excinfo.value.code.value


def decide(match: Match, loser: int, level: int = 1) -> tuple[Match, tuple]:
    """Play one game that ``loser`` resigns at ``level`` right after the roll-off."""
    match, started = match.start_game()
    match, _ = match.roll_off(*((2, 1) if loser == 0 else (1, 2)))
    match, _ = match.resign(loser, level)
    match, events = match.accept_resignation(1 - loser)
    return match, started + events


# --------------------------------------------------------------------------- options


@pytest.mark.parametrize(
    "make",
    [
        lambda: MatchOptions.match(0),
        lambda: MatchOptions.match(26),
        lambda: MatchOptions.match("5"),
        lambda: MatchOptions(Mode.MONEY, length=5),
        lambda: MatchOptions(Mode.MATCH, 5, jacoby=True),
        lambda: MatchOptions(Mode.SINGLE_GAME, beavers=True),
        lambda: MatchOptions("tournament"),
    ],
)
def test_bad_options(make):
    with pytest.raises(MatchError) as exc:
        make()
    assert code_of(exc) == "bad_options"


def test_modes_and_their_games():
    assert MatchOptions("match", 7) == MatchOptions.match(7)
    assert [m.value for m in Mode] == ["single_game", "match", "money"]
    single, events = Match.new(MatchOptions.single_game()).start_game()
    assert events == (GameStarted(1, (0, 0), False, False),)
    assert single.game.options == GameOptions(cube=False)
    money, _ = Match.new(MatchOptions.money(jacoby=True, beavers=True)).start_game()
    assert money.game.options == GameOptions(cube=True, beavers=True, jacoby=True)
    match, _ = Match.new(MatchOptions.match(5)).start_game()
    assert match.game.options == GameOptions(cube=True)


# ---------------------------------------------------------------------------- single


def test_single_game_ends_the_match_and_records_how():
    match = Match.new(MatchOptions.single_game())
    assert match.expected() is None and not match.in_game
    match, events = decide(match, loser=1, level=2)
    assert events[-2:] == (
        GameScored(1, 0, 2, (2, 0)),
        MatchOver(0, (2, 0), EndOfMatch.COMPLETED),
    )
    assert match.is_over and match.winner == 0 and match.end is EndOfMatch.COMPLETED
    assert match.game.result.reason is EndReason.RESIGN
    for action in (
        lambda m: m.start_game(), lambda m: m.roll(0, 1, 2), lambda m: m.forfeit(0, "timeout"),
    ):
        with pytest.raises(MatchError) as exc:
            action(match)
        assert code_of(exc) == "match_over"


def test_single_game_forfeited_before_it_starts_is_lost_from_the_start_position():
    match, events = Match.new(MatchOptions.single_game()).forfeit(0, "abandoned")
    kinds = [e.kind for e in events]
    assert kinds == ["game_started", "forfeited", "game_over", "game_scored", "match_over"]
    assert match.score == (0, 3) and match.winner == 1 and match.end is EndOfMatch.FORFEIT
    assert match.ended_by == 0


# ----------------------------------------------------------------------- match play


def test_crawford_game_and_post_crawford_games():
    match = Match.new(MatchOptions.match(5))
    match, _ = decide(match, loser=1, level=2)  # 2-0
    match, _ = decide(match, loser=1, level=2)  # 4-0: seat 0 is at N-1
    assert match.score == (4, 0) and not match.is_over
    assert match.next_game_is_crawford() and not match.is_crawford
    match, events = match.start_game()
    assert events == (GameStarted(3, (4, 0), True, False),)
    assert match.is_crawford and not match.is_post_crawford
    assert not match.game.options.cube
    match, _ = match.roll_off(1, 2)
    match, _ = match.move(1, match.game.legal_plays()[0].moves)
    with pytest.raises(GameError) as exc:
        match.double(0)
    assert code_of(exc) == "cube_unavailable"
    match, _ = match.resign(0, 1)
    match, _ = match.accept_resignation(1)  # 4-1
    assert match.is_crawford and match.is_post_crawford  # the Crawford game is complete
    assert not match.next_game_is_crawford()
    match, events = match.start_game()
    assert events == (GameStarted(4, (4, 1), False, True),)
    assert match.game.options.cube and not match.is_crawford and match.is_post_crawford
    match, _ = match.roll_off(2, 1)
    match, _ = match.move(0, match.game.legal_plays()[0].moves)
    match, events = match.double(1)  # the trailer doubles post-Crawford
    assert events == (Doubled(1, 2),)
    match, _ = match.take(0)
    match, _ = match.roll(1, 6, 6)
    match, _ = match.move(1, match.game.legal_plays()[0].moves)
    match, _ = match.resign(0, 3)
    match, events = match.accept_resignation(1)
    # gammons and backgammons always count in match play; the real points are recorded
    assert events[-2] == GameScored(4, 1, 6, (4, 7))
    assert events[-1] == MatchOver(1, (4, 7), EndOfMatch.COMPLETED)
    assert match.is_over and match.winner == 1 and match.score == (4, 7)


def test_only_one_crawford_game():
    match = Match.new(MatchOptions.match(3))
    match, _ = decide(match, loser=1, level=2)  # 2-0
    match, _ = decide(match, loser=0, level=2)  # Crawford game: 2-2
    assert match.crawford_game == 2
    assert not match.next_game_is_crawford()
    match, events = match.start_game()
    assert events[0].crawford is False and match.game.options.cube


def test_one_point_match_has_no_crawford_game():
    match = Match.new(MatchOptions.match(1))
    assert not match.next_game_is_crawford()
    match, events = decide(match, loser=0)
    assert events[0] == GameStarted(1, (0, 0), False, True)
    assert match.is_over and match.winner == 1


def test_reaching_n_minus_one_by_a_jump_triggers_crawford():
    match, _ = decide(Match.new(MatchOptions.match(7)), loser=0, level=3)  # 0-3
    match, _ = decide(match, loser=0, level=3)  # 0-6
    assert match.score == (0, 6) and match.next_game_is_crawford()


# -------------------------------------------------------------------------- forfeits


def test_match_forfeit_in_a_game_loses_the_match():
    match, _ = Match.new(MatchOptions.match(7)).start_game()
    match, _ = match.roll_off(5, 3)
    match, events = match.forfeit(0, "timeout")
    assert [e.kind for e in events] == ["forfeited", "game_over", "game_scored", "match_over"]
    assert events[2] == GameScored(1, 1, 7, (0, 7))  # brought up to N, more than the 3 points
    assert events[3] == MatchOver(1, (0, 7), EndOfMatch.FORFEIT, 0)
    assert match.game.result.points == 3 and match.game.result.reason is EndReason.FORFEIT


def test_match_forfeit_scores_the_real_points_when_the_game_is_worth_more():
    match, _ = Match.new(MatchOptions.match(5)).start_game()
    game = Game.from_position(Position.start(), on_roll=0, cube=Cube(4, owner=1))
    match = replace(match, score=(3, 2), game=game)
    match, events = match.forfeit(0, "invalid_reveal")
    assert events[-2] == GameScored(1, 1, 12, (3, 14))  # backgammon x 4 beats 5 - 2
    assert match.winner == 1 and match.end is EndOfMatch.FORFEIT


def test_match_forfeit_between_games():
    match, _ = decide(Match.new(MatchOptions.match(5)), loser=1)  # 1-0
    match, events = match.forfeit(0, "abandoned")
    assert events == (MatchOver(1, (1, 5), EndOfMatch.FORFEIT, 0),)
    assert match.is_over and match.winner == 1
    fresh, events = Match.new(MatchOptions.match(3)).forfeit(1, "no_reveal")
    assert fresh.score == (3, 0) and fresh.game is None
    assert events == (MatchOver(0, (3, 0), EndOfMatch.FORFEIT, 1),)
    for bad in [(2, "timeout"), (0, "bored")]:
        with pytest.raises(MatchError):
            Match.new(MatchOptions.match(3)).forfeit(*bad)


def test_money_forfeit_loses_the_game_and_ends_the_session():
    match, _ = decide(Match.new(MatchOptions.money()), loser=0, level=2)  # 0-2
    match, _ = match.start_game()
    match, _ = match.roll_off(6, 1)
    match, events = match.forfeit(0, "timeout")
    assert events[-2] == GameScored(2, 1, 3, (0, 5))
    assert events[-1] == MatchOver(1, (0, 5), EndOfMatch.FORFEIT, 0)


def test_money_forfeit_between_games_just_ends_the_session():
    match, _ = decide(Match.new(MatchOptions.money()), loser=0)  # 0-1
    match, events = match.forfeit(1, "abandoned")
    assert events == (MatchOver(1, (0, 1), EndOfMatch.FORFEIT, 1),)  # the leader still wins


# ----------------------------------------------------------------------------- money


def test_money_session_runs_until_stopped():
    match = Match.new(MatchOptions.money())
    for loser in (0, 1, 1):
        match, _ = decide(match, loser)
        assert not match.is_over
    assert match.score == (2, 1) and match.game_number == 3
    match, _ = match.start_game()
    with pytest.raises(MatchError) as exc:
        match.stop(0)
    assert code_of(exc) == "game_in_progress"
    match, _ = match.roll_off(3, 1)
    match, _ = match.resign(0, 1)
    match, _ = match.accept_resignation(1)
    match, events = match.stop(1)
    assert events == (MatchOver(None, (2, 2), EndOfMatch.STOPPED, 1),)
    assert match.is_over and match.winner is None and match.ended_by == 1
    with pytest.raises(MatchError) as exc:
        match.start_game()
    assert code_of(exc) == "match_over"


def test_stop_and_start_refusals():
    with pytest.raises(MatchError) as exc:
        Match.new(MatchOptions.match(3)).stop(0)
    assert code_of(exc) == "not_money"
    with pytest.raises(MatchError) as exc:
        Match.new(MatchOptions.money()).stop(5)
    assert code_of(exc) == "bad_seat"
    match, _ = Match.new(MatchOptions.match(3)).start_game()
    with pytest.raises(MatchError) as exc:
        match.start_game()
    assert code_of(exc) == "game_in_progress"
    with pytest.raises(MatchError) as exc:
        Match.new(MatchOptions.match(3)).roll(0, 1, 2)
    assert code_of(exc) == "no_game"
    finished, _ = decide(Match.new(MatchOptions.match(3)), loser=0)
    with pytest.raises(MatchError) as exc:
        finished.roll(0, 1, 2)
    assert code_of(exc) == "no_game"
    assert finished.expected() is None
    assert isinstance(exc.value, GameError) and exc.value.code is ErrorCode.NO_GAME


def test_money_jacoby_flows_into_results():
    match, _ = decide(Match.new(MatchOptions.money(jacoby=True)), loser=1, level=3)
    assert match.game.result.jacoby and match.score == (1, 0)


# ------------------------------------------------------------------ random matches


def _check_match(options: MatchOptions, match: Match, events: list) -> None:
    overs = [e for e in events if isinstance(e, MatchOver)]
    assert len(overs) == 1 and events[-1] is overs[0] and match.is_over
    scored = [e for e in events if isinstance(e, GameScored)]
    games = [e for e in events if isinstance(e, GameOver)]
    starts = [e for e in events if isinstance(e, GameStarted)]
    assert len(scored) == len(games) == len(starts) == match.game_number
    totals = [0, 0]
    for start, over, score in zip(starts, games, scored, strict=True):
        assert tuple(totals) == start.score
        assert score.winner == over.result.winner
        forfeit = over.result.reason is EndReason.FORFEIT
        if options.mode is Mode.MATCH and forfeit:
            assert score.points >= over.result.points
        else:
            assert score.points == over.result.points
        totals[score.winner] += score.points
        assert tuple(totals) == score.score
    end = overs[0]
    if options.mode is Mode.MATCH and end.reason is not EndOfMatch.FORFEIT:
        assert max(totals) >= options.length > min(totals)
        assert end.winner == totals.index(max(totals))
    if end.reason is EndOfMatch.FORFEIT and options.mode is Mode.MATCH:
        assert end.score[end.winner] >= options.length
    # random play forfeits only during games, so every point went through a GameScored
    assert tuple(totals) == match.score == end.score
    # Crawford: exactly the first game after someone reached N-1, and no cube in it
    crawford_seen = False
    current_crawford = False
    for event in events:
        if isinstance(event, GameStarted):
            if options.mode is Mode.MATCH:
                away = options.length - 1
                due = not crawford_seen and (event.score[0] == away) != (event.score[1] == away)
                assert event.crawford == due
                crawford_seen |= due
            else:
                assert not event.crawford
            current_crawford = event.crawford
            assert event.cube == (options.mode is not Mode.SINGLE_GAME and not event.crawford)
        if isinstance(event, Doubled):
            assert not current_crawford and options.mode is not Mode.SINGLE_GAME


@settings(max_examples=12)
@given(
    st.integers(0, 2**32),
    st.sampled_from(
        [
            MatchOptions.single_game(),
            MatchOptions.match(1),
            MatchOptions.match(3),
            MatchOptions.match(5),
            MatchOptions.money(),
            MatchOptions.money(jacoby=True, beavers=True),
        ]
    ),
    st.sampled_from([0.0, 0.01]),
)
def test_random_matches_of_every_mode_run_to_the_end(seed, options, forfeit):
    rng = random.Random(seed)
    policy = Policy(double=0.08, resign=0.02)
    match, events = play_match(options, rng, policy, money_games=3, forfeit=forfeit)
    _check_match(options, match, events)
    if any(isinstance(e, Forfeited) for e in events):
        assert match.end is EndOfMatch.FORFEIT
