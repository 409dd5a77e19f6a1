"""The quick-pairing pool in Redis: seeks in, pairs out, in one Lua script that applies the
rules of :mod:`server.competition.seeks` exactly (held to ``seek_vectors.json`` on a real
redis-server by ``tests/server/test_seek_script.py``).

Every key shares the hash tag ``{seeks}`` (one Redis Cluster slot), so each script is atomic
over the whole pool: a seek is paired once or not at all, whichever processes run it.

    fg:{seeks}:pool      sorted set: seek id -> when it was queued (server ms): the queue order
    fg:{seeks}:data      hash: seek id -> JSON of the seek (the rule fields, and name and ref)
    fg:{seeks}:offered   set: waiting seeks already told that the computer is on offer
    fg:{seeks}:done      hash: seek id -> JSON of how it left the pool: paired (match, seat) or
                         gone (expired, cancelled); kept KEEP_MS
    fg:{seeks}:done_at   sorted set: seek id, and ``m:<match id>`` of each pair -> when it left
                         the pool (both forgotten KEEP_MS later)
    fg:{seeks}:pairs     hash: match id -> JSON of the pair (both seeks' ids and data): what the
                         match is created from
    fg:{seeks}:launch    sorted set: match id -> when a process may create it (a lease: the
                         process that paired creates it at once and removes the entry; if it
                         dies, any process's sweep creates it once the lease ran out)

**The script** (:data:`PAIR`, run on every new seek and by each process's sweep once a second)
takes the time ``now`` (and optionally one new seek) and, atomically:

1. forgets outcomes and pair records older than ``KEEP_MS``;
2. reads the pool in queue order; the seeks queued ``SEEK_TTL_MS`` ago or more are gone;
3. pairs the live seeks oldest first: in each set of terms (seeks of different terms never
   fit), each unpaired seek takes the oldest unpaired later seek that fits (the rules of
   :func:`~server.competition.seeks.fits`, bots and humans included, in whole numbers: the
   widening is ``range + WIDEN_POINTS × ((w − w mod WIDEN_EVERY_MS) / WIDEN_EVERY_MS)``); the pairs
   are listed in the order the global loop forms them (by the older seek's place in the queue);
4. finds the seeks to offer the computer (:func:`~server.competition.seeks.offer_computer`,
   over the whole pool as read);
5. writes the outcome: each pair leaves the pool, its match id is
   ``SHA-1("fairgammon/seek-match/<older>/<newer>")``, first 32 hex digits (derived: the same
   pair always names the same match), the older seek is seat 0; the gone seeks leave the pool;
   the seeks offered the computer for the first time are remembered in ``offered``.

It answers the pure outcome (pairs, expired, offered: what the vectors hold) and what is new
(the offers not made before), so the caller creates the matches and tells the pages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import redis.asyncio as aioredis

from server.competition.seeks import (
    COMPUTER_AFTER_MS,
    SEEK_TTL_MS,
    WIDEN_EVERY_MS,
    WIDEN_POINTS,
    Seek,
    looking,
)

KEEP_MS = 10 * 60_000
"""How long a seek's outcome stays readable after it left the pool."""
LAUNCH_LEASE_MS = 3_000
"""How long the process that paired two seeks has to create their match before others may."""

TAG = "fg:{seeks}"
RULE_FIELDS = ("mode", "length", "clock", "rated", "browser", "since", "account", "rating", "range",
               "bot", "bots")


@dataclass(frozen=True, slots=True)
class Keys:
    """The pool's keys (a test may give them another prefix with the same hash tag)."""

    prefix: str = TAG

    def all(self) -> list[str]:
        return [f"{self.prefix}:{name}" for name in
                ("pool", "data", "offered", "done", "done_at", "pairs", "launch")]  # fmt: skip


