"""Redis keys and scripts of accounts, sessions, login throttles and per-player records.

Every key of one account shares the hash tag ``{u:<lowercased name>}`` (one Redis Cluster
slot), so each script below touches one slot. What a match records about its players lives
under the match's own tag ``{m:<id>}``. The global indexes (the leaderboard, the results still
to record, the per-address login throttle) are separate single-key commands.

    fg:{u:<name>}:acct         hash: id, name (as typed at sign-up), pw (scrypt record),
                               created, rating, exp, matches, wins, rated_humans (rated
                               matches against human accounts), bot ('1': a bot account,
                               docs/accounts.md "Bot accounts"; absent otherwise),
                               rating:<variant>, exp:<variant> (each other variant's own
                               rating, from its first rated match: ratings.fields)
    fg:{u:<name>}:s:<sha256>   string: the account id; one per session, expiring
    fg:{u:<name>}:sessions     set: the <sha256> of each session (for logout everywhere)
    fg:{u:<name>}:fails        counter: failed logins in the current window (expiring)
    fg:{u:<name>}:done         set: match ids already recorded for this account
    fg:{u:<name>}:hist         list, newest first: one msgpack record per match played
    fg:{u:<name>}:pub          list, newest first: the same, without private matches
    fg:{u:<name>}:chart        list, oldest first: msgpack [time ms, rating after, match id
                               or '' for a private match]
    fg:{u:<name>}:rpending     set: rated matches whose result is stored and not yet applied
                               to this account (a later result waits for them)
    fg:{u:<name>}:rlock        string: who is computing a rated result of this account now
                               (expiring: a lock whose holder died lapses)
    fg:{u:<name>}:addrs        sorted set: the addresses (server/ops/addresses.py's unit) the
                               account signed up or logged in from, by last time ms (the
                               newest ADDRESSES kept)
    fg:{u:<name>}:flags        sorted set: match ids flagged for fair play with this account,
                               by time ms (docs/fairplay.md)
    fg:{u:<name>}:dice         hash: the lifetime dice audit's counters
                               (server/players/dice_ledger.py): 'all:<counter>' over every
                               match in the history, 'pub:<counter>' over the public ones
                               (the counters of analysis.dice_audit.FIELDS, and 'matches');
                               'fill' (history entries the backfill looked at, from the
                               oldest), 'filled' ('1' once it reached the newest)
    fg:{u:<name>}:dicedone     set: match ids whose rolls are in the dice counters
    fg:{u:<name>}:dicefill     string: who is backfilling the dice counters now (expiring)
    fg:{m:<id>}:result         msgpack: the match's result for its players (set once, NX)
    fg:pair:<a>:<b>            sorted set: the rated matches between accounts <a> < <b> (names
                               lowercased) that moved the ratings, by server time ms (expiring)
    fg:login:<address>         counter: failed logins from one address (expiring)
    fg:signup:<address>        counter: sign-ups from one address (expiring)
    fg:idx:leaders             sorted set: rated human accounts by rating
    fg:idx:leaders:bots        sorted set: rated bot accounts by rating (their own pool)
    fg:idx:results             sorted set: matches whose result is still to be recorded
    fg:idx:dice                sorted set: matches whose rolls are still to be added to their
                               players' dice counters
    fg:idx:fairflags           sorted set: every match flagged for fair play, by time ms (the
                               flags themselves are the result's ``flags`` and ``shared``)
"""

from __future__ import annotations

from collections.abc import Sequence

import msgpack
import redis.asyncio as aioredis

from server.players.ratings import START_RATING, fields

LEADERS = "fg:idx:leaders"
BOT_LEADERS = "fg:idx:leaders:bots"


def leaders_key(bot: bool) -> str:
    """The leaderboard index of one rating pool: humans', or bots'."""
    return BOT_LEADERS if bot else LEADERS
RESULTS_DUE = "fg:idx:results"
DICE_DUE = "fg:idx:dice"
FAIR_FLAGS = "fg:idx:fairflags"
ADDRESSES = 20
"""The addresses kept per account (the newest)."""
PAIR_TTL_MS = 2 * 86_400_000


def tag(name: str) -> str:
    return f"fg:{{u:{name.lower()}}}"


def account_key(name: str) -> str:
    return f"{tag(name)}:acct"


