"""The bots' work queue in Redis: what the lobby writes and the workers read.

* ``fg:bots:jobs`` — stream: one entry per bot seat to play (``match``, ``seat``, ``token``,
  ``level``), read by the consumer group ``bots``;
* ``fg:bots:alive`` — sorted set: worker name → when it last said it was alive (wall-clock ms);
* ``fg:{m:<id>}:botsecrets`` — hash: the bot seat's dice-chain secrets (the client library's
  keys), kept until the match ends;
* ``fg:{m:<id>}:botqueued`` — set when a rematch's bot seat was queued (at most once).

A worker reads new entries with ``XREADGROUP`` and keeps each one *pending* (unacknowledged)
while it plays that seat, re-claiming its own entries every :data:`HEARTBEAT_MS` so that they
never look idle. A worker that dies stops doing that; after :data:`CLAIM_IDLE_MS` another worker
takes the entry over with ``XAUTOCLAIM`` and resumes the seat with its token and the stored
secrets. The entry is acknowledged and deleted when the match is over.
"""

from __future__ import annotations

from dataclasses import dataclass

import redis.asyncio as aioredis

from bots.catalog import Level

JOBS = "fg:bots:jobs"
GROUP = "bots"
ALIVE = "fg:bots:alive"
HEARTBEAT_MS = 1000
CLAIM_IDLE_MS = 5000
ALIVE_WITHIN_MS = 5000


def secrets_key(match_id: str) -> str:
    return f"fg:{{m:{match_id}}}:botsecrets"


def queued_key(match_id: str) -> str:
    """Set once a bot seat of ``match_id`` has been queued (a rematch is queued only once)."""
    return f"fg:{{m:{match_id}}}:botqueued"


@dataclass(frozen=True, slots=True)
class Job:
    """One bot seat to play until its match is over."""

    match_id: str
    seat: int
    token: str
    level: Level

    def fields(self) -> dict[str, str]:
        return {"match": self.match_id, "seat": str(self.seat), "token": self.token,
                "level": self.level.value}

    @classmethod
    def of(cls, fields: dict[bytes, bytes]) -> Job:
        """Raises ``KeyError`` or ``ValueError`` for an entry that is not a job."""
        return cls(
            match_id=fields[b"match"].decode(),
            seat=int(fields[b"seat"]),
            token=fields[b"token"].decode(),
            level=Level(fields[b"level"].decode()),
        )


async def enqueue(redis: aioredis.Redis, job: Job) -> None:
    await redis.xadd(JOBS, job.fields())  # type: ignore[arg-type]


async def ensure_group(redis: aioredis.Redis) -> None:
    try:
        await redis.xgroup_create(JOBS, GROUP, id="0", mkstream=True)
    except aioredis.ResponseError as exc:
        if "BUSYGROUP" not in str(exc):
            raise


async def workers_alive(redis: aioredis.Redis, now_ms: int) -> int:
    """How many workers said they were alive within :data:`ALIVE_WITHIN_MS`."""
    return int(await redis.zcount(ALIVE, now_ms - ALIVE_WITHIN_MS, "+inf"))
