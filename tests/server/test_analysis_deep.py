"""The deeper analysis against a real Redis and a real server: a finished game gets its 1-ply
report first; the worker, with no 1-ply work waiting, analyses it again with checker plays at
2-ply and replaces the report only once the deeper one is whole, taking the luck and cube
figures over from the 1-ply pass. While the deeper pass runs the served report stays the
complete 1-ply one."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import threading

import redis.asyncio as aioredis

from analysis.equity import DeepEvaluator, Evaluator
from harness.serverproc import ServerProcess
from harness.srv_support import play_out
from protocol.client import MatchClient, create_match, join_match
from protocol.client.lobby import get
from server.ops import logs
from server.work import analysis_queue as queue
from server.work.analysis_worker import AnalysisWorker
from work.streams import ensure_groups


async def wait_for(predicate, what: str, tries: int = 600) -> None:  # type: ignore[no-untyped-def]
    for _ in range(tries):
        if await predicate():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never {what}")


async def test_deeper_report_replaces_the_1ply_one_only_when_whole(redis_url, monkeypatch) -> None:
    server = ServerProcess(redis_url)  # no analysis worker: this test runs its own
    server.start()
    stop = asyncio.Event()
    running = None
    # The worker's log lines, as the server writes them (JSON).
    lines = io.StringIO()
    handler = logging.StreamHandler(lines)
    handler.setFormatter(logs.JsonFormatter())
    root = logging.getLogger("fairgammon")
    level = root.level
    root.addHandler(handler)
    root.setLevel(logging.INFO)
    try:
        created = await create_match(server.base, name="Ann", mode="match", length=1)
        joined = await join_match(server.base, created["match"], name="Bob")
        match_id = created["match"]
        url = f"/api/matches/{match_id}/games/1/analysis.json"
        a = MatchClient(server.ws, match_id, created["token"])
        b = MatchClient(server.ws, match_id, joined["token"])
        async with a, b:
            await play_out(a, b, seed=5)
        record = await get(server.base, f"/api/matches/{match_id}/games/1/record.json")

        # The deeper pass waits at its first judged play until the test lets it go on.
        gate = threading.Event()
        entered = threading.Event()
        judge = DeepEvaluator.judge

        def gated(self, *args):  # type: ignore[no-untyped-def]
            entered.set()
            if not gate.wait(60):
                raise TimeoutError("the test never opened the gate")
            return judge(self, *args)

        monkeypatch.setattr(DeepEvaluator, "judge", gated)
        # The deeper pass takes luck and cube over from the 1-ply pass: it never asks for them.
        recomputed: list[str] = []

        def refused(name: str):  # type: ignore[no-untyped-def]
            method = getattr(Evaluator, name)

            def call(self, *args, **kwargs):  # type: ignore[no-untyped-def]
                recomputed.append(name)
                return method(self, *args, **kwargs)

            return call

        for name in ("all_rolls", "cube"):
            monkeypatch.setattr(DeepEvaluator, name, refused(name))
        worker = AnalysisWorker(redis_url, name="deep", deep=True)
        running = asyncio.create_task(worker.run(stop))

        async def first_done() -> bool:
            return (await get(server.base, url))["status"] == "done"

        await wait_for(first_done, "analysed at 1-ply")
        await wait_for(lambda: asyncio.to_thread(entered.wait, 0.05), "started deeper")
        # The deeper pass is under way: the 1-ply report is served, whole, and stays.
        shallow = await get(server.base, url)
        assert shallow["level"] == "1-ply"
        assert shallow["deeper"] is True  # pages showing it keep asking for the deeper one
        assert len(shallow["turns"]) == len(record["turns"])
        assert worker.analysed == 1 and worker.deepened == 0
        gate.set()

        async def deeper() -> bool:
            return (await get(server.base, url))["level"] == "2-ply"

        await wait_for(deeper, "analysed at 2-ply")
        deep = await get(server.base, url)
        assert deep["status"] == "done" and deep["format"] == shallow["format"]
        assert "deeper" not in deep
        assert (deep["match"], deep["game"]) == (match_id, 1)
        assert worker.deepened == 1
        assert recomputed == []
        assert not await worker.redis.exists(queue.basis_key(match_id, 1))
        assert len(deep["turns"]) == len(shallow["turns"])
        moves = 0
        changed = 0
        for s, d in zip(shallow["turns"], deep["turns"], strict=True):
            assert (s["seat"], s["action"], s["dice"], s["played"]) == (
                d["seat"], d["action"], d["dice"], d["played"])
            # Luck and cube decisions stay 1-ply: the same in both reports.
            assert s["luck"] == d["luck"] and s["cube_lost"] == d["cube_lost"]
            if d["action"] == "move":
                moves += 1
                assert d["forced"] == s["forced"] and d["plays"] == s["plays"]
                assert d["equity_lost"] >= 0
                if d["forced"]:
                    assert d["equity_lost"] == 0 and d["best"] == d["played"]
                changed += s["equity"] != d["equity"]
        assert moves > 10
        assert changed > 0  # the plays were really judged again, deeper
        for s, d in zip(shallow["players"], deep["players"], strict=True):
            assert s["luck"] == d["luck"] and s["result"] == d["result"]
            assert d["decisions"] == s["decisions"]
        # Nothing is left in either stream.
        async def drained() -> bool:
            return await worker.redis.xlen(queue.JOBS) == 0 and \
                await worker.redis.xlen(queue.DEEP) == 0

        await wait_for(drained, "drained the queues")
        # Every line's level is its severity; the depth of the pass has a field of its own.
        entries = [json.loads(x) for x in lines.getvalue().splitlines()]
        assert [e["level"] for e in entries if e["level"] not in logs.SEVERITIES] == []
        deeper_lines = [e for e in entries if e["msg"] == "game analysed deeper"]
        assert [(e["level"], e["depth"]) for e in deeper_lines] == [("info", "2-ply")]
    finally:
        root.removeHandler(handler)
        root.setLevel(level)
        stop.set()
        if running is not None:
            await asyncio.wait_for(running, 10)
        server.stop()


async def next_job(worker: AnalysisWorker) -> tuple[str, bytes, dict[bytes, bytes]] | None:
    """The next entry the worker takes (its stream, id and fields), its job not started (and
    the worker ready to take another: as if that job had ended)."""
    taken = await worker.runner.take()
    for t in taken:
        worker.runner.leases.release(t.entry)
    assert len(taken) <= 1  # one game at a time
    return (taken[0].entry.stream, taken[0].entry.id, taken[0].fields) if taken else None


async def test_1ply_jobs_come_before_deeper_ones(redis_url) -> None:
    redis = aioredis.from_url(redis_url)
    worker = AnalysisWorker(redis_url, name="order", deep=True)
    shallow_only = AnalysisWorker(redis_url, name="shallow", deep=False)
    try:
        await queue.ensure_group(redis)
        # the worker's other kinds (board requests, imports, rollouts), as its run() makes them
        await ensure_groups(redis, [s.kind for s in worker.runner.sources])
        await queue.enqueue_deep(redis, "cd" * 16, 1)  # queued first, taken last
        await queue.enqueue(redis, "cd" * 16, 2)
        first = await next_job(worker)
        assert first is not None and first[0] == queue.JOBS and first[2][b"game"] == b"2"
        # With no 1-ply job waiting (that one is taken), the deeper one comes ...
        second = await next_job(worker)
        assert second is not None and second[0] == queue.DEEP and second[2][b"game"] == b"1"
        # ... but never to a worker without the deeper pass.
        await queue.enqueue_deep(redis, "cd" * 16, 3)
        assert await next_job(shallow_only) is None
        assert await redis.xlen(queue.DEEP) == 2
    finally:
        await redis.aclose()
        await worker.redis.aclose()
        await shallow_only.redis.aclose()


async def test_a_failed_deeper_pass_leaves_the_1ply_report_without_deeper(redis_url) -> None:
    """Pages keep asking while a report says ``deeper``: when the deeper pass fails (here: the
    game's log is gone), the 1-ply report stays, and no longer says a deeper one is coming."""
    redis = aioredis.from_url(redis_url)
    worker = AnalysisWorker(redis_url, name="failing", deep=True)
    match_id = "ef" * 16
    shallow = {"format": "fairgammon-analysis/1", "status": "done", "level": "1-ply",
               "deeper": True, "players": [], "turns": []}
    try:
        await redis.set(queue.report_key(match_id, 1), json.dumps(shallow))
        await worker._deepen(match_id, 1)
        kept = json.loads(await redis.get(queue.report_key(match_id, 1)))
        assert "deeper" not in kept and kept == {k: v for k, v in shallow.items()
                                                 if k != "deeper"}
        assert worker.deepened == 0
    finally:
        await redis.aclose()
        await worker.redis.aclose()