def session_key(name: str, digest: str) -> str:
    return f"{tag(name)}:s:{digest}"


def sessions_key(name: str) -> str:
    return f"{tag(name)}:sessions"


def fails_key(name: str) -> str:
    return f"{tag(name)}:fails"


def done_key(name: str) -> str:
    return f"{tag(name)}:done"


def history_key(name: str, public: bool = False) -> str:
    return f"{tag(name)}:{'pub' if public else 'hist'}"


def chart_key(name: str) -> str:
    return f"{tag(name)}:chart"


def pending_key(name: str) -> str:
    return f"{tag(name)}:rpending"


def lock_key(name: str) -> str:
    return f"{tag(name)}:rlock"


def addresses_key(name: str) -> str:
    return f"{tag(name)}:addrs"


def flags_key(name: str) -> str:
    return f"{tag(name)}:flags"


def dice_key(name: str) -> str:
    return f"{tag(name)}:dice"


def dice_done_key(name: str) -> str:
    return f"{tag(name)}:dicedone"


def dice_fill_key(name: str) -> str:
    return f"{tag(name)}:dicefill"


def pair_key(a: str, b: str) -> str:
    low, high = sorted((a.lower(), b.lower()))
    return f"fg:pair:{low}:{high}"


def result_key(match_id: str) -> str:
    return f"fg:{{m:{match_id}}}:result"


def address_key(kind: str, address: str) -> str:
    return f"fg:{kind}:{address}"


# KEYS: acct. ARGV: id, name, pw record, created ms, start rating.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then
  return 0
end
redis.call('HSET', KEYS[1], 'id', ARGV[1], 'name', ARGV[2], 'pw', ARGV[3], 'created', ARGV[4],
  'rating', ARGV[5], 'exp', 0, 'matches', 0, 'wins', 0)
return 1
"""

# KEYS: acct, session, sessions. ARGV: account id, session digest, ttl ms.
# A session only for the account that still has this id (not one deleted meanwhile).
_OPEN_SESSION = """
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then
  return 0
end
redis.call('SET', KEYS[2], ARGV[1], 'PX', ARGV[3])
redis.call('SADD', KEYS[3], ARGV[2])
redis.call('PEXPIRE', KEYS[3], ARGV[3], 'GT')
return 1
"""

# KEYS: counter. ARGV: window ms. Counts one more and returns the count (the window starts
# with the first).
_COUNT = """
local n = redis.call('INCR', KEYS[1])
if n == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return n
"""

# KEYS: acct, done, hist, pub, chart, rpending. ARGV: match id, account id, rated (0/1), rating
# change, experience gain, won (0/1), history record, public (0/1), time ms, human pool (0/1:
# a rated match between human accounts, counted in rated_humans), the rating and experience
# fields of the match's variant (backgammon's: rating, exp) and the start rating (a variant's
# first rated match), chart (0/1: the rating chart is backgammon's).
# Records one finished match for one account, once: returns the rating after it, or -1 when
# the account is gone (deleted, or deleted and signed up again: another id), or the rating
# unchanged when the match was recorded already. The match is no longer pending either way.
_RECORD = """
redis.call('SREM', KEYS[6], ARGV[1])
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[2] then
  return '-1'
end
local rf, ef = ARGV[11], ARGV[12]
if redis.call('SISMEMBER', KEYS[2], ARGV[1]) == 1 then
  return redis.call('HGET', KEYS[1], rf) or ARGV[13]
end
local rating = redis.call('HGET', KEYS[1], rf) or ARGV[13]
if ARGV[3] == '1' then
  if redis.call('HEXISTS', KEYS[1], rf) == 0 then
    redis.call('HSET', KEYS[1], rf, ARGV[13])
  end
  rating = redis.call('HINCRBYFLOAT', KEYS[1], rf, ARGV[4])
  redis.call('HINCRBY', KEYS[1], ef, ARGV[5])
  if ARGV[10] == '1' then
    redis.call('HINCRBY', KEYS[1], 'rated_humans', 1)
  end
  local label = ARGV[1]
  if ARGV[8] ~= '1' then
    label = ''
  end
  if ARGV[14] == '1' then
    redis.call('RPUSH', KEYS[5], cmsgpack.pack({tonumber(ARGV[9]), tonumber(rating), label}))
  end
