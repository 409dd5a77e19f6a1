"""The one interface every variant has: :class:`Variant` (defined in :mod:`engine.rules`, where
the engine's game and match can take it; here for the variants' modules and their users).

>>> from engine.variants import variant
>>> portes = variant("portes")
>>> portes.cube, portes.opening.value, portes.largest.word
(False, 'reroll', 'gammon')
"""

from __future__ import annotations

from engine.rules import Ending, Finish, Opening, Side, Variant
from engine.rules import VariantPosition as Position

__all__ = ["Ending", "Finish", "Opening", "Position", "Side", "Variant"]
