"""Backgammon positions: immutable boards seen from the player on roll.

A :class:`Position` holds two boards, each counted from its owner's own side:

* index ``0`` — checkers borne off (``OFF``),
* indexes ``1``–``24`` — the owner's points, 1 being the last point of their home board,
* index ``25`` — checkers on the bar (``BAR``).

The same numbers name the squares of a checker move ``(from, to)``: 25 = bar, 0 = off. The
mover's point ``p`` is the opponent's point ``25 - p``.

>>> start = Position.start()
>>> start.mover[6], start.mover[8], start.mover[13], start.mover[24]
(5, 3, 5, 2)
>>> start.pips()
(167, 167)
>>> start.swapped() == start
True
"""

from __future__ import annotations

from dataclasses import dataclass

OFF = 0
BAR = 25
POINTS = 24
CHECKERS = 15
SLOTS = 26

Board = tuple[int, ...]
"""26 checker counts: ``[0]`` borne off, ``[1..24]`` points from the owner's side, ``[25]`` bar."""

_START: Board = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)


class PositionError(ValueError):
    """A board that cannot occur in backgammon (wrong checker count, shared point, ...)."""


def check_board(board: Board, who: str = "board") -> None:
    """Raise :class:`PositionError` unless ``board`` is 26 counts summing to 15."""
    if len(board) != SLOTS:
        raise PositionError(f"{who}: expected {SLOTS} counts, got {len(board)}")
    for i, n in enumerate(board):
        if type(n) is not int or n < 0:
            raise PositionError(f"{who}: count at index {i} is not a non-negative int: {n!r}")
    if sum(board) != CHECKERS:
        raise PositionError(f"{who}: has {sum(board)} checkers, expected {CHECKERS}")


@dataclass(frozen=True, slots=True)
class Position:
    """A position seen by the player on roll (the *mover*).

    ``mover`` and ``opponent`` are :data:`Board` tuples, each from its owner's side.
    Construction checks that the position is possible; :meth:`unchecked` skips that
    for generated positions on hot paths.

    >>> Position((15,) + (0,) * 25, Position.start().opponent).is_over()
    True
    >>> Position((0,) * 26, Position.start().opponent)
    Traceback (most recent call last):
    ...
    engine.position.PositionError: mover: has 0 checkers, expected 15
    """

    mover: Board
    opponent: Board

    def __post_init__(self) -> None:
        check_board(self.mover, "mover")
        check_board(self.opponent, "opponent")
        for p in range(1, POINTS + 1):
            if self.mover[p] and self.opponent[25 - p]:
                raise PositionError(f"both players have checkers on the mover's point {p}")

    @classmethod
    def unchecked(cls, mover: Board, opponent: Board) -> Position:
        """Build a position without validation (callers guarantee a legal board)."""
        position = object.__new__(cls)
        object.__setattr__(position, "mover", mover)
        object.__setattr__(position, "opponent", opponent)
        return position

    @classmethod
    def start(cls) -> Position:
        """The standard starting position."""
        return cls.unchecked(_START, _START)

    @classmethod
    def from_points(cls, mover: dict[int, int], opponent: dict[int, int]) -> Position:
        """Build a position from ``{point: count}`` maps; the rest of each side is borne off.

        >>> p = Position.from_points({6: 2, 25: 1}, {24: 1})
        >>> p.mover[OFF], p.opponent[OFF], p.mover[BAR]
        (12, 14, 1)
        """
        return cls(_board_from_points(mover, "mover"), _board_from_points(opponent, "opponent"))

    def swapped(self) -> Position:
        """The same position seen by the other player (the turn passes)."""
        return Position.unchecked(self.opponent, self.mover)

    def pips(self) -> tuple[int, int]:
        """Pip counts ``(mover, opponent)``: the total distance each side still has to travel."""
        return pip_count(self.mover), pip_count(self.opponent)

    def is_over(self) -> bool:
        """True when either side has borne off all its checkers (15 here; hypergammon's
        positions, :mod:`engine.variants.hypergammon`, have the same shape with three)."""
        return not any(self.mover[1:]) or not any(self.opponent[1:])

    def is_contact(self) -> bool:
        """True while the two sides can still hit each other (some checkers still have to pass).

        >>> Position.start().is_contact()
        True
        >>> Position.from_points({1: 15}, {1: 15}).is_contact()
        False
        """
        mover_back = _furthest(self.mover)
        opponent_back = _furthest(self.opponent)
        # The mover's furthest checker at point a and the opponent's at their point b (the mover's
        # 25 - b) have passed each other once a < 25 - b.
        return mover_back + opponent_back > 25 if mover_back and opponent_back else False

    def __str__(self) -> str:
        def side(board: Board) -> str:
            cells = [f"{p}:{board[p]}" for p in range(1, POINTS + 1) if board[p]]
            if board[BAR]:
                cells.append(f"bar:{board[BAR]}")
            if board[OFF]:
                cells.append(f"off:{board[OFF]}")
            return " ".join(cells)

        return f"mover[{side(self.mover)}] opponent[{side(self.opponent)}]"


def pip_count(board: Board) -> int:
    """Sum of distances to bear off: a checker on point ``p`` needs ``p`` pips, the bar 25.

    >>> pip_count(Position.start().mover)
    167
    """
    return sum(p * board[p] for p in range(1, SLOTS))


def _furthest(board: Board) -> int:
    for p in range(BAR, 0, -1):
        if board[p]:
            return p
    return 0


def _board_from_points(points: dict[int, int], who: str) -> Board:
    board = [0] * SLOTS
    for p, n in points.items():
        if not 1 <= p <= BAR:
            raise PositionError(f"{who}: no such point {p}")
        board[p] += n
    board[OFF] = CHECKERS - sum(board)
    if board[OFF] < 0:
        raise PositionError(f"{who}: more than {CHECKERS} checkers")
    return tuple(board)
