"""The four levels of the computer opponent, as pure policies over :mod:`brain`.

Each decision takes the position seen by the bot, the dice or the cube situation, the bot's
:class:`~brain.context.CubeContext` and a random generator, and returns what to do. Plays are
always chosen among :func:`engine.movegen.legal_plays` (via ``rank_plays``).

How the levels differ (settings in :data:`bots.catalog.STYLES`; strength measured by
``bench/bots.py``, table in docs/bots.md):

* **Easy** and **Normal** see the 1-ply equities through Gaussian noise: each candidate play
  gets an independent error of standard deviation ``noise`` before the best is taken, and each
  cube equity one of ``cube_noise``. Mistakes are therefore mostly small and sometimes large,
  like a person's; the cube's are bounded (:func:`double_through_noise`,
  :func:`answer_through_noise`), so that they stay the mistakes of a sane beginner.
* **Hard** plays the net's 1-ply choice (GNU Backgammon 0-ply strength), cube at 1-ply.
* **Expert** re-scores the best 1-ply plays with a 2-ply cube-aware search, looks at its close
  calls 3-ply deep (:meth:`brain.nets.Nets.settle`), and decides the cube at 2-ply.

A resignation is accepted when it gives at least what playing on is worth, at every level.
"""

from __future__ import annotations

import random

from bots.catalog import NAMES, STYLES, Level, Style
from brain.context import CubeContext
from brain.nets import CubeAdvice, ScoredPlay, nets, resignation_worth_accepting
from engine.game import Action
from engine.movegen import Play
from engine.position import Position

__all__ = ["BEAVER_FLOOR", "DOUBLE_FLOOR", "NAMES", "PASS_CEILING", "STYLES", "TAKE_FLOOR",
           "Level", "Style", "accept_resignation", "answer_double", "answer_through_noise",
           "choose_play", "double_through_noise", "ranked_plays", "should_double"]

DOUBLE_FLOOR = 0.50
"""Noise never makes a level double with winning chances below this (cubeless, 1-ply, before
the roll): the right money double starts near 70% (nearer 60% with many gammons)."""
TAKE_FLOOR = 0.15
"""Noise never makes a level take a double it should pass with winning chances below this: a
money take needs about 25% (21-22% counting the redouble), less with gammon chances of one's
own; below 15% a take is a gift nobody sane makes."""
PASS_CEILING = 0.30
"""Noise never makes a level pass a double it should take with winning chances above this:
above 30% a pass is wrong in all but gammon-heavy positions (where the noiseless answer is
pass anyway, and stands)."""
BEAVER_FLOOR = 0.50
"""Noise never makes a level beaver (take and redouble at once) as the underdog."""
BEAVER_MARGIN = 0.05
"""A noisy level beavers when the equity it sees says it is ahead by at least this much."""


def _blur(value: float, noise: float, rng: random.Random) -> float:
    return value + rng.gauss(0.0, noise) if noise else value


def choose_play(level: Level, position: Position, d1: int, d2: int, context: CubeContext,
                rng: random.Random) -> Play | None:
    """The play the level makes with ``d1``-``d2``; None when no die can be played."""
    style = STYLES[level]
    brain = nets()
    ranked = brain.rank_plays(position, d1, d2, context, ply=style.ply)
    if not ranked:
        return None
    if style.close_ply:
        ranked = brain.settle(position, ranked, context, style.close_ply, style.close_keep,
                              style.close_within)
    if not style.noise:
        return ranked[0].play
    return max(ranked, key=lambda s: _blur(s.equity, style.noise, rng)).play


def ranked_plays(position: Position, d1: int, d2: int, context: CubeContext,
                 ply: int = 1) -> list[ScoredPlay]:
    """The best plays first, for hints (no noise)."""
    return nets().rank_plays(position, d1, d2, context, ply=ply)


