"""A plain-text diagram of a position, seen by the player on roll.

The mover plays ``X`` towards the bottom right (their home board, points 1-6); the opponent
plays ``O``. Point numbers are the mover's. Stacks taller than five show their count in the
fifth row. Checkers on the bar sit in the middle column (the opponent's in the top half, the
mover's in the bottom half).

>>> from engine.position import Position
>>> print(render(Position.start()))
Position ID: 4HPwATDgc/ABMA
+-13-14-15-16-17-18-+---+-19-20-21-22-23-24-+
|  X           O    |   |  O              X |
|  X           O    |   |  O              X |
|  X           O    |   |  O                |
|  X                |   |  O                |
|  X                |   |  O                |
|                   |BAR|                   |
|  O                |   |  X                |
|  O                |   |  X                |
|  O           X    |   |  X                |
|  O           X    |   |  X              O |
|  O           X    |   |  X              O |
+-12-11-10--9--8--7-+---+--6--5--4--3--2--1-+
X: pips 167, borne off 0, on the bar 0
O: pips 167, borne off 0, on the bar 0
X on roll
"""

from __future__ import annotations

from engine.position import BAR, OFF, Position
from engine.position_id import encode

_ROWS = 5  # checkers drawn per point; a taller stack shows its count in the last row
_TOP_LEFT, _TOP_RIGHT = range(13, 19), range(19, 25)
_BOTTOM_LEFT, _BOTTOM_RIGHT = range(12, 6, -1), range(6, 0, -1)


def _cell(count: int, row: int, symbol: str) -> str:
    """What a stack of ``count`` shows in ``row`` (0 = the row at the board's edge)."""
    if count > _ROWS and row == _ROWS - 1:
        return str(count)
    return symbol if count > row else ""


def _stack(position: Position, point: int) -> tuple[int, str]:
    """(count, symbol) on the mover's ``point``; the bar is drawn separately."""
    mine = position.mover[point]
    if mine:
        return mine, "X"
    return position.opponent[25 - point], "O"


def _half(position: Position, points: range, row: int) -> str:
    cells = []
    for point in points:
        count, symbol = _stack(position, point)
        cells.append(f" {_cell(count, row, symbol):>2}")
    return "".join(cells) + " "


def _labels(points: range) -> str:
    return "".join(f"{p:->3}" for p in points) + "-"


def render(position: Position) -> str:
    """The diagram of ``position`` with its Position ID, pip counts and who is on roll."""
    lines = [
        f"Position ID: {encode(position)}",
        f"+{_labels(_TOP_LEFT)}+---+{_labels(_TOP_RIGHT)}+",
    ]
    for row in range(_ROWS):
        bar = _cell(position.opponent[BAR], row, "O")
        lines.append(
            f"|{_half(position, _TOP_LEFT, row)}|{bar:^3}|{_half(position, _TOP_RIGHT, row)}|"
        )
    lines.append(f"|{' ' * 19}|BAR|{' ' * 19}|")
    for row in reversed(range(_ROWS)):
        bar = _cell(position.mover[BAR], row, "X")
        lines.append(
            f"|{_half(position, _BOTTOM_LEFT, row)}|{bar:^3}|{_half(position, _BOTTOM_RIGHT, row)}|"
        )
    lines.append(f"+{_labels(_BOTTOM_LEFT)}+---+{_labels(_BOTTOM_RIGHT)}+")
    pips = position.pips()
    for name, board, pip in (("X", position.mover, pips[0]), ("O", position.opponent, pips[1])):
        lines.append(f"{name}: pips {pip}, borne off {board[OFF]}, on the bar {board[BAR]}")
    lines.append("X on roll")
    return "\n".join(lines)
