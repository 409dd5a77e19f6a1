"""The doubling window: where, in winning chances, doubling starts, the opponent must pass, and
the player is too good to double.

Janowski's cube points at the position's cube life index (bgsage's ``cube_action_points``; in
match play they come from the match equity table), for the player on roll, in that player's
cubeless winning chances.

>>> from brain.context import CubeContext
>>> from brain.nets import Probs
>>> from engine.position import Position
>>> race = Position.from_points({6: 2, 5: 2, 4: 2, 3: 1}, {6: 3, 5: 3, 4: 2, 3: 2, 2: 2})
>>> window = doubling_window(race, Probs(0.78, 0.0, 0.0, 0.0, 0.0), CubeContext())
>>> 0.5 < window.double < window.cash < window.too_good < 1
True
"""

from __future__ import annotations

from dataclasses import dataclass

import bgbot_cpp
from bgsage.cube_points import cube_action_points

from brain.board import to_board
from brain.context import CubeContext
from brain.nets import Probs
from engine.position import Position


@dataclass(frozen=True, slots=True)
class DoublingWindow:
    """The player on roll's cubeless winning chances at which doubling becomes right
    (``double``), the opponent should pass (``cash``) and the player is too good to double
    (``too_good``). NaN where a point does not exist for this cube (bgsage's convention)."""

    double: float
    cash: float
    too_good: float


def doubling_window(position: Position, probs: Probs, context: CubeContext) -> DoublingWindow:
    """The doubling window of the player on roll in ``position`` with outcome chances ``probs``
    (their gammon rates set the points) and ``context``."""
    board = to_board(position)
    values = probs.as_list()
    pips = bgbot_cpp.pip_counts(board)
    life = bgbot_cpp.cube_efficiency(values, bgbot_cpp.is_race(board), pips[0], pips[1])
    points = cube_action_points(
        values, context.owner.value, context.value, away1=context.away[0],
        away2=context.away[1], is_crawford=context.crawford, cube_life_index=life,
        jacoby=context.jacoby, beaver=context.beavers)
    return DoublingWindow(points.double.janowski, points.cash.janowski, points.too_good.janowski)
