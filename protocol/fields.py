"""Field types shared by many messages: ``Annotated`` aliases carrying their spec and doc.

A field declared ``game: Game`` is an ``int`` to type checkers and ``Int(1, 2**31-1)`` to the
codec; ``Annotated[Game, "other words"]`` keeps the spec and replaces the doc.

>>> from protocol.schema import struct_spec
>>> import dataclasses
>>> @dataclasses.dataclass(frozen=True, slots=True)
... class Example:
...     game: Game
...     moves: Moves
>>> struct_spec(Example).load({"game": 1, "moves": ((8, 5), (6, 5))})
Example(game=1, moves=((8, 5), (6, 5)))
"""

from __future__ import annotations

from typing import Annotated

from protocol import limits as L
from protocol.schema import Array, Bin, Int, Nullable, Str, Tuple

# Specs that are also used inside other specs (arrays, nullables)
TOKEN = Str(
    1,
    L.MAX_TOKEN_CHARS,
    max_bytes=L.MAX_TOKEN_CHARS,
    pattern=f"[A-Za-z0-9_-]{{1,{L.MAX_TOKEN_CHARS}}}",
    what=f"1..{L.MAX_TOKEN_CHARS} characters of A-Z a-z 0-9 _ -",
)
SEAT = Int(0, 1)
HASH = Bin(L.HASH_SIZE)
VERSION = Int(0, L.MAX_COUNTER)
POINT = Int(0, L.MAX_POINT)
MOVE = Tuple(POINT, POINT)
DIE = Int(1, 6)
BOARD = Array(Int(0, L.MAX_CHECKERS), L.BOARD_SLOTS, L.BOARD_SLOTS)
MATCH_ID_PATTERN = f"[0-9a-f]{{{L.MATCH_ID_HEX}}}"
"""A match id, which the WHOLE string must match (fullmatch): on the wire (:data:`MatchId`)
and in the paths of the HTTP API."""

Seq = Annotated[
    int,
    Int(1, L.MAX_COUNTER),
    "client sequence number: per seat, increasing, kept across reconnects",
]
Version = Annotated[int, VERSION, "match event version"]
TimeMs = Annotated[int, Int(0, L.MAX_TIME_MS), "milliseconds since the Unix epoch"]
Deadline = Annotated[
    int, Int(0, L.MAX_TIME_MS), "absolute server time (ms since the Unix epoch) of the deadline"
]
Game = Annotated[int, Int(1, L.MAX_COUNTER), "game number within the match, from 1"]
Turn = Annotated[int, Int(1, L.MAX_COUNTER), "turn number within the game, from 1"]
RollIndex = Annotated[
    int, Int(1, L.MAX_COUNTER), "roll index k within the game (= the hash-chain link), from 1"
]
Seat = Annotated[int, SEAT, "seat 0 or 1"]
Hash = Annotated[bytes, HASH, "32-byte SHA-256 value"]
Die = Annotated[int, DIE, "a die"]
Cube = Annotated[int, Int(1, L.MAX_CUBE), "cube value"]
Points = Annotated[int, Int(1, L.MAX_POINTS), "points won: result multiplier x cube value"]
Score = Annotated[
    tuple[int, int],
    Tuple(Int(0, L.MAX_COUNTER), Int(0, L.MAX_COUNTER)),
    "points of seat 0 and seat 1",
]
MatchId = Annotated[
    str,
    Str(
        L.MATCH_ID_HEX,
        L.MATCH_ID_HEX,
        max_bytes=L.MATCH_ID_HEX,
        pattern=MATCH_ID_PATTERN,
        what=f"{L.MATCH_ID_HEX} lowercase hex characters (128-bit match id)",
    ),
    "match id",
]
Name = Annotated[
    str | None,
    Nullable(Str(1, L.MAX_NAME_CHARS, max_bytes=L.MAX_NAME_BYTES)),
    "display name (no control or bidi-override characters), nil for none",
]
Message = Annotated[
    str,
    Str(0, L.MAX_MESSAGE_CHARS, max_bytes=L.MAX_MESSAGE_BYTES),
    "human-readable explanation (for people and logs, not for program logic)",
]
PositionId = Annotated[
    str,
    Str(
        L.POSITION_ID_CHARS,
        L.POSITION_ID_CHARS,
        max_bytes=L.POSITION_ID_CHARS,
        pattern=f"[A-Za-z0-9+/]{{{L.POSITION_ID_CHARS}}}",
        what=f"{L.POSITION_ID_CHARS}-character gnubg Position ID",
    ),
    "gnubg Position ID",
]

Moves = Annotated[
    tuple[tuple[int, int], ...],
    Array(MOVE, 0, L.MAX_MOVES),
    "checker moves [from, to] in order, points counted from the mover's side "
    "(25 = bar, 0 = borne off)",
]
Board = Annotated[
    tuple[int, ...],
    BOARD,
    "checkers per slot from the owner's side: [0] borne off, [1..24] points, [25] bar",
]
