"""Legal plays: every distinct way to play a roll.

(Interim implementation on top of :mod:`engine.reference`; the fast generator replaces the
body of :func:`legal_plays` and keeps this API.)

>>> from engine.position import Position
>>> plays = legal_plays(Position.start(), 6, 5)
>>> len(plays)
7
>>> plays[0].moves, plays[0].position.pips()
(((24, 18), (18, 13)), (156, 167))
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.position import Position
from engine.reference import Move, reference_plays


@dataclass(frozen=True, slots=True)
class Play:
    """One distinct legal play: a legal order of checker moves and the position it reaches.

    ``position`` is still seen by the mover (before the turn passes). ``moves`` is empty only
    for the forced pass, which :func:`legal_plays` never returns.
    """

    moves: tuple[Move, ...]
    position: Position


def legal_plays(position: Position, d1: int, d2: int) -> tuple[Play, ...]:
    """All distinct legal plays of ``d1``-``d2`` in ``position``, sorted by their moves.

    An empty tuple means no die can be played: the turn passes.
    """
    plays = [Play(moves, pos) for pos, moves in reference_plays(position, d1, d2).items()]
    plays.sort(key=lambda play: play.moves, reverse=True)
    return tuple(plays)
