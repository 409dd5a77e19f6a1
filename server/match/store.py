"""The Redis store: one match = a state snapshot with its version, an event log, seat hashes.

Every transition is written by one Lua script that compares the stored version with the one
the transition was computed from (compare-and-set), then writes the new snapshot, appends the
events to the log (a Redis Stream whose entry ids are the event versions, ``<v>-0``) and
publishes them on the match's channel — atomically. A published message is the event's
version as 4 big-endian bytes followed by the event frame; other (unversioned) messages on the
channel, such as presence, carry version 0. With ``appendfsync always`` Redis replies
only once the write is on disk, and it delivers published messages after the same fsync, so
nothing is acknowledged or broadcast before it is durable.

Keys of one match share the hash tag ``{m:<id>}`` (one Redis Cluster slot), and so does its
channel: every script touches one slot only. On a Redis Cluster the channel is a sharded one
(``SPUBLISH``; see :mod:`server.ops.redis_link`). The global indexes (open and live matches, clock
deadlines, gone seats) are one key each, updated by separate commands after the script: they
are hints that the sweeper re-checks against the match state. The clock's keys share the tag
``{clock}``, so the heartbeat script is one slot too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgpack

from server.match.batch import CommandBatcher, ScriptBatcher
from server.match.seat_entry import SeatEntry
from server.ops.lean_link import LeanLink
from server.ops.redis_link import RedisTarget, connect, open_link

OPEN_MATCHES = "fg:idx:open"
LIVE_MATCHES = "fg:idx:live"
DEADLINES = "fg:idx:deadlines"
HEARTBEAT = "fg:{clock}:alive"
CLOCK_CREDIT = "fg:{clock}:credit"
STOPPED = "fg:{clock}:stopped"
LEGACY_CLOCK = {"fg:clock:alive": HEARTBEAT, "fg:clock:credit": CLOCK_CREDIT}
"""The clock's keys before they shared a hash tag: renamed once at start on a single Redis."""
PROCESS_TTL_MS = 3_600_000
"""How long a server process's liveness record outlives its last heartbeat."""
PROCESSES = "fg:{clock}:procs"
"""The server processes (``<address> <id>``: the host and port it listens on, its id) by the
wall time (ms) of their last heartbeat: who else is serving. A process about to stop moves its
clients to the others only if there are any, and only to another address: the workers of one
``fairgammon serve`` share its port and stop together."""
PEERS_WITHIN_MS = 2_000
"""A process whose last heartbeat is older than this is not counted on to take clients."""
GONE_DUE = "fg:idx:gone"
"""When each seat that lost its connection is to be shown gone: :func:`gone_member`."""


def gone_member(match_id: str, seat: int, conn_id: str) -> str:
    """A seat's entry in :data:`GONE_DUE`: ``<match>:<seat>:<connection id>`` (read back by
    :meth:`Store.claim_gone`).

    >>> gone_member("ab" * 16, 1, "claimed").rsplit(":", 2)[1:]
    ['1', 'claimed']
    """
    return f"{match_id}:{seat}:{conn_id}"


def process_key(process: str) -> str:
    """A server process's liveness record: the server time (ms) of its last heartbeat, written
    by the heartbeat and deleted by a graceful stop (:mod:`server.match.crash_credit`). Server
    time, not wall time: an outage of every process, credited to the server clock meanwhile,
    does not count again as the time since the dead process's last beat."""
    return f"fg:{{clock}}:proc:{process}"


def state_key(match_id: str) -> str:
    return f"fg:{{m:{match_id}}}:state"


def log_key(match_id: str) -> str:
    return f"fg:{{m:{match_id}}}:log"


def seats_key(match_id: str) -> str:
    return f"fg:{{m:{match_id}}}:seats"


def channel(match_id: str) -> str:
    return f"fg:{{m:{match_id}}}:events"


def match_of(channel_name: str) -> str:
    """The match whose :func:`channel` this is.

    >>> match_of(channel("ab" * 16)) == "ab" * 16
    True
    """
    return channel_name.split("{m:", 1)[1].split("}", 1)[0]


