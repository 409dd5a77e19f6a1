"""Resignations are judged: one that gives away more than the position is worth is an error of
the difference (issue #26: a resignation in a position its player could not lose was accepted
and ignored), and so is the answer to one — accepting less than the position is worth, or
refusing more. Bear-offs, where the nets' bear-off database is exact, so the verdicts are known
in advance: money and match play, before and after rolling, and the deeper pass takes them over
from the 1-ply one."""

from __future__ import annotations

import pytest

from analysis.core import BLUNDER, analyse
from analysis.equity import DeepEvaluator, Evaluator
from analysis.game import GameInput
from analysis.report import to_json
from engine.match import Mode
from engine.position import Position
from engine.turns import Turn, TurnKind

# The resigner (seat 0) on roll bears its last checker off with any roll, and the opponent has
# borne none off: a sure gammon for the resigner.
CANNOT_LOSE = Position.from_points({1: 1}, {6: 15})
# The resigner loses, a gammon unless its roll bears a checker off: 17 rolls of 36 do (any 6,
# 5-1, 4-2, 3-3, 2-2), so playing on is worth -(1 + 19/36) a cube.
GAMMON_RISK = Position.from_points({6: 15}, {1: 1})
GAMMON_CHANCE = 19 / 36


def game(position: Position, answer: TurnKind, mode: Mode = Mode.MONEY, length: int = 0,
         level: int = 1, rolled: tuple[int, int] | None = None) -> GameInput:
    """Seat 0 resigns at ``level`` in ``position`` and seat 1 answers."""
    resign = Turn(0, TurnKind.RESIGN, None, (), "resigns", position, position, 1, None, level,
                  rolled=rolled)
    reply = Turn(1, answer, None, (), "answers", position.swapped(), position.swapped(), 1, None,
                 level)
    result = (1, level) if answer is TurnKind.ACCEPT else None
    return GameInput((resign, reply), mode, length, (0, 0), False, result=result)


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    return Evaluator()


def test_resigning_a_won_game_is_a_blunder_of_what_it_gives_away(evaluator) -> None:
    report = analyse(game(CANNOT_LOSE, TurnKind.ACCEPT), evaluator)
    resign, accept = report.turns
    # Playing on wins a gammon (+2); the resignation loses a single (−1): 3 points a cube.
    assert resign.equity_lost == pytest.approx(3.0, abs=0.02)
    assert resign.best_action == "play_on" and resign.mark == "blunder"
    assert accept.equity_lost == 0.0 and accept.best_action == "accept"
    ann, bob = report.players
    assert (ann.resign_decisions, ann.decisions, bob.resign_decisions) == (1, 1, 1)
    assert ann.resign_error == ann.total_error == resign.equity_lost
    assert ann.blunders == 1 and ann.checker_error == 0.0 and ann.cube_error == 0.0
    shown = to_json(report)
    assert shown["players"][0]["resign_decisions"] == 1
    assert shown["players"][0]["resign_error"] == pytest.approx(3.0, abs=0.02)
    assert shown["turns"][0]["mark"] == "blunder"


def test_after_rolling_the_roll_counts(evaluator) -> None:
    report = analyse(game(CANNOT_LOSE, TurnKind.ACCEPT, rolled=(6, 5)), evaluator)
    assert report.turns[0].equity_lost == pytest.approx(3.0, abs=0.02)


def test_resigning_less_than_a_lost_game_is_right_and_accepting_it_is_not(evaluator) -> None:
    accepted = analyse(game(GAMMON_RISK, TurnKind.ACCEPT), evaluator)
    resign, accept = accepted.turns
    assert resign.equity_lost == 0.0 and resign.best_action == "resign"
    # Accepting a single from a player who is gammoned 19 times in 36 gives that away.
    assert accept.equity_lost == pytest.approx(GAMMON_CHANCE, abs=1e-9)
    assert accept.mark == "blunder" and accept.best_action == "reject"
    rejected = analyse(game(GAMMON_RISK, TurnKind.REJECT), evaluator)
    assert rejected.turns[1].equity_lost == 0.0 and rejected.turns[1].best_action == "reject"
    # A gammon offered gives away the 17 times in 36 the resigner saves it; accepting is right.
    gammon = analyse(game(GAMMON_RISK, TurnKind.ACCEPT, level=2), evaluator)
    assert gammon.turns[0].equity_lost == pytest.approx(1 - GAMMON_CHANCE, abs=1e-9)
    assert gammon.turns[1].equity_lost == 0.0 and gammon.turns[1].best_action == "accept"


def test_in_match_play_the_units_are_the_match_s(evaluator) -> None:
    # 5-away/5-away: the won gammon is worth more than +1 EMG; a resigned single is −1 exactly.
    report = analyse(game(CANNOT_LOSE, TurnKind.ACCEPT, Mode.MATCH, 5), evaluator)
    assert report.turns[0].equity_lost > 2.0 and report.turns[0].mark == "blunder"
    # A match to 1: a gammon counts for no more than a single; giving a single away still
    # costs the whole match.
    one = analyse(game(CANNOT_LOSE, TurnKind.ACCEPT, Mode.MATCH, 1), evaluator)
    assert one.turns[0].equity_lost == pytest.approx(2.0, abs=0.02)


def test_the_deeper_pass_takes_the_verdicts_over(evaluator) -> None:
    for answer in (TurnKind.ACCEPT, TurnKind.REJECT):
        g = game(GAMMON_RISK, answer)
        shallow = analyse(g, evaluator)
        deep = DeepEvaluator(evaluator.nets)
        assert analyse(g, deep, basis=shallow.basis()) == analyse(g, deep)
        assert shallow.turns[1].equity_lost >= BLUNDER or answer is TurnKind.REJECT
