"""The analysis queue and worker against a real Redis: a game is queued once however often it
is asked for; a job a dead worker left pending is taken over; a job that names no finished game
ends as a failed status (not a stuck one) and leaves the stream; the deeper pass takes the luck
and cube figures over from the 1-ply pass, and without them computes the same report."""

from __future__ import annotations

import asyncio
import json
from collections import Counter

import msgpack
import redis.asyncio as aioredis

from analysis.core import Basis, analyse
from analysis.equity import DeepEvaluator, Evaluator
from analysis.game import GameInput
from brain.nets import Nets
from engine.match import MatchOptions
from engine.turns import TurnKind
from harness.analysis import constructed_game
from server.machine import serial
from server.work import analysis_queue as queue
from server.work.analysis_worker import AnalysisWorker, report_body

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


async def test_the_deeper_pass_takes_luck_and_cube_from_the_1ply_pass(
        redis_url, monkeypatch) -> None:
    """Game 1 goes through both passes: the 1-ply pass stores its basis with the report, the
    deeper pass scores no roll but the one that came, asks for no cube advice, stores the
    report of the full deeper analysis and deletes the basis. Game 2's deeper job has no basis
    (queued before there were any), game 3's one it cannot read: both are analysed in full, to
    the same report."""
    evaluator = Evaluator()
    _, game = constructed_game(("random", "random"), 5, evaluator,
                               MatchOptions.money(beavers=True), double_rate=0.1,
                               drop_rate=0.3, beaver_rate=0.5)
    assert {t.action for t in game.turns} >= {TurnKind.DOUBLE, TurnKind.TAKE, TurnKind.DROP,
                                              TurnKind.BEAVER, TurnKind.PASS}
    rolls = sum(1 for t in game.turns if t.action in (TurnKind.MOVE, TurnKind.PASS))
    expected = report_body(analyse(game, DeepEvaluator(Nets())), MATCH, 1)

    async def game_input(self, match_id: str, game_no: int) -> GameInput:  # type: ignore[no-untyped-def]
        assert match_id == MATCH
        return game

    monkeypatch.setattr(AnalysisWorker, "game_input", game_input)
    calls: Counter[str] = Counter()

    def counting(name: str):  # type: ignore[no-untyped-def]
        method = getattr(Evaluator, name)

        def counted(self, *args, **kwargs):  # type: ignore[no-untyped-def]
            calls[name] += 1
            return method(self, *args, **kwargs)

        return counted

    for name in ("all_rolls", "cube", "roll"):
        monkeypatch.setattr(DeepEvaluator, name, counting(name))

    redis = aioredis.from_url(redis_url)
    stop = asyncio.Event()
    worker = AnalysisWorker(redis_url, name="reuse", evaluator=evaluator, deep=True)
    running = asyncio.create_task(worker.run(stop))
    try:
        await queue.ensure_group(redis)

        async def deepened(count: int) -> None:
            for _ in range(600):
                if worker.deepened == count:
                    return
                await asyncio.sleep(0.05)
            raise AssertionError(f"never analysed {count} games deeper")

        async def stored(game_no: int) -> dict:
            body = json.loads(await queue.report(redis, MATCH, game_no))
            assert body.pop("seconds") >= 0
            return body

        # The basis is stored with the 1-ply report, and read by serial (field names).
        seen: list[bytes | None] = []
        basis = AnalysisWorker.basis

        async def spy(self, match_id, game_no, evaluator):  # type: ignore[no-untyped-def]
            seen.append(await self.redis.get(queue.basis_key(match_id, game_no)))
            return await basis(self, match_id, game_no, evaluator)

        monkeypatch.setattr(AnalysisWorker, "basis", spy)
        assert await queue.enqueue(redis, MATCH, 1)
        await deepened(1)
        assert worker.analysed == 1
        assert serial.loads(Basis, seen[0]) == analyse(game, evaluator).basis()
        assert set(msgpack.unpackb(seen[0])) == {"level", "turns"}
        assert await stored(1) == expected
        assert calls["all_rolls"] == calls["cube"] == 0 and calls["roll"] == rolls
        assert await redis.exists(queue.basis_key(MATCH, 1)) == 0

        # No basis: the full deeper analysis.
        calls.clear()
        await queue.enqueue_deep(redis, MATCH, 2)
        await deepened(2)
        assert await stored(2) == {**expected, "game": 2}
        assert calls["all_rolls"] == rolls and calls["cube"] > 0

        # A basis it cannot read: the same.
        calls.clear()
        await redis.set(queue.basis_key(MATCH, 3), b"\xc1 not msgpack")
        await queue.enqueue_deep(redis, MATCH, 3)
        await deepened(3)
        assert await stored(3) == {**expected, "game": 3}
        assert calls["all_rolls"] == rolls and calls["cube"] > 0
        assert await redis.exists(queue.basis_key(MATCH, 3)) == 0
    finally:
        stop.set()
        await asyncio.wait_for(running, 10)
        await redis.aclose()
