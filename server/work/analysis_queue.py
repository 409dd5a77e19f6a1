"""The analysis work queue in Redis (its own keys; the bots have theirs):

* ``fg:analysis:jobs`` — stream: one entry per finished game to analyse
  (:class:`GameAnalysis`: ``match``, ``game``), read by the consumer group ``analysers``;
* ``fg:analysis:deep`` — stream: one entry per game whose 1-ply report is stored, to analyse
  again deeper when no 1-ply work waits (:class:`DeepAnalysis`: same fields, same group);
* ``fg:{m:<id>}:analysis:<n>`` — string: the report of game ``n`` as JSON (docs/analysis.md),
  once done;
* ``fg:{m:<id>}:analysis:<n>:basis`` — string: the luck and cube figures of the 1-ply report,
  unrounded (:class:`analysis.core.Basis` as msgpack, a map of field names: see
  :mod:`server.machine.serial`), stored with the report when the game is queued for the
  deeper pass, which takes them over instead of computing them again and deletes the key;
* ``fg:{m:<id>}:analysis:<n>:status`` — string: ``{"status": "pending", "progress": [done,
  total] | null}`` while queued or running; ``{"status": "done"}`` after; ``{"status":
  "failed", "message": ...}`` when the game cannot be analysed; ``{"status": "unavailable",
  "reason": "variant", "variant": ..., "message": ...}`` for a game of a variant the
  analysis does not cover (:class:`analysis.game.NotAnalysed`).

Enqueueing sets the status key only when it does not exist yet (``SET NX``), so a game is queued
once however many times it is asked for. The leases are those of :mod:`work` (the same protocol
as the bots' queue), without renewals (``Timing(CLAIM_IDLE_MS)``: an analysis takes seconds): a
worker keeps its entry pending while it works; a worker that dies leaves it idle, and after
:data:`CLAIM_IDLE_MS` another worker takes it over (``XAUTOCLAIM``). The entry is acknowledged
and deleted when the report is stored.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

import redis.asyncio as aioredis

from work import streams
from work.kind import Kind

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


def unavailable(exc: Exception) -> str:
    """The status of a game that is not analysed (:class:`analysis.game.NotAnalysed`)."""
    return json.dumps({"status": "unavailable", "reason": getattr(exc, "reason", None),
                       "variant": getattr(exc, "variant", None), "message": str(exc)})


def pending(progress: tuple[int, int] | None = None) -> str:
    return json.dumps({"status": "pending", "progress": list(progress) if progress else None})


@dataclass(frozen=True, slots=True)
class GameAnalysis:
    """Analyse game ``game`` of ``match_id`` (1-ply) and store its report."""

    match_id: str
    game: int

    def fields(self) -> dict[str, str]:
        return {"match": self.match_id, "game": str(self.game)}

    @classmethod
    def of(cls, fields: Mapping[bytes, bytes]) -> Self:
        """Raises ``KeyError`` or ``ValueError`` for an entry that is not a game to analyse."""
        return cls(fields[b"match"].decode(), int(fields[b"game"]))


class DeepAnalysis(GameAnalysis):
    """Analyse game ``game`` of ``match_id`` again deeper and replace its report (the same
    stored form, on its own stream)."""

    __slots__ = ()


GAMES: Kind[GameAnalysis] = Kind(JOBS, GROUP, GameAnalysis)
DEEPER: Kind[DeepAnalysis] = Kind(DEEP, GROUP, DeepAnalysis)


async def enqueue(redis: aioredis.Redis, match_id: str, game: int) -> bool:
    """Queue game ``game`` of ``match_id`` unless it was queued (or analysed) before."""
    if not await redis.set(status_key(match_id, game), pending(), nx=True):
        return False
    await streams.add(redis, GAMES, GameAnalysis(match_id, game))
    return True


async def enqueue_deep(redis: aioredis.Redis, match_id: str, game: int) -> None:
    """Queue game ``game`` of ``match_id`` for the deeper analysis (after its 1-ply report)."""
    await streams.add(redis, DEEPER, DeepAnalysis(match_id, game))


async def ensure_group(redis: aioredis.Redis) -> None:
    await streams.ensure_groups(redis, (GAMES, DEEPER))


async def status(redis: aioredis.Redis, match_id: str, game: int) -> dict[str, Any] | None:
    raw = await redis.get(status_key(match_id, game))
    return json.loads(raw) if raw else None


async def report(redis: aioredis.Redis, match_id: str, game: int) -> bytes | None:
    return await redis.get(report_key(match_id, game))
