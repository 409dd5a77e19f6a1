"""Reports, sanctions and the audit log in Redis: the thin adapter of
:mod:`server.players.moderation` (docs/moderation.md).

Everything lives under one hash tag, so each change is one script even on a cluster::

    fg:{mod}:sanctions        hash: account id -> its sanctions in force (JSON)
    fg:{mod}:audit            stream: the audit log, append-only (one entry per action, JSON)
    fg:{mod}:reports          hash: report number -> the report and its evidence (JSON)
    fg:{mod}:open             sorted set: the open reports' numbers, by the time filed
    fg:{mod}:nreports         string: the last report number
    fg:{mod}:rate:<id>        hash: the reporter's allowance (a bucket of server.ops.allowance)
    fg:{mod}:flags            hash: account id -> the engine-assist detector's flag (JSON)

Sanctions are kept by account id (a name deleted and taken again is another account); the
audit log names accounts by their name as it was.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

from server.ops.allowance import TAKE_TOKEN
from server.players import moderation as rules
from server.players.chat import stream_key

SANCTIONS = "fg:{mod}:sanctions"
AUDIT = "fg:{mod}:audit"
REPORTS = "fg:{mod}:reports"
OPEN = "fg:{mod}:open"
COUNTER = "fg:{mod}:nreports"
FLAGS = "fg:{mod}:flags"


def rate_key(account_id: str) -> str:
    return f"fg:{{mod}}:rate:{account_id}"


# KEYS: sanctions, audit. ARGV: account id, the sanctions read ('' none), the new ones ('' none),
# the audit entry (JSON). Compare-and-set: 0 when the sanctions changed since they were read.
_ACT = """
local now = redis.call('HGET', KEYS[1], ARGV[1]) or ''
if now ~= ARGV[2] then return 0 end
if ARGV[3] == '' then redis.call('HDEL', KEYS[1], ARGV[1])
else redis.call('HSET', KEYS[1], ARGV[1], ARGV[3]) end
redis.call('XADD', KEYS[2], '*', 'e', ARGV[4])
return 1
"""

# KEYS: the reporter's allowance, counter, reports, open. ARGV: burst, tokens per ms, now, the
# report (JSON). Returns the report's number, or minus the ms until the reporter may file one.
_REPORT = TAKE_TOKEN + """
local wait = take_token(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))
if wait > 0 then return -wait end
local n = redis.call('INCR', KEYS[2])
redis.call('HSET', KEYS[3], n, ARGV[4])
redis.call('ZADD', KEYS[4], ARGV[3], n)
return n
"""

# KEYS: reports, open, audit. ARGV: number, closed (JSON of how), the audit entry (JSON; ''
# when the action that closes the report was logged already). Closes an open report (0 when it
# is not open).
_CLOSE = """
if not redis.call('ZSCORE', KEYS[2], ARGV[1]) then return 0 end
local r = cjson.decode(redis.call('HGET', KEYS[1], ARGV[1]))
r['closed'] = cjson.decode(ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(r))
redis.call('ZREM', KEYS[2], ARGV[1])
if ARGV[3] ~= '' then redis.call('XADD', KEYS[3], '*', 'e', ARGV[3]) end
return 1
"""


class ModerationStore:
    """The moderation state of every account, in Redis (one per process: ``app.state``)."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._act = redis.register_script(_ACT)
        self._report = redis.register_script(_REPORT)
        self._close = redis.register_script(_CLOSE)

    async def sanctions(self, account_id: str) -> rules.Sanctions:
        raw = await self.redis.hget(SANCTIONS, account_id)
        return rules.Sanctions.of(json.loads(raw) if raw else None)

    async def rating_held(self, account_id: str) -> bool:
        """Whether the account may not play rated (suspended or banned): a match of it that
        ends is unrated."""
        return rules.may_play_rated(await self.sanctions(account_id)) is not None

    async def act(
        self, account_id: str, name: str, command: rules.Sanction | rules.Lift, now: int,
        report: int | None = None,
    ) -> rules.Sanctions:  # fmt: skip
        """Carry out a moderator's command on the account (audited); :class:`rules.Refused`
        when the rules refuse it. A report named is closed by it."""
        while True:
            raw = await self.redis.hget(SANCTIONS, account_id)
            old = rules.Sanctions.of(json.loads(raw) if raw else None)
            new, entry = rules.decide(old, command, now, name)
            entry_json = {**entry.as_json(), "report": report}
            after = json.dumps(new.as_json()) if new.active() else ""
            before = raw.decode() if isinstance(raw, bytes) else (raw or "")
            args = [account_id, before, after, json.dumps(entry_json)]
            if await self._act(keys=[SANCTIONS, AUDIT], args=args):
                break
        if report is not None:
            how = {"by": command.moderator, "at": now, "action": entry.action}
            await self._close(keys=[REPORTS, OPEN, AUDIT], args=[report, json.dumps(how), ""])
        return new

    async def report(self, reporter_id: str, report: dict[str, Any], now: int) -> int:
        """File a report; its number, or minus the ms until the reporter may file one."""
        keys = [rate_key(reporter_id), COUNTER, REPORTS, OPEN]
        per_ms = rules.REPORTS_PER_HOUR / 3_600_000
        args = [rules.REPORT_BURST, per_ms, now, json.dumps(report)]
        return int(await self._report(keys=keys, args=args))

    async def dismiss(self, number: int, moderator: str, reason: str, now: int) -> bool:
        """Close an open report with no action (audited); False when it is not open."""
        found = await self.get_report(number)
        target = found["target"] if found else ""
        entry = rules.AuditEntry(now, moderator, "dismiss", target, reason, None, number)
        how = {"by": moderator, "at": now, "action": "dismiss", "reason": reason}
        args = [number, json.dumps(how), json.dumps(entry.as_json())]
        return bool(await self._close(keys=[REPORTS, OPEN, AUDIT], args=args))

    async def get_report(self, number: int) -> dict[str, Any] | None:
        raw = await self.redis.hget(REPORTS, str(number))
        return {"id": number, **json.loads(raw)} if raw else None

    async def open_reports(self, count: int = 100) -> list[dict[str, Any]]:
        """The open reports, oldest first."""
        numbers = [int(n) for n in await self.redis.zrange(OPEN, 0, count - 1)]
        if not numbers:
            return []
        raws = await self.redis.hmget(REPORTS, [str(n) for n in numbers])
        return [{"id": n, **json.loads(r)} for n, r in zip(numbers, raws, strict=True) if r]

    async def reports_about(self, account_id: str, count: int = 50) -> list[dict[str, Any]]:
        """The latest reports about an account, open or closed (newest first)."""
        last = int(await self.redis.get(COUNTER) or 0)
        found: list[dict[str, Any]] = []
        n = last
        while n > 0 and len(found) < count and last - n < 5000:
            raws = await self.redis.hmget(REPORTS, [str(i) for i in range(n, max(0, n - 200), -1)])
            for i, raw in zip(range(n, max(0, n - 200), -1), raws, strict=True):
                if raw:
                    r = json.loads(raw)
                    if r.get("target_id") == account_id:
                        found.append({"id": i, **r})
            n -= 200
        return found[:count]

    async def audit(self, count: int = 100, name: str | None = None) -> list[dict[str, Any]]:
        """The audit log, newest first (only the entries about ``name`` when given)."""
        out: list[dict[str, Any]] = []
        last = "+"
        while len(out) < count:
            rows = await self.redis.xrevrange(AUDIT, last, "-", count=200)
            for _, fields in rows:
                entry = json.loads(fields[b"e"])
                if name is None or entry["target"].lower() == name.lower():
                    out.append(entry)
            if len(rows) < 200:
                break
            last = "(" + rows[-1][0].decode()
        return out[:count]

    async def chat_context(
        self, ref: rules.ChatRef, around: int = rules.CHAT_CONTEXT
    ) -> list[dict[str, Any]]:
        """The chat line named and the lines around it, as they are now."""
        rows = await self.redis.xrange(
            stream_key(ref.match, ref.room), f"{max(1, ref.n - around)}-0", f"{ref.n + around}-0"
        )
        return [_chat_line(ref.room, entry_id, fields) for entry_id, fields in rows]

    async def chat(self, match_id: str, count: int = 500) -> dict[str, list[dict[str, Any]]]:
        """Both rooms of a match's chat, the last ``count`` lines of each."""
        out = {}
        for room in ("players", "spectators"):
            rows = await self.redis.xrevrange(stream_key(match_id, room), "+", "-", count=count)
            out[room] = [_chat_line(room, i, f) for i, f in reversed(rows)]
        return out

    async def flag(self, account_id: str, flag: dict[str, Any]) -> None:
        """The engine-assist detector's latest flag of an account (kept until replaced)."""
        await self.redis.hset(FLAGS, account_id, json.dumps(flag))

    async def clear_flag(
        self, account_id: str, name: str, moderator: str, reason: str, now: int
    ) -> bool:
        """A moderator reviewed the account's flag: it leaves the queue (audited)."""
        if not await self.redis.hdel(FLAGS, account_id):
            return False
        entry = rules.AuditEntry(now, moderator, "dismiss", name, reason, "flag")
        await self.redis.xadd(AUDIT, {"e": json.dumps(entry.as_json())})
        return True

    async def flags(self) -> list[dict[str, Any]]:
        rows = await self.redis.hgetall(FLAGS)
        return [{"account_id": k.decode(), **json.loads(v)} for k, v in rows.items()]


def _chat_line(room: str, entry_id: bytes, raw: dict[bytes, bytes]) -> dict[str, Any]:
    f = {k.decode(): v.decode() for k, v in raw.items()}
    seat = int(f["s"])
    return {
        "room": room,
        "n": int(entry_id.split(b"-")[0]),
        "seat": None if seat < 0 else seat,
        "name": f["u"],
        "account": f["a"] == "1",
        "text": f["x"],
        "at": int(f["t"]),
    }
