"""Fevga positions: two boards on a board both sides travel the same way round.

Each board is counted from its owner's side as in backgammon (``[0]`` borne off, ``[1..24]``
its points, 24 its starting point and 1..6 its home board, ``[25]`` always 0: no bar). Both
sides move counter-clockwise from diagonally opposite corners, so the boards are shifted by
half a lap instead of mirrored: the mover's point ``p`` is the opponent's point ``p + 12``
(``p <= 12``) or ``p - 12`` (``p > 12``) — :func:`their_point`. The opponent starts on the
mover's 12-point; the opponent's starting quarter (its 19..24) is the mover's 7..12 and its
home board (its 1..6) the mover's 13..18. One checker holds a point, so the two sides never
share one.

>>> start = FevgaPosition.start()
>>> start.mover[24], start.opponent[24], their_point(24), their_point(12), their_point(1)
(15, 15, 12, 24, 13)
>>> FevgaPosition.from_points({12: 1}, {24: 15})
Traceback (most recent call last):
...
engine.position.PositionError: both sides on the mover's point 12
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.position import BAR, OFF, POINTS, SLOTS, Board, PositionError, pip_count

CHECKERS = 15
START_POINT = 24
_START: Board = (0,) * 24 + (CHECKERS, 0)


def their_point(point: int) -> int:
    """The opponent's number for the mover's point ``point`` (1..24); the map is its own
    inverse."""
    return point + 12 if point <= 12 else point - 12


@dataclass(frozen=True, slots=True)
class FevgaPosition:
    """A fevga position seen by the player on roll; build it with :meth:`checked` or
    :meth:`from_points` (the generator builds its results unchecked)."""

    mover: Board
    opponent: Board

    @classmethod
    def start(cls) -> FevgaPosition:
        """Fifteen checkers a side on its own 24-point, at opposite corners."""
        return cls(_START, _START)

    @classmethod
    def checked(cls, mover: Board, opponent: Board) -> FevgaPosition:
        """The position, or :class:`~engine.position.PositionError` naming what is impossible."""
        position = cls(mover, opponent)
        check(position)
        return position

    @classmethod
    def from_points(cls, mover: dict[int, int], opponent: dict[int, int]) -> FevgaPosition:
        """From ``{point: count}`` maps, each side in its own numbering; the rest borne off."""
        return cls.checked(_board(mover, "mover"), _board(opponent, "opponent"))

    def swapped(self) -> FevgaPosition:
        """The same position seen by the other player (the turn passes)."""
        return FevgaPosition(self.opponent, self.mover)

    def pips(self) -> tuple[int, int]:
        """Pip counts ``(mover, opponent)``."""
        return pip_count(self.mover), pip_count(self.opponent)

    def __str__(self) -> str:
        def side(board: Board) -> str:
            cells = [f"{p}:{board[p]}" for p in range(1, POINTS + 1) if board[p]]
            if board[OFF]:
                cells.append(f"off:{board[OFF]}")
            return " ".join(cells)

        return f"mover[{side(self.mover)}] opponent[{side(self.opponent)}]"


def check(position: FevgaPosition) -> None:
    """Raise :class:`~engine.position.PositionError` unless ``position`` can occur as far as
    the boards go: 26 counts a side summing to 15, nothing on the bar, no point shared."""
    for who, board in (("mover", position.mover), ("opponent", position.opponent)):
        if not isinstance(board, tuple) or len(board) != SLOTS:
            raise PositionError(f"{who}: expected a tuple of {SLOTS} counts")
        for i, n in enumerate(board):
            if type(n) is not int or n < 0:
                raise PositionError(f"{who}: count at index {i} is not a non-negative int: {n!r}")
        if sum(board) != CHECKERS:
            raise PositionError(f"{who}: has {sum(board)} checkers, expected {CHECKERS}")
        if board[BAR]:
            raise PositionError(f"{who}: fevga has no bar")
    for p in range(1, POINTS + 1):
        if position.mover[p] and position.opponent[their_point(p)]:
            raise PositionError(f"both sides on the mover's point {p}")


def _board(points: dict[int, int], who: str) -> Board:
    board = [0] * SLOTS
    for p, n in points.items():
        if not 1 <= p <= POINTS:
            raise PositionError(f"{who}: no such point {p}")
        board[p] += n
    board[OFF] = CHECKERS - sum(board)
    return tuple(board)
