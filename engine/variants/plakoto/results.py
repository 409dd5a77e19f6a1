"""How a plakoto game ends and what it scores (docs/rules.md, "Plakoto").

* **Bearing off** all fifteen wins: double (2 points) if the loser has borne off none, else
  single (1 point). No triple.
* **The mother checker**: a side's last checker still on its starting point (its 24-point) is
  its *mother*. When the mover has the opponent's mother pinned and no checker of its own left
  on its own starting point, the mover wins double at once. While the mover still has checkers
  on its starting point the game goes on: if the opponent then pins the mover's mother too,
  the game is drawn (no points); if the mover first empties its starting point, it wins.
* Checked when a play is complete (the position still seen by the mover).

>>> from engine.variants.plakoto.position import PlakotoPosition
>>> pinned = PlakotoPosition.from_points({13: 14, 1: 1}, {24: 1, 1: 14}, opponent_pinned=[24])
>>> ending(pinned)  # doctest: +ELLIPSIS
Ending(winner=<Side.MOVER: 'mover'>, kind=<ResultKind.GAMMON: 2>, finish=<Finish.MOTHER: 'mother'>)
>>> both = PlakotoPosition.from_points(
...     {24: 1, 1: 1, 13: 13}, {24: 1, 1: 1, 13: 13}, mover_pinned=[24], opponent_pinned=[24])
>>> ending(both).is_draw, ending(PlakotoPosition.start())
(True, None)
"""

from __future__ import annotations

from engine.position import OFF
from engine.results import ResultKind
from engine.variants.plakoto.position import START_POINT, PlakotoPosition
from engine.variants.portes import greek_kind
from engine.variants.variant import Ending, Finish, Side


def ending(position: PlakotoPosition) -> Ending | None:
    """After the mover's play: how the game ended, or None while it goes on."""
    if not any(position.mover[1:]):
        return Ending(Side.MOVER, greek_kind(position.opponent[OFF]), Finish.BEAR_OFF)
    mover_mother = bool(position.mover_pinned >> START_POINT & 1)
    opponent_mother = bool(position.opponent_pinned >> START_POINT & 1)
    if mover_mother and opponent_mother:
        return Ending(None, None, Finish.MOTHERS)
    if opponent_mother and not position.mover[START_POINT]:
        return Ending(Side.MOVER, ResultKind.GAMMON, Finish.MOTHER)
    if mover_mother and not position.opponent[START_POINT]:
        return Ending(Side.OPPONENT, ResultKind.GAMMON, Finish.MOTHER)
    return None


def worst_possible(position: PlakotoPosition) -> ResultKind:
    """The largest loss still possible for the mover: single once it has borne off a checker,
    else double (by bearing off or by its mother)."""
    return greek_kind(position.mover[OFF])
