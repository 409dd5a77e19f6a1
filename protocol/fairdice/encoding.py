"""Byte layouts shared by every hash of scheme v1: domain strings, sizes and field encoders.

All hashes are SHA-256 over a concatenation of fixed-length fields, so no separators or length
prefixes are needed. The three domain strings are ASCII, none is a prefix of another, and each
message has its own total length (chain 76 bytes, roll 106, dice 54).

>>> u32be(7).hex()
'00000007'
>>> from_hex("00FF", 2, "x")
b'\\x00\\xff'
>>> to_hex(b"\\x00\\xff")
'00ff'
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from protocol.fairdice.errors import EncodingError

SCHEME = "fairgammon/v1"
DOMAIN_CHAIN = b"fairgammon/v1/chain"
DOMAIN_ROLL = b"fairgammon/v1/roll"
DOMAIN_DICE = b"fairgammon/v1/dice"

LINK_SIZE = 32
"""Bytes in a secret, a chain link, a commitment, a reveal and a roll seed (SHA-256 output)."""
MATCH_ID_SIZE = 16
DEFAULT_CHAIN_LENGTH = 1024
U32_MAX = 2**32 - 1
ACCEPT_BELOW = 252
"""Dice bytes ``>= 252`` are rejected: 252 = 42 * 6 is the largest multiple of 6 that fits."""

_HEX = re.compile(r"[0-9a-fA-F]*")
_LOWER_HEX = re.compile(r"[0-9a-f]*")


def u32be(n: int) -> bytes:
    """``n`` as 4 big-endian bytes; :class:`EncodingError` outside ``0 .. 2**32 - 1``.

    >>> u32be(2**32)
    Traceback (most recent call last):
    ...
    protocol.fairdice.errors.EncodingError: u32 out of range: 4294967296
    """
    if type(n) is not int or not 0 <= n <= U32_MAX:
        raise EncodingError(f"u32 out of range: {n!r}")
    return n.to_bytes(4, "big")


def seat_byte(seat: int) -> bytes:
    """The one-byte seat field (``b"\\x00"`` or ``b"\\x01"``)."""
    check_seat(seat)
    return bytes([seat])


def check_seat(seat: object) -> int:
    """``seat`` if it is the int 0 or 1, else :class:`EncodingError`."""
    if type(seat) is not int or seat not in (0, 1):
        raise EncodingError(f"seat must be 0 or 1, got {seat!r}")
    return seat


def check_bytes(value: object, size: int, what: str) -> bytes:
    """``value`` if it is ``bytes`` of exactly ``size`` bytes, else :class:`EncodingError`."""
    if not isinstance(value, bytes | bytearray):
        raise EncodingError(f"{what}: expected bytes, got {type(value).__name__}")
    if len(value) != size:
        raise EncodingError(f"{what}: expected {size} bytes, got {len(value)}")
    return bytes(value)


def from_hex(text: str, size: int, what: str, *, lowercase_only: bool = False) -> bytes:
    """Decode ``2 * size`` hex digits. Transcripts demand lowercase (one spelling per value);
    command-line input may use either case.

    >>> from_hex("abc", 16, "match_id")
    Traceback (most recent call last):
    ...
    protocol.fairdice.errors.EncodingError: match_id: expected 32 hex digits (16 bytes), got 3
    """
    if not isinstance(text, str):
        raise EncodingError(f"{what}: expected a hex string, got {type(text).__name__}")
    pattern = _LOWER_HEX if lowercase_only else _HEX
    if not pattern.fullmatch(text):
        kind = "lowercase hex digits" if lowercase_only else "hex digits"
        raise EncodingError(f"{what}: expected {kind} only")
    if len(text) != 2 * size:
        raise EncodingError(
            f"{what}: expected {2 * size} hex digits ({size} bytes), got {len(text)}"
        )
    return bytes.fromhex(text)


def to_hex(value: bytes) -> str:
    """Lowercase hex, the only spelling of binary values in transcripts and vectors."""
    return value.hex()


@dataclass(frozen=True, slots=True)
class GameId:
    """The game a chain or roll belongs to: the 16-byte match id and the u32 game number.

    Every hash of the scheme includes both, so a chain or a reveal cannot be replayed in
    another match or game.

    >>> GameId.from_hex("00" * 16, 1).fields().hex()
    '0000000000000000000000000000000000000001'
    >>> GameId(b"short", 1)
    Traceback (most recent call last):
    ...
    protocol.fairdice.errors.EncodingError: match_id: expected 16 bytes, got 5
    """

    match_id: bytes
    game_no: int

    def __post_init__(self) -> None:
        check_bytes(self.match_id, MATCH_ID_SIZE, "match_id")
        object.__setattr__(self, "match_id", bytes(self.match_id))
        u32be(self.game_no)

    @classmethod
    def from_hex(cls, match_id: str, game_no: int) -> GameId:
        return cls(from_hex(match_id, MATCH_ID_SIZE, "match_id"), game_no)

    def fields(self) -> bytes:
        """``match_id ‖ u32be(game_no)``: the 20 bytes every message of the game contains."""
        return self.match_id + u32be(self.game_no)
