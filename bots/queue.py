"""The bots' work queue in Redis: what the lobby writes and the workers read.

* ``fg:bots:jobs`` — stream: one entry per bot seat to play (:class:`BotSeat`: ``match``,
  ``seat``, ``token``, ``level``), read by the consumer group ``bots``;
* ``fg:bots:alive`` — sorted set: worker name → when it last said it was alive (wall-clock ms);
* ``fg:{m:<id>}:botsecrets`` — hash: the bot seat's dice-chain secrets (the client library's
  keys), kept until the match ends;
* ``fg:{m:<id>}:botqueued`` — set when a rematch's bot seat was queued (at most once);
* ``fg:{m:<id>}:botpace`` — ``fast`` while the human asked for fast play (the page's setting,
  through ``POST /api/matches/{id}/pace``): the bot then answers without a think time.

The leases are those of :mod:`work` (the same protocol as the analysis queue's): a worker reads
new entries with ``XREADGROUP`` and keeps each one *pending* (unacknowledged) while it plays that
seat, re-claiming its own entries every :data:`HEARTBEAT_MS` so that they never look idle
(``Timing(CLAIM_IDLE_MS, renews=True)``). A worker that dies stops doing that; after
:data:`CLAIM_IDLE_MS` another worker takes the entry over with ``XAUTOCLAIM`` and resumes the
seat with its token and the stored secrets. The entry is acknowledged and deleted when the
match is over.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import redis.asyncio as aioredis

from bots.catalog import Level
from work import streams
from work.kind import Kind

JOBS = "fg:bots:jobs"
GROUP = "bots"
ALIVE = "fg:bots:alive"
HEARTBEAT_MS = 1000
CLAIM_IDLE_MS = 5000
ALIVE_WITHIN_MS = 5000


def secrets_key(match_id: str) -> str:
    return f"fg:{{m:{match_id}}}:botsecrets"


def pace_key(match_id: str) -> str:
    """``fast`` while the match's human plays fast (:data:`FAST`), else absent."""
    return f"fg:{{m:{match_id}}}:botpace"


FAST = b"fast"
PACE_TTL_S = 86_400
"""How long a pace is kept (a match against the computer lasts less: it goes with the match)."""


def queued_key(match_id: str) -> str:
    """Set once a bot seat of ``match_id`` has been queued (a rematch is queued only once)."""
    return f"fg:{{m:{match_id}}}:botqueued"


@dataclass(frozen=True, slots=True)
class BotSeat:
    """One bot seat to play until its match is over."""

    match_id: str
    seat: int
    token: str
    level: Level

    def fields(self) -> dict[str, str]:
        return {"match": self.match_id, "seat": str(self.seat), "token": self.token,
                "level": self.level.value}

    @classmethod
    def of(cls, fields: Mapping[bytes, bytes]) -> BotSeat:
        """Raises ``KeyError`` or ``ValueError`` for an entry that is not a bot seat."""
        return cls(
            match_id=fields[b"match"].decode(),
            seat=int(fields[b"seat"]),
            token=fields[b"token"].decode(),
            level=Level(fields[b"level"].decode()),
        )


SEATS: Kind[BotSeat] = Kind(JOBS, GROUP, BotSeat)


async def enqueue(redis: aioredis.Redis, job: BotSeat) -> None:
    await streams.add(redis, SEATS, job)


async def workers_alive(redis: aioredis.Redis, now_ms: int) -> int:
    """How many workers said they were alive within :data:`ALIVE_WITHIN_MS`."""
    return await streams.alive(redis, ALIVE, now_ms - ALIVE_WITHIN_MS)
