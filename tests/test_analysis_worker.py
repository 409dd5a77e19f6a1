"""The analysis queue and worker against a real Redis: a game is queued once however often it
is asked for; a job a dead worker left pending is taken over; a job that names no finished game
ends as a failed status (not a stuck one) and leaves the stream."""

from __future__ import annotations

import asyncio
import json

import redis.asyncio as aioredis

from server import analysis_queue as queue
from server.analysis_worker import AnalysisWorker

MATCH = "ab" * 16


async def wait_status(redis: aioredis.Redis, game: int, status: str) -> dict:
    for _ in range(200):
        got = await queue.status(redis, MATCH, game)
        if got and got["status"] == status:
            return got
        await asyncio.sleep(0.05)
    raise AssertionError(f"game {game} never reached {status}: {got}")


async def test_queue_once_take_over_dead_workers_and_fail_cleanly(redis_url, monkeypatch) -> None:
    redis = aioredis.from_url(redis_url)
    try:
        await queue.ensure_group(redis)
        await queue.ensure_group(redis)  # idempotent
        assert await queue.enqueue(redis, MATCH, 1)
        assert not await queue.enqueue(redis, MATCH, 1)  # already queued
        assert await redis.xlen(queue.JOBS) == 1
        assert await queue.status(redis, MATCH, 1) == {"status": "pending", "progress": None}
        # A worker takes game 1 and dies before finishing: its entry stays pending.
        taken = await redis.xreadgroup(queue.GROUP, "dead", {queue.JOBS: ">"}, count=1)
        assert taken and taken[0][1]
        assert await queue.enqueue(redis, MATCH, 2)
        monkeypatch.setattr(queue, "CLAIM_IDLE_MS", 0)
        stop = asyncio.Event()
        worker = AnalysisWorker(redis_url, name="alive")
        running = asyncio.create_task(worker.run(stop))
        # Both jobs are handled: the dead worker's by take-over. They name no match, so each
        # ends failed with the reason, and nothing is left in the stream.
        for game in (1, 2):
            failed = await wait_status(redis, game, "failed")
            assert failed["message"] == "no such match"
        for _ in range(100):
            if await redis.xlen(queue.JOBS) == 0:
                break
            await asyncio.sleep(0.05)
        assert await redis.xlen(queue.JOBS) == 0
        pending = await redis.xpending(queue.JOBS, queue.GROUP)
        assert pending["pending"] == 0
        assert await queue.report(redis, MATCH, 1) is None
        # A malformed entry is dropped without harm.
        await redis.xadd(queue.JOBS, {"junk": "1"})
        for _ in range(100):
            if await redis.xlen(queue.JOBS) == 0:
                break
            await asyncio.sleep(0.05)
        assert await redis.xlen(queue.JOBS) == 0
        stop.set()
        await asyncio.wait_for(running, 5)
        assert worker.analysed == 0
        assert json.loads(await redis.get(queue.status_key(MATCH, 2)))["status"] == "failed"
    finally:
        await redis.aclose()
