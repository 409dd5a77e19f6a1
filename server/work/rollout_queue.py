"""Rollouts in Redis: each rollout is played a batch (:data:`brain.rollout.BATCH` trials) at a
time by the analysis workers, and after each batch goes back to the end of the queue, so that
every rollout waiting gets its turn: a long rollout never holds a worker while others wait.

* ``fg:rollouts:jobs`` — stream: one entry per batch to play (:class:`RolloutBatch`:
  ``rollout``), read by the consumer group ``rollers``;
* ``fg:rollout:<id>`` — hash: ``spec`` (JSON, :meth:`analysis.rollouts.RolloutSpec.as_dict`),
  ``owner``, ``status`` (``queued``, ``running``, ``done``, ``cancelled``, ``failed``),
  ``tally`` (JSON, :meth:`brain.rollout.Tally.as_dict`: the batches played), ``running`` (the
  trials of the batch in play, for the progress bar), ``cancel`` (``1`` once asked),
  ``message`` (why it failed), ``created`` (ms); kept :data:`KEEP_S` after its last write;
* ``fg:rollouts:active:<owner>`` — set: the owner's rollouts queued or running (at most
  :data:`ACTIVE_LIMIT`: the per-account limit);
* ``fg:rollouts:of:<owner>`` — sorted set: the owner's rollouts by creation time (the newest
  :data:`LISTED` kept: the results linked from the page).

The owner is ``a:<account key>`` for a signed-in player, ``g:<client address>`` for a guest.

**Fair share.** The queue is a round: each turn plays one batch of one rollout, which then
rejoins the end of the round. With at most :data:`ACTIVE_LIMIT` rollouts per owner, a player
with two rollouts waits, at worst, one batch of every other rollout between two of theirs.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

import redis.asyncio as aioredis

from work import streams
from work.kind import Kind

JOBS = "fg:rollouts:jobs"
GROUP = "rollers"
CLAIM_IDLE_MS = 120_000
"""A batch takes seconds (a full rollout with variance reduction: about 2.5 s per 36 trials at
1-ply, more at 2-ply): a worker gone this long is dead."""
KEEP_S = 30 * 24 * 3600
ACTIVE_LIMIT = 2
LISTED = 50
FINAL = ("done", "cancelled", "failed")


def rollout_key(rollout: str) -> str:
    return f"fg:rollout:{rollout}"


def active_key(owner: str) -> str:
    return f"fg:rollouts:active:{owner}"


def listed_key(owner: str) -> str:
    return f"fg:rollouts:of:{owner}"


@dataclass(frozen=True, slots=True)
class RolloutBatch:
    """Play the next batch of rollout ``rollout``."""

    rollout: str

    def fields(self) -> dict[str, str]:
        return {"rollout": self.rollout}

    @classmethod
    def of(cls, fields: Mapping[bytes, bytes]) -> Self:
        """Raises ``KeyError`` for an entry that is not a batch to play.

        >>> RolloutBatch.of({b"rollout": b"ab12"})
        RolloutBatch(rollout='ab12')
        """
        return cls(fields[b"rollout"].decode())


BATCHES: Kind[RolloutBatch] = Kind(JOBS, GROUP, RolloutBatch)


class TooMany(Exception):
    """The owner has :data:`ACTIVE_LIMIT` rollouts queued or running."""


async def create(redis: aioredis.Redis, owner: str, spec: Mapping[str, Any]) -> str:
    """A new rollout of ``spec`` for ``owner``, queued; :class:`TooMany` over the limit."""
    rollout = secrets.token_hex(12)
    key = active_key(owner)
    if await redis.sadd(key, rollout) != 1 or await redis.scard(key) > ACTIVE_LIMIT:
        await redis.srem(key, rollout)
        raise TooMany()
    now = int(time.time() * 1000)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hset(rollout_key(rollout), mapping={
            "spec": json.dumps(spec), "owner": owner, "status": "queued",
            "tally": json.dumps({"trials": 0, "sums": {}, "variances": {}, "double_pass": 1.0}),
            "running": "0", "cancel": "0", "created": str(now)})
        pipe.expire(rollout_key(rollout), KEEP_S)
        pipe.expire(key, KEEP_S)
        pipe.zadd(listed_key(owner), {rollout: now})
        pipe.zremrangebyrank(listed_key(owner), 0, -LISTED - 1)
        pipe.expire(listed_key(owner), KEEP_S)
        await pipe.execute()
    await streams.add(redis, BATCHES, RolloutBatch(rollout))
    return rollout


async def state(redis: aioredis.Redis, rollout: str) -> dict[str, str] | None:
    raw = await redis.hgetall(rollout_key(rollout))
    return {k.decode(): v.decode() for k, v in raw.items()} if raw else None


async def update(redis: aioredis.Redis, rollout: str, **fields: str) -> None:
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hset(rollout_key(rollout), mapping=fields)
        pipe.expire(rollout_key(rollout), KEEP_S)
        await pipe.execute()


async def end(redis: aioredis.Redis, rollout: str, owner: str, status: str, **fields: str) -> None:
    """Set a final ``status`` (with ``fields``) and free the owner's place."""
    await update(redis, rollout, status=status, running="0", **fields)
    await redis.srem(active_key(owner), rollout)


async def requeue(redis: aioredis.Redis, rollout: str) -> None:
    await streams.add(redis, BATCHES, RolloutBatch(rollout))


async def cancel(redis: aioredis.Redis, rollout: str) -> None:
    """Ask for the rollout to stop (the worker ends it within a batch, or at its next turn)."""
    await update(redis, rollout, cancel="1")


async def listed(redis: aioredis.Redis, owner: str) -> list[str]:
    return [r.decode() for r in await redis.zrevrange(listed_key(owner), 0, LISTED - 1)]
