"""Fevga's three restrictions on plays (docs/rules.md, "Fevga", with sources).

* **First checker away** (:func:`runner_waiting`): after the first checker leaves the starting
  point (the 24-point), no other may leave it until that one has passed the opponent's
  starting point (the mover's 12-point), i.e. stands on the 11-point or lower. Judged at each
  step: once the runner has passed, later steps of the same turn may bring out others.
* **The starting quarter** (:func:`holds_start_quarter`): a play may not end with the mover
  holding all six points 19..24 of its own starting quarter.
* **The prime** (:func:`trapped_point`, :func:`opens`): building six consecutive points is
  allowed, but when all the opponent's checkers stand on the one point right behind such a
  prime at the start of the mover's turn, the mover must open it: if some legal play leaves
  one of those six points empty, only such plays are legal.

"Legal play" in the last two rules means a sequence of legal steps; the restrictions select
among them before the rule of using as many dice as possible (and the higher die) is applied.

>>> board = (0,) * 24 + (14, 0)
>>> runner_waiting(board[:13] + (1,) + board[14:])  # the runner on 13, not past 12 yet
True
>>> runner_waiting(board[:11] + (1,) + board[12:])  # on 11: it has passed
False
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.variants.fevga.position import START_POINT, FevgaPosition, their_point


def runner_waiting(board: Sequence[int]) -> bool:
    """True while the first checker to leave the starting point has not yet passed the
    opponent's starting point: no other checker may leave the 24-point then."""
    return board[START_POINT] == 14 and sum(board[12:24]) == 1


def holds_start_quarter(board: Sequence[int]) -> bool:
    """True when the mover holds all six points of its starting quarter (19..24).

    >>> holds_start_quarter((0,) * 19 + (1, 1, 1, 1, 1, 10, 0))
    True
    """
    return all(board[19:25])


def trapped_point(position: FevgaPosition) -> int | None:
    """The opponent's point (its numbering) where all its checkers wait behind a six-prime of
    the mover's, or None. The prime is the six points the opponent must move onto next: its
    points ``x - 1`` .. ``x - 6``.

    >>> mover = {their_point(q): 2 for q in range(13, 19)}
    >>> mover[24] = 15 - 12
    >>> trapped_point(FevgaPosition.from_points(mover, {19: 15}))
    19
    """
    opponent = position.opponent
    on_board = [q for q in range(1, 25) if opponent[q]]
    if len(on_board) != 1 or on_board[0] < 7:
        return None
    x = on_board[0]
    if all(position.mover[their_point(q)] for q in range(x - 6, x)):
        return x
    return None


def opens(trapped: int, board: Sequence[int]) -> bool:
    """Whether the mover's ``board`` leaves one of the six points in front of ``trapped`` (the
    opponent's point) empty."""
    return not all(board[their_point(q)] for q in range(trapped - 6, trapped))
