"""Imported matches in Redis, and their games queued for the analysis workers:

* ``fg:import:<id>`` — hash: ``owner`` (``a:<account key>``), ``format`` (``mat``/``sgf``),
  ``name`` (the file's name as given, for the list), ``names`` (JSON: the two players),
  ``games`` (how many), ``text`` (the file as read: the match is read again from it, the
  importer being pure and deterministic), ``shared`` (``1``: anyone with the link may see it),
  ``created`` (ms);
* ``fg:imports:of:<owner>`` — sorted set: the owner's imports by creation time;
* ``fg:imports:jobs`` — stream: one entry per game to analyse (:class:`ImportedGame`:
  ``import``, ``game``), consumer group ``importers``;
* ``fg:import:<id>:analysis:<n>`` — string: game ``n``'s report (the same JSON as a game played
  here: docs/analysis.md), or ``{"status": "pending" | "failed", ...}`` before.

Leases as the game analyses' (not renewed, taken over after :data:`CLAIM_IDLE_MS`).
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

JOBS = "fg:imports:jobs"
GROUP = "importers"
CLAIM_IDLE_MS = 60_000
KEEP_LISTED = 200


def import_key(imported: str) -> str:
    return f"fg:import:{imported}"


def listed_key(owner: str) -> str:
    return f"fg:imports:of:{owner}"


def report_key(imported: str, game: int) -> str:
    return f"fg:import:{imported}:analysis:{game}"


@dataclass(frozen=True, slots=True)
class ImportedGame:
    """Analyse game ``game`` of import ``imported``."""

    imported: str
    game: int

    def fields(self) -> dict[str, str]:
        return {"import": self.imported, "game": str(self.game)}

    @classmethod
    def of(cls, fields: Mapping[bytes, bytes]) -> Self:
        """Raises ``KeyError`` or ``ValueError`` for an entry that is not one.

        >>> ImportedGame.of({b"import": b"ab", b"game": b"2"})
        ImportedGame(imported='ab', game=2)
        """
        return cls(fields[b"import"].decode(), int(fields[b"game"]))


GAMES: Kind[ImportedGame] = Kind(JOBS, GROUP, ImportedGame)


async def create(redis: aioredis.Redis, owner: str, fmt: str, name: str,
                 names: tuple[str, str], games: int, text: str) -> str:
    """Store an import and queue its games; its id."""
    imported = secrets.token_hex(12)
    now = int(time.time() * 1000)
    async with redis.pipeline(transaction=True) as pipe:
        pipe.hset(import_key(imported), mapping={
            "owner": owner, "format": fmt, "name": name, "names": json.dumps(list(names)),
            "games": str(games), "text": text, "shared": "0", "created": str(now)})
        for n in range(1, games + 1):
            pipe.set(report_key(imported, n), json.dumps({"status": "pending"}))
        pipe.zadd(listed_key(owner), {imported: now})
        pipe.zremrangebyrank(listed_key(owner), 0, -KEEP_LISTED - 1)
        await pipe.execute()
    for n in range(1, games + 1):
        await streams.add(redis, GAMES, ImportedGame(imported, n))
    return imported


async def found(redis: aioredis.Redis, imported: str) -> dict[str, str] | None:
    raw = await redis.hgetall(import_key(imported))
    return {k.decode(): v.decode() for k, v in raw.items()} if raw else None


async def report(redis: aioredis.Redis, imported: str, game: int) -> dict[str, Any] | None:
    raw = await redis.get(report_key(imported, game))
    return json.loads(raw) if raw else None


async def listed(redis: aioredis.Redis, owner: str) -> list[str]:
    return [r.decode() for r in await redis.zrevrange(listed_key(owner), 0, KEEP_LISTED - 1)]
