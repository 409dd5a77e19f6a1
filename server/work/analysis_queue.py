"""The analysis work queue in Redis (its own keys; the bots have theirs):

* ``fg:analysis:jobs`` — stream: one entry per finished game to analyse (``match``, ``game``),
  read by the consumer group ``analysers``;
* ``fg:analysis:deep`` — stream: one entry per game whose 1-ply report is stored, to analyse
  again deeper when no 1-ply work waits (same fields, same group);
* ``fg:{m:<id>}:analysis:<n>`` — string: the report of game ``n`` as JSON (docs/analysis.md),
  once done;
* ``fg:{m:<id>}:analysis:<n>:basis`` — string: the luck and cube figures of the 1-ply report,
  unrounded (:class:`analysis.core.Basis` as msgpack, a map of field names: see
  :mod:`server.machine.serial`), stored with the report when the game is queued for the
  deeper pass, which takes them over instead of computing them again and deletes the key;
* ``fg:{m:<id>}:analysis:<n>:status`` — string: ``{"status": "pending", "progress": [done,
  total] | null}`` while queued or running; ``{"status": "done"}`` after; ``{"status":
  "failed", "message": ...}`` when the game cannot be analysed.

Enqueueing sets the status key only when it does not exist yet (``SET NX``), so a game is queued
once however many times it is asked for. A worker keeps its entry pending while it works; a
worker that dies leaves it idle, and after :data:`CLAIM_IDLE_MS` another worker takes it over
(``XAUTOCLAIM``). The entry is acknowledged and deleted when the report is stored.
"""

from __future__ import annotations

import json
from typing import Any

import redis.asyncio as aioredis

JOBS = "fg:analysis:jobs"
DEEP = "fg:analysis:deep"
GROUP = "analysers"
CLAIM_IDLE_MS = 60_000


def report_key(match_id: str, game: int) -> str:
    return f"fg:{{m:{match_id}}}:analysis:{game}"


def basis_key(match_id: str, game: int) -> str:
    return f"fg:{{m:{match_id}}}:analysis:{game}:basis"


def status_key(match_id: str, game: int) -> str:
    return f"fg:{{m:{match_id}}}:analysis:{game}:status"


def pending(progress: tuple[int, int] | None = None) -> str:
    return json.dumps({"status": "pending", "progress": list(progress) if progress else None})


async def enqueue(redis: aioredis.Redis, match_id: str, game: int) -> bool:
    """Queue game ``game`` of ``match_id`` unless it was queued (or analysed) before."""
    if not await redis.set(status_key(match_id, game), pending(), nx=True):
        return False
    await redis.xadd(JOBS, {"match": match_id, "game": str(game)})
    return True


async def enqueue_deep(redis: aioredis.Redis, match_id: str, game: int) -> None:
    """Queue game ``game`` of ``match_id`` for the deeper analysis (after its 1-ply report)."""
    await redis.xadd(DEEP, {"match": match_id, "game": str(game)})


async def ensure_group(redis: aioredis.Redis) -> None:
    for stream in (JOBS, DEEP):
        try:
            await redis.xgroup_create(stream, GROUP, id="0", mkstream=True)
        except aioredis.ResponseError as exc:
            if "BUSYGROUP" not in str(exc):
                raise


async def status(redis: aioredis.Redis, match_id: str, game: int) -> dict[str, Any] | None:
    raw = await redis.get(status_key(match_id, game))
    return json.loads(raw) if raw else None


async def report(redis: aioredis.Redis, match_id: str, game: int) -> bytes | None:
    return await redis.get(report_key(match_id, game))