# KEYS: pool, data, offered, done, done_at, pairs, launch.
# ARGV: now, lease ms, keep ms, ttl ms, widen points, widen every ms, computer after ms,
#       [new seek id, its JSON].
# Returns {pairs (match, older id, newer id, ...), expired ids, offered ids (all, as the pure
# rules say), offered ids (new)}.
PAIR = r"""
local now = tonumber(ARGV[1])
local lease, keep, ttl = tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local widen, every, alone = tonumber(ARGV[5]), tonumber(ARGV[6]), tonumber(ARGV[7])
local K_POOL, K_DATA, K_OFFERED, K_DONE, K_DONE_AT, K_PAIRS, K_LAUNCH =
  KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]

local function chunked(command, key, list)
  for i = 1, #list, 1000 do
    redis.call(command, key, unpack(list, i, math.min(i + 999, #list)))
  end
end

if ARGV[8] and ARGV[8] ~= '' then
  local new = cjson.decode(ARGV[9])
  redis.call('ZADD', K_POOL, new.since, ARGV[8])
  redis.call('HSET', K_DATA, ARGV[8], ARGV[9])
end

local old = redis.call('ZRANGEBYSCORE', K_DONE_AT, '-inf', now - keep)
if #old > 0 then
  local seeks_done, pairs_done = {}, {}
  for _, member in ipairs(old) do
    if string.sub(member, 1, 2) == 'm:' then
      pairs_done[#pairs_done + 1] = string.sub(member, 3)
    else
      seeks_done[#seeks_done + 1] = member
    end
  end
  if #seeks_done > 0 then chunked('HDEL', K_DONE, seeks_done) end
  if #pairs_done > 0 then chunked('HDEL', K_PAIRS, pairs_done) end
  chunked('ZREM', K_DONE_AT, old)
end

local ids = redis.call('ZRANGE', K_POOL, 0, -1)
local n = #ids
if n == 0 then
  return {{}, {}, {}, {}}
end
local raw = {}
for i = 1, n, 1000 do
  local part = redis.call('HMGET', K_DATA, unpack(ids, i, math.min(i + 999, n)))
  for j = 1, #part do raw[#raw + 1] = part[j] end
end

local seeks, buckets, order = {}, {}, {}
for i = 1, n do
  local s = cjson.decode(raw[i])
  s.id, s.pos, s.raw = ids[i], i, raw[i]
  s.terms = s.mode .. '|' .. tostring(s.length) .. '|' .. tostring(s.clock) .. '|'
    .. tostring(s.rated)
  seeks[i] = s
  local bucket = buckets[s.terms]
  if bucket == nil then
    bucket = {}
    buckets[s.terms] = bucket
    order[#order + 1] = s.terms
  end
  bucket[#bucket + 1] = s
end

local function expired(s) return now - s.since >= ttl end

local function gap(s)
  if s.range == nil then return nil end
  local w = now - s.since
  if w < 0 then w = 0 end
  return s.range + widen * ((w - (w % every)) / every)
end

local function fits(a, b)
  if a.id == b.id or a.browser == b.browser then return false end
  if a.account ~= nil and a.account == b.account then return false end
  if a.rated and (a.rating == nil or b.rating == nil) then return false end
  if (a.bot == true) ~= (b.bot == true) then
    local human = a
    if a.bot == true then human = b end
    if a.rated or human.bots ~= true then return false end
  end
  local sides = {{a, b}, {b, a}}
  for k = 1, 2 do
    local me, other = sides[k][1], sides[k][2]
    local g = gap(me)
    if g ~= nil then
      if other.rating == nil or me.rating == nil or math.abs(me.rating - other.rating) > g then
        return false
      end
    end
  end
  return true
end

-- 3. pairs, oldest first, within each set of terms
local taken, found = {}, {}
for _, terms in ipairs(order) do
  local bucket = buckets[terms]
  for i = 1, #bucket do
    local a = bucket[i]
    if not taken[a.id] and not expired(a) then
      for j = i + 1, #bucket do
        local b = bucket[j]
        if not taken[b.id] and not expired(b) and fits(a, b) then
          taken[a.id], taken[b.id] = true, true
          found[#found + 1] = {a, b}
          break
        end
      end
    end
  end
end
table.sort(found, function(x, y) return x[1].pos < y[1].pos end)

-- 4. the computer, over the whole pool as read
local offered_all, offered_new = {}, {}
for i = 1, n do
  local s = seeks[i]
  if now - s.since >= alone then
    local lonely = true
    for _, o in ipairs(buckets[s.terms]) do
      if o.browser ~= s.browser and (s.account == nil or o.account ~= s.account)
          and not expired(o) then
        lonely = false
        break
      end
    end
    if lonely then
      offered_all[#offered_all + 1] = s.id
    end
  end
end

-- 5. the outcome
local gone, out_pairs, leaving = {}, {}, {}
for _, pair in ipairs(found) do
  local a, b = pair[1], pair[2]
  local match = string.sub(redis.sha1hex('fairgammon/seek-match/' .. a.id .. '/' .. b.id), 1, 32)
  redis.call('HSET', K_DONE, a.id, '{"state":"paired","match":"' .. match .. '","seat":0}',
    b.id, '{"state":"paired","match":"' .. match .. '","seat":1}')
  redis.call('ZADD', K_DONE_AT, now, a.id, now, b.id, now, 'm:' .. match)
  redis.call('HSET', K_PAIRS, match,
    '{"match":"' .. match .. '","seeks":["' .. a.id .. '","' .. b.id .. '"],"data":[' ..
    a.raw .. ',' .. b.raw .. ']}')
  redis.call('ZADD', K_LAUNCH, now + lease, match)
  out_pairs[#out_pairs + 1] = match
  out_pairs[#out_pairs + 1] = a.id
  out_pairs[#out_pairs + 1] = b.id
  leaving[#leaving + 1] = a.id
  leaving[#leaving + 1] = b.id
end
for i = 1, n do
  local s = seeks[i]
  if not taken[s.id] and expired(s) then
    gone[#gone + 1] = s.id
    leaving[#leaving + 1] = s.id
    redis.call('HSET', K_DONE, s.id, '{"state":"gone","why":"expired"}')
    redis.call('ZADD', K_DONE_AT, now, s.id)
  end
end
if #leaving > 0 then
  chunked('ZREM', K_POOL, leaving)
  chunked('HDEL', K_DATA, leaving)
  chunked('SREM', K_OFFERED, leaving)
end
local left = {}
for _, id in ipairs(leaving) do left[id] = true end
for _, id in ipairs(offered_all) do
  if not left[id] and redis.call('SADD', K_OFFERED, id) == 1 then
    offered_new[#offered_new + 1] = id
  end
end
return {out_pairs, gone, offered_all, offered_new}
"""

