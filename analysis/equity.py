"""What the analysis asks of the nets, on top of :mod:`brain`: the equity of a position right
after a play (or after a roll that could not be played), and the equities of every roll.

``brain.nets`` scores plays; a roll with no legal play leaves the position as it was, with the
opponent to roll, and is scored by :meth:`brain.nets.Nets.score_unchanged` on exactly the scale
of :meth:`brain.nets.Nets.rank_plays`.
"""

from __future__ import annotations

from dataclasses import dataclass

from brain.context import CubeContext
from brain.nets import CubeAdvice, Nets, ScoredPlay, nets
from engine.position import Position

ROLLS: tuple[tuple[int, int, int], ...] = tuple(
    (a, b, 1 if a == b else 2) for a in range(1, 7) for b in range(1, a + 1)
)
"""The 21 distinct rolls with their weight among the 36."""


@dataclass(frozen=True, slots=True)
class RollOutcome:
    """One roll from a position: its plays best first (empty when none is legal) and the
    roller's equity after the best of them (after the pass when none)."""

    d1: int
    d2: int
    weight: int
    plays: tuple[ScoredPlay, ...]
    best_equity: float


class Evaluator:
    """The nets as the analysis uses them (1-ply)."""

    level = "1-ply"
    ply = 1
    base_level = "1-ply"
    """The level of the luck and the cube figures: a report at this level can be the basis of
    an analysis by this evaluator (:func:`analysis.core.analyse`)."""

    def __init__(self, loaded: Nets | None = None) -> None:
        self.nets = loaded or nets()

    def rank(self, position: Position, d1: int, d2: int, context: CubeContext) -> list[ScoredPlay]:
        return self.nets.rank_plays(position, d1, d2, context, ply=1)

    def unchanged(self, position: Position, context: CubeContext) -> float:
        """The equity of the player who could not move, ``position`` left as it was."""
        return self.nets.score_unchanged(position, context).equity

    def roll(self, position: Position, d1: int, d2: int, weight: int,
             context: CubeContext) -> RollOutcome:
        plays = tuple(self.rank(position, d1, d2, context))
        best = plays[0].equity if plays else self.unchanged(position, context)
        return RollOutcome(d1, d2, weight, plays, best)

    def all_rolls(self, position: Position, context: CubeContext,
                  opening: bool = False) -> list[RollOutcome]:
        """Every roll from ``position``; for the opening roll only the 15 non-doubles (a
        roll-off never gives a double)."""
        return [self.roll(position, a, b, w, context) for a, b, w in ROLLS
                if not (opening and a == b)]

    def cube(self, position: Position, context: CubeContext) -> CubeAdvice:
        return self.nets.cube_advice(position, context)

    def judge(self, position: Position, context: CubeContext, outcome: RollOutcome,
              played: Position) -> tuple[ScoredPlay, ...]:
        """The plays of the roll that came, best first, as the checker play is judged (the one
        that ends in ``played`` among them): at 1-ply the outcome's own plays."""
        return outcome.plays


class DeepEvaluator(Evaluator):
    """The deeper analysis: checker plays judged at 2-ply (the nets look one roll further);
    luck and cube decisions as at 1-ply (docs/analysis.md, "Deeper analysis").

    The plays re-scored are the 1-ply best ones :meth:`brain.nets.Nets.rank_plays` would
    re-score, plus the play made when it is not among them (:meth:`brain.nets.Nets.deepen`), so
    the play made and the best play are always compared on one scale."""

    level = "2-ply"
    ply = 2

    def judge(self, position: Position, context: CubeContext, outcome: RollOutcome,
              played: Position) -> tuple[ScoredPlay, ...]:
        plays = outcome.plays
        if len(plays) <= 1:
            return plays  # forced (or no play): nothing to judge deeper
        return tuple(self.nets.deepen(position, list(plays), context, self.ply, also=played))
