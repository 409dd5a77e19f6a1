"""The computer in the variants: which levels each offers, the heuristic of plakoto and fevga
(it pins, guards its mother, and beats a random player clearly), and the nets' play in the
backgammon family (a legal play from each start; portes without the cube).

The full measurements are ``bench/variant_bots.py`` (docs/bots.md, "Variants"); here a fixed
seed and a few games each, fast.
"""

from __future__ import annotations

import random

import pytest

from bots import heuristic
from bots.catalog import VARIANT_LEVELS, Level, NoSuchLevel, check_level, levels_for
from bots.variants import CUBELESS, choose_play
from brain.context import CubeContext
from engine.variants import NAMES, rules, variant
from engine.variants.fevga.position import FevgaPosition
from engine.variants.plakoto.position import PlakotoPosition
from engine.variants.variant import Side


def test_every_variant_has_its_levels_and_tavli_those_of_its_three_games():
    assert set(VARIANT_LEVELS) == set(NAMES)
    assert levels_for("backgammon") == tuple(Level)
    for name in NAMES:
        assert levels_for(name), name
        assert list(levels_for(name)) == sorted(levels_for(name), key=list(Level).index)
    tavli = [level for level in Level
             if all(level in levels_for(v.name) for v in rules("tavli").rotation)]
    assert list(levels_for("tavli")) == tavli
    assert levels_for("chouette") == ()


def test_a_level_a_variant_has_not_is_refused():
    check_level("nackgammon", Level.EXPERT)
    check_level("fevga", Level.EASY)
    with pytest.raises(NoSuchLevel, match="plakoto at easy only"):
        check_level("plakoto", Level.HARD)
    with pytest.raises(NoSuchLevel, match="does not play chouette"):
        check_level("chouette", Level.EASY)


def play_out(name: str, sides, seed: int) -> tuple[int | None, int]:
    """One game of ``name``, seat 0 first: (winner seat or None, points)."""
    v = variant(name)
    dice = random.Random(seed)
    position, seat = v.start(), 0
    for _ in range(1000):
        d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
        legal = {p.position for p in v.legal_plays(position, d1, d2)}
        play = sides[seat](position, d1, d2)
        after = position if play is None else play.position
        assert (after in legal) if legal else play is None
        ending = v.ending(after)
        if ending is not None:
            if ending.winner is None:
                return None, 0
            return (seat if ending.winner is Side.MOVER else 1 - seat), ending.points
        position, seat = after.swapped(), 1 - seat
    return None, 0


@pytest.mark.parametrize("name", ["plakoto", "fevga"])
def test_the_heuristic_beats_a_random_player(name):
    """12 games, the sides alternating who moves first: the heuristic wins at least 10
    (bench/variant_bots.py: 399 of 400 in plakoto, 381 of 400 in fevga)."""
    rng = random.Random(7)
    v = variant(name)

    def smart(p, d1, d2):
        return heuristic.choose_play(name, p, d1, d2, rng)

    def dumb(p, d1, d2):
        plays = v.legal_plays(p, d1, d2)
        return rng.choice(plays) if plays else None

    won = points = 0
    for game in range(12):
        first_is_smart = game % 2 == 0
        winner, pts = play_out(name, (smart, dumb) if first_is_smart else (dumb, smart), game)
        smart_won = winner == (0 if first_is_smart else 1)
        won += smart_won
        points += pts if smart_won else -pts
    assert won >= 10, (won, points)
    assert points >= 12


def test_plakoto_pins_a_lone_checker_when_it_is_safe():
    # The opponent's lone checker on its 20 (our 5); our 6-1 can pin it from 11 (11/5).
    position = PlakotoPosition.from_points({24: 14, 11: 1}, {24: 14, 20: 1})
    play = heuristic.choose_play("plakoto", position, 6, 1, random.Random(1))
    assert play is not None
    assert play.position.pinned_points()[1] == (20,)


def test_plakoto_keeps_its_mother_out_of_reach():
    # Two of ours left on the starting point, the opponent's checkers 1-6 pips short of it:
    # a play that leaves one there alone (the mother) is avoided when another exists.
    position = PlakotoPosition.from_points(
        {24: 2, 6: 5, 5: 4, 4: 4}, {2: 3, 3: 3, 7: 3, 10: 3, 12: 3})
    for d1, d2 in ((6, 5), (3, 1), (4, 2)):
        plays = variant("plakoto").legal_plays(position, d1, d2)
        keeps = [p for p in plays if p.position.mover[24] != 1]
        assert keeps, (d1, d2)
        chosen = heuristic.choose_play("plakoto", position, d1, d2, random.Random(1))
        assert chosen is not None and chosen.position.mover[24] != 1, (d1, d2, chosen.moves)


def test_plakoto_takes_a_winning_pin_of_the_mother():
    # Our last checkers are past our start; the opponent's mother sits alone on its 24
    # (our 1): 3-2 from our 4 pins it, and wins double at once.
    position = PlakotoPosition.from_points({4: 1, 3: 14}, {24: 1, 1: 14})
    play = heuristic.choose_play("plakoto", position, 3, 2, random.Random(1))
    assert play is not None
    ending = variant("plakoto").ending(play.position)
    assert ending is not None and ending.winner is Side.MOVER and ending.points == 2


def test_fevga_prefers_a_play_that_blocks():
    # The opponent still all on its start (our 12): our 6-5 can take two points right in
    # front of it (our 7 and 6... its 19 and 18) or stack; the heuristic spreads.
    start = FevgaPosition.start()
    mover = {24: 14, 13: 1}
    position = FevgaPosition.from_points(mover, {24: 15})
    assert position != start
    play = heuristic.choose_play("fevga", position, 6, 5, random.Random(1))
    assert play is not None
    held = sum(1 for p in range(1, 25) if play.position.mover[p])
    best_held = max(sum(1 for p in range(1, 25) if q.position.mover[p])
                    for q in variant("fevga").legal_plays(position, 6, 5))
    assert held == best_held


@pytest.mark.parametrize("name", ["nackgammon", "hypergammon", "portes"])
def test_the_nets_play_the_backgammon_family_from_its_start(name):
    v = variant(name)
    rng = random.Random(3)
    for level in levels_for(name):
        for d1, d2 in ((3, 1), (6, 6), (5, 2)):
            play = choose_play(name, level, v.start(), d1, d2, CUBELESS, rng)
            assert play is not None
            assert play.position in {p.position for p in v.legal_plays(v.start(), d1, d2)}


def test_portes_is_played_without_the_cube():
    """A cubeful context given for portes is made cubeless (no cube in the game): the same
    choice as with the cubeless context, where backgammon's cubeful choice may differ."""
    cubeful = CubeContext()
    v = variant("portes")
    rng = random.Random(5)
    for d1, d2 in ((6, 4), (2, 1), (5, 5)):
        a = choose_play("portes", Level.HARD, v.start(), d1, d2, cubeful, rng)
        b = choose_play("portes", Level.HARD, v.start(), d1, d2, CUBELESS, rng)
        assert a == b
