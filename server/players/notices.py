"""Notifications of a signed-in player: stored, counted, rate-limited (docs/friends.md,
"Notifications").

    fg:{u:<name>}:notes      list: the newest MAX_KEPT notices, newest first, each JSON
                             {id, kind, at, text, page, data}
    fg:{u:<name>}:note:id    counter: the last notice id given (ids grow by 1)
    fg:{u:<name>}:note:read  the highest id the player marked read
    fg:{u:<name>}:note:rate  counter: notices in the current minute (expires)
    fg:note:<name>           pub/sub channel: each new notice, as stored, for the player's
                             live page (one socket per browser)

A notice over the rate (RATE_PER_MINUTE an account) is dropped, not queued: a burst of turns
is told by the first ones. The kinds (KINDS) are the one vocabulary; a feature tells a player
through :meth:`Notices.notify`. Tournaments (another feature) tell a round with
:func:`tournament_round`.

>>> sorted(KINDS)
['challenge', 'challenge_accepted', 'challenge_declined', 'friend_playing', 'rematch', 'result',
 'tournament_round', 'your_turn']
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from redis import asyncio as aioredis

from server.players.accounts_store import tag

KINDS = frozenset(
    {"challenge", "challenge_accepted", "challenge_declined", "your_turn", "result",
     "tournament_round", "rematch", "friend_playing"}
)  # fmt: skip
MAX_KEPT = 100
RATE_PER_MINUTE = 30

# KEYS: notes, id, rate. ARGV: notice JSON without its id (an object), max kept, rate.
# Returns the stored notice's JSON, or false when over the rate.
_NOTIFY = """
local n = redis.call('INCR', KEYS[3])
if n == 1 then redis.call('PEXPIRE', KEYS[3], 60000) end
if n > tonumber(ARGV[3]) then return false end
local id = redis.call('INCR', KEYS[2])
local note = '{"id":' .. id .. ',' .. string.sub(ARGV[1], 2)
redis.call('LPUSH', KEYS[1], note)
redis.call('LTRIM', KEYS[1], 0, tonumber(ARGV[2]) - 1)
return note
"""


def notes_key(key: str) -> str:
    return f"{tag(key)}:notes"


def channel(key: str) -> str:
    return f"fg:note:{key}"


class UnknownKind(ValueError):
    """A notice kind not in KINDS."""


Listener = Callable[[str, dict[str, Any]], Awaitable[None]]


@dataclass
class Notices:
    redis: aioredis.Redis
    listeners: list[Listener] = field(default_factory=list)
    """Told of each stored notice (account key, notice) in the background: e-mail."""
    publish: str = "PUBLISH"
    """The command that publishes on an account's channel (``SPUBLISH`` on a cluster, where
    :class:`server.players.notice_hub.NoticeHub` follows it with ``SSUBSCRIBE``)."""

    def __post_init__(self) -> None:
        self._notify = self.redis.register_script(_NOTIFY)
        self._tasks: set[asyncio.Task[None]] = set()

    async def notify(
        self, key: str, kind: str, text: str, now: int, page: str = "", **data: Any
    ) -> dict[str, Any] | None:
        """Tell account ``key``: stored, counted as unread, published to its live pages.
        None when over the rate (dropped)."""
        if kind not in KINDS:
            raise UnknownKind(f"no notice kind {kind!r}")
        body = json.dumps({"kind": kind, "at": now, "text": text, "page": page, "data": data})
        note = await self._notify(
            keys=[notes_key(key), f"{tag(key)}:note:id", f"{tag(key)}:note:rate"],
            args=[body, MAX_KEPT, RATE_PER_MINUTE],
        )
        if not note:
            return None
        await self.redis.execute_command(self.publish, channel(key), note)
        stored = json.loads(note)
        for listener in self.listeners:
            task = asyncio.create_task(listener(key, stored))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        return stored

    async def unread(self, key: str) -> int:
        last = int(await self.redis.get(f"{tag(key)}:note:id") or 0)
        read = int(await self.redis.get(f"{tag(key)}:note:read") or 0)
        kept = await self.redis.llen(notes_key(key))
        return max(0, min(last - read, kept))

    async def listing(self, key: str) -> dict[str, Any]:
        raw = await self.redis.lrange(notes_key(key), 0, MAX_KEPT - 1)
        read = int(await self.redis.get(f"{tag(key)}:note:read") or 0)
        notes = [json.loads(r) for r in raw]
        for n in notes:
            n["read"] = n["id"] <= read
        return {"notices": notes, "unread": sum(not n["read"] for n in notes)}

    async def mark_read(self, key: str, upto: int | None = None) -> None:
        """Mark read every notice up to id ``upto`` (all when None); never moves back."""
        if upto is None:
            upto = int(await self.redis.get(f"{tag(key)}:note:id") or 0)
        current = int(await self.redis.get(f"{tag(key)}:note:read") or 0)
        if upto > current:
            await self.redis.set(f"{tag(key)}:note:read", upto)


async def tournament_round(
    notices: Notices, key: str, now: int, tournament: str, round_no: int, page: str
) -> dict[str, Any] | None:
    """The hook for tournaments: tell account ``key`` its next round is ready at ``page``."""
    text = f"Round {round_no} of {tournament} is ready"
    return await notices.notify(
        key, "tournament_round", text, now, page, tournament=tournament, round=round_no
    )
