"""The analysis workers' handler of rollout batches (:mod:`server.work.rollout_queue`): the
next batch of a rollout played with the nets on a thread (:class:`brain.rollout.Roller`),
the trials done written for the progress bar while it runs, the tally stored after it; then the
rollout rejoins the end of the queue, or is done. A cancel asked for is seen within
:data:`WATCH_S` and stops the batch (bgsage may finish its trials first: a cancel takes effect
within one batch); the batches played are kept.
"""

from __future__ import annotations

import asyncio
import json

import redis.asyncio as aioredis

from analysis.board import SetupError
from analysis.rollouts import RolloutSpec
from brain.rollout import BATCH, Cancelled, Roller, RolloutError, Tally
from server.ops import logs
from server.work import rollout_queue as queue
from work.runner import Lease

log = logs.get("analysis")

WATCH_S = 0.25


async def handle(redis: aioredis.Redis, job: queue.RolloutBatch, lease: Lease) -> None:
    try:
        await _batch(redis, job.rollout)
    finally:
        await lease.finish()


async def _batch(redis: aioredis.Redis, rollout: str) -> None:
    found = await queue.state(redis, rollout)
    if found is None or found["status"] in queue.FINAL:
        return
    owner = found["owner"]
    if found.get("cancel") == "1":
        await queue.end(redis, rollout, owner, "cancelled")
        return
    try:
        spec = RolloutSpec.of(json.loads(found["spec"]))
        tally = Tally.of(json.loads(found["tally"]))
        position, context = spec.subject()
    except (SetupError, RolloutError, KeyError, ValueError, TypeError) as exc:
        await queue.end(redis, rollout, owner, "failed", message=str(exc))
        return
    roller = Roller(spec.settings)
    index = tally.trials // BATCH
    done = [0]

    def progress(trials: int, total: int) -> None:
        done[0] = trials

    await queue.update(redis, rollout, status="running", running="0")

    async def watch() -> None:
        shown = -1
        while True:
            await asyncio.sleep(WATCH_S)
            if done[0] != shown:
                shown = done[0]
                await queue.update(redis, rollout, running=str(shown))
            if await redis.hget(queue.rollout_key(rollout), "cancel") == b"1":
                roller.cancel()

    watcher = asyncio.create_task(watch())
    try:
        sample = await asyncio.to_thread(roller.batch, position, context, index, progress)
    except Cancelled:
        await queue.end(redis, rollout, owner, "cancelled")
        return
    except Exception as exc:  # a bug: say so, keep working
        log.exception("rollout failed", extra=logs.fields(rollout=rollout))
        await queue.end(redis, rollout, owner, "failed", message=repr(exc))
        return
    finally:
        watcher.cancel()
    tally = tally.add(sample)
    stored = json.dumps(tally.as_dict())
    if tally.trials >= spec.settings.trials:
        await queue.end(redis, rollout, owner, "done", tally=stored)
        log.info("rollout done", extra=logs.fields(rollout=rollout, trials=tally.trials))
    elif await redis.hget(queue.rollout_key(rollout), "cancel") == b"1":
        await queue.end(redis, rollout, owner, "cancelled", tally=stored)
    else:
        await queue.update(redis, rollout, status="queued", running="0", tally=stored)
        await queue.requeue(redis, rollout)
