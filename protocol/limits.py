"""Every size and range limit of the wire protocol, in one place.

The message schemas (``protocol.messages``, ``protocol.events``, ``protocol.state``) are built
from these constants, and docs/protocol.md quotes them through the generated tables.

Integers that travel on the wire stay within JavaScript's safe range (|n| <= 2**53 - 1), so a
browser client never rounds one; counters (versions, sequence numbers, game, turn and roll
indices) are further capped at 2**31 - 1.

>>> MAX_FRAME_SIZE
16384
>>> MAX_COUNTER == 2**31 - 1 and MAX_TIME_MS == 2**53 - 1
True
"""

from __future__ import annotations

PROTOCOL_VERSION = 5
"""The value of `hello.proto` this code speaks (version 5: the variants)."""

PROTOCOL_VERSIONS = (1, 2, 3, 4, 5)
"""The values of `hello.proto` a server accepts. Version 4 is version 5 without the variants:
it plays backgammon matches only (a version-4 `hello` for a match of another variant is
refused `unsupported_version`), and its frames lack the fields version 5 added (`variant`,
`pinned`: protocol/versions.py). Version 3 is version 4 without the event kind
`clock_credit`: a client of version 3 or older is sent a snapshot in its place
(protocol/versions.py). Version 2 is version 3 without
correspondence matches: every frame of any other match is the same in both, and a version-2
`hello` for a correspondence match is refused `unsupported_version` (its decoder would refuse
the match's `move_time`, and it could not deposit reveals: docs/protocol.md, "Correspondence").
Version 1 is version 2 without the time reserve: it plays matches without one, and its frames
lack the fields version 2 added (protocol/versions.py)."""

RESERVE_VERSION = 2
"""The lowest `hello.proto` that may take part in a match with a time reserve."""

CORRESPONDENCE_VERSION = 3
"""The lowest `hello.proto` that may take part in a correspondence match."""

CREDIT_VERSION = 4
"""The lowest `hello.proto` that is sent `clock_credit` events (an older client gets a snapshot
in place of each)."""

VARIANT_VERSION = 5
MAX_PINNED = (1 << 25) - 2
"""The largest pin bitmask (``GameState.pinned``): bits 1..24, one per point."""
"""The lowest `hello.proto` that may take part in a match of a variant other than backgammon
(and that is sent the fields naming the variant)."""

MAX_FRAME_SIZE = 16 * 1024
"""Default largest accepted frame in bytes, both directions. The server may pass its own value
to the decoder (`max_frame_size=`); the WebSocket layer should use the same figure."""

MAX_COUNTER = 2**31 - 1
"""Largest version, sequence number, game number, turn number or roll index."""

MAX_TIME_MS = 2**53 - 1
"""Largest time in milliseconds (server epoch times, client clock readings, deadlines)."""

HASH_SIZE = 32
"""Bytes in a commitment or a revealed chain link (SHA-256 output)."""

MATCH_ID_HEX = 32
"""Characters in a match id: 128 bits as lowercase hex."""

MAX_BAD_FRAMES = 10
"""Undecodable frames in a row (each answered `reject`) after which the server answers
`error{bad_frame}` (or the last frame's code) and closes the connection with 4000."""

MAX_TOKEN_CHARS = 64
"""Longest seat token (URL-safe base64 alphabet)."""

MAX_NAME_CHARS = 24
"""Longest display name, in characters."""

MAX_NAME_BYTES = 4 * MAX_NAME_CHARS
"""Longest display name, in UTF-8 bytes."""

MAX_MESSAGE_CHARS = 200
"""Longest human-readable message in `reject` and `error`, in characters."""

MAX_MESSAGE_BYTES = 4 * MAX_MESSAGE_CHARS
"""Longest human-readable message, in UTF-8 bytes."""

MAX_CHAT_CHARS = 200
"""A chat line, in characters."""

MAX_CHAT_BYTES = 4 * MAX_CHAT_CHARS
"""A chat line, in UTF-8 bytes."""

POSITION_ID_CHARS = 14
"""Characters in a gnubg Position ID."""

MAX_MOVES = 4
"""Most checker moves in one play (doubles)."""

MAX_POINT = 25
"""Points on the wire: 0 = borne off, 1..24 = points from the mover's side, 25 = bar."""

BOARD_SLOTS = 26
"""Slots in a board array: [0] borne off, [1..24] points, [25] bar."""

MAX_CHECKERS = 15
"""Checkers per side."""

MAX_CUBE = 64
"""Highest cube value."""

MAX_POINTS = 3 * MAX_CUBE
"""Most points one game can be worth: a backgammon on a 64 cube."""

MAX_MATCH_LENGTH = 25
"""Longest match, in points."""

MAX_RECOMMITS = 3
"""Re-commitments allowed per seat and game (fairness.md, "Lost secret")."""

MIN_MOVE_TIME_MS = 1_000
"""Shortest per-decision clock a match can be created with."""

MAX_MOVE_TIME_MS = 7 * 86_400_000
"""Longest per-decision clock a match can be created with: 7 days, a correspondence match's
longest (a match played in real time has at most 600 s)."""

DAY_MS = 86_400_000
"""A day in milliseconds. A match whose `move_time` is a whole number of days, at least one,
is a correspondence match (`move_time` / `DAY_MS` days per decision)."""

CORRESPONDENCE_DAYS = (1, 2, 3, 5, 7)
"""The days per decision a correspondence match may be created with."""

MAX_RESERVE_MS = 3_600_000
"""Largest time reserve (per player, for the whole match) a match can be created with."""

MAX_CRASH_CREDIT_MS = 10_000
"""Most clock one crash of a server process credits a match (`clock_credit.ms`): a client
leaves a dead or frozen server within 6 s and resumes on another at once, so a seat that takes
longer to come back was away for reasons of its own."""

MAX_HTTP_BODY_BYTES = 4096
"""Largest JSON body of an HTTP API request, in bytes: a longer one is answered 413
`too_large` as soon as its declared length or its bytes so far pass it, and the rest is never
read (the connection is closed)."""

MAX_HTTP_BODY_DEPTH = 16
"""Deepest nesting of arrays and objects in the JSON body of an HTTP API request (the body's
own object is depth 1; every valid body is flat): a deeper one is answered 400 `bad_frame`
before it is parsed."""