def double_through_noise(advice: CubeAdvice, noise: float, rng: random.Random) -> bool:
    """Whether a level that sees cube equities through ``noise`` doubles, given the noiseless
    ``advice`` for the player on roll (pure: ``rng`` given).

    The no-double and double/take equities each get an independent Gaussian error; the level
    doubles when the blurred double is worth more. The noise never makes it double with
    winning chances below :data:`DOUBLE_FLOOR`; where the noiseless decision is a double (a
    trailer after the Crawford game doubles at any odds) it may still double.

    >>> from brain.nets import Probs
    >>> even = CubeAdvice(False, True, False, 0.0, 0.0, 1.0, Probs(0.49, 0.1, 0.0, 0.1, 0.0))
    >>> any(double_through_noise(even, 0.5, random.Random(seed)) for seed in range(200))
    False
    """
    if not noise:
        return advice.double
    no_double = _blur(advice.no_double, noise, rng)
    doubled = min(_blur(advice.double_take, noise, rng), advice.double_pass)
    wants = doubled > no_double
    if wants and not advice.double and advice.probs.win < DOUBLE_FLOOR:
        return False
    return wants


def answer_through_noise(advice: CubeAdvice, noise: float, may_beaver: bool,
                         rng: random.Random) -> Action:
    """A noisy level's answer to a double (``TAKE``, ``DROP`` or ``BEAVER``), given the
    noiseless ``advice`` seen by the doubler, who is on roll (pure: ``rng`` given).

    The double/take equity gets a Gaussian error; the level drops when the blurred take costs
    more than the drop. The noise never turns a right pass into a take below
    :data:`TAKE_FLOOR` winning chances, a right take into a pass above :data:`PASS_CEILING`,
    nor makes the underdog beaver (:data:`BEAVER_FLOOR`); the noiseless answer stands
    wherever it is (a score in match play can make a take right at any odds).

    >>> from brain.nets import Probs
    >>> hopeless = CubeAdvice(True, False, False, 0.9, 1.6, 1.0, Probs(0.9, 0.3, 0.0, 0.0, 0.0))
    >>> {answer_through_noise(hopeless, 1.0, True, random.Random(s)) for s in range(200)}
    {<Action.DROP: 'drop'>}
    """
    taker_win = 1.0 - advice.probs.win
    if not noise:
        if may_beaver and advice.beaver:
            return Action.BEAVER
        return Action.TAKE if advice.take else Action.DROP
    take_value = _blur(advice.double_take, noise, rng)  # the doubler's equity if we take
    takes = take_value <= advice.double_pass
    if takes and not advice.take and taker_win < TAKE_FLOOR:
        takes = False
    elif not takes and advice.take and taker_win > PASS_CEILING:
        takes = True
    if not takes:
        return Action.DROP
    beaver = (may_beaver and take_value < -BEAVER_MARGIN
              and (advice.beaver or taker_win >= BEAVER_FLOOR))
    return Action.BEAVER if beaver else Action.TAKE


def should_double(level: Level, position: Position, context: CubeContext,
                  rng: random.Random) -> bool:
    """Whether the level doubles now, on roll in ``position`` (False where it may not)."""
    if not context.may_double:
        return False
    style = STYLES[level]
    advice = nets().cube_advice(position, context, ply=style.cube_ply)
    return double_through_noise(advice, style.cube_noise, rng)


def answer_double(level: Level, doubler_position: Position, doubler_context: CubeContext,
                  may_beaver: bool, rng: random.Random) -> Action:
    """The level's answer to a double (``Action.TAKE``, ``DROP`` or ``BEAVER``):
    ``doubler_position`` and ``doubler_context`` are seen by the doubler (who is on roll)."""
    style = STYLES[level]
    advice = nets().cube_advice(doubler_position, doubler_context, ply=style.cube_ply)
    return answer_through_noise(advice, style.cube_noise, may_beaver, rng)


def accept_resignation(resigner_position: Position, level: int,
                       receiver_context: CubeContext) -> bool:
    """Whether to accept a resignation at ``level`` offered by the player on roll in
    ``resigner_position``. Every level answers this one correctly: a bot that refuses a fair
    resignation only wastes its opponent's time."""
    probs = nets().pre_roll_probs(resigner_position).inverted()
    return resignation_worth_accepting(probs, level, receiver_context)
