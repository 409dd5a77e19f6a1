"""Backgammon as a :class:`~engine.variants.variant.Variant`: the engine's own rules, unchanged
(defined in :mod:`engine.rules`, where the engine's game plays them when given no other).

Nackgammon and hypergammon (:mod:`engine.variants.nackgammon`,
:mod:`engine.variants.hypergammon`) play by exactly these move and scoring rules from other
starting positions, and portes by these moves with Greek scoring; all of them reuse the
functions here.

>>> from engine.position import Position
>>> BACKGAMMON.start() == Position.start(), len(BACKGAMMON.legal_plays(Position.start(), 2, 1))
(True, 15)
>>> done = Position.from_points({}, {24: 15})  # the loser's 15 in the winner's home board
>>> ending(done).winner, ending(done).kind, ending(done).finish
(<Side.MOVER: 'mover'>, <ResultKind.BACKGAMMON: 3>, <Finish.BEAR_OFF: 'bear_off'>)
>>> ending(Position.start()) is None
True
"""

from __future__ import annotations

from engine.rules import BACKGAMMON
from engine.rules import backgammon_check as check
from engine.rules import backgammon_ending as ending
from engine.rules import backgammon_worst_possible as worst_possible

__all__ = ["BACKGAMMON", "check", "ending", "worst_possible"]
