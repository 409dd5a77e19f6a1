"""The analysis workers' handler of the analysis board's deeper requests
(:mod:`server.work.board_queue`): the request set up again (:func:`analysis.board.
setup_from_request`), analysed with the nets on a thread, the answer stored. A request the
board refuses (it was checked when queued, so only a stored entry gone wrong) ends failed with
the reason; so does a bug, logged.
"""

from __future__ import annotations

import asyncio
import time

import redis.asyncio as aioredis

from analysis.board import SetupError, analyse_position, setup_from_request, to_json
from server.ops import logs
from server.work import board_queue as queue
from work.runner import Lease

log = logs.get("analysis")


def answer(job: queue.BoardJob) -> dict:
    """The analysis of ``job`` (pure but for the nets; raises :class:`SetupError`)."""
    setup = setup_from_request(job.position_id, job.match_id, job.xgid, job.dice)
    return to_json(analyse_position(setup, job.ply))


async def handle(redis: aioredis.Redis, job: queue.BoardJob, lease: Lease) -> None:
    started = time.perf_counter()
    try:
        body = await asyncio.to_thread(answer, job)
    except SetupError as exc:
        await queue.store(redis, job.job, {"status": "failed", "message": str(exc)})
    except Exception as exc:  # a bug: say so in the result, keep working
        log.exception("board analysis failed", extra=logs.fields(job=job.job))
        await queue.store(redis, job.job, {"status": "failed", "message": repr(exc)})
    else:
        body["seconds"] = round(time.perf_counter() - started, 3)
        await queue.store(redis, job.job, {"status": "done", "analysis": body})
        log.info("board analysed", extra=logs.fields(job=job.job, seconds=body["seconds"]))
    await lease.finish()
