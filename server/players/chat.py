"""Chat rooms of a match: ``players`` (the two seats) and ``spectators`` (the watchers).

Lines live with the match, under its tag, numbered per room from 1 without gaps::

    fg:{m:<id>}:chat:<room>   stream: entry ``<n>-0`` per line (the last MAX_LINES kept)
    fg:{m:<id>}:chatn         hash: the last line number of each room

One script numbers a line, appends it and publishes it (as a control message on the match's
channel, so every server process hears it) atomically: no number is ever skipped, and a
client that sees one skipped, or comes back, asks for the rest with ``chat_sync``.

Who sees what (docs/protocol.md, "Chat"): the players room only the seats; the spectators
room the spectators, and the seats once the match is over (read-only).

How much anyone may say: a token bucket (:mod:`server.ops.allowance`) of ``burst`` lines
refilled at ``per_minute``, per *speaker* of a match, not per connection: a seat is one speaker
however often it reconnects, and every spectator connection from one client address (an IPv6
/64: the lobby's :func:`server.ops.addresses.address_key`, behind a trusted proxy the address it
forwarded) is one speaker. The buckets live in Redis with the match's chat, taken by the same
script that says the line, so every server process enforces the same allowance::

    fg:{m:<id>}:chatrate:<speaker>   hash: the speaker's bucket (``s0``, ``s1``, ``a:<address>``)

Times are server time (:class:`server.match.clock.ServerClock`): the tests move them by moving the
server clock. A bucket expires once it would be full again.

:class:`ChatRooms` works through the process's connections (:mod:`server.match.connections`):
it answers their ``chat_send`` and ``chat_sync``, hears the lines on the match channels and
sends each to the connections of its match that may see it.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import redis.asyncio as aioredis

from protocol import codec
from protocol import messages as m
from protocol.errors import ErrorCode
from server.match.connections import Connection, Connections
from server.match.service import MatchService, NotFound, Unavailable
from server.match.store import Store, channel, seats_key
from server.ops import logs
from server.ops.addresses import address_key
from server.ops.allowance import TAKE_TOKEN
from server.players import moderation as moderation_rules
from server.players.accounts import COOKIE, Accounts

log = logs.get("chat")

MAX_LINES = 500


def stream_key(match_id: str, room: str) -> str:
    return f"fg:{{m:{match_id}}}:chat:{room}"


def counter_key(match_id: str) -> str:
    return f"fg:{{m:{match_id}}}:chatn"


def allowance_key(match_id: str, speaker: str) -> str:
    """A speaker's chat allowance in the match (a bucket of :mod:`server.ops.allowance`)."""
    return f"fg:{{m:{match_id}}}:chatrate:{speaker}"


def speaker(conn: Connection) -> str:
    """Whose allowance a connection's lines take: its seat's, or its client address's."""
    if conn.seat is not None:
        return f"s{conn.seat}"
    return f"a:{address_key(conn.address or 'unknown')}"


# KEYS: stream, counter, the speaker's allowance. ARGV: room, seat (-1: spectator), name,
# account (0/1), text, time ms, channel, max lines, burst, lines per ms.
# Takes one line from the speaker's bucket, then numbers, appends and publishes the line.
# Returns the line's number, or minus the ms until the speaker may say one (nothing said).
_SAY = TAKE_TOKEN + """
local wait = take_token(KEYS[3], tonumber(ARGV[9]), tonumber(ARGV[10]), tonumber(ARGV[6]))
if wait > 0 then
  return -wait
end
local n = redis.call('HINCRBY', KEYS[2], ARGV[1], 1)
redis.call('XADD', KEYS[1], 'MAXLEN', ARGV[8], n .. '-0',
  's', ARGV[2], 'u', ARGV[3], 'a', ARGV[4], 'x', ARGV[5], 't', ARGV[6])
local note = cmsgpack.pack({op = 'chat', room = ARGV[1], n = n, s = ARGV[2], u = ARGV[3],
  a = ARGV[4], x = ARGV[5], t = ARGV[6]})
redis.call('$PUBLISH', ARGV[7], struct.pack('>I4', 4294967295) .. note)
return n
"""


def _line(room: str, n: int, fields: dict[str, Any]) -> m.Chat:
    seat = int(fields["s"])
    return m.Chat(
        room,  # type: ignore[arg-type]
        n,
        None if seat < 0 else seat,
        fields["u"],
        fields["a"] == "1",
        fields["x"],
        int(fields["t"]),
    )


