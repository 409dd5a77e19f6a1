"""Hypergammon: backgammon with three checkers a side, on each side's 24-, 23- and 22-points.

The rules are backgammon's in full — hitting, the bar, bearing off once all three are home,
gammons and backgammons, the cube — so the engine's generator, validator and results serve
unchanged (:mod:`engine.variants.backgammon`). The start is GNU Backgammon's
``set variation 3-chequer-hypergammon`` position (checked against Debian's gnubg in
tests/unit/test_variants_gnubg.py).

Positions are :class:`engine.position.Position` values holding 3 checkers a side instead of 15
(``[0]`` counts the borne-off ones out of 3). ``Position(...)`` itself checks a 15-checker
board, so build them with :func:`position` or :func:`from_points`, which check 3. gnubg
Position IDs carry no borne-off counts: :func:`engine.position_id.encode` writes them as for
backgammon, :func:`decode` reads them back with three checkers a side.

>>> start = HYPERGAMMON.start()
>>> start, start.pips()
(Position(mover=(0, ..., 1, 1, 1, 0), opponent=(0, ..., 1, 1, 1, 0)), (69, 69))
>>> from engine.position_id import encode
>>> encode(start), decode(encode(start)) == start
('AACgAgAAKgAAAA', True)
>>> [len(HYPERGAMMON.legal_plays(start, d1, d2)) for d1, d2 in ((2, 1), (6, 5), (6, 6))]
[6, 9, 12]
"""

from __future__ import annotations

from dataclasses import replace

from engine.position import BAR, OFF, POINTS, SLOTS, Board, Position, PositionError
from engine.position_id import PositionIdError
from engine.position_id import decode as decode_backgammon
from engine.variants.backgammon import BACKGAMMON

CHECKERS = 3
_START: Board = (0,) * 22 + (1, 1, 1, 0)


def start() -> Position:
    """The hypergammon starting position."""
    return Position.unchecked(_START, _START)


def check(mover: Board, opponent: Board) -> None:
    """Raise :class:`~engine.position.PositionError` unless this is a hypergammon position:
    26 non-negative int counts a side summing to 3, no point held by both.

    >>> check((3,) + (0,) * 25, _START)
    >>> check(_START, (0,) * 26)
    Traceback (most recent call last):
    ...
    engine.position.PositionError: opponent: has 0 checkers, expected 3
    """
    for who, board in (("mover", mover), ("opponent", opponent)):
        if not isinstance(board, tuple) or len(board) != SLOTS:
            raise PositionError(f"{who}: expected a tuple of {SLOTS} counts")
        for i, n in enumerate(board):
            if type(n) is not int or n < 0:
                raise PositionError(f"{who}: count at index {i} is not a non-negative int: {n!r}")
        if sum(board) != CHECKERS:
            raise PositionError(f"{who}: has {sum(board)} checkers, expected {CHECKERS}")
    for p in range(1, POINTS + 1):
        if mover[p] and opponent[25 - p]:
            raise PositionError(f"both players have checkers on the mover's point {p}")


def position(mover: Board, opponent: Board) -> Position:
    """A checked hypergammon position."""
    check(mover, opponent)
    return Position.unchecked(mover, opponent)


def from_points(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    """Build a position from ``{point: count}`` maps (25 the bar); the rest is borne off.

    >>> from_points({25: 1, 3: 1}, {1: 2}).mover[OFF]
    1
    """
    boards = []
    for who, points in (("mover", mover), ("opponent", opponent)):
        board = [0] * SLOTS
        for p, n in points.items():
            if not 1 <= p <= BAR:
                raise PositionError(f"{who}: no such point {p}")
            board[p] += n
        board[OFF] = CHECKERS - sum(board)
        boards.append(tuple(board))
    return position(boards[0], boards[1])


def decode(position_id: str) -> Position:
    """The hypergammon position of a gnubg Position ID (at most 3 checkers a side on the
    board), or :class:`~engine.position_id.PositionIdError`."""
    wide = decode_backgammon(position_id)  # checks the ID; fills 15 - on-board as borne off
    boards = []
    for who, board in (("opponent", wide.opponent), ("mover", wide.mover)):
        on_board = sum(board[1:])
        if on_board > CHECKERS:
            raise PositionIdError(f"{who} has {on_board} checkers on the board (at most 3)")
        boards.append((CHECKERS - on_board, *board[1:]))
    return Position.unchecked(boards[1], boards[0])


HYPERGAMMON = replace(
    BACKGAMMON,
    name="hypergammon",
    checkers=CHECKERS,
    start=start,
    check=lambda p: check(p.mover, p.opponent),
)
