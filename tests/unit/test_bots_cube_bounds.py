"""The bounds on the noisy levels' cube errors (bots/levels.py): whatever the noise and its seed,
Easy and Normal never double below 50% winning chances, never take a pass below 15%, never pass
a take above 30% and never beaver as the underdog, unless the noiseless answer does so itself;
inside the bounds the noise still errs (the levels stay beatable). The decisions the bot policy
(bots/policy.py) sends go through these functions; the last tests run them on real positions."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from bots.levels import (
    BEAVER_FLOOR,
    DOUBLE_FLOOR,
    PASS_CEILING,
    STYLES,
    TAKE_FLOOR,
    Level,
    answer_double,
    answer_through_noise,
    double_through_noise,
    should_double,
)
from brain.context import MONEY, CubeContext
from brain.nets import CubeAdvice, Probs, nets
from engine.game import Action
from engine.movegen import legal_plays
from engine.position import Position

EQUITY = st.floats(-3.0, 3.0, allow_nan=False)
NOISE = st.sampled_from([STYLES[Level.EASY].cube_noise, STYLES[Level.NORMAL].cube_noise, 0.5, 2.0])


@st.composite
def advices(draw) -> CubeAdvice:
    """Any cube advice: consistent or not (the bounds must hold whatever the nets say)."""
    win = draw(st.floats(0.0, 1.0))
    gammon = draw(st.floats(0.0, win))
    lose_gammon = draw(st.floats(0.0, 1.0 - win))
    probs = Probs(win, gammon, draw(st.floats(0.0, gammon)), lose_gammon,
                  draw(st.floats(0.0, lose_gammon)))
    return CubeAdvice(double=draw(st.booleans()), take=draw(st.booleans()),
                      beaver=draw(st.booleans()), no_double=draw(EQUITY),
                      double_take=draw(EQUITY), double_pass=draw(st.sampled_from([1.0, 0.8])),
                      probs=probs)


SEEDS = st.integers(0, 2**32 - 1)


@settings(max_examples=200)
@given(advices(), NOISE, SEEDS)
def test_noise_never_doubles_below_the_floor(advice, noise, seed):
    doubled = double_through_noise(advice, noise, random.Random(seed))
    if doubled and not advice.double:
        assert advice.probs.win >= DOUBLE_FLOOR


@settings(max_examples=200)
@given(advices(), NOISE, st.booleans(), SEEDS)
def test_noise_never_takes_passes_or_beavers_beyond_the_bounds(advice, noise, may_beaver, seed):
    answer = answer_through_noise(advice, noise, may_beaver, random.Random(seed))
    taker = 1.0 - advice.probs.win
    if answer is not Action.DROP and not advice.take:
        assert taker >= TAKE_FLOOR
    if answer is Action.DROP and advice.take:
        assert taker <= PASS_CEILING
    if answer is Action.BEAVER:
        assert may_beaver
        assert advice.beaver or taker >= BEAVER_FLOOR


@settings(max_examples=100)
@given(advices(), st.booleans(), SEEDS)
def test_without_noise_the_answer_is_the_advice(advice, may_beaver, seed):
    assert double_through_noise(advice, 0.0, random.Random(seed)) is advice.double
    answer = answer_through_noise(advice, 0.0, may_beaver, random.Random(seed))
    if may_beaver and advice.beaver:
        assert answer is Action.BEAVER
    else:
        assert answer is (Action.TAKE if advice.take else Action.DROP)


def _advice(win: float, *, double: bool, take: bool, nd: float, dt: float) -> CubeAdvice:
    return CubeAdvice(double, take, False, nd, dt, 1.0, Probs(win, 0.1, 0.0, 0.1, 0.0))


def test_inside_the_bounds_the_noise_still_errs():
    """Easy doubles early, takes passes and passes takes now and then, within the bounds."""
    noise = STYLES[Level.EASY].cube_noise
    seeds = range(400)
    early = _advice(0.6, double=False, take=True, nd=0.3, dt=0.2)
    assert 0 < sum(double_through_noise(early, noise, random.Random(s)) for s in seeds) < 400
    weak_take = _advice(0.8, double=True, take=False, nd=0.8, dt=1.1)  # taker 20%: a pass
    assert any(answer_through_noise(weak_take, noise, False, random.Random(s)) is Action.TAKE
               for s in seeds)
    fair_take = _advice(0.75, double=True, take=True, nd=0.7, dt=0.95)  # taker 25%: a take
    assert any(answer_through_noise(fair_take, noise, False, random.Random(s)) is Action.DROP
               for s in seeds)


# Real positions through the nets, as the bot policy asks them.
# Two checkers on the ace point against one on the opponent's 6 point, opponent on roll: the
# doubler wins about 97%.
CRUSHING = Position.from_points({1: 2, 2: 1}, {6: 3})
START = Position.start()


def test_on_real_positions_the_noisy_levels_stay_inside_the_bounds():
    start = nets().cube_advice(START, MONEY)
    assert start.probs.win > DOUBLE_FLOOR  # on roll at the start: a little ahead
    # Behind after the opponent's 3-1 made their 5 point: the noisy levels never double.
    behind = next(p.position for p in legal_plays(START, 3, 1)
                  if p.position.mover[5] == 2 and p.position.mover[3] == 0).swapped()
    assert nets().cube_advice(behind, MONEY).probs.win < DOUBLE_FLOOR
    for level in (Level.EASY, Level.NORMAL):
        for seed in range(300):
            rng = random.Random(seed)
            assert not should_double(level, behind, MONEY, rng)
            assert answer_double(level, CRUSHING, MONEY, True, rng) is Action.DROP
            assert answer_double(level, START, CubeContext(beavers=True), True, rng) in (
                Action.TAKE, Action.BEAVER)
