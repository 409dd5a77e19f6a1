"""Fevga, the third game of Tavli: both sides run the same way round, one checker holds a
point, and no hitting.

``position`` (:class:`FevgaPosition` and its encoding), ``limits`` (the first-checker,
starting-quarter and prime restrictions), ``movegen`` (fast legal plays), ``reference`` (the
slow readable oracle), ``validate`` (a submitted play, or a typed refusal), ``results``.
:data:`FEVGA` is the :class:`~engine.variants.variant.Variant`.
"""

from __future__ import annotations

from engine.results import ResultKind
from engine.variants.fevga.movegen import legal_plays
from engine.variants.fevga.position import CHECKERS, FevgaPosition, check
from engine.variants.fevga.reference import reference_plays
from engine.variants.fevga.results import ending, worst_possible
from engine.variants.fevga.validate import can_play, validate_play
from engine.variants.variant import Opening, Variant

FEVGA = Variant(
    name="fevga",
    checkers=CHECKERS,
    cube=False,
    opening=Opening.REROLL,
    largest=ResultKind.GAMMON,
    start=FevgaPosition.start,
    legal_plays=legal_plays,
    validate=validate_play,
    can_play=can_play,
    ending=ending,
    worst_possible=worst_possible,
    reference=reference_plays,
    check=check,
    seen=lambda mover, opponent, mover_pinned=0, opponent_pinned=0: FevgaPosition(mover, opponent),
)

__all__ = ["FEVGA", "FevgaPosition"]
