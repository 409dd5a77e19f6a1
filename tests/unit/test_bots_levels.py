"""The levels' decisions in positions where the right answer is not in doubt, and the policy's
reading of a client tracker."""

from __future__ import annotations

import random

import pytest

from bots.levels import Level, accept_resignation, answer_double, choose_play
from bots.levels import should_double as level_doubles
from bots.policy import Offers, context_of
from brain.context import MONEY, CubeContext, Owner
from engine.game import Action
from engine.movegen import legal_plays
from engine.position import Position
from protocol import events as pe
from protocol.client.tracker import Tracker
from protocol.messages import Event

# The player on roll has three checkers left on the ace and deuce points, the opponent three
# on its six point: about 98% to win, no gammons: double, and the double must be dropped.
CRUSHING = Position.from_points({1: 2, 2: 1}, {6: 3})
# Far behind in a long race: no double, and the opponent would take (and beaver) one.
BEHIND = Position.from_points({14: 8, 15: 7}, {5: 8, 6: 7})
# The opening position: nobody doubles.
START = Position.start()


@pytest.mark.parametrize("level", list(Level))
def test_every_level_drops_a_hopeless_double_and_never_doubles_when_it_may_not(level):
    rng = random.Random(1)
    assert answer_double(level, CRUSHING, MONEY, True, rng) is Action.DROP
    if level in (Level.HARD, Level.EXPERT):  # (the others err, by design, in close calls)
        assert level_doubles(level, CRUSHING, MONEY, rng)
    assert not level_doubles(level, START, CubeContext(owner=Owner.OPPONENT), rng)
    assert not level_doubles(level, CRUSHING, CubeContext(away=(1, 3), crawford=True), rng)


def test_strong_levels_keep_the_cube_when_behind_and_beaver_a_bad_double():
    rng = random.Random(2)
    for level in (Level.HARD, Level.EXPERT):
        assert not level_doubles(level, BEHIND, MONEY, rng)
        beavers = CubeContext(beavers=True)
        assert answer_double(level, BEHIND, beavers, True, rng) is Action.BEAVER
        assert answer_double(level, BEHIND, beavers, False, rng) is Action.TAKE
        # In match play there are no beavers: a bad double is simply taken.
        assert answer_double(level, BEHIND, CubeContext(away=(5, 5)), False, rng) is Action.TAKE


@pytest.mark.parametrize("level", list(Level))
def test_choices_are_always_legal_plays_of_our_engine(level):
    rng = random.Random(3)
    position = START
    for _ in range(20 if level is Level.EXPERT else 60):  # (Expert's 3-ply looks are slow)
        if position.is_over():
            position = START
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        play = choose_play(level, position, d1, d2, MONEY, rng)
        plays = legal_plays(position, d1, d2)
        if not plays:
            assert play is None
        else:
            assert play in plays
            position = play.position
        position = position.swapped()


def test_the_levels_differ_as_designed():
    """Easy and Normal sometimes leave the best play; Hard never does; Easy more than Normal."""
    rng = random.Random(4)
    missed = dict.fromkeys(Level, 0)
    position = START
    for _ in range(150):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        best = choose_play(Level.HARD, position, d1, d2, MONEY, rng)
        for level in (Level.EASY, Level.NORMAL, Level.HARD):
            chosen = choose_play(level, position, d1, d2, MONEY, rng)
            missed[level] += chosen != best
        if best is None:
            position = position.swapped()
            continue
        position = best.position.swapped()
        if position.is_over():
            position = START
    assert missed[Level.HARD] == 0
    assert missed[Level.EASY] > missed[Level.NORMAL] > 0


def test_resignations_accepted_when_worth_it():
    # The resigner (on roll) is crushed: a single resignation is worth accepting only when
    # no gammon is likely.
    gammonish = Position.from_points({18: 3, 17: 3, 16: 3, 15: 3, 14: 3}, {1: 2})
    receiver = MONEY
    assert accept_resignation(gammonish, 3, receiver)
    assert not accept_resignation(gammonish, 1, receiver)
    # At 1-away (or in a single game) a gammon counts for nothing: single is enough.
    assert accept_resignation(gammonish, 1, CubeContext(away=(1, 1), cube_in_play=False))
    # The resigner is winning: any resignation is a gift.
    assert accept_resignation(CRUSHING, 1, receiver)


def test_policy_reads_the_tracker():
    t = Tracker()
    t.apply(Event(1, pe.MatchCreated("match", 5, False, False, 30_000), None))
    t.score, t.cube, t.cube_owner = (1, 3), 2, 1
    context = context_of(t, 1)
    assert context.away == (2, 4) and context.value == 2 and context.owner is Owner.MOVER
    assert context_of(t, 0).owner is Owner.OPPONENT
    offers = Offers()
    offers.see(Event(9, pe.ResignOffered(1, 0, 2), None))
    offers.see(Event(10, pe.Doubled(1, 0, 2), None))
    assert offers.resign_level == 2 and offers.beaverable
    offers.see(Event(11, pe.Beavered(1, 1, 4), None))
    assert not offers.beaverable
