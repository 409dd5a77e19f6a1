"""Direct challenges: a signed-in player offers its open match to one player (docs/friends.md,
"Challenges").

    fg:chal:<match>          hash: from, to (account keys), invite; expires with the match's
                             open lifetime (an unjoined match is cancelled then)
    fg:{u:<name>}:chal:in    sorted set: match -> when, the challenges the account received
    fg:{u:<name>}:chal:out   sorted set: match -> when, the challenges the account sent

A challenge is an open match (created as any other, correspondence ``days`` included) with its
invite held for the challenged player. Accepting takes seat 1 of it (the challenger holds seat
0 and gets its token on any page: ``POST /api/matches/{id}/seat``); declining, or the challenger
withdrawing, cancels the match; the challenge expires when the match's open lifetime ends
(``Limits.open_match_seconds``). Entries whose challenge is gone are dropped when listed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack
from redis import asyncio as aioredis

from server.match.store import Store
from server.players import accounts_store
from server.players.accounts_store import tag

MAX_PENDING = 20
"""Challenges an account may have sent and still open."""


def challenge_key(match_id: str) -> str:
    return f"fg:chal:{match_id}"


def inbox_key(account_key: str) -> str:
    return f"{tag(account_key)}:chal:in"


def outbox_key(account_key: str) -> str:
    return f"{tag(account_key)}:chal:out"


@dataclass(frozen=True, slots=True)
class Challenge:
    match: str
    sender: str
    receiver: str
    invite: str


class ChallengeRefused(Exception):
    """Too many open challenges."""


@dataclass
class Challenges:
    store: Store

    @property
    def redis(self) -> aioredis.Redis:
        return self.store.redis

    async def offer(self, c: Challenge, now: int, lifetime_ms: int) -> None:
        if await self.redis.zcard(outbox_key(c.sender)) >= MAX_PENDING:
            await self.listing(c.sender, now)  # drop the stale ones first
            if await self.redis.zcard(outbox_key(c.sender)) >= MAX_PENDING:
                raise ChallengeRefused(f"at most {MAX_PENDING} challenges may be open at once")
        fields = {"from": c.sender, "to": c.receiver, "invite": c.invite}
        await self.redis.hset(challenge_key(c.match), mapping=fields)
        await self.redis.pexpire(challenge_key(c.match), lifetime_ms)
        await self.redis.zadd(inbox_key(c.receiver), {c.match: now})
        await self.redis.zadd(outbox_key(c.sender), {c.match: now})

    async def get(self, match_id: str) -> Challenge | None:
        raw = await self.redis.hgetall(challenge_key(match_id))
        if not raw:
            return None
        row = {k.decode(): v.decode() for k, v in raw.items()}
        return Challenge(match_id, row["from"], row["to"], row["invite"])

    async def close(self, c: Challenge) -> None:
        """The challenge is answered (accepted, declined or withdrawn)."""
        await self.redis.delete(challenge_key(c.match))
        await self.redis.zrem(inbox_key(c.receiver), c.match)
        await self.redis.zrem(outbox_key(c.sender), c.match)

    async def listing(self, account_key: str, now: int) -> dict[str, list[dict[str, Any]]]:
        """The open challenges the account received and sent, newest first, each with the
        match's terms: ``{match, from, to, bot, mode, length, days, clock, created}`` (``bot``:
        whether the other player, the sender of one received or the receiver of one sent, is
        a bot account: docs/accounts.md, "Bot accounts")."""
        out: dict[str, list[dict[str, Any]]] = {}
        for box, key in (("received", inbox_key(account_key)), ("sent", outbox_key(account_key))):
            ids = [m.decode() for m in await self.redis.zrevrange(key, 0, 99)]
            rows, stale = [], []
            summaries = await self.store.listing(ids, ("a1",)) if ids else []
            for match_id, (blob, _) in zip(ids, summaries, strict=True):
                c = await self.get(match_id)
                other = None if c is None else c.sender if box == "received" else c.receiver
                bot = None
                if other is not None:
                    bot = await self.redis.hget(accounts_store.account_key(other), "bot")
                summary = msgpack.unpackb(blob, raw=False) if blob else None
                if c is None or summary is None or summary["phase"] != "waiting":
                    stale.append(match_id)
                    continue
                rows.append({"match": match_id, "from": summary["names"][0], "to": c.receiver,
                             "bot": bot == b"1",
                             "mode": summary["mode"], "length": summary["length"],
                             "variant": summary.get("variant", "backgammon"),
                             "days": summary.get("days", 0), "clock": summary["clock"],
                             "created": summary["created"]})  # fmt: skip
            if stale:
                await self.redis.zrem(key, *stale)
            out[box] = rows
        return out
