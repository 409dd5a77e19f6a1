"""Plakoto, the second game of Tavli: pinning instead of hitting, and the mother checker.

``position`` (:class:`PlakotoPosition` and its encoding), ``movegen`` (fast legal plays),
``reference`` (the slow readable oracle), ``validate`` (a submitted play, or a typed refusal),
``results`` (how a game ends). :data:`PLAKOTO` is the :class:`~engine.variants.variant.Variant`.
"""

from __future__ import annotations

from engine.results import ResultKind
from engine.variants.plakoto.movegen import legal_plays
from engine.variants.plakoto.position import CHECKERS, PlakotoPosition, check
from engine.variants.plakoto.reference import reference_plays
from engine.variants.plakoto.results import ending, worst_possible
from engine.variants.plakoto.validate import can_play, validate_play
from engine.variants.variant import Opening, Variant

PLAKOTO = Variant(
    name="plakoto",
    checkers=CHECKERS,
    cube=False,
    opening=Opening.REROLL,
    largest=ResultKind.GAMMON,
    start=PlakotoPosition.start,
    legal_plays=legal_plays,
    validate=validate_play,
    can_play=can_play,
    ending=ending,
    worst_possible=worst_possible,
    reference=reference_plays,
    check=check,
    seen=PlakotoPosition,
    pins=lambda position: (position.mover_pinned, position.opponent_pinned),
)

__all__ = ["PLAKOTO", "PlakotoPosition"]
