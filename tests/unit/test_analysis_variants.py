"""The analysis of the variants' games: nackgammon and portes are analysed as backgammon is,
their turns starting from the variant's own start (portes without the cube); plakoto, fevga
and hypergammon are not, with a typed reason (docs/analysis.md, "Variants")."""

from __future__ import annotations

import pytest

from analysis.core import analyse
from analysis.equity import Evaluator
from analysis.game import ANALYSED, GameInput, NotAnalysed, check_analysed
from engine.match import Match, MatchOptions
from engine.record import MatchRecord
from engine.turns import TurnKind
from engine.variants import NAMES, rules, variant
from harness.analysis import constructed_game


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    return Evaluator()


@pytest.mark.parametrize(("name", "options"), [
    ("nackgammon", MatchOptions.single_game(rules("nackgammon"))),
    ("portes", MatchOptions.match(3, rules("portes"))),
])
def test_a_game_is_analysed_from_its_own_start(evaluator, name, options):
    """Seat 0 plays the nets' best 1-ply play, seat 1 at random: the 1-ply analysis finds no
    error of seat 0's and many of seat 1's, which it could not if it replayed the game from
    backgammon's start (the plays would not be the ones it ranks)."""
    record, given = constructed_game(("best", "random"), 4, evaluator, options)
    game = record.games[0]
    check_analysed(game)
    moves = [t for t in given.turns if t.action is TurnKind.MOVE]
    assert moves[0].before == variant(name).start()
    report = analyse(given, evaluator)
    best, rand = report.players
    assert best.checker_decisions > 5 and best.total_error == pytest.approx(0, abs=1e-9)
    assert rand.errors + rand.blunders > 3
    if name == "portes":  # no cube in portes: never a cube decision, even in a match
        assert not given.cube and best.cube_decisions == rand.cube_decisions == 0


@pytest.mark.parametrize("name", ["plakoto", "fevga", "hypergammon"])
def test_other_variants_are_not_analysed_and_say_why(name):
    options = MatchOptions.single_game(rules(name))
    record = MatchRecord.from_events(options, ("A", "B"), Match.new(options).start_game()[1])
    game = record.games[0]
    with pytest.raises(NotAnalysed) as refused:
        check_analysed(game)
    assert refused.value.reason == "variant" and refused.value.variant == name
    assert str(refused.value).startswith(f"no analysis for {name}")
    assert GameInput.of(record, game).variant == name  # the record itself still reads


def test_the_analysed_variants_are_variants():
    assert set(NAMES) >= ANALYSED and "tavli" not in ANALYSED
