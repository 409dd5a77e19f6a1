"""The dice audit (``analysis.dice_audit``): on seeded games, the counts equal a recount made
another way (the dice of the record's roll events; bar entry and hits by enumerating the 36
rolls and reading the moves), the expectations are fair dice's, and the chi-square is Pearson's
with its p-value. The tally the lifetime audit is kept in adds up game by game: the tally of
several games is the sum of theirs, and the tables of that sum are the audit of all their rolls
(the audit as it was computed before the tally existed, in floats, kept below to compare)."""

from __future__ import annotations

import random

import pytest

from analysis.dice_audit import (
    FIELDS,
    Table,
    Tally,
    audit,
    entry_chance,
    hit_chance,
    player_rolls,
    tables,
    tally,
)
from analysis.equity import Evaluator
from engine.match import MatchOptions
from engine.movegen import legal_plays
from engine.position import BAR, Position
from engine.turns import game_turns
from harness.analysis import constructed_game
from protocol.fairdice.stats import chi2_sf

ROLLS = tuple((a, b) for a in range(1, 7) for b in range(1, 7))


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


def _audit_in_floats(rolls) -> list[Table]:  # type: ignore[no-untyped-def]
    """The audit as it was computed in one pass before the tally (the reference)."""
    faces, doubles, entered, enter_expected, on_bar = [0] * 6, 0, 0, 0.0, 0
    hit, hit_expected, hit_rolls = 0, 0.0, 0
    for t in rolls:
        d1, d2 = t.dice
        faces[d1 - 1] += 1
        faces[d2 - 1] += 1
        doubles += d1 == d2
        if t.before.mover[BAR]:
            on_bar += 1
            enter_expected += entry_chance(t.before)
            entered += any(m[0] == BAR for m in t.moves)
        if t.before.is_contact():
            chance = sum(_hits_by_moves(t.before, a, b) for a, b in ROLLS) / 36
            if 0.0 < chance < 1.0:
                hit_rolls += 1
                hit_expected += chance
                hit += _hits_by_moves(t.before, d1, d2)
    n = len(rolls)
    return [
        Table("faces", ("1", "2", "3", "4", "5", "6"), tuple(faces), (2 * n / 6,) * 6, n),
        Table("doubles", ("doubles", "other"), (doubles, n - doubles), (n / 6, 5 * n / 6), n),
        Table("entering", ("entered", "stayed out"), (entered, on_bar - entered),
              (enter_expected, on_bar - enter_expected), on_bar),
        Table("hits", ("could hit", "could not"), (hit, hit_rolls - hit),
              (hit_expected, hit_rolls - hit_expected), hit_rolls),
    ]


def test_tallies_add_up_game_by_game(games) -> None:
    for seat in (0, 1):
        per_game = [tally(player_rolls([g], seat)) for g in games]
        whole = tally(player_rolls(games, seat))
        assert sum(per_game, Tally()) == whole
        assert per_game[0] + per_game[1] == tally(player_rolls(games[:2], seat))
        assert per_game[0] + Tally() == per_game[0]
        assert whole.contact > 10 and whole.bar > 0
        # The tables of the summed tally are the one-pass audit of every roll of the games.
        summed = tables(sum(per_game, Tally()))
        reference = _audit_in_floats(player_rolls(games, seat))
        assert summed == audit(player_rolls(games, seat))
        for mine, theirs in zip(summed, reference, strict=True):
            assert (mine.name, mine.cells, mine.observed, mine.rolls) == (
                theirs.name, theirs.cells, theirs.observed, theirs.rolls)
            assert mine.expected == pytest.approx(theirs.expected)
            assert mine.chi2 == pytest.approx(theirs.chi2)
            assert mine.as_dict() == {**theirs.as_dict(), "expected": mine.as_dict()["expected"],
                                      "chi2": mine.as_dict()["chi2"], "p": mine.as_dict()["p"]}
            assert mine.as_dict()["p"] == pytest.approx(theirs.as_dict()["p"], abs=1e-4)


def test_a_tally_is_stored_by_its_counters_names(games) -> None:
    whole = tally(player_rolls(games, 0))
    fields = whole.fields()
    assert tuple(fields) == FIELDS and all(isinstance(v, int) for v in fields.values())
    assert fields["rolls"] == whole.rolls and fields["face3"] == whole.faces[2]
    # Read back in any order, as strings (a Redis hash), other fields aside.
    stored = {k: str(v) for k, v in reversed(list(fields.items()))} | {"matches": "4"}
    assert Tally.of(stored) == whole
    assert Tally.of({}) == Tally() and tables(Tally())[0].chi2 == 0.0