# KEYS: pool, data, offered, done, done_at. ARGV: seek id, now.
# Takes a waiting seek out of the pool ('cancelled'); else its outcome, or nil if unknown.
CANCEL = r"""
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('HDEL', KEYS[2], ARGV[1])
  redis.call('SREM', KEYS[3], ARGV[1])
  local gone = '{"state":"gone","why":"cancelled"}'
  redis.call('HSET', KEYS[4], ARGV[1], gone)
  redis.call('ZADD', KEYS[5], tonumber(ARGV[2]), ARGV[1])
  return gone
end
return redis.call('HGET', KEYS[4], ARGV[1])
"""

# KEYS: launch. ARGV: now, lease ms, max count. Claims matches whose lease ran out.
CLAIM = r"""
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
for _, m in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', tonumber(ARGV[1]) + tonumber(ARGV[2]), m)
end
return due
"""


@dataclass(frozen=True, slots=True)
class Paired:
    match: str
    older: str
    newer: str


@dataclass(frozen=True, slots=True)
class Run:
    """What one run of the script did: the pairs formed, the seeks gone by age, the seeks the
    rules offer the computer (all of them), and those offered for the first time."""

    pairs: tuple[Paired, ...]
    expired: tuple[str, ...]
    computer: tuple[str, ...]
    computer_new: tuple[str, ...]


