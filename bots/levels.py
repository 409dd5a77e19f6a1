"""The four levels of the computer opponent, as pure policies over :mod:`brain`.

Each decision takes the position seen by the bot, the dice or the cube situation, the bot's
:class:`~brain.context.CubeContext` and a random generator, and returns what to do. Plays are
always chosen among :func:`engine.movegen.legal_plays` (via ``rank_plays``).

How the levels differ (strength measured by ``bench/bots.py``, table in docs/bots.md):

* **Easy** and **Normal** see the 1-ply equities through Gaussian noise: each candidate play
  (and each cube equity) gets an independent error of standard deviation ``noise`` before the
  best is taken. Mistakes are therefore mostly small and sometimes large, like a person's.
* **Hard** plays the net's 1-ply choice (GNU Backgammon 0-ply strength).
* **Expert** re-scores the best 1-ply candidates with a 2-ply cube-aware search (gnubg's 1-ply).

Cube decisions are the net's 1-ply Janowski decisions at every level (through the same noise
for Easy and Normal). A resignation is accepted when it gives at least what playing on is worth.
"""

from __future__ import annotations

import random

from bots.catalog import NAMES, STYLES, Level, Style
from brain.context import CubeContext
from brain.nets import CubeAdvice, ScoredPlay, nets, resignation_worth_accepting
from engine.game import Action
from engine.movegen import Play
from engine.position import Position

__all__ = ["NAMES", "STYLES", "Level", "Style", "accept_resignation", "answer_double",
           "choose_play", "ranked_plays", "should_double"]


def _blur(value: float, style: Style, rng: random.Random) -> float:
    return value + rng.gauss(0.0, style.noise) if style.noise else value


def choose_play(level: Level, position: Position, d1: int, d2: int, context: CubeContext,
                rng: random.Random) -> Play | None:
    """The play the level makes with ``d1``-``d2``; None when no die can be played."""
    style = STYLES[level]
    ranked = nets().rank_plays(position, d1, d2, context, ply=style.ply)
    if not ranked:
        return None
    if not style.noise:
        return ranked[0].play
    return max(ranked, key=lambda s: _blur(s.equity, style, rng)).play


def ranked_plays(position: Position, d1: int, d2: int, context: CubeContext,
                 ply: int = 1) -> list[ScoredPlay]:
    """The best plays first, for hints (no noise)."""
    return nets().rank_plays(position, d1, d2, context, ply=ply)


def should_double(level: Level, position: Position, context: CubeContext,
                  rng: random.Random) -> bool:
    """Whether the level doubles now, on roll in ``position`` (False where it may not)."""
    if not context.may_double:
        return False
    advice = nets().cube_advice(position, context)
    style = STYLES[level]
    if not style.noise:
        return advice.double
    no_double = _blur(advice.no_double, style, rng)
    doubled = min(_blur(advice.double_take, style, rng), advice.double_pass)
    return doubled > no_double


def answer_double(level: Level, doubler_position: Position, doubler_context: CubeContext,
                  may_beaver: bool, rng: random.Random) -> Action:
    """The level's answer to a double (``Action.TAKE``, ``DROP`` or ``BEAVER``):
    ``doubler_position`` and ``doubler_context`` are seen by the doubler (who is on roll)."""
    advice: CubeAdvice = nets().cube_advice(doubler_position, doubler_context)
    style = STYLES[level]
    take_value = _blur(advice.double_take, style, rng)  # the doubler's equity if we take
    if take_value > advice.double_pass:
        return Action.DROP
    if may_beaver and (advice.beaver if not style.noise else take_value < -0.05):
        return Action.BEAVER
    return Action.TAKE


def accept_resignation(resigner_position: Position, level: int,
                       receiver_context: CubeContext) -> bool:
    """Whether to accept a resignation at ``level`` offered by the player on roll in
    ``resigner_position``. Every level answers this one correctly: a bot that refuses a fair
    resignation only wastes its opponent's time."""
    probs = nets().pre_roll_probs(resigner_position).inverted()
    return resignation_worth_accepting(probs, level, receiver_context)
