"""The work queue's Redis commands (``redis.asyncio``), one function or method per step of the
lease protocol of :mod:`work.lease`: queue a job, make the group, take entries (claim or read),
list the entries a consumer holds, renew them, finish one. Nothing is decided here.

A job is one entry of its kind's stream (``XADD``, the job's ``fields()``); workers read it
through the kind's consumer group, created from the stream's start the first time it is needed.
"""

from __future__ import annotations

from collections.abc import Iterable

import redis.asyncio as aioredis

from work.kind import Job, Kind
from work.lease import Claim, Entry, Read

Delivered = list[tuple[bytes, dict[bytes, bytes]]]
"""Entries as Redis hands them over: id and fields."""


async def add(redis: aioredis.Redis, kind: Kind, job: Job) -> bytes:
    """Queue ``job`` on its kind's stream; the new entry's id."""
    return await redis.xadd(kind.stream, dict(job.fields()))  # type: ignore[arg-type]


async def ensure_groups(redis: aioredis.Redis, kinds: Iterable[Kind]) -> None:
    """Create each kind's consumer group (and stream) unless it exists."""
    for kind in kinds:
        try:
            await redis.xgroup_create(kind.stream, kind.group, id="0", mkstream=True)
        except aioredis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise


class Streams:
    """The commands of one consumer (a worker, by its name) on the streams of ``kinds``."""

    def __init__(self, redis: aioredis.Redis, consumer: str, kinds: Iterable[Kind]) -> None:
        self.redis = redis
        self.consumer = consumer
        self._group = {kind.stream: kind.group for kind in kinds}

    async def take(self, step: Claim | Read, count: int, block_ms: int) -> Delivered:
        """Run one step of :func:`work.lease.plan` for at most ``count`` entries (a waiting read
        waits up to ``block_ms``). Entries deleted while they were pending are left out."""
        group = self._group[step.stream]
        if isinstance(step, Claim):
            claimed = await self.redis.xautoclaim(step.stream, group, self.consumer,
                                                  step.min_idle_ms, "0-0", count=count)
            return [(i, f) for i, f in (claimed[1] if claimed else []) if f is not None]
        found = await self.redis.xreadgroup(group, self.consumer, {step.stream: ">"},
                                            count=count, block=block_ms if step.waits else None)
        return [(i, f) for _, entries in found or [] for i, f in entries]

    async def owned(self, stream: str) -> set[Entry]:
        """The entries of ``stream`` the group counts as this consumer's (up to 10,000)."""
        pending = await self.redis.xpending_range(stream, self._group[stream], min="-", max="+",
                                                  count=10_000, consumername=self.consumer)
        return {Entry(stream, p["message_id"]) for p in pending}

    async def holds(self, entry: Entry) -> bool:
        """Whether the group still counts ``entry`` as this consumer's."""
        pending = await self.redis.xpending_range(entry.stream, self._group[entry.stream],
                                                  min=entry.id, max=entry.id, count=1,
                                                  consumername=self.consumer)
        return bool(pending)

    async def renew(self, stream: str, ids: list[bytes]) -> None:
        """Claim ``ids`` again for this consumer: their idle time starts over (``JUSTID``: the
        delivery count stays)."""
        await self.redis.xclaim(stream, self._group[stream], self.consumer, 0, ids, justid=True)

    async def finish(self, entry: Entry) -> None:
        """Acknowledge and delete ``entry``: its work is done."""
        await self.redis.xack(entry.stream, self._group[entry.stream], entry.id)
        await self.redis.xdel(entry.stream, entry.id)


async def beat(redis: aioredis.Redis, key: str, consumer: str, now_ms: int) -> None:
    """Say in the sorted set ``key`` that ``consumer`` is alive at ``now_ms`` (wall clock)."""
    await redis.zadd(key, {consumer: now_ms})


async def alive(redis: aioredis.Redis, key: str, since_ms: int) -> int:
    """How many consumers said in ``key`` that they were alive at ``since_ms`` or later."""
    return int(await redis.zcount(key, since_ms, "+inf"))
