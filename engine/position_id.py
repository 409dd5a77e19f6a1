"""GNU Backgammon Position IDs, byte-identical with gnubg.

The ID is 80 bits written as 14 base64 characters (no padding). For each side in turn, for
each of its points 1..24 and then its bar, it holds as many 1-bits as checkers, then a 0-bit;
bits fill each byte from the least significant end. gnubg writes the side **not** on roll first
(its manual says otherwise; its code and every ID it prints do this).

>>> from engine.position import Position
>>> encode(Position.start())
'4HPwATDgc/ABMA'
>>> decode('4HPwATDgc/ABMA') == Position.start()
True
"""

from __future__ import annotations

import base64
import binascii

from engine.position import BAR, CHECKERS, SLOTS, Board, Position, PositionError

_ID_LENGTH = 14
_KEY_BYTES = 10
_RUNS = tuple("0" + "1" * n for n in range(CHECKERS + 1))  # a square's bits, high bit first


class PositionIdError(ValueError):
    """A string that is not a valid Position ID."""


def encode(position: Position) -> str:
    """The gnubg Position ID of ``position`` (the mover is the player on roll)."""
    return base64.b64encode(key_bytes(position.mover, position.opponent)).decode("ascii")[:14]


def key_bytes(mover: Board, opponent: Board) -> bytes:
    """The 10-byte gnubg position key (opponent first, then mover)."""
    # Written as binary digits, most significant first: the squares in reverse (mover's bar
    # down to the opponent's point 1), each as its closing 0-bit then its 1-bits. Joining
    # table strings and one int() parse is several times faster than shifting bit by bit.
    digits = "".join(map(_RUNS.__getitem__, mover[25:0:-1] + opponent[25:0:-1]))
    return int(digits, 2).to_bytes(_KEY_BYTES, "little")


def decode(position_id: str) -> Position:
    """The position a gnubg Position ID describes, seen by the player on roll.

    Anything but a well-formed ID of a possible position raises :class:`PositionIdError`.

    >>> decode('4HPwATDgc/ABMA').pips()
    (167, 167)
    >>> decode('4HPwATDgc/AB')
    Traceback (most recent call last):
    ...
    engine.position_id.PositionIdError: a Position ID has 14 characters, got 12
    """
    if not isinstance(position_id, str):
        raise PositionIdError("a Position ID is a string")
    if len(position_id) != _ID_LENGTH:
        raise PositionIdError(f"a Position ID has {_ID_LENGTH} characters, got {len(position_id)}")
    try:
        raw = base64.b64decode(position_id + "==", validate=True)
    except (binascii.Error, ValueError):
        raise PositionIdError(f"not base64: {position_id!r}") from None
    bits = int.from_bytes(raw, "little")
    boards: list[Board] = []
    shift = 0
    for who in ("opponent", "mover"):
        counts = [0] * SLOTS
        for p in range(1, BAR + 1):
            n = 0
            while shift < 80 and (bits >> shift) & 1:
                n += 1
                shift += 1
            if shift >= 80:
                raise PositionIdError(f"truncated Position ID: {position_id!r}")
            shift += 1  # the 0-bit that ends this point
            counts[p] = n
        on_board = sum(counts)
        if on_board > CHECKERS:
            raise PositionIdError(f"{who} has {on_board} checkers on the board (at most 15)")
        counts[0] = CHECKERS - on_board
        boards.append(tuple(counts))
    if bits >> shift:
        raise PositionIdError(f"stray bits after the last point: {position_id!r}")
    try:
        position = Position(mover=boards[1], opponent=boards[0])
    except PositionError as exc:
        raise PositionIdError(str(exc)) from None
    if encode(position) != position_id:  # unused low bits of the last character were set
        raise PositionIdError(f"non-canonical Position ID: {position_id!r}")
    return position
