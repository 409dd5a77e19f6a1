"""Plakoto positions: backgammon's boards, plus the pinned checkers.

The two boards face each other as in backgammon: each counted from its owner's side
(``[0]`` borne off, ``[1..24]`` its points, 24 its starting point and 1..6 its home board,
``[25]`` always 0: there is no bar), and the mover's point ``p`` is the opponent's point
``25 - p``. Both sides start with all fifteen checkers on their own 24-point (the other's
1-point).

A lone checker that an opposing checker lands on is *pinned*: it stays on the point, under
the pinner, until every opposing checker there has left. So a point may hold checkers of
both sides, exactly when one side's single checker is pinned there under one or more of the
other's. ``mover_pinned`` and ``opponent_pinned`` are bitmasks of each owner's own points
(bit ``p`` set: the owner's checker on its point ``p`` is pinned); the boards' counts include
pinned checkers.

>>> start = PlakotoPosition.start()
>>> start.mover[24], start.opponent[24], start.pips()
(15, 15, (360, 360))
>>> p = PlakotoPosition.from_points({24: 14, 6: 1}, {24: 14, 19: 1}, opponent_pinned=[19])
>>> p.pinned_points()
((), (19,))
>>> p.swapped().pinned_points()
((19,), ())
>>> PlakotoPosition.checked(start.mover, start.opponent, mover_pinned=1 << 24)
Traceback (most recent call last):
...
engine.position.PositionError: the mover's checker on point 24 is pinned but 15 stand there
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from engine.position import BAR, OFF, POINTS, SLOTS, Board, PositionError, pip_count

CHECKERS = 15
START_POINT = 24
_START: Board = (0,) * 24 + (CHECKERS, 0)


@dataclass(frozen=True, slots=True)
class PlakotoPosition:
    """A plakoto position seen by the player on roll.

    Build it with :meth:`checked` or :meth:`from_points` (which check it); the generator
    builds its results unchecked.
    """

    mover: Board
    opponent: Board
    mover_pinned: int = 0
    opponent_pinned: int = 0

    @classmethod
    def start(cls) -> PlakotoPosition:
        """Fifteen checkers a side on its own 24-point."""
        return cls(_START, _START)

    @classmethod
    def checked(
        cls, mover: Board, opponent: Board, mover_pinned: int = 0, opponent_pinned: int = 0
    ) -> PlakotoPosition:
        """The position, or :class:`~engine.position.PositionError` naming what is impossible."""
        position = cls(mover, opponent, mover_pinned, opponent_pinned)
        check(position)
        return position

    @classmethod
    def from_points(
        cls,
        mover: dict[int, int],
        opponent: dict[int, int],
        mover_pinned: Iterable[int] = (),
        opponent_pinned: Iterable[int] = (),
    ) -> PlakotoPosition:
        """From ``{point: count}`` maps (the rest borne off) and the lists of pinned points,
        each side counted from its own side."""
        return cls.checked(
            _board(mover, "mover"), _board(opponent, "opponent"),
            _mask(mover_pinned), _mask(opponent_pinned),
        )

    def swapped(self) -> PlakotoPosition:
        """The same position seen by the other player (the turn passes)."""
        return PlakotoPosition(self.opponent, self.mover, self.opponent_pinned, self.mover_pinned)

    def pips(self) -> tuple[int, int]:
        """Pip counts ``(mover, opponent)``."""
        return pip_count(self.mover), pip_count(self.opponent)

    def pinned_points(self) -> tuple[tuple[int, ...], tuple[int, ...]]:
        """The pinned points ``(mover's, opponent's)``, each in its owner's numbering."""
        return _points(self.mover_pinned), _points(self.opponent_pinned)

    def __str__(self) -> str:
        def side(board: Board, pinned: int) -> str:
            cells = [
                f"{p}:{board[p]}" + ("p" if pinned >> p & 1 else "")
                for p in range(1, POINTS + 1)
                if board[p]
            ]
            if board[OFF]:
                cells.append(f"off:{board[OFF]}")
            return " ".join(cells)

        return (
            f"mover[{side(self.mover, self.mover_pinned)}] "
            f"opponent[{side(self.opponent, self.opponent_pinned)}]"
        )


def check(position: PlakotoPosition) -> None:
    """Raise :class:`~engine.position.PositionError` unless ``position`` can occur: 26 counts
    a side summing to 15 with nothing on the bar; pin masks of points 1..24; a point held by
    both sides exactly where one side's single checker is pinned under the other's."""
    for who, board, pinned in (
        ("mover", position.mover, position.mover_pinned),
        ("opponent", position.opponent, position.opponent_pinned),
    ):
        if not isinstance(board, tuple) or len(board) != SLOTS:
            raise PositionError(f"{who}: expected a tuple of {SLOTS} counts")
        for i, n in enumerate(board):
            if type(n) is not int or n < 0:
                raise PositionError(f"{who}: count at index {i} is not a non-negative int: {n!r}")
        if sum(board) != CHECKERS:
            raise PositionError(f"{who}: has {sum(board)} checkers, expected {CHECKERS}")
        if board[BAR]:
            raise PositionError(f"{who}: plakoto has no bar")
        if type(pinned) is not int or pinned < 0 or pinned & ~_ALL_POINTS:
            raise PositionError(f"{who}: pinned points must be a bitmask of points 1-24")
    for p in range(1, POINTS + 1):
        q = 25 - p
        mine, theirs = position.mover[p], position.opponent[q]
        mover_pin, opponent_pin = position.mover_pinned >> p & 1, position.opponent_pinned >> q & 1
        if mover_pin and opponent_pin:
            raise PositionError(f"both sides pinned on the mover's point {p}")
        for who, pin, own, other, point in (
            ("mover", mover_pin, mine, theirs, p),
            ("opponent", opponent_pin, theirs, mine, q),
        ):
            if pin and own != 1:
                raise PositionError(
                    f"the {who}'s checker on point {point} is pinned but {own} stand there"
                )
            if pin and not other:
                raise PositionError(f"the {who}'s checker on point {point} is pinned by nobody")
        if mine and theirs and not (mover_pin or opponent_pin):
            raise PositionError(f"both sides on the mover's point {p} and nobody pinned")


_ALL_POINTS = sum(1 << p for p in range(1, POINTS + 1))


def _board(points: dict[int, int], who: str) -> Board:
    board = [0] * SLOTS
    for p, n in points.items():
        if not 1 <= p <= POINTS:
            raise PositionError(f"{who}: no such point {p}")
        board[p] += n
    board[OFF] = CHECKERS - sum(board)
    return tuple(board)


def _mask(points: Iterable[int]) -> int:
    mask = 0
    for p in points:
        if type(p) is not int or not 1 <= p <= POINTS:
            raise PositionError(f"no such point {p!r}")
        mask |= 1 << p
    return mask


def _points(mask: int) -> tuple[int, ...]:
    return tuple(p for p in range(1, POINTS + 1) if mask >> p & 1)