def presence_key(match_id: str) -> str:
    """Per seat, ``<status>:<connection id>`` of its newest connection; per seat also
    ``<seat>:was``, the entry before the seat's last takeover."""
    return f"fg:{{m:{match_id}}}:presence"


def watchers_key(match_id: str) -> str:
    """Spectator connections of a match (one field per connection, on any process)."""
    return f"fg:{{m:{match_id}}}:watchers"


def takeover_key(match_id: str) -> str:
    """Per seat, how many connections have taken it (the generation of the newest)."""
    return f"fg:{{m:{match_id}}}:takeovers"


CONTROL = 0xFFFFFFFF
"""The version prefix of control messages between server processes (not for clients)."""


def published(frame: bytes, control: bool = False) -> bytes:
    """An unversioned frame for the match channel: version 0 (for clients, such as presence),
    or :data:`CONTROL` (between server processes). :func:`split_published` reads it back."""
    return (CONTROL if control else 0).to_bytes(4, "big") + frame


def split_published(message: bytes) -> tuple[int, bytes]:
    """``(version, frame)`` of a message from a match channel: version 0 is an unversioned
    frame for clients (presence), :data:`CONTROL` a message between processes."""
    return int.from_bytes(message[:4], "big"), message[4:]


# KEYS: state, log, seats. ARGV: expected version, state blob, summary blob, channel,
# seat fields to set (msgpack [field, value, ...] or ""), the command record, then the event
# frames (versions expected+1...). The command record rides on the transition's first log entry.
_COMMIT = """
local current = tonumber(redis.call('HGET', KEYS[1], 'v') or '-1')
if current ~= tonumber(ARGV[1]) then
  return {0, current}
end
local base = math.max(current, 0)
local n = #ARGV - 6
for i = 1, n do
  if i == 1 then
    redis.call('XADD', KEYS[2], (base + i) .. '-0', 'e', ARGV[6 + i], 'c', ARGV[6])
  else
    redis.call('XADD', KEYS[2], (base + i) .. '-0', 'e', ARGV[6 + i])
  end
end
redis.call('HSET', KEYS[1], 'v', base + n, 's', ARGV[2], 'm', ARGV[3])
if ARGV[5] ~= '' then
  redis.call('HSET', KEYS[3], unpack(cmsgpack.unpack(ARGV[5])))
end
for i = 1, n do
  redis.call('$PUBLISH', ARGV[4], struct.pack('>I4', base + i) .. ARGV[6 + i])
end
return {1, base + n}
"""

# KEYS: deadlines index. ARGV: now, lease ms, max count. Claims due matches by pushing their
# score forward by the lease, so one process handles each; if it dies the lease runs out.
_CLAIM_DUE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local lease = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, m in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', lease, m)
end
return due
"""

# KEYS: heartbeat, credit, stopped, and (when it has them) this process's liveness record and
# the index of processes. ARGV: wall ms now, gap ms that counts as an outage, one beat ms, the
# record's lifetime ms, this process's entry in the index, how recent (ms) a beat of another
# process must be for it to count as alive, this process's address. Returns the clock credit:
# the total time all servers (or Redis) were down, which the server subtracts from wall time
# so that outages never eat into anybody's clock; the answering Redis's run_id, which changes
# when it restarts or another one takes over; and how many server processes at another
# address beat recently.
_HEARTBEAT = """
local last = tonumber(redis.call('GET', KEYS[1]) or '0')
local now = tonumber(ARGV[1])
local credit = tonumber(redis.call('GET', KEYS[2]) or '0')
local gap = now - last
if last > 0 and gap > tonumber(ARGV[2]) then
  credit = credit + gap
  redis.call('SET', KEYS[2], credit)
elseif last > 0 and redis.call('GET', KEYS[3]) and gap > tonumber(ARGV[3]) then
  -- A server stopped gracefully since the last heartbeat: even a short restart is credited
  -- (beyond one normal beat).
  credit = credit + gap - tonumber(ARGV[3])
  redis.call('SET', KEYS[2], credit)