def seek_json(seek: Seek, **extra: Any) -> str:
    """A seek's stored JSON: its rule fields (absent ones left out: nil in Lua) and ``extra``
    (the name and the account link, for the match)."""
    body = {k: v for k, v in asdict(seek).items() if k in RULE_FIELDS and v is not None}
    return json.dumps({**body, **{k: v for k, v in extra.items() if v is not None}})


def seek_of(seek_id: str, data: dict[str, Any]) -> Seek:
    return Seek(seek_id, **{k: data[k] for k in RULE_FIELDS if k in data})


class SeekPool:
    """The pool's scripts and reads over ``redis``."""

    def __init__(self, redis: aioredis.Redis, keys: Keys | None = None) -> None:
        self.redis = redis
        self.keys = keys or Keys()
        k = self.keys.all()
        self.k_pool, self.k_data, self.k_offered, self.k_done, self.k_done_at = k[:5]
        self.k_pairs, self.k_launch = k[5], k[6]
        self._pair = redis.register_script(PAIR)
        self._cancel = redis.register_script(CANCEL)
        self._claim = redis.register_script(CLAIM)

    async def run(self, now: int, new: tuple[str, str] | None = None) -> Run:
        """One run of the pairing script at server time ``now``, adding ``new`` (id, JSON)."""
        args: list[Any] = [now, LAUNCH_LEASE_MS, KEEP_MS, SEEK_TTL_MS, WIDEN_POINTS,
                           WIDEN_EVERY_MS, COMPUTER_AFTER_MS]  # fmt: skip
        if new is not None:
            args += list(new)
        pairs, expired, computer, fresh = await self._pair(keys=self.keys.all(), args=args)
        flat = [p.decode() for p in pairs]
        return Run(
            tuple(Paired(*flat[i : i + 3]) for i in range(0, len(flat), 3)),
            _strings(expired),
            _strings(computer),
            _strings(fresh),
        )

    async def cancel(self, seek_id: str, now: int) -> dict[str, Any] | None:
        """Take a waiting seek out of the pool; its outcome (None: no such seek)."""
        keys = [self.k_pool, self.k_data, self.k_offered, self.k_done, self.k_done_at]
        out = await self._cancel(keys=keys, args=[seek_id, now])
        return json.loads(out) if out else None

    async def state(self, seek_id: str) -> dict[str, Any] | None:
        """``{state: waiting, computer}``, the outcome, or None (no such seek)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.hget(self.k_done, seek_id)
            pipe.zscore(self.k_pool, seek_id)
            pipe.sismember(self.k_offered, seek_id)
            done, since, offered = await pipe.execute()
        if done:
            return json.loads(done)
        if since is None:
            return None
        return {"state": "waiting", "computer": bool(offered)}

    async def pair_record(self, match_id: str) -> dict[str, Any] | None:
        raw = await self.redis.hget(self.k_pairs, match_id)
        return json.loads(raw) if raw else None

    async def claim_launches(self, now: int, count: int = 50) -> list[str]:
        due = await self._claim(keys=[self.k_launch], args=[now, LAUNCH_LEASE_MS, count])
        return list(_strings(due))

    async def launched(self, match_id: str) -> None:
        """The match exists: no process need create it again (the pair record stays until the
        seeks' outcomes are forgotten, for a retry that reads it)."""
        await self.redis.zrem(self.k_launch, match_id)

    async def is_launched(self, match_id: str) -> bool:
        return await self.redis.zscore(self.k_launch, match_id) is None

    async def pool(self) -> list[Seek]:
        raw = await self.redis.hgetall(self.k_data)
        return [seek_of(k.decode(), json.loads(v)) for k, v in raw.items()]

    async def looking(self, now: int) -> dict[tuple[str, int, int, bool], int]:
        """How many seeks wait for each set of terms."""
        return looking(await self.pool(), now)


def _strings(values: Sequence[bytes]) -> tuple[str, ...]:
    return tuple(v.decode() if isinstance(v, bytes) else str(v) for v in values)
