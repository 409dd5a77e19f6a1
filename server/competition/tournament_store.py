"""The Redis keys and scripts of tournaments.

A tournament's own keys share the hash tag ``{t:<id>}`` (one Redis Cluster slot), so each
transition is one script on one slot:

    fg:{t:<id>}:state    hash: v (version), s (the machine state, state.dumps; an arena's
                         without its decided pairings: history.py), m (msgpack summary for
                         the lists), name, secret (the seat tokens' key), fx (effects
                         numbered so far)
    fg:{t:<id>}:fx       hash: effect number -> msgpack [server ms, kind, body]: the outbox,
                         each effect removed once carried out
    fg:{t:<id>}:hist     list: msgpack of each decided arena pairing, in the order decided
    fg:{t:<id>}:refs     hash: player id -> account link (``<key> <id>``, for the match seats)

The global indexes are single keys updated by separate commands, hints that the sweeper
re-checks against the stored state (as the match indexes are):

    fg:idx:tournaments   sorted set: tournament match id -> when its result is due (wall ms):
                         marked before the match's ending commit, cleared once counted
    fg:idx:t:due         sorted set: tournament id -> server time it needs a look (its
                         next_due, or effects not yet carried out)
    fg:idx:t:live        set: tournaments not finished (private ones too): reconciled
    fg:idx:t:open, fg:idx:t:running, fg:idx:t:finished
                         sorted sets: public tournaments by phase (created, started, finished)
    fg:t:by:<account id> sorted set: tournaments an account created and that are not finished
    fg:t:of:<account id> sorted set: tournaments an account joined (-> when)
    fg:t:res:<account id> hash: tournament id -> msgpack of its final line for that account
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import msgpack
import redis.asyncio as aioredis

MARKS = "fg:idx:tournaments"
DUE = "fg:idx:t:due"
LIVE = "fg:idx:t:live"
LISTED = {"open": "fg:idx:t:open", "running": "fg:idx:t:running", "finished": "fg:idx:t:finished"}


def tag(tid: str) -> str:
    return f"fg:{{t:{tid}}}"


def state_key(tid: str) -> str:
    return f"{tag(tid)}:state"


def fx_key(tid: str) -> str:
    return f"{tag(tid)}:fx"


def hist_key(tid: str) -> str:
    return f"{tag(tid)}:hist"


def refs_key(tid: str) -> str:
    return f"{tag(tid)}:refs"


def created_by_key(account: str) -> str:
    return f"fg:t:by:{account}"


def joined_key(account: str) -> str:
    return f"fg:t:of:{account}"


def results_key(account: str) -> str:
    return f"fg:t:res:{account}"


# KEYS: state. ARGV: snapshot, summary, secret, name. A new tournament (version 0), once.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'v', 0, 's', ARGV[1], 'm', ARGV[2], 'secret', ARGV[3], 'fx', 0,
  'name', ARGV[4])
return 1
"""

# KEYS: state, fx, hist. ARGV: expected version, new version, snapshot, summary, effect count,
# history count, then the effects' records, then the history's records.
# Compare-and-set on the version; returns {1, number of the first new effect} or {0, version}.
_COMMIT = """
local v = redis.call('HGET', KEYS[1], 'v')
if v == false or tonumber(v) ~= tonumber(ARGV[1]) then
  return {0, tonumber(v or -1)}
end
local effects, history = tonumber(ARGV[5]), tonumber(ARGV[6])
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3], 'm', ARGV[4])
local last = redis.call('HINCRBY', KEYS[1], 'fx', effects)
local first = last - effects + 1
for i = 1, effects do
  redis.call('HSET', KEYS[2], first + i - 1, ARGV[6 + i])
end
for i = 1, history do
  redis.call('RPUSH', KEYS[3], ARGV[6 + effects + i])
end
return {1, first}
"""

