"""The analysis on constructed games: a player who always makes the worst play is shown far
worse than one who always makes the best; forced plays cost nothing and are not decisions; the
luck of all 36 rolls from a position averages to zero; a wrong take is charged what it gives
away; results are reproducible."""

from __future__ import annotations

import json

import pytest

from analysis.core import BLUNDER, GameReport, analyse, context_of, luck_of
from analysis.equity import Evaluator
from analysis.game import GameInput
from analysis.report import to_json
from engine.match import MatchOptions, Mode
from engine.position import Position
from engine.turns import Turn, TurnKind
from harness.analysis import analysed_games

# (policies, seed, options, double rate): short games (the worst player loses fast).
GAMES = {
    "money": (("best", "worst"), 1, MatchOptions.money(), 0.0),
    "match": (("worst", "best"), 2, MatchOptions.match(5), 0.15),
}


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    return Evaluator()


@pytest.fixture(scope="module")
def games(evaluator: Evaluator) -> dict[str, tuple[GameInput, GameReport]]:
    """Each game with its 1-ply report."""
    return analysed_games(evaluator, GAMES)


@pytest.mark.parametrize("name", list(GAMES))
def test_always_worst_is_far_worse_than_always_best(games, name: str) -> None:
    seats = GAMES[name][0]
    report = to_json(games[name][1])
    best = report["players"][seats.index("best")]
    worst = report["players"][seats.index("worst")]
    # The best player's plays are the nets' own choice: no checker error at all (its cube
    # decisions are another matter: these players never double on purpose).
    assert best["checker_error"] == 0
    assert worst["checker_error"] / worst["checker_decisions"] > 0.150, worst
    assert worst["error_rate"] > 3 * best["error_rate"], (worst, best)
    assert worst["blunders"] >= worst["checker_decisions"] // 3, worst
    assert worst["pr"] == pytest.approx(worst["error_rate"] / 2, abs=0.1)
    # The marks in the turns agree with the totals.
    for p in (best, worst):
        marked = [t for t in report["turns"] if t["seat"] == p["seat"] and t["mark"]]
        assert len(marked) == p["blunders"] + p["errors"]
    assert all(t["best"] != t["played"] for t in report["turns"]
               if t["seat"] == worst["seat"] and t["action"] == "move" and t["equity_lost"])


def test_forced_plays_cost_nothing_and_are_not_decisions(games) -> None:
    forced = [t for _, report in games.values() for t in report.turns if t.forced]
    assert forced, "no forced play in the constructed games"
    assert all(t.equity_lost == 0 for t in forced)
    for _, report in games.values():
        for seat in (0, 1):
            unforced = [t for t in report.turns
                        if t.seat == seat and t.action is TurnKind.MOVE and not t.forced]
            assert report.players[seat].checker_decisions == len(unforced)
        # A roll that could not be played is forced, with its luck still counted.
        for t in report.turns:
            if t.action is TurnKind.PASS:
                assert t.forced and t.equity_lost == 0 and t.luck is not None


@pytest.mark.parametrize("opening", [False, True])
def test_luck_of_all_rolls_averages_to_zero(evaluator: Evaluator, games, opening: bool) -> None:
    game = games["money"][0]
    positions = [Position.start()] if opening else [t.before for t in game.turns[3::7]]
    ctx = context_of(game, 0, 1, None)
    for position in positions:
        outcomes = evaluator.all_rolls(position, ctx, opening=opening)
        assert sum(o.weight for o in outcomes) == (30 if opening else 36)
        luck = [luck_of(outcomes, o.d1, o.d2) * o.weight for o in outcomes]
        assert abs(sum(luck)) < 1e-9
        assert max(luck) > 0 > min(luck)  # some rolls are lucky, some are not


def test_a_take_of_a_dead_lost_double_costs_what_it_gives_away(evaluator: Evaluator) -> None:
    # Seat 0 bears off its last two checkers with any roll; seat 1 has one checker off: a
    # certain single win. Doubling then gives up nothing (a drop gives the same point); taking
    # costs the second point.
    doubler = Position.from_points({1: 2}, {1: 5, 2: 5, 3: 4})
    taker = doubler.swapped()
    double = Turn(0, TurnKind.DOUBLE, None, (), "doubles to 2", doubler, doubler, 1, None, 2, 1)
    take = Turn(1, TurnKind.TAKE, None, (), "takes", taker, taker, 1, None, 2, 2, 1)
    drop = Turn(1, TurnKind.DROP, None, (), "drops", taker, taker, 1, None, 1, 1, None)
    report = analyse(GameInput((double, take), Mode.MONEY, 0, (0, 0), False), evaluator)
    doubled, taken = report.turns
    assert doubled.equity_lost == pytest.approx(0.0, abs=1e-6)
    assert taken.best_action == "drop"
    assert taken.equity_lost == pytest.approx(1.0, abs=1e-3)
    assert taken.mark == "blunder" and taken.equity_lost >= BLUNDER
    assert report.players[1].cube_decisions == 1 and report.players[1].blunders == 1
    dropped = analyse(GameInput((double, drop), Mode.MONEY, 0, (0, 0), False), evaluator)
    assert dropped.turns[1].equity_lost == pytest.approx(0.0, abs=1e-6)


def test_results_are_reproducible(evaluator: Evaluator, games) -> None:
    game, first = games["match"]
    again = analyse(game, Evaluator())
    assert json.dumps(to_json(first), sort_keys=True) == json.dumps(to_json(again), sort_keys=True)
    report = to_json(first)
    assert report["status"] == "done" and report["level"] == "1-ply"
    assert len(report["turns"]) == len(game.turns)
    assert any(t["action"] == "double" for t in report["turns"])
    assert any(t["cube_lost"] is not None for t in report["turns"])
    # Luck sums per player; the luck-adjusted results sum to zero like the results.
    for p in report["players"]:
        rolls = [t["luck"] for t in report["turns"] if t["seat"] == p["seat"] and t["luck"]]
        assert p["luck"] == pytest.approx(sum(rolls), abs=0.01)
    assert sum(p["luck_adjusted"] for p in report["players"]) == pytest.approx(0, abs=0.01)
