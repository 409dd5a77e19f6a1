"""Nackgammon and hypergammon against GNU Backgammon.

* Debian's ``gnubg`` (``gnubg -t -q -p script``, harness/gnubg.py) under ``set variation
  nackgammon`` / ``set variation 3-chequer-hypergammon``: its starting position after ``new
  session``, and for positions reached in random games, every candidate play — every
  sequence of single steps, complete or not, by our reference's step rules — submitted with
  gnubg's ``move`` command, which accepts exactly the plays its own generator lists. The plays
  gnubg accepts must be exactly our legal plays, reaching the same boards. The empty move
  checks the passes (gnubg plays on its own when it has at most one legal play).
* ``gnubg_nn`` (GNU Backgammon's C generator as a Python module, test-only) on thousands more
  positions, and perft from the start.

gnubg is part of the test setup: when it is missing the test fails.
"""

import functools

import gnubg_nn as gnubg
import pytest

from engine.position_id import encode
from engine.reference import apply_move, single_moves
from engine.variants import variant
from harness.gnubg import gnubg_command, variation_plays
from harness.variant_corpus import ROLLS, random_play_cases

VARIATIONS = {"nackgammon": "nackgammon", "hypergammon": "3-chequer-hypergammon"}


def candidates(position, d1: int, d2: int) -> dict:
    """Every position some sequence of one or more single steps reaches -> those steps."""
    found: dict = {}
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]

    def walk(pos, dice, moves):
        if moves:
            found.setdefault(pos, moves)
        if dice:
            for move in single_moves(pos, dice[0]):
                walk(apply_move(pos, move), dice[1:], (*moves, move))

    for order in orders:
        walk(position, order, ())
    return found


def notation(moves) -> str:
    square = {25: "bar", 0: "off"}
    return " ".join(f"{square.get(a, a)}/{square.get(b, b)}" for a, b in moves)


def boards(position) -> list:
    """gnubg's board after a move: [side that moved, side now on roll], points 1..24 + bar."""
    return [list(position.mover[1:26]), list(position.opponent[1:26])]


@functools.cache
def gnubg_run(name: str):
    assert gnubg_command() is not None, "gnubg is missing: apt-get install gnubg"
    v = variant(name)
    start = v.start()
    cases = [(start, d1, d2) for d1, d2 in ROLLS]  # every opening roll
    cases += random_play_cases(v, seed=31, n={"nackgammon": 120, "hypergammon": 250}[name],
                               games=20)
    rows, candidate_lists = [], []
    for position, d1, d2 in cases:
        found = candidates(position, d1, d2)
        candidate_lists.append(found)
        rows.append((encode(position), d1, d2, ["", *map(notation, found.values())]))
    gnubg_start, answers = variation_plays(VARIATIONS[name], rows)
    return cases, candidate_lists, gnubg_start, answers


@pytest.mark.parametrize("name", VARIATIONS)
def test_the_starting_position_is_gnubgs(name):
    start = variant(name).start()
    _, _, gnubg_start, _ = gnubg_run(name)
    assert gnubg_start["board"] == [list(start.opponent[1:26]), list(start.mover[1:26])]
    assert gnubg_start["id"] == encode(start)


@pytest.mark.parametrize("name", VARIATIONS)
def test_gnubg_accepts_exactly_our_legal_plays(name):
    v = variant(name)
    cases, candidate_lists, _, answers = gnubg_run(name)
    attempts = passes = 0
    for (position, d1, d2), found, answer in zip(cases, candidate_lists, answers, strict=True):
        where = (str(position), d1, d2)
        assert answer["set"], where
        auto, *accepted = answer["accepted"]
        assert len(accepted) == len(found), where
        legal = {play.position for play in v.legal_plays(position, d1, d2)}
        theirs = set()
        for result, board in zip(found, accepted, strict=True):
            if board is not None:
                assert board == boards(result), where  # the same position after the play
                theirs.add(result)
        assert theirs == legal, where
        attempts += len(found) + 1
        # The empty move: gnubg plays by itself exactly when it has at most one play.
        if not legal:
            passes += 1
            assert auto == boards(position), where  # the pass: nothing moved
        elif len(legal) == 1:
            assert auto == boards(next(iter(legal))), where
        else:
            assert auto is None, where
    assert attempts > {"nackgammon": 3000, "hypergammon": 2500}[name]


# -- gnubg_nn: GNU Backgammon's generator on many more positions ------------------------------


def gnubg_nn_results(position, d1: int, d2: int) -> set:
    keys = gnubg.moves((position.opponent[1:26], position.mover[1:26]), d1, d2)
    found = set()
    for key in keys:
        opponent, mover = gnubg.board_from_position_key(key)
        found.add((tuple(mover), tuple(opponent)))
    return found


@pytest.mark.parametrize("name", VARIATIONS)
def test_gnubg_nn_lists_the_same_plays(name):
    v = variant(name)
    cases = random_play_cases(v, seed=32, n=3000, games=200)
    assert len(cases) == 3000
    for position, d1, d2 in cases:
        ours = {(p.position.mover[1:26], p.position.opponent[1:26])
                for p in v.legal_plays(position, d1, d2)}
        assert ours == gnubg_nn_results(position, d1, d2), (str(position), d1, d2)


def perft(v, position, depth: int, children) -> int:
    if depth == 0:
        return 1
    total = 0
    for d1, d2 in ROLLS:
        results = children(v, position, d1, d2) or [position]
        total += sum(perft(v, child.swapped(), depth - 1, children) for child in results)
    return total


def gnubg_children(v, position, d1, d2):
    out = []
    for mover, opponent in sorted(gnubg_nn_results(position, d1, d2)):
        home = v.checkers - sum(mover), v.checkers - sum(opponent)
        out.append(position.__class__.unchecked((home[0], *mover), (home[1], *opponent)))
    return out


@pytest.mark.parametrize(("name", "expected"), [("nackgammon", 324_161), ("hypergammon", 38_017)])
def test_perft_depth_2_is_gnubgs(name, expected):
    v = variant(name)
    assert perft(v, v.start(), 2, gnubg_children) == expected
