"""What the analysis asks of the nets, on top of :mod:`brain`: the equity of a position right
after a play (or after a roll that could not be played), and the equities of every roll.

``brain.nets`` scores plays; a roll with no legal play leaves the position as it was, with the
opponent to roll, and is scored by :meth:`brain.nets.Nets.score_unchanged` on exactly the scale
of :meth:`brain.nets.Nets.rank_plays`.
"""

from __future__ import annotations

from dataclasses import dataclass

import bgbot_cpp

from brain.context import CubeContext, Owner
from brain.nets import CubeAdvice, Nets, ScoredPlay, nets
from engine.position import Position

_CERTAIN_LOSS = {1: [0.0] * 5, 2: [0.0, 0.0, 0.0, 1.0, 0.0], 3: [0.0, 0.0, 0.0, 1.0, 1.0]}
"""The outcome probabilities of a game surely lost at each level (win, win gammon, win
backgammon, lose gammon, lose backgammon)."""
_OWNERS = {Owner.CENTRED: bgbot_cpp.CubeOwner.CENTERED, Owner.MOVER: bgbot_cpp.CubeOwner.PLAYER,
           Owner.OPPONENT: bgbot_cpp.CubeOwner.OPPONENT}


def resignation_equity(level: int, context: CubeContext) -> float:
    """The resigner's equity, per unit cube, of a resignation at ``level`` (1 single, 2 gammon,
    3 backgammon) accepted: on the scale of every other equity of the analysis.

    Money: minus the level, a single under the Jacoby rule while the cube is centred (as the
    engine counts an accepted resignation). Match play (a single game counts as 1-away/1-away):
    the nets' own conversion of the certain loss (bgsage's match equity table), so a gammon lost
    when a single already loses the match is worth exactly a single.

    >>> from brain.context import MONEY
    >>> resignation_equity(2, MONEY), resignation_equity(2, CubeContext(jacoby=True))
    (-2.0, -1.0)
    >>> round(resignation_equity(1, CubeContext(away=(5, 5))), 6)
    -1.0
    >>> resignation_equity(3, CubeContext(away=(3, 1), crawford=True)) == resignation_equity(
    ...     1, CubeContext(away=(3, 1), crawford=True))
    True
    """
    if not context.is_match:
        jacoby = context.jacoby and context.owner is Owner.CENTRED
        return -1.0 if jacoby else -float(level)
    return float(bgbot_cpp.cl2cf(_CERTAIN_LOSS[level], context.value, _OWNERS[context.owner],
                                 0.68, context.away[0], context.away[1], context.crawford,
                                 jacoby=False))

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