end
redis.call('HINCRBY', KEYS[1], 'matches', 1)
redis.call('HINCRBY', KEYS[1], 'wins', tonumber(ARGV[6]))
redis.call('LPUSH', KEYS[3], ARGV[7])
if ARGV[8] == '1' then
  redis.call('LPUSH', KEYS[4], ARGV[7])
end
redis.call('SADD', KEYS[2], ARGV[1])
return rating
"""

# KEYS: acct, human leaders, bot leaders. ARGV: account id, on (0/1), only if no rated match
# against humans (0/1). Marks or unmarks a bot account and moves its leaderboard entry to its
# pool's board: 1 done, 0 no such account, -1 refused (it played rated against humans).
_MARK_BOT = """
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then
  return 0
end
if ARGV[3] == '1' then
  -- rated_humans is counted since bot accounts exist; before, every rated match was one
  local against = redis.call('HGET', KEYS[1], 'rated_humans')
  if against == false then against = redis.call('HGET', KEYS[1], 'exp') or '0' end
  if tonumber(against) > 0 then
    return -1
  end
end
local key = string.lower(redis.call('HGET', KEYS[1], 'name'))
redis.call('ZREM', KEYS[2], key)
redis.call('ZREM', KEYS[3], key)
if ARGV[2] == '1' then
  redis.call('HSET', KEYS[1], 'bot', '1')
else
  redis.call('HDEL', KEYS[1], 'bot')
end
if tonumber(redis.call('HGET', KEYS[1], 'exp') or '0') > 0 then
  local board = KEYS[2]
  if ARGV[2] == '1' then board = KEYS[3] end
  redis.call('ZADD', board, redis.call('HGET', KEYS[1], 'rating'), key)
end
return 1
"""

# KEYS: lock. ARGV: owner. Releases the lock if this owner still holds it.
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""

# KEYS: index. ARGV: now, lease ms, max count. Claims due entries for one process each.
_CLAIM = """
local due = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', ARGV[1], 'LIMIT', 0, tonumber(ARGV[3]))
local lease = tonumber(ARGV[1]) + tonumber(ARGV[2])
for _, m in ipairs(due) do
  redis.call('ZADD', KEYS[1], 'XX', lease, m)
