"""The deeper analysis on the 1-ply report's basis (its luck and cube figures, unrounded) gives
exactly the report of the full deeper analysis, field for field, while it neither scores all
21 rolls of a turn nor asks for cube advice: of each roll only the roll that came is scored.

The nets keep a cache of their 2-ply evaluations, so the full and the reusing analyses each
run on nets of their own, loaded for them: neither reads what the other computed."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace

import pytest

from analysis.core import Basis, GameReport, analyse
from analysis.equity import DeepEvaluator, Evaluator
from analysis.game import GameInput
from analysis.report import to_json
from brain.nets import Nets
from engine.match import MatchOptions
from engine.turns import TurnKind
from harness.analysis import analysed_games

# (policies, seed, options, double, drop, beaver rates): between them doubles, takes, drops,
# beavers, passes, forced plays, cube decisions before rolls, money with and without the Jacoby
# rule, a match, and a single game with the cube dead.
GAMES = {
    "money best": (("best", "best"), 1002, MatchOptions.money(), 0.03, 0.0, 0.0),
    "money beavers": (("random", "random"), 5, MatchOptions.money(beavers=True),
                      0.1, 0.3, 0.5),
    "money jacoby": (("random", "best"), 4, MatchOptions.money(jacoby=True, beavers=True),
                     0.1, 0.2, 0.5),
    "match": (("random", "random"), 2, MatchOptions.match(5), 0.1, 0.3, 0.0),
    "single": (("random", "random"), 3, MatchOptions.single_game(), 0.0, 0.0, 0.0),
}


class Counting(DeepEvaluator):
    """The deeper evaluator, counting what it is asked."""

    def __init__(self, nets: Nets) -> None:
        super().__init__(nets)
        self.calls: Counter[str] = Counter()

    def all_rolls(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls["all_rolls"] += 1
        return super().all_rolls(*args, **kwargs)

    def roll(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls["roll"] += 1
        return super().roll(*args, **kwargs)

    def cube(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls["cube"] += 1
        return super().cube(*args, **kwargs)

    def judge(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        self.calls["judge"] += 1
        return super().judge(*args, **kwargs)


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    return Evaluator()


@pytest.fixture(scope="module")
def games(evaluator: Evaluator) -> dict[str, tuple[GameInput, GameReport]]:
    """Each game with its 1-ply report."""
    return analysed_games(evaluator, GAMES)


def recorder(calls: list[tuple[int, int]]):  # type: ignore[no-untyped-def]
    return lambda done, total: calls.append((done, total))


@pytest.fixture(scope="module")
def deeper(games) -> dict[str, tuple[tuple, tuple]]:  # type: ignore[no-untyped-def]
    """Each game analysed deeper in full and on its 1-ply basis, each on nets of its own:
    (report, progress calls, evaluator calls) for both."""
    full_nets, reuse_nets = Nets(), Nets()
    out = {}
    for name, (game, shallow) in games.items():
        runs = []
        for nets, basis in ((full_nets, None), (reuse_nets, shallow.basis())):
            counting = Counting(nets)
            progress: list[tuple[int, int]] = []
            report = analyse(game, counting, recorder(progress), basis)
            runs.append((report, progress, counting.calls))
        out[name] = tuple(runs)
    return out


def test_the_games_cover_every_cube_path(games) -> None:
    actions = Counter(t.action for game, _ in games.values() for t in game.turns)
    for kind in (TurnKind.MOVE, TurnKind.PASS, TurnKind.DOUBLE, TurnKind.TAKE, TurnKind.DROP,
                 TurnKind.BEAVER):
        assert actions[kind] > 0, kind
    turns = [t for _, report in games.values() for t in report.turns]
    assert any(t.forced and t.action is TurnKind.MOVE for t in turns)
    assert {t.best_action for t in turns if t.cube_lost is not None} == {"double", "no_double"}
    assert {t.best_action for t in turns if t.action is TurnKind.DOUBLE} == {
        "double", "no_double"}
    assert {t.best_action for t in turns
            if t.action in (TurnKind.TAKE, TurnKind.DROP, TurnKind.BEAVER)} >= {"take", "drop"}
    assert any(t.mark == "blunder" for t in turns)


@pytest.mark.parametrize("name", list(GAMES))
def test_reuse_gives_the_full_deeper_report(deeper, games, name: str) -> None:
    (full, full_progress, full_calls), (reused, progress, calls) = deeper[name]
    game, shallow = games[name]
    assert full.level == reused.level == "2-ply"
    # Field for field, unrounded: every turn, both players (counts, errors, luck, result).
    assert reused.turns == full.turns
    assert reused.players == full.players
    assert reused == full
    assert json.dumps(to_json(reused)) == json.dumps(to_json(full))
    assert progress == full_progress and progress
    # The deeper report did judge plays anew: some turn differs from the 1-ply one.
    assert reused.turns != shallow.turns
    # The full analysis scored every roll of every turn and asked for cube advice; the reuse
    # scored only the rolls that came and asked for none.
    rolls = sum(1 for t in game.turns if t.action in (TurnKind.MOVE, TurnKind.PASS))
    assert full_calls["all_rolls"] == rolls and full_calls["roll"] > 14 * rolls
    assert full_calls["cube"] > 0 or name == "single"
    assert calls["all_rolls"] == 0 and calls["cube"] == 0
    assert calls["roll"] == rolls
    assert calls["judge"] == full_calls["judge"]


def test_a_basis_of_another_analysis_is_refused(evaluator: Evaluator, games) -> None:
    game, shallow = games["money beavers"]
    basis = shallow.basis()
    deep = DeepEvaluator(evaluator.nets)
    with pytest.raises(ValueError, match="2-ply basis"):
        analyse(game, deep, basis=replace(basis, level="2-ply"))
    with pytest.raises(ValueError, match="turns"):
        analyse(game, deep, basis=Basis(basis.level, basis.turns[:-1]))
    wrong = (replace(basis.turns[0], action=TurnKind.DOUBLE), *basis.turns[1:])
    with pytest.raises(ValueError, match="turn 0: the basis has a double, the game a move"):
        analyse(game, deep, basis=Basis(basis.level, wrong))


def test_the_1ply_analysis_on_its_own_basis_is_itself(evaluator: Evaluator, games) -> None:
    game, shallow = games["match"]
    assert analyse(game, evaluator, basis=shallow.basis()) == shallow
