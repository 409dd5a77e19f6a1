"""How a fevga game ends: bearing off all fifteen wins, double (2 points) if the loser has
borne off none, else single (1 point); no triple (docs/rules.md, "Fevga").

>>> from engine.variants.fevga.position import FevgaPosition
>>> ending(FevgaPosition.from_points({}, {20: 15})).points, ending(FevgaPosition.start())
(2, None)
"""

from __future__ import annotations

from engine.position import OFF
from engine.results import ResultKind
from engine.variants.fevga.position import FevgaPosition
from engine.variants.portes import greek_kind
from engine.variants.variant import Ending, Finish, Side


def ending(position: FevgaPosition) -> Ending | None:
    """After the mover's play: a win when its board is empty, else None."""
    if any(position.mover[1:]):
        return None
    return Ending(Side.MOVER, greek_kind(position.opponent[OFF]), Finish.BEAR_OFF)


def worst_possible(position: FevgaPosition) -> ResultKind:
    """The largest loss still possible for the mover: single once it has borne off a checker,
    else double."""
    return greek_kind(position.mover[OFF])