end
return due
"""


class AccountsStore:
    """Async access to the keys above. One instance per process (shares the store's pool)."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._create = redis.register_script(_CREATE)
        self._open_session = redis.register_script(_OPEN_SESSION)
        self._count = redis.register_script(_COUNT)
        self._record = redis.register_script(_RECORD)
        self._claim = redis.register_script(_CLAIM)
        self._unlock = redis.register_script(_UNLOCK)
        self._mark_bot = redis.register_script(_MARK_BOT)

    # --- accounts

    async def create(self, name: str, account_id: str, pw: str, now: int, rating: float) -> bool:
        """Store a new account; False when the name (in any case) is taken."""
        args = [account_id, name, pw, now, repr(rating)]
        return bool(await self._create(keys=[account_key(name)], args=args))

    async def account(self, name: str) -> dict[str, str] | None:
        raw = await self.redis.hgetall(account_key(name))
        if not raw:
            return None
        return {k.decode(): v.decode() for k, v in raw.items()}

    async def accounts(self, names: Sequence[str]) -> list[dict[str, str] | None]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.hgetall(account_key(name))
            rows = await pipe.execute()
        return [{k.decode(): v.decode() for k, v in r.items()} or None for r in rows]

    async def delete(self, name: str) -> None:
        """The account and everything under its tag: sessions, history, throttle."""
        digests = await self.redis.smembers(sessions_key(name))
        keys = [
            account_key(name),
            sessions_key(name),
            fails_key(name),
            done_key(name),
            history_key(name),
            history_key(name, public=True),
            chart_key(name),
            pending_key(name),
            lock_key(name),
            addresses_key(name),
            flags_key(name),
            dice_key(name),
            dice_done_key(name),
            dice_fill_key(name),
            *(session_key(name, d.decode()) for d in digests),
        ]
        await self.redis.delete(*keys)  # one slot: atomic
        await self.redis.zrem(LEADERS, name.lower())
        await self.redis.zrem(BOT_LEADERS, name.lower())

    async def mark_bot(self, name: str, account_id: str, on: bool, only_fresh: bool) -> int:
        """Mark (``on``) or unmark a bot account; ``only_fresh``: refuse one that played a
        rated match against humans. 1 done, 0 no such account, -1 refused."""
        keys = [account_key(name), LEADERS, BOT_LEADERS]
        return int(await self._mark_bot(keys=keys, args=[account_id, int(on), int(only_fresh)]))

    # --- addresses (fair play: docs/fairplay.md)

    async def seen(self, name: str, address: str, now: int) -> None:
        """Note that the account signed up or logged in from ``address`` (keeps the newest)."""
        async with self.redis.pipeline(transaction=True) as pipe:  # one slot
            pipe.zadd(addresses_key(name), {address: now})
            pipe.zremrangebyrank(addresses_key(name), 0, -ADDRESSES - 1)
            await pipe.execute()

    async def shared_addresses(self, a: str, b: str) -> tuple[str, ...]:
        """The addresses both accounts were seen at (two slots: two reads)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.zrange(addresses_key(a), 0, -1)
            pipe.zrange(addresses_key(b), 0, -1)
            first, second = await pipe.execute()
        shared = {x.decode() for x in first} & {x.decode() for x in second}
        return tuple(sorted(shared - {"unknown"}))

    # --- sessions

    async def open_session(self, name: str, account_id: str, digest: str, ttl_ms: int) -> bool:
        keys = [account_key(name), session_key(name, digest), sessions_key(name)]
        return bool(await self._open_session(keys=keys, args=[account_id, digest, ttl_ms]))

    async def session(self, name: str, digest: str) -> tuple[str | None, dict[str, str] | None]:
        """The account id a session is for, and the account (one round trip)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.get(session_key(name, digest))
            pipe.hgetall(account_key(name))
            owner, raw = await pipe.execute()
        account = {k.decode(): v.decode() for k, v in raw.items()} or None
        return (owner.decode() if owner else None), account

    async def close_session(self, name: str, digest: str) -> None:
        async with self.redis.pipeline(transaction=True) as pipe:  # one slot
            pipe.delete(session_key(name, digest))
            pipe.srem(sessions_key(name), digest)
            await pipe.execute()

    # --- throttles

    async def count(self, key: str, window_ms: int) -> int:
        return int(await self._count(keys=[key], args=[window_ms]))

    async def counters(self, keys: Sequence[str]) -> list[tuple[int, int]]:
        """``(count, ms left in its window)`` of each counter."""
        async with self.redis.pipeline(transaction=False) as pipe:
            for key in keys:
                pipe.get(key)
                pipe.pttl(key)
            raw = await pipe.execute()
        return [(int(raw[i] or 0), max(int(raw[i + 1]), 0)) for i in range(0, len(raw), 2)]

    async def clear(self, key: str) -> None:
        await self.redis.delete(key)

    # --- results

    async def record(
        self,
        name: str,
        match_id: str,
        account_id: str,
        rated: bool,
        delta: float,
        experience: int,
        won: bool,
        record: bytes,
        public: bool,
        now: int,
        humans: bool = False,
        variant: str = "backgammon",
    ) -> float | None:
        """Record a finished match for one account, once (see ``_RECORD``): the rating after
        it (in the match's ``variant``: its own rating, :func:`server.players.ratings.fields`),
        or None when the account is gone."""
        keys = [
            account_key(name),
            done_key(name),
            history_key(name),
            history_key(name, public=True),
            chart_key(name),
            pending_key(name),
        ]
        rating, exp = fields(variant)
        args = [match_id, account_id, int(rated), repr(delta), experience, int(won), record,
                int(public), now, int(humans), rating, exp, repr(START_RATING),
                int(variant == "backgammon")]  # fmt: skip
        out = float(await self._record(keys=keys, args=args))
        return None if out < 0 else out

    async def lock(self, name: str, owner: str, ms: int) -> bool:
        """Take the account's rating lock for ``ms`` unless someone holds it."""
        return bool(await self.redis.set(lock_key(name), owner, nx=True, px=ms))

    async def unlock(self, name: str, owner: str) -> None:
        await self._unlock(keys=[lock_key(name)], args=[owner])

    async def pend(self, name: str, match_id: str) -> None:
        """Note that a rated result of ``match_id`` is about to be stored for this account."""
        await self.redis.sadd(pending_key(name), match_id)

    async def pending(self, name: str) -> list[str]:
        return sorted(m.decode() for m in await self.redis.smembers(pending_key(name)))

    async def unpend(self, name: str, match_id: str) -> None:
        """A pending rated result that records nothing for this account (abandoned early)."""
        await self.redis.srem(pending_key(name), match_id)

    async def pair_counted(self, a: str, b: str, match_id: str, since: int) -> int:
        """How many rated matches between accounts ``a`` and ``b`` other than ``match_id``
        moved the ratings since ``since`` (server time ms)."""
        key = pair_key(a, b)
        async with self.redis.pipeline(transaction=True) as pipe:  # one key
            pipe.zremrangebyscore(key, "-inf", f"({since}")
            pipe.zrangebyscore(key, since, "+inf")
            _, members = await pipe.execute()
        return sum(1 for m in members if m.decode() != match_id)

    async def pair_count(self, a: str, b: str, match_id: str, at: int) -> None:
        """Count ``match_id`` among the pair's rated matches (idempotent: keyed by the id)."""
        key = pair_key(a, b)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.zadd(key, {match_id: at}, nx=True)
            pipe.pexpire(key, PAIR_TTL_MS)
            await pipe.execute()

    async def flag(self, names: Sequence[str], match_id: str, wall: int) -> None:
        """Put a flagged match in the moderators' index and each account's (idempotent)."""
        await self.redis.zadd(FAIR_FLAGS, {match_id: wall})
        for name in names:
            await self.redis.zadd(flags_key(name), {match_id: wall})

    async def flagged(self, count: int = 50, name: str | None = None) -> list[dict[str, object]]:
        """The newest flagged matches (of one account when ``name`` is given), for the
        moderators: ``{match, at, flags, accounts, shared}`` each, newest first (the read
        function documented in docs/fairplay.md)."""
        index = FAIR_FLAGS if name is None else flags_key(name)
        rows = await self.redis.zrevrange(index, 0, count - 1, withscores=True)
        out: list[dict[str, object]] = []
        for member, wall in rows:
            match_id = member.decode()
            blob = await self.result(match_id)
            if blob is None:
                continue
            result = msgpack.unpackb(blob, raw=False)
            out.append({
                "match": match_id,
                "at": int(wall),
                "flags": list(result.get("flags", [])),
                "accounts": [ref[0] if ref else None for ref in result["accounts"]],
                "shared": list(result.get("shared", [])),
                "void": result.get("void"),
            })
        return out

    async def put_result(self, match_id: str, blob: bytes) -> bytes:
        """Store a match's result unless one is stored; the stored one (first writer wins)."""
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(result_key(match_id), blob, nx=True)
            pipe.get(result_key(match_id))
            _, stored = await pipe.execute()
        return bytes(stored)

    async def result(self, match_id: str) -> bytes | None:
        return await self.redis.get(result_key(match_id))

    async def history(self, name: str, public: bool, start: int, count: int) -> list[bytes]:
        return await self.redis.lrange(history_key(name, public), start, start + count - 1)

    async def history_length(self, name: str, public: bool) -> int:
        return int(await self.redis.llen(history_key(name, public)))

    async def chart(self, name: str, points: int) -> list[bytes]:
        return await self.redis.lrange(chart_key(name), -points, -1)

    async def lead(self, name: str, rating: float, bot: bool = False) -> None:
        await self.redis.zadd(leaders_key(bot), {name.lower(): rating})

    async def leaders(self, count: int, bots: bool = False) -> list[tuple[str, float]]:
        rows = await self.redis.zrevrange(leaders_key(bots), 0, count - 1, withscores=True)
        return [(m.decode(), float(s)) for m, s in rows]

    async def due(self, match_id: str, at: int, index: str = RESULTS_DUE) -> None:
        """Mark a match due in ``index`` at ``at`` (the results still to record, or the dice
        still to count)."""
        await self.redis.zadd(index, {match_id: at})

    async def settled(self, match_id: str, index: str = RESULTS_DUE) -> None:
        await self.redis.zrem(index, match_id)

    async def claim_due(
        self, now: int, lease_ms: int, count: int = 50, index: str = RESULTS_DUE
    ) -> list[str]:
        """Claim the members of the sorted set ``index`` due by ``now`` (a lease of
        ``lease_ms``): the results still to record, or another index of work marked due."""
        due = await self._claim(keys=[index], args=[now, lease_ms, count])
        return [m.decode() for m in due]