end
redis.call('DEL', KEYS[3])
if now > last then
  redis.call('SET', KEYS[1], now)
end
local peers = 0
if KEYS[4] then
  redis.call('SET', KEYS[4], now - credit, 'PX', ARGV[4])  -- in server time
  redis.call('ZADD', KEYS[5], now, ARGV[5])
  redis.call('ZREMRANGEBYSCORE', KEYS[5], '-inf', now - tonumber(ARGV[4]))
  local mine = ARGV[7] .. ' '
  for _, p in ipairs(redis.call('ZRANGEBYSCORE', KEYS[5], now - tonumber(ARGV[6]), '+inf')) do
    if string.sub(p, 1, #mine) ~= mine then
      peers = peers + 1
    end
  end
end
local info = redis.pcall('INFO', 'server')  -- (a Redis without INFO: no run_id, no harm)
local run_id = type(info) == 'string' and string.match(info, 'run_id:(%w+)') or ''
return {credit, run_id, peers}
"""


# KEYS: takeovers, presence. ARGV: seat, connection id, channel, the presence frame, the seat's
# new presence entry (server.match.seat_entry).
# A connection takes a seat: count the takeover (its generation), mark the seat online, tell
# the match (presence) and every server process (a control note: close older connections).
# Returns the generation and the seat's presence entry before (whose connection it was), also
# kept as the field '<seat>:was' (server.match.crash_credit).
_TAKE_SEAT = """
local generation = redis.call('HINCRBY', KEYS[1], ARGV[1], 1)
local before = redis.call('HGET', KEYS[2], ARGV[1]) or ''
redis.call('HSET', KEYS[2], ARGV[1], ARGV[5])
if before ~= '' then
  redis.call('HSET', KEYS[2], ARGV[1] .. ':was', before)
end
redis.call('$PUBLISH', ARGV[3], struct.pack('>I4', 0) .. ARGV[4])
local note = cmsgpack.pack(
  {op = 'seat', seat = tonumber(ARGV[1]), conn = ARGV[2], gen = generation})
redis.call('$PUBLISH', ARGV[3], struct.pack('>I4', 4294967295) .. note)
return {generation, before}
"""


# KEYS: the gone index. ARGV: now, max count. Takes the due entries out (one process each).
_CLAIM_GONE = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[2]))
if #due > 0 then
  redis.call('ZREM', KEYS[1], unpack(due))
end
return due
"""


def _script(source: str, target: RedisTarget) -> str:
    """A script for ``target``: match channels are published with ``SPUBLISH`` on a cluster."""
    return source.replace("$PUBLISH", target.publish)


@dataclass(frozen=True, slots=True)
class Stored:
    """A match as stored: its version, state blob and public summary blob."""

    version: int
    state: bytes
    summary: bytes

    @classmethod
    def of(cls, fields: Sequence[bytes | None]) -> Stored | None:
        """From ``HMGET state v s m`` (None when the match does not exist)."""
        version, state, summary = fields
        if version is None:
            return None
        return cls(int(version), state or b"", summary or b"")


@dataclass(frozen=True, slots=True)
class Joining:
    """What a connection needs once it follows a match, read in one round trip."""

    stored: Stored | None
    newest_generation: int
    """The seat's takeover count now (0 for a spectator)."""
    presence: tuple[bytes | None, bytes | None]
    watchers: int


class Conflict(Exception):
    """The stored version moved on since the state was loaded (another writer won)."""

    def __init__(self, current: int) -> None:
        super().__init__(f"version conflict: stored version is {current}")
        self.current = current


class Store:
    """Async access to the Redis layout above. One instance per process."""

    def __init__(
        self,
        redis: Any,
        target: RedisTarget | None = None,
        beat: Any = None,
        link: LeanLink | None = None,
        window: float = 0.0,
    ) -> None:
        self.redis = redis
        self.target = target or RedisTarget(url="redis://")
        # The heartbeat has a client (one connection) of its own when given: it measures the
        # store's answer, not the wait for a pooled connection (server.match.clock).
        self._beat = beat
        # The batched work below (the commit and take-seat scripts, the handshake's reads, the
        # index updates) goes through ``link`` when given (the bare pipelined connection of
        # server.ops.lean_link: one plain Redis), else through ``redis``.
        self._link = link
        # ``window`` (seconds, ``commit_window_ms``): how long a batch waits for others to
        # join it; 0 sends it on the loop's next iteration (server.match.batch).
        self._commit = ScriptBatcher(redis, _script(_COMMIT, self.target), link, window)
        self._claim = redis.register_script(_CLAIM_DUE)
        self._heartbeat = (beat or redis).register_script(_HEARTBEAT)
        # A handshake's reads and its take-seat script go with those of the other handshakes
        # of the same loop iteration (a restart brings every client back at once); so do the
        # index updates of the transitions stored meanwhile.
        self._batched = CommandBatcher(redis, link, window)
        self._take_seat = ScriptBatcher(redis, _script(_TAKE_SEAT, self.target), link, window)
        self._claim_gone = redis.register_script(_CLAIM_GONE)
        self._clock_keys_checked = self.target.cluster  # a cluster never had the old names
        self.instance: bytes | None = None
        """The run_id of the Redis that answered the last heartbeat."""
        self.peers = 0
        """How many server processes at another address beat within :data:`PEERS_WITHIN_MS`
        (as of this process's last heartbeat)."""
        self._entry = ""  # this process's entry in PROCESSES: "<address> <id>"

    def script(self, source: str) -> Any:
        """``source`` as a script of this store, publishing on match channels the way its
        Redis does (``$PUBLISH``: ``SPUBLISH`` on a cluster)."""
        return self.redis.register_script(_script(source, self.target))

    @classmethod
    def connect(cls, target: str | RedisTarget, window: float = 0.0) -> Store:
        """A store on one Redis (a URL), a cluster or a Sentinel-watched primary; ``window``:
        how long its batches wait for others to join them (seconds; 0: the next iteration)."""
        target = RedisTarget.of(target)
        return cls(
            connect(target),
            target,
            beat=connect(target, max_connections=1),
            link=open_link(target),
            window=window,
        )

    @classmethod
    def from_url(cls, url: str) -> Store:
        return cls.connect(url)

    async def close(self) -> None:
        if self._link is not None:
            await self._link.aclose()
        await self.redis.aclose()
        if self._beat is not None:
            await self._beat.aclose()

    async def live_count(self) -> int:
        """How many matches are live (the lobby's index), for the metrics endpoint."""
        return int(await self.redis.zcard(LIVE_MATCHES))

    async def ping(self) -> bool:
        try:
            return bool(await asyncio.wait_for(self.redis.ping(), 1.0))
        except Exception:
            return False

    async def commit(
        self,
        match_id: str,
        expected_version: int,
        state: bytes,
        summary: bytes,
        events: Sequence[bytes],
        seat_fields: dict[str, bytes] | None = None,
        command: bytes = b"",
    ) -> int:
        """Store a transition atomically; returns the new version or raises :class:`Conflict`.

        ``expected_version`` is -1 to create the match (nothing stored yet). ``seat_fields``
        are stored in the seats hash with it (token hashes by seat number, the invite hash).
        ``command`` is
        the record of what caused the transition, kept in the log so that the state can be
        rebuilt by replaying the log (:meth:`commands`).
        """
        fields = b""
        if seat_fields:
            # Lua's cmsgpack reads only the old msgpack format (raw strings, no bin type).
            flat = [x for kv in seat_fields.items() for x in kv]
            fields = msgpack.packb(flat, use_bin_type=False)
        head = [expected_version, state, summary, channel(match_id), fields, command]
        ok, version = await self._commit.call(
            [state_key(match_id), log_key(match_id), seats_key(match_id)], [*head, *events]
        )
        if not ok:
            raise Conflict(int(version))
        return int(version)

    async def load(self, match_id: str) -> Stored | None:
        return Stored.of(await self.redis.hmget(state_key(match_id), "v", "s", "m"))

    # --- connections (the gateway's handshake and presence) ---

    async def take_seat(
        self, match_id: str, seat: int, entry: SeatEntry, online: bytes
    ) -> tuple[int, bytes]:
        """The connection ``entry.conn`` takes ``seat``: returns its generation (the seat's
        takeover count) and the seat's presence entry before (empty if none).

        In the same round trip the seat's entry becomes ``entry`` and both its presence frame
        ``online`` and a control note ``{op: seat, seat, conn, gen}`` are published on the match
        channel.
        """
        keys = [takeover_key(match_id), presence_key(match_id)]
        args = [seat, entry.conn, channel(match_id), online, entry.encode()]
        generation, before = await self._take_seat.call(keys, args)
        return int(generation), before or b""

    async def joining(
        self, match_id: str, seat: int | None, waiting_gone: str | None = None
    ) -> Joining:
        """The state, the seat's newest generation, presence and watchers: one round trip.

        ``waiting_gone``: the connection id under which the seat this connection just took
        was waiting to be shown gone (:func:`server.match.presence.waiting_gone` of the entry
        :meth:`take_seat` returned): that entry of the gone index goes in the same round trip,
        so the sweeper (:meth:`claim_gone`) does not read the seat again only to find it taken.
        (The index is a key of its own, in another slot on a cluster: the take-seat script
        cannot do it.)"""
        commands: list[tuple[Any, ...]] = [
            ("HMGET", state_key(match_id), "v", "s", "m"),
            ("HMGET", presence_key(match_id), "0", "1"),
            ("HLEN", watchers_key(match_id)),
        ]
        if seat is not None and waiting_gone is not None:
            commands.append(("ZREM", GONE_DUE, gone_member(match_id, seat, waiting_gone)))
        if seat is not None:
            commands.append(("HGET", takeover_key(match_id), str(seat)))
        state, presence, watchers, *rest = await self._batched.run(*commands)
        generation = int(rest[-1] or 0) if seat is not None else 0
        return Joining(Stored.of(state), generation, (presence[0], presence[1]), int(watchers))

    async def presence(self, match_id: str) -> tuple[bytes | None, bytes | None]:
        raw = await self.redis.hmget(presence_key(match_id), "0", "1")
        return raw[0], raw[1]

    async def seat_presence(self, match_id: str, seat: int) -> bytes | None:
        return await self.redis.hget(presence_key(match_id), str(seat))

    async def set_presence(
        self,
        match_id: str,
        seat: int,
        entry: SeatEntry,
        frame: bytes | None,
        gone_at: int | None = None,
    ) -> None:
        """Record a seat's presence entry and publish its frame (if any), in one round trip;
        with ``gone_at`` (ms) also index when the seat is to be shown gone (:meth:`claim_gone`)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(presence_key(match_id), str(seat), entry.encode())
            if frame is not None:
                pipe.execute_command(self.target.publish, channel(match_id), published(frame))
            if gone_at is not None:
                pipe.zadd(GONE_DUE, {gone_member(match_id, seat, entry.conn): gone_at})
            await pipe.execute()

    async def claim_gone(self, now: int, count: int = 100) -> list[tuple[str, int, str]]:
        """Take the seats due to be shown gone: ``(match, seat, connection id)``, each once."""
        due = await self._claim_gone(keys=[GONE_DUE], args=[now, count])
        claimed = []
        for member in due:
            match_id, seat, conn_id = member.decode().rsplit(":", 2)
            claimed.append((match_id, int(seat), conn_id))
        return claimed

    async def watch(self, match_id: str, conn_id: str, joined: bool, ttl: int) -> None:
        """Count a spectator connection in or out (the count ages out after ``ttl`` s)."""
        key = watchers_key(match_id)
        async with self.redis.pipeline(transaction=False) as pipe:
            if joined:
                pipe.hset(key, conn_id, "1")
            else:
                pipe.hdel(key, conn_id)
            pipe.expire(key, ttl)
            await pipe.execute()

    async def watchers(self, match_id: str) -> int:
        return int(await self.redis.hlen(watchers_key(match_id)))

    async def version(self, match_id: str) -> int | None:
        raw = await self.redis.hget(state_key(match_id), "v")
        return int(raw) if raw is not None else None

    async def versions(self, match_ids: Sequence[str]) -> list[int | None]:
        """Each match's stored version (None: no such match), in one pipelined round trip."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.hget(state_key(match_id), "v")
            raw = await pipe.execute()
        return [int(v) if v is not None else None for v in raw]

    async def summaries(self, match_ids: Sequence[str]) -> list[bytes | None]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.hget(state_key(match_id), "m")
            return await pipe.execute()

    async def listing(
        self, match_ids: Sequence[str], seat_fields: Sequence[str]
    ) -> list[tuple[bytes | None, list[bytes | None]]]:
        """Each match's summary with ``seat_fields`` of its seats hash (the lobby's labels): one
        pipelined round trip for the whole list."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for match_id in match_ids:
                pipe.hget(state_key(match_id), "m")
                pipe.hmget(seats_key(match_id), list(seat_fields))
            replies = await pipe.execute()
        return list(zip(replies[::2], replies[1::2], strict=True))

    async def seat_hash(self, match_id: str, field: str) -> bytes | None:
        """A stored hash from the seats hash: ``"0"``, ``"1"`` (seat tokens) or ``"invite"``."""
        return await self.redis.hget(seats_key(match_id), field)

    async def seat_fields(self, match_id: str, fields: Sequence[str]) -> list[bytes | None]:
        """Fields of the seats hash (None for each one it lacks), in one round trip."""
        return list(await self.redis.hmget(seats_key(match_id), list(fields)))

    async def seat_hashes(self, match_id: str) -> tuple[bytes | None, bytes | None] | None:
        """The stored hashes of both seat tokens (None for a seat nobody took), or None when
        there is no such match: one round trip, without reading the state itself."""
        exists, (h0, h1) = await self._batched.run(
            ("HEXISTS", state_key(match_id), "v"), ("HMGET", seats_key(match_id), "0", "1")
        )
        return (h0, h1) if exists else None

    async def publish(self, match_id: str, frame: bytes, control: bool = False) -> None:
        """Publish an unversioned frame (presence), or a control message between processes,
        to every process serving the match."""
        await self.redis.execute_command(
            self.target.publish, channel(match_id), published(frame, control)
        )

    async def events_after(
        self, match_id: str, version: int, limit: int
    ) -> list[tuple[int, bytes]]:
        """``(version, frame)`` of the events after ``version`` (at most ``limit``)."""
        entries = await self.redis.xrange(log_key(match_id), f"{version + 1}-0", "+", count=limit)
        return [(int(entry_id.split(b"-")[0]), fields[b"e"]) for entry_id, fields in entries]

    async def log_entries(self, match_id: str) -> list[tuple[int, dict[bytes, bytes]]]:
        """The whole log: ``(version, fields)`` per event (``e``: frame, ``c``: command record
        on the first event of each transition)."""
        entries = await self.redis.xrange(log_key(match_id), "-", "+")
        return [(int(entry_id.split(b"-")[0]), fields) for entry_id, fields in entries]

    async def commands(self, match_id: str) -> list[bytes]:
        """Every transition's command record, in order (for rebuilding and auditing)."""
        entries = await self.redis.xrange(log_key(match_id), "-", "+")
        return [fields[b"c"] for _, fields in entries if b"c" in fields]

    # --- global indexes (hints, see the module docstring) ---

    async def index(
        self, match_id: str, *, open_since: int | None, live_since: int | None, deadline: int | None
    ) -> None:
        # (With the other batched commands of the loop iteration: one trip for them all.)
        commands = [
            ("ZREM", key, match_id) if score is None else ("ZADD", key, score, match_id)
            for key, score in (
                (OPEN_MATCHES, open_since),
                (LIVE_MATCHES, live_since),
                (DEADLINES, deadline),
            )
        ]
        await self._batched.run(*commands)

    async def hold_deadline(self, match_id: str, until: int) -> None:
        """Look at the indexed deadline of ``match_id`` again at ``until`` (it is held)."""
        await self.redis.zadd(DEADLINES, {match_id: until}, xx=True)

    async def seat_holders(self, match_id: str, seats: Sequence[int]) -> list[bytes | None]:
        """For each of ``seats``: its presence entry, and the one before its last takeover."""
        fields = [f for seat in seats for f in (str(seat), f"{seat}:was")]
        return list(await self.redis.hmget(presence_key(match_id), fields))

    async def hint_deadline(self, match_id: str, deadline: int) -> None:
        """Index ``deadline`` unless an earlier one is indexed (before a commit that may not
        be followed by :meth:`index`; see :class:`server.match.service.MatchService`)."""
        await self.redis.zadd(DEADLINES, {match_id: deadline}, lt=True)

    async def listed(self, index: str, limit: int) -> list[str]:
        ids = await self.redis.zrevrange(index, 0, limit - 1)
        return [i.decode() for i in ids]

    async def claim_due(self, now: int, lease_ms: int = 5000, count: int = 100) -> list[str]:
        due = await self._claim(keys=[DEADLINES], args=[now, lease_ms, count])
        return [m.decode() for m in due]

    async def heartbeat(
        self,
        wall_ms: int,
        outage_ms: int,
        beat_ms: int = 250,
        process: str = "",
        address: str = "",
    ) -> int:
        """One heartbeat: the clock credit (ms). :attr:`instance` is then the run_id of the
        Redis that answered (on a cluster: the master of the clock's slot). With ``process``,
        also that process's liveness record (:func:`process_key`) and its entry in
        :data:`PROCESSES` under ``address`` (where it listens); :attr:`peers` is then how many
        processes at other addresses beat lately."""
        if not self._clock_keys_checked:
            await self._rename_legacy_clock_keys()
        keys = [HEARTBEAT, CLOCK_CREDIT, STOPPED]
        if process:
            keys += [process_key(process), PROCESSES]
            self._entry = f"{address} {process}"
        args = [wall_ms, outage_ms, beat_ms, PROCESS_TTL_MS, self._entry, PEERS_WITHIN_MS, address]
        credit, self.instance, peers = await self._heartbeat(keys=keys, args=args)
        self.peers = int(peers)
        return int(credit)

    async def other_processes(self, wall_ms: int, within_ms: int) -> list[str]:
        """The addresses of the server processes at another address than this one that beat
        within ``within_ms``, taking this process out of the index (it is stopping: of two
        stopping at once, one sees the other, the other sees nobody)."""
        mine = self._entry.split(" ", 1)[0]
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zrem(PROCESSES, self._entry)
            pipe.zrangebyscore(PROCESSES, wall_ms - within_ms, "+inf")
            _, live = await pipe.execute()
        addresses = (p.decode().split(" ", 1)[0] for p in live)
        return [a for a in addresses if a != mine]

    async def process_beat(self, process: str) -> int | None:
        """The server time (ms) of server process ``process``'s last heartbeat; None when it
        has no record (stopped gracefully, unknown, or gone for over an hour)."""
        raw = await self.redis.get(process_key(process))
        return int(raw) if raw is not None else None

    async def mark_stopped(self, process: str = "") -> None:
        """Note a graceful stop: the next heartbeat credits the whole gap, however short; and
        ``process``'s seats are moved, not lost: its liveness record goes."""
        await self.redis.set(STOPPED, 1)
        if process:
            await self.redis.delete(process_key(process))
            await self.redis.zrem(PROCESSES, f"{self._entry.split(' ', 1)[0]} {process}")

    async def _rename_legacy_clock_keys(self) -> None:
        """A Redis written by a server from before the clock's keys had a hash tag keeps its
        clock credit (losing it would move server time on and expire every deadline)."""
        for old, new in LEGACY_CLOCK.items():
            if await self.redis.exists(old):
                await self.redis.renamenx(old, new)
                await self.redis.delete(old)  # still there when the new name existed already
        self._clock_keys_checked = True