# KEYS: index. ARGV: now, lease ms, max count. Claims due entries (pushing them a lease away).
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local lease = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, m in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', lease, m)
end
return due
"""

# KEYS: the account's created set. ARGV: tournament id, created ms, limit.
_COUNT_IN = """
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
return 1
"""


@dataclass(frozen=True, slots=True)
class Loaded:
    version: int
    snapshot: bytes
    secret: bytes
    name: str


class TournamentStore:
    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._create = redis.register_script(_CREATE)
        self._commit = redis.register_script(_COMMIT)
        self._claim = redis.register_script(_CLAIM)
        self._count_in = redis.register_script(_COUNT_IN)

    # ---------------------------------------------------------------- one tournament

    async def create(
        self, tid: str, snapshot: bytes, summary: bytes, secret: bytes, name: str
    ) -> bool:
        args = [snapshot, summary, secret, name]
        return bool(await self._create(keys=[state_key(tid)], args=args))

    async def version(self, tid: str) -> int | None:
        v = await self.redis.hget(state_key(tid), "v")
        return None if v is None else int(v)

    async def load(self, tid: str) -> Loaded | None:
        v, s, secret, name = await self.redis.hmget(state_key(tid), "v", "s", "secret", "name")
        if v is None or s is None:
            return None
        return Loaded(int(v), bytes(s), bytes(secret or b""), (name or b"").decode())

    async def commit(
        self,
        tid: str,
        expected: int,
        new_version: int,
        snapshot: bytes,
        summary: bytes,
        effects: Sequence[bytes],
        history: Sequence[bytes],
    ) -> int | None:
        """Store a transition (compare-and-set on ``expected``); the number of its first
        effect in the outbox, or None when another transition won."""
        args = [expected, new_version, snapshot, summary, len(effects), len(history),
                *effects, *history]  # fmt: skip
        ok, value = await self._commit(keys=[state_key(tid), fx_key(tid), hist_key(tid)], args=args)
        return int(value) if ok else None

    async def outbox(self, tid: str) -> list[tuple[int, list[Any]]]:
        """The effects not yet carried out, in order: ``(number, [ms, kind, body])``."""
        raw = await self.redis.hgetall(fx_key(tid))
        return sorted((int(k), msgpack.unpackb(v, raw=False)) for k, v in raw.items())

    async def carried_out(self, tid: str, numbers: Sequence[int]) -> None:
        if numbers:
            await self.redis.hdel(fx_key(tid), *numbers)

    async def history(self, tid: str, last: int) -> list[bytes]:
        return await self.redis.lrange(hist_key(tid), -last, -1)

    async def history_length(self, tid: str) -> int:
        return int(await self.redis.llen(hist_key(tid)))

    async def put_ref(self, tid: str, player: str, ref: str) -> None:
        await self.redis.hset(refs_key(tid), player, ref)

    async def refs(self, tid: str) -> dict[str, str]:
        raw = await self.redis.hgetall(refs_key(tid))
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def summaries(self, tids: Sequence[str]) -> list[bytes | None]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for tid in tids:
                pipe.hget(state_key(tid), "m")
            return await pipe.execute()

    # ---------------------------------------------------------------- the marks of results

    async def mark(self, match_id: str, due: int) -> None:
        await self.redis.zadd(MARKS, {match_id: due})

    async def unmark(self, match_id: str) -> None:
        await self.redis.zrem(MARKS, match_id)

    async def claim_marks(self, now: int, lease_ms: int, count: int = 50) -> list[str]:
        due = await self._claim(keys=[MARKS], args=[now, lease_ms, count])
        return [m.decode() for m in due]

    # ---------------------------------------------------------------- time and the lists

    async def hint(self, tid: str, at: int) -> None:
        """Look at ``tid`` by ``at`` at the latest (an earlier look stays)."""
        await self.redis.zadd(DUE, {tid: at}, lt=True)

    async def due_at(
        self, tid: str, at: int | None, finished: bool, listed: tuple[str, int] | None = None
    ) -> None:
        """The tournament's next look (None: none), whether it is still live, and for a
        public one the list it belongs on (``(phase, since)``)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            if at is None:
                pipe.zrem(DUE, tid)
            else:
                pipe.zadd(DUE, {tid: at})
            if finished:
                pipe.srem(LIVE, tid)
            else:
                pipe.sadd(LIVE, tid)
            if listed is not None:
                for name, key in LISTED.items():
                    if name == listed[0]:
                        pipe.zadd(key, {tid: listed[1]}, nx=True)
                    else:
                        pipe.zrem(key, tid)
            await pipe.execute()

    async def pending(self, tid: str) -> int:
        """How many effects wait in the outbox."""
        return int(await self.redis.hlen(fx_key(tid)))

    async def claim_due(self, now: int, lease_ms: int, count: int = 20) -> list[str]:
        due = await self._claim(keys=[DUE], args=[now, lease_ms, count])
        return [t.decode() for t in due]

    async def live(self) -> list[str]:
        return [t.decode() for t in await self.redis.smembers(LIVE)]

    async def listing(self, phase: str, count: int, newest: bool = True) -> list[str]:
        key = LISTED[phase]
        if newest:
            ids = await self.redis.zrevrange(key, 0, count - 1)
        else:
            ids = await self.redis.zrange(key, 0, count - 1)
        return [t.decode() for t in ids]

    # ---------------------------------------------------------------- per account

    async def count_in(self, account: str, tid: str, at: int, limit: int) -> bool:
        """Count ``tid`` among the unfinished tournaments ``account`` created; False (and
        nothing counted) when it has ``limit`` already."""
        key = created_by_key(account)
        return bool(await self._count_in(keys=[key], args=[tid, at, limit]))

    async def count_out(self, account: str, tid: str) -> None:
        await self.redis.zrem(created_by_key(account), tid)

    async def joined(self, account: str, tid: str, at: int) -> None:
        await self.redis.zadd(joined_key(account), {tid: at}, nx=True)

    async def put_result(self, account: str, tid: str, line: bytes, at: int) -> None:
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hset(results_key(account), tid, line)
            pipe.zadd(joined_key(account), {tid: at})
            await pipe.execute()

    async def results(self, account: str, count: int) -> list[tuple[str, bytes | None]]:
        tids = [t.decode() for t in await self.redis.zrevrange(joined_key(account), 0, count - 1)]
        if not tids:
            return []
        lines = await self.redis.hmget(results_key(account), tids)
        return list(zip(tids, lines, strict=True))