class ChatRooms:
    """Chat for this process's connections: from its construction it answers their chat
    messages and hears the lines of every process (the app builds one)."""

    def __init__(
        self,
        store: Store,
        matches: MatchService,
        accounts: Accounts,
        connections: Connections,
        burst: int,
        per_minute: float,
        sanctions: Callable[[str], Awaitable[moderation_rules.Sanctions]] | None = None,
    ) -> None:
        """``burst`` lines at once per speaker (a seat, or a spectator's client address) of a
        match, then ``per_minute`` (the settings ``chat_burst`` and ``chat_per_minute``, from
        ``FAIRGAMMON_CHAT_BURST`` and ``FAIRGAMMON_CHAT_PER_MINUTE``: 5 and 30). A line of an
        account that a moderator muted or banned (``moderation``) is refused: ``forbidden``,
        the message saying so (docs/moderation.md): ``sanctions`` reads an account's, by id."""
        self.redis: aioredis.Redis = store.redis
        self.matches = matches
        self.accounts = accounts
        self.connections = connections
        self.sanctions = sanctions
        # On a cluster the line goes out on the match's sharded channel, as its events do.
        self._say = store.script(_SAY)
        self.burst = burst
        self.per_ms = per_minute / 60_000
        self._speakers: weakref.WeakKeyDictionary[Connection, tuple[str | None, str | None]] = (
            weakref.WeakKeyDictionary()
        )
        connections.on_message((m.ChatSend, m.ChatSync), self.handle)
        connections.on_note("chat", self._heard)

    # ---------------------------------------------------------------- client messages

    async def handle(self, conn: Connection, message: m.ChatSend | m.ChatSync) -> None:
        try:
            if isinstance(message, m.ChatSync):
                await self._sync(conn, message)
            else:
                await self._send(conn, message)
        except (NotFound, Unavailable, OSError, aioredis.RedisError):
            conn.send_message(m.Reject(None, ErrorCode.RETRY_LATER, "chat is unavailable"))

    async def _may_read(self, conn: Connection, room: str) -> ErrorCode | None:
        if room == "players":
            return ErrorCode.NOT_A_PLAYER if conn.seat is None else None
        if conn.seat is None:
            return None
        state = await self.matches.load(conn.match_id, fresh=True)
        return None if state.is_over else ErrorCode.FORBIDDEN

    async def _sync(self, conn: Connection, message: m.ChatSync) -> None:
        refused = await self._may_read(conn, message.room)
        if refused is not None:
            conn.send_message(m.Reject(None, refused, "this chat room is not yours to read"))
            return
        key = stream_key(conn.match_id, message.room)
        entries = await self.redis.xrange(key, f"{message.after + 1}-0", "+", count=MAX_LINES)
        for entry_id, raw in entries:
            fields = {k.decode(): v.decode() for k, v in raw.items()}
            n = int(entry_id.split(b"-")[0])
            conn.send_message(_line(message.room, n, fields))

    async def _send(self, conn: Connection, message: m.ChatSend) -> None:
        room = message.room
        if room == "players" and conn.seat is None:
            conn.send_message(m.Reject(None, ErrorCode.NOT_A_PLAYER, "only the players talk here"))
            return
        if room == "spectators" and conn.seat is not None:
            conn.send_message(m.Reject(None, ErrorCode.FORBIDDEN, "players do not talk here"))
            return
        name, account = await self._speaker(conn, message.name)
        if account is not None and self.sanctions is not None:
            why = moderation_rules.may_chat(await self.sanctions(account))
            if why is not None:
                detail = f"{why}: a moderator {why} this account, it cannot chat"
                conn.send_message(m.Reject(None, ErrorCode.FORBIDDEN, detail))
                return
        match_id = conn.match_id
        keys = [stream_key(match_id, room), counter_key(match_id),
                allowance_key(match_id, speaker(conn))]  # fmt: skip
        seat = -1 if conn.seat is None else conn.seat
        args = [room, seat, name, int(account is not None), message.text, self.matches.now(),
                channel(match_id), MAX_LINES, self.burst, self.per_ms]  # fmt: skip
        said = int(await self._say(keys=keys, args=args))
        if said < 0:
            who = "this seat" if conn.seat is not None else "your address"
            detail = f"slow down: {who} may chat again in {math.ceil(-said / 1000)} s"
            conn.send_message(m.Reject(None, ErrorCode.RATE_LIMITED, detail))

    async def _speaker(self, conn: Connection, typed: str | None) -> tuple[str, str | None]:
        """The name a connection speaks under, and the id of its signed-in account (None for
        a guest)."""
        known = self._speakers.get(conn)
        if known is None:
            if conn.seat is not None:
                state = await self.matches.load(conn.match_id)
                linked = await self.redis.hget(seats_key(conn.match_id), f"a{conn.seat}")
                account_id = linked.decode().split(" ", 1)[1] if linked else None
                known = (state.names[conn.seat] or "Guest", account_id)
            else:
                account = await self.accounts.session(conn.cookies.get(COOKIE))
                known = (account.name, account.id) if account else (None, None)
            self._speakers[conn] = known
        name, account = known
        return (name or typed or "Spectator"), account

    # ---------------------------------------------------------------- delivery

    def _heard(self, match_id: str, note: dict[str, Any]) -> None:
        """A line published by any process: to this process's connections that may see it."""
        room = note["room"]
        frame = codec.encode(_line(room, int(note["n"]), note))
        seats = []
        for conn in self.connections.of_match(match_id):
            if (room == "players") == (conn.seat is not None):
                conn.send(frame)
            elif room == "spectators":
                seats.append(conn)
        if seats:
            self.connections.spawn(self._to_seats_after_the_end(match_id, seats, frame))

    async def _to_seats_after_the_end(
        self, match_id: str, seats: list[Connection], frame: bytes
    ) -> None:
        try:
            state = await self.matches.load(match_id)
        except Exception:
            return
        if state.is_over:
            for conn in seats:
                conn.send(frame)
