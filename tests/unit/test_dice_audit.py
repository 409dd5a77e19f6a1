"""The dice audit (``analysis.dice_audit``): on seeded games, the counts equal a recount made
another way (the dice of the record's roll events; bar entry and hits by enumerating the 36
rolls and reading the moves), the expectations are fair dice's, and the chi-square is Pearson's
with its p-value."""

from __future__ import annotations

import random

import pytest

from analysis.dice_audit import ROLLS, audit, entry_chance, hit_chance, player_rolls
from analysis.equity import Evaluator
from engine.match import MatchOptions
from engine.movegen import legal_plays
from engine.position import BAR, Position
from engine.turns import game_turns
from harness.analysis import constructed_game
from protocol.fairdice.stats import chi2_sf


@pytest.fixture(scope="module")
def games():
    evaluator = Evaluator()
    return [game_turns(constructed_game(("random", "random"), seed, evaluator,
                                        MatchOptions.single_game())[0].games[0])
            for seed in range(4)]


def _hits_by_moves(position: Position, d1: int, d2: int) -> bool:
    for play in legal_plays(position, d1, d2):
        board = list(position.opponent)
        for origin, to in play.moves:
            if 1 <= to <= 24 and board[25 - to] == 1:
                return True
            del origin
    return False


def test_counts_match_a_recount(games) -> None:
    rolls = player_rolls(games, 0)
    faces, doubles = [0] * 6, 0
    for turns in games:
        dice_turns = [t for t in turns if t.dice is not None]
        assert dice_turns[0].dice[0] != dice_turns[0].dice[1]  # the opening roll: no doubles
        for t in dice_turns[1:]:
            if t.seat == 0:
                faces[t.dice[0] - 1] += 1
                faces[t.dice[1] - 1] += 1
                doubles += t.dice[0] == t.dice[1]
    tables = {t.name: t for t in audit(rolls)}
    n = len(rolls)
    assert n > 40 and sum(faces) == 2 * n
    assert tables["faces"].observed == tuple(faces)
    assert tables["faces"].expected == (n / 3,) * 6
    assert tables["doubles"].observed == (doubles, n - doubles)
    for t in tables.values():
        expected_chi2 = sum((o - e) ** 2 / e for o, e in zip(t.observed, t.expected, strict=True)
                            if e > 0)
        assert t.chi2 == pytest.approx(expected_chi2)
        assert t.p == pytest.approx(chi2_sf(t.chi2, t.df))
        per_roll = 2 if t.name == "faces" else 1  # faces counts dice, two a roll
        assert sum(t.observed) == per_roll * t.rolls
        assert sum(t.expected) == pytest.approx(per_roll * t.rolls)
    assert tables["entering"].rolls > 0 and tables["hits"].rolls > 10


def test_entry_and_hit_chances_by_enumeration(games) -> None:
    rng = random.Random(5)
    turns = [t for g in games for t in g if t.dice is not None]
    for t in rng.sample(turns, 25):
        p = t.before
        if p.mover[BAR]:
            enters = sum(any(m[0] == BAR for pl in legal_plays(p, a, b) for m in pl.moves)
                         for a, b in ROLLS)
            assert entry_chance(p) == pytest.approx(enters / 36)
        assert hit_chance(p) == pytest.approx(sum(_hits_by_moves(p, a, b) for a, b in ROLLS) / 36)
