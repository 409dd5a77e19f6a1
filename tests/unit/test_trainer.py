"""The trainer (``analysis.trainer``): a player's errors in analysed games become puzzles that
the analysis board can set up, graded against the analysis; spaced repetition brings a puzzle
back until solved twice, in due order; streak and rating follow the answers."""

from __future__ import annotations

import pytest

from analysis.board import setup_from_ids
from analysis.core import analyse
from analysis.equity import Evaluator
from analysis.report import to_json
from analysis.trainer import (
    AGAIN_S,
    LATER_S,
    THRESHOLD,
    Progress,
    Puzzle,
    answer,
    due,
    grade,
    puzzles_of,
    retired,
)
from engine import position_id
from engine.match import MatchOptions
from engine.movegen import legal_plays
from engine.turns import TurnKind, game_turns
from harness.analysis import constructed_game


@pytest.fixture(scope="module")
def game():
    evaluator = Evaluator()
    record, game_input = constructed_game(("random", "random"), 1, evaluator,
                                          MatchOptions.money(), 0.3, 0.4)
    report = to_json(analyse(game_input, evaluator))
    return record, report


def test_errors_become_puzzles_the_board_sets_up(game) -> None:
    record, report = game
    turns = game_turns(record.games[0])
    puzzles = puzzles_of("m/1", turns, report, 0, length=0, score=(0, 0), crawford=False)
    # Every error of seat 0 is a puzzle; none of seat 1's.
    errors = [i for i, (t, r) in enumerate(zip(turns, report["turns"], strict=False))
              if t.seat == 0 and max(r["equity_lost"] or 0, r["cube_lost"] or 0) >= THRESHOLD
              and t.action in (TurnKind.MOVE, TurnKind.DOUBLE, TurnKind.TAKE, TurnKind.DROP)]
    assert len(errors) >= 5
    assert sorted(int(p.source.rsplit("/", 1)[1]) for p in puzzles) == errors
    assert len({p.id for p in puzzles}) == len(puzzles)
    assert puzzles_of("m/1", turns, report, 0, length=0, score=(0, 0), crawford=False) == puzzles
    for p in puzzles:
        setup = setup_from_ids(p.position_id, p.match_id)  # the board takes it as it is
        assert p.error >= THRESHOLD
        if p.kind == "play":
            assert setup.dice == p.dice
            results = {position_id.encode(x.position) for x in legal_plays(setup.position, *p.dice)}
            assert p.best in results and p.played in results and p.best != p.played
            assert grade(p, p.best) and not grade(p, p.played)
        else:
            assert setup.dice is None and p.best != p.played
            assert grade(p, p.best) and not grade(p, p.played)
    assert {p.kind for p in puzzles} == {"play", "cube"}
    assert {p.best for p in puzzles if p.kind == "cube"} == {"no_double", "pass"}


def _puzzle(name: str, error: float = 0.1) -> Puzzle:
    return Puzzle(name, "cube", "", "", None, "double", "double", "no_double", "no double",
                  error, name)


def test_spaced_repetition_order_streak_and_rating() -> None:
    a, b, c = _puzzle("a"), _puzzle("b"), _puzzle("c", 0.4)
    progress = Progress()
    assert due(progress, [a, b, c], 0) == [a, b, c]  # new ones, in the order met
    progress, right = answer(progress, a, "pass", 0)  # wrong: back after a minute
    assert not right and progress.streak == 0 and progress.rating < 1500
    assert due(progress, [a, b, c], 10) == [b, c]
    assert due(progress, [a, b, c], AGAIN_S) == [a, b, c]  # due first, then new
    progress, right = answer(progress, b, "double", 20)  # right once: back tomorrow
    assert right and progress.streak == 1
    assert due(progress, [a, b, c], 100) == [a, c]
    progress, _ = answer(progress, c, "double", 30)
    assert progress.streak == 2 and progress.best_streak == 2
    # c, the harder puzzle, was due later than b: b comes first the next day.
    assert due(progress, [a, b, c], 30 + LATER_S) == [a, b, c]
    progress, _ = answer(progress, b, "double", 40 + LATER_S)  # solved twice: retired
    assert retired(progress, "b") and b not in due(progress, [a, b, c], 10 * LATER_S)
    progress, _ = answer(progress, c, "no_double", 50 + LATER_S)  # wrong: solves back to 0
    assert progress.streak == 0 and progress.best_streak == 3
    assert progress.entries["c"].solves == 0 and not retired(progress, "c")
    assert Progress.of(progress.as_dict()) == progress
    assert progress.answered == 5
    # The rating rises more for the harder puzzle.
    easy, _ = answer(Progress(), _puzzle("e", 0.05), "double", 0)
    hard, _ = answer(Progress(), _puzzle("h", 0.3), "double", 0)
    assert hard.rating > easy.rating > 1500


