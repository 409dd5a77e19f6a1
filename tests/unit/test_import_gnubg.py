"""GNU Backgammon's own files import: Debian's ``gnubg`` plays itself (two matches and a money
session with the Jacoby rule and beavers), writes each as ``.mat`` and as ``.sgf``, and both files
must import through the engine to the games gnubg says were played.

The two files of one match are written by different code in gnubg and read by different code
here (:mod:`engine.importer.mat`, :mod:`engine.importer.sgf`): they must give the same games,
play for play. Each game's winner, points and number of turns must be gnubg's own, and an
imported game must analyse like one of ours. gnubg is part of the test setup: when it is
missing the test fails.
"""

from __future__ import annotations

import pytest

from analysis.core import analyse
from analysis.equity import Evaluator
from analysis.game import GameInput
from engine.events import Moved, Passed
from engine.importer import read_match
from engine.match import Mode
from harness.gnubg import gnubg_command, self_play
from harness.import_samples import essentials

PLANS = [
    {"names": ["Alice", "Bob Lee"], "seed": 1, "length": 5},
    {"names": ["Carl", "Dora"], "seed": 2, "length": 3},
    {"names": ["Eve", "Finn"], "seed": 3, "length": 0, "games": 3, "jacoby": True,
     "beavers": True},
]


@pytest.fixture(scope="module")
def played() -> list[dict]:
    assert gnubg_command() is not None, "gnubg is missing: apt-get install gnubg"
    return self_play(PLANS)


@pytest.mark.parametrize("index", range(len(PLANS)))
def test_gnubg_mat_and_sgf_import_to_the_games_gnubg_played(played, index):
    plan, files = PLANS[index], played[index]
    from_mat = read_match(files["mat"], format="mat").record
    from_sgf = read_match(files["sgf"], format="sgf").record
    assert from_mat.names == from_sgf.names == tuple(plan["names"])
    # The two files, two parsers: the same games, play for play.
    assert essentials(from_mat)[2] == essentials(from_sgf)[2]
    assert from_sgf.options.mode is (Mode.MATCH if plan["length"] else Mode.MONEY)
    if not plan["length"]:
        assert from_sgf.options.jacoby  # SGF says RU[Jacoby]; the .mat says nothing
    gnubg_games = files["games"]
    assert len(from_sgf.games) == len(gnubg_games)
    for game, theirs in zip(from_sgf.games, gnubg_games, strict=True):
        assert list(game.score) == theirs["score"]
        assert game.result is not None
        assert "XO"[game.result.winner] == theirs["winner"]
        assert game.result.points == theirs["points"]
        assert (game.result.reason.value == "resign") == bool(theirs["resigned"])
        turns = sum(isinstance(e, Moved | Passed) for e in game.events)
        assert turns == theirs["moves"]
    if plan["length"]:
        assert from_sgf.end is not None and max(from_sgf.end.score) >= plan["length"]


def test_an_imported_game_analyses(played):
    record = read_match(played[1]["sgf"]).record
    game = record.games[0]
    report = analyse(GameInput.of(record, game), Evaluator())
    rolls = sum(isinstance(e, Moved | Passed) for e in game.events)
    assert sum(p.rolls for p in report.players) == rolls
    assert report.players[game.result.winner].result > 0
