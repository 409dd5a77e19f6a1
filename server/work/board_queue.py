"""The analysis board's deeper requests in Redis: a 3-ply analysis (seconds, sometimes more)
is not computed in the web process but queued for the analysis workers (the kind of
:mod:`work`, a source of :class:`server.work.analysis_worker.AnalysisWorker`):

* ``fg:board:jobs`` — stream: one entry per request (:class:`BoardJob`: ``job``,
  ``position_id``, ``match_id``, ``xgid``, ``dice``, ``ply``; an absent ID or dice is the
  empty string, dice are written ``"31"``), read by the consumer group ``boards``;
* ``fg:board:<job>`` — string: ``{"status": "pending"}`` while queued or running, then
  ``{"status": "done", "analysis": {...}}`` (the answer of :func:`analysis.board.to_json`)
  or ``{"status": "failed", "message": ...}``; it expires :data:`KEEP_S` after it was last
  written.

A job's id is a digest of its request (:func:`job_id`): the same position, dice and ply asked
for again (by anyone) is the same job, queued once (``SET NX`` on its key) and answered from
its stored result while that lasts. Leases as the game analyses' (no renewals: a job is one
search), taken over after :data:`CLAIM_IDLE_MS` when its worker died.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Self

import redis.asyncio as aioredis

from work import streams
from work.kind import Kind

JOBS = "fg:board:jobs"
GROUP = "boards"
CLAIM_IDLE_MS = 60_000
KEEP_S = 24 * 3600
"""How long a result (or a pending mark) is kept."""


def result_key(job: str) -> str:
    return f"fg:board:{job}"


@dataclass(frozen=True, slots=True)
class BoardJob:
    """Analyse a position (``position_id`` and perhaps ``match_id``, or ``xgid``) with
    ``dice`` (``(d1, d2)`` or None: the cube decision) at ``ply``; the result goes to
    :func:`result_key` of ``job``."""

    job: str
    position_id: str | None
    match_id: str | None
    xgid: str | None
    dice: tuple[int, int] | None
    ply: int

    def fields(self) -> dict[str, str]:
        return {"job": self.job, "position_id": self.position_id or "",
                "match_id": self.match_id or "", "xgid": self.xgid or "",
                "dice": "".join(map(str, self.dice)) if self.dice else "",
                "ply": str(self.ply)}

    @classmethod
    def of(cls, fields: Mapping[bytes, bytes]) -> Self:
        """Raises ``KeyError`` or ``ValueError`` for an entry that is not a board job.

        >>> job = BoardJob("j", "4HPwATDgc/ABMA", None, None, (3, 1), 3)
        >>> BoardJob.of({k.encode(): v.encode() for k, v in job.fields().items()}) == job
        True
        """
        def text(name: str) -> str | None:
            return fields[name.encode()].decode() or None

        dice = text("dice")
        if dice is not None and (len(dice) != 2 or not dice.isdigit()):
            raise ValueError(f"dice {dice!r}")
        return cls(fields[b"job"].decode(), text("position_id"), text("match_id"),
                   text("xgid"), (int(dice[0]), int(dice[1])) if dice else None,
                   int(fields[b"ply"]))


BOARDS: Kind[BoardJob] = Kind(JOBS, GROUP, BoardJob)


def job_id(position_id: str | None, match_id: str | None, xgid: str | None,
           dice: tuple[int, int] | None, ply: int) -> str:
    """The job of a request: 24 hex digits of the SHA-256 of its canonical JSON.

    >>> job_id("4HPwATDgc/ABMA", None, None, (3, 1), 3) == job_id("4HPwATDgc/ABMA", None,
    ...                                                           None, (3, 1), 3)
    True
    >>> len(job_id(None, None, "XGID=...", None, 3))
    24
    """
    canonical = json.dumps([position_id, match_id, xgid, list(dice) if dice else None, ply])
    return hashlib.sha256(canonical.encode()).hexdigest()[:24]


async def enqueue(redis: aioredis.Redis, job: BoardJob) -> bool:
    """Queue ``job`` unless it is queued, running or done (then False)."""
    if not await redis.set(result_key(job.job), json.dumps({"status": "pending"}), nx=True,
                           ex=KEEP_S):
        return False
    await streams.add(redis, BOARDS, job)
    return True


async def ensure_group(redis: aioredis.Redis) -> None:
    await streams.ensure_groups(redis, (BOARDS,))


async def result(redis: aioredis.Redis, job: str) -> dict[str, Any] | None:
    """The job's status or result (module docstring), None when unknown or expired."""
    raw = await redis.get(result_key(job))
    return json.loads(raw) if raw else None


async def store(redis: aioredis.Redis, job: str, body: Mapping[str, Any]) -> None:
    await redis.set(result_key(job), json.dumps(body), ex=KEEP_S)