def test_board_ids_of_every_decision_of_a_match_set_it_up() -> None:
    """The replay's 'open in the analysis board' (record.json's ``board``): each play, pass
    and cube action of a 5-point match is set up with its score, Crawford game, cube and
    dice, and the play made is one of the board's legal plays."""
    import random

    from analysis.game import GameInput
    from analysis.trainer import board_ids
    from engine.record import MatchRecord
    from harness.random_play import Policy, play_match

    options = MatchOptions.match(5)
    _, events = play_match(options, random.Random(3), Policy(double=0.1, take=0.6))
    record = MatchRecord.from_events(options, ("Ann", "Bob"), tuple(events))
    seen: dict[str, int] = {}
    scores = set()
    for game in record.games:
        given = GameInput.of(record, game)
        for turn in game_turns(game):
            ids = board_ids(turn, length=given.length, score=given.score,
                            crawford=given.crawford)
            if turn.action not in (TurnKind.MOVE, TurnKind.PASS, TurnKind.DOUBLE,
                                   TurnKind.TAKE, TurnKind.DROP):
                assert ids is None
                continue
            assert ids is not None
            seen[turn.action.value] = seen.get(turn.action.value, 0) + 1
            setup = setup_from_ids(*ids)
            key = setup.key
            assert (key.length, key.score, key.crawford, key.cube, key.cube_owner) == (
                5, given.score, given.crawford, turn.cube, turn.owner)
            scores.add(given.score)
            if turn.action in (TurnKind.TAKE, TurnKind.DROP):
                assert key.doubled and key.turn == turn.seat and setup.dice is None
                assert setup.position == turn.before.swapped()
                continue
            assert setup.position == turn.before and key.turn == turn.seat
            if turn.action is TurnKind.DOUBLE:
                assert setup.dice is None and not key.doubled
                continue
            assert setup.dice == (max(turn.dice), min(turn.dice))
            legal = {p.moves for p in legal_plays(setup.position, *setup.dice)}
            assert turn.moves in legal or (turn.action is TurnKind.PASS and not legal)
    assert len(scores) > 2 and seen.get("move", 0) > 50
    assert seen.get("double", 0) and seen.get("take", 0) + seen.get("drop", 0)


def test_cube_quizzes_at_the_match_score_met() -> None:
    """In match play every other cube decision the analysis judged (a double, take or pass
    however good; a roll where doubling was right or close) is a cube quiz at that score."""
    from analysis.trainer import state_of

    evaluator = Evaluator()
    record, game_input = constructed_game(("random", "random"), 4, evaluator,
                                          MatchOptions.match(7), 0.3, 0.3)
    report = to_json(analyse(game_input, evaluator))
    turns = game_turns(record.games[0])
    for seat in (0, 1):
        puzzles = puzzles_of("m/1", turns, report, seat, length=7, score=(2, 4), crawford=False)
        quizzes = [p for p in puzzles if p.quiz]
        expected = []
        for i, (t, r) in enumerate(zip(turns, report["turns"], strict=False)):
            if t.seat != seat:
                continue
            if t.action is TurnKind.MOVE and r["best_action"] in ("double", "no_double"):
                if (r["cube_lost"] or 0) < THRESHOLD and (r["equity_lost"] or 0) < THRESHOLD:
                    expected.append(i)
            elif (t.action in (TurnKind.DOUBLE, TurnKind.TAKE, TurnKind.DROP)
                  and r["equity_lost"] < THRESHOLD):
                expected.append(i)
        assert sorted(int(p.source.rsplit("/", 1)[1]) for p in quizzes) == expected
        for p in quizzes:
            setup = setup_from_ids(p.position_id, p.match_id)
            assert p.kind == "cube" and setup.dice is None and setup.key.length == 7
            assert grade(p, p.best) and p.error < THRESHOLD
            wrong = {"double": "no_double", "no_double": "double", "take": "pass",
                     "pass": "take"}[p.best]
            assert not grade(p, wrong)
            state = state_of(p.match_id)
            assert state["length"] == 7 and state["score"] == ([2, 4] if seat == 0 else [4, 2])
            assert p.as_dict()["quiz"] is True
        # Money play has no quizzes: only the errors.
        money = puzzles_of("m/1", turns, report, seat, length=0, score=(0, 0), crawford=False)
        assert not any(p.quiz for p in money)
    both = [p for seat in (0, 1) for p in puzzles_of("m/1", turns, report, seat, length=7,
                                                     score=(2, 4), crawford=False) if p.quiz]
    assert len(both) >= 4 and {p.best for p in both} >= {"take"}
