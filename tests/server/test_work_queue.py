"""The work queue's runner and Redis adapter (work/runner.py, work/streams.py) against a real
redis-server, with both kinds of job the project has: bot seats (leases renewed) and games to
analyse (1-ply and deeper, never renewed). Jobs go in through each kind's own ``enqueue`` and
come out typed; finished entries are acknowledged and deleted; an entry a dead worker left is
taken over after its idle time; a renewed lease never is, while a lease that is not renewed is
(the positive control); a lease taken over by another worker stops the work of the first."""

from __future__ import annotations

import asyncio
import logging
import time

import redis.asyncio as aioredis

from bots import queue as bot_queue
from bots.catalog import Level
from bots.queue import SEATS, BotSeat
from server.work import analysis_queue
from server.work.analysis_queue import DEEPER, GAMES, DeepAnalysis, GameAnalysis
from work.lease import Entry, Timing
from work.runner import Lease, Runner, Source
from work.streams import add, ensure_groups

MATCH = "ef" * 16


class Recorder:
    """Handlers that note each job they get (and whether it was taken over), then finish it,
    or hold it until ``release`` is set."""

    def __init__(self) -> None:
        self.jobs: list[tuple[object, bool]] = []
        self.started: dict[object, asyncio.Event] = {}
        self.release = asyncio.Event()
        self.cancelled: list[object] = []
        self.hold = False

    async def handle(self, job: object, lease: Lease) -> None:
        self.jobs.append((job, lease.resumed))
        self.started.setdefault(job, asyncio.Event()).set()
        if self.hold:
            try:
                await self.release.wait()
            except asyncio.CancelledError:
                self.cancelled.append(job)
                raise
        await lease.finish()

    async def got(self, job: object) -> None:
        await asyncio.wait_for(self.started.setdefault(job, asyncio.Event()).wait(), 10)


class Records(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def until(predicate, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(400):
        if await predicate():
            return
        await asyncio.sleep(0.025)
    raise AssertionError(f"never {what}")


def logger(name: str) -> tuple[logging.Logger, Records]:
    log = logging.getLogger(f"test.work.{name}")
    records = Records()
    log.handlers[:] = [records]
    log.propagate = False
    return log, records


def bots_runner(redis, name: str, recorder: Recorder, idle_ms: int = 5000) -> Runner:  # type: ignore[no-untyped-def]
    return Runner(redis, name, [Source(SEATS, recorder.handle, Timing(idle_ms, renews=True))],
                  capacity=10, beat_ms=100, alive=bot_queue.ALIVE, log=logger(name)[0])


def analysis_runner(redis, name: str, recorder: Recorder, idle_ms: int = 60_000) -> Runner:  # type: ignore[no-untyped-def]
    timing = Timing(idle_ms)
    return Runner(redis, name, [Source(GAMES, recorder.handle, timing),
                                Source(DEEPER, recorder.handle, timing)], beat_ms=100,
                  log=logger(name)[0])


async def test_both_kinds_go_through_one_runner_typed_and_are_finished(redis_url) -> None:
    redis = aioredis.from_url(redis_url)
    bots, games = Recorder(), Recorder()
    stop = asyncio.Event()
    seats = [BotSeat(MATCH, 1, "token-a", Level.EASY), BotSeat("12" * 16, 1, "token-b",
                                                                Level.EXPERT)]
    try:
        for seat in seats:
            await bot_queue.enqueue(redis, seat)
        assert await analysis_queue.enqueue(redis, MATCH, 1)
        await analysis_queue.enqueue_deep(redis, MATCH, 2)
        for stream in (SEATS.stream, GAMES.stream, DEEPER.stream):
            await redis.xadd(stream, {"junk": "1"})  # not a job: dropped
        runners = [bots_runner(redis, "bot-worker", bots),
                   analysis_runner(redis, "analysis-worker", games)]
        running = [asyncio.create_task(r.run(stop)) for r in runners]
        for seat in seats:
            await bots.got(seat)
        await games.got(GameAnalysis(MATCH, 1))
        await games.got(DeepAnalysis(MATCH, 2))
        # The bot worker says it is alive while it runs.
        assert await bot_queue.workers_alive(redis, int(time.time() * 1000)) == 1

        async def drained() -> bool:
            return all([await redis.xlen(s) == 0 for s in (SEATS.stream, GAMES.stream,
                                                            DEEPER.stream)])

        await until(drained, "finished every entry")
        for kind in (SEATS, GAMES, DEEPER):
            assert (await redis.xpending(kind.stream, kind.group))["pending"] == 0
        assert sorted(bots.jobs, key=repr) == sorted(((s, False) for s in seats), key=repr)
        # 1-ply first, then the deeper one; each its own type.
        assert games.jobs == [(GameAnalysis(MATCH, 1), False), (DeepAnalysis(MATCH, 2), False)]
        assert [type(j) for j, _ in games.jobs] == [GameAnalysis, DeepAnalysis]
        stop.set()
        await asyncio.wait_for(asyncio.gather(*running), 10)
        assert await redis.zscore(bot_queue.ALIVE, "bot-worker") is None  # gone when stopped
    finally:
        stop.set()
        await redis.aclose()


async def test_an_entry_a_dead_worker_left_is_taken_over_after_its_idle_time(redis_url) -> None:
    redis = aioredis.from_url(redis_url)
    stop = asyncio.Event()
    bots, games = Recorder(), Recorder()
    seat = BotSeat(MATCH, 1, "token", Level.HARD)
    try:
        runners = [bots_runner(redis, "alive-bots", bots, idle_ms=300),
                   analysis_runner(redis, "alive-analysis", games, idle_ms=300)]
        await ensure_groups(redis, (SEATS, GAMES, DEEPER))  # as every worker does at start
        await bot_queue.enqueue(redis, seat)
        await analysis_queue.enqueue(redis, MATCH, 4)
        # Two workers read one job each and die: their entries stay pending.
        for kind in (SEATS, GAMES):
            taken = await redis.xreadgroup(kind.group, "dead", {kind.stream: ">"}, count=1)
            assert taken and taken[0][1]
        running = [asyncio.create_task(r.run(stop)) for r in runners]
        await bots.got(seat)
        await games.got(GameAnalysis(MATCH, 4))
        assert bots.jobs == [(seat, True)] and games.jobs == [(GameAnalysis(MATCH, 4), True)]

        async def drained() -> bool:
            return await redis.xlen(SEATS.stream) == 0 and await redis.xlen(GAMES.stream) == 0

        await until(drained, "finished the entries taken over")
        stop.set()
        await asyncio.wait_for(asyncio.gather(*running), 10)
    finally:
        stop.set()
        await redis.aclose()


async def test_a_renewed_lease_is_never_taken_over_and_an_unrenewed_one_is(redis_url) -> None:
    """Worker A holds a bot seat and a game for longer than the idle time (300 ms), its
    handlers waiting; worker B reads the same streams. The game's lease, never renewed, lapses
    and B takes it over (the positive control); the seat's, renewed on A's beat, stays A's for
    as long again. A then finishes both: the game's lapse is logged."""
    redis = aioredis.from_url(redis_url)
    stop = asyncio.Event()
    a_bots, a_games, b_bots, b_games = Recorder(), Recorder(), Recorder(), Recorder()
    a_bots.hold = a_games.hold = True
    seat = BotSeat(MATCH, 1, "token", Level.NORMAL)
    game = GameAnalysis(MATCH, 1)
    a = [bots_runner(redis, "a-bots", a_bots, 300), analysis_runner(redis, "a-games", a_games,
                                                                      300)]
    b = [bots_runner(redis, "b-bots", b_bots, 300), analysis_runner(redis, "b-games", b_games,
                                                                      300)]
    records = a[1].log.handlers[0]
    assert isinstance(records, Records)
    running: list[asyncio.Task[None]] = []
    try:
        await bot_queue.enqueue(redis, seat)
        await analysis_queue.enqueue(redis, MATCH, 1)
        running += [asyncio.create_task(r.run(stop)) for r in a]
        await a_bots.got(seat)
        await a_games.got(game)
        running += [asyncio.create_task(r.run(stop)) for r in b]
        await b_games.got(game)  # taken over once idle 300 ms: A never renews a game
        assert b_games.jobs == [(game, True)]
        loop = asyncio.get_running_loop()
        since = loop.time()
        while loop.time() - since < 1.0:  # three idle times more, A beating every 100 ms
            assert b_bots.jobs == []
            await asyncio.sleep(0.05)
        (entry,) = await redis.xpending_range(SEATS.stream, SEATS.group, "-", "+", 10)
        assert entry["consumer"] == b"a-bots" and entry["times_delivered"] == 1
        assert not [r for r in records.records if "lapsed" in r.getMessage()]
        a_bots.release.set()
        a_games.release.set()

        async def drained() -> bool:
            return await redis.xlen(SEATS.stream) == 0 and await redis.xlen(GAMES.stream) == 0

        await until(drained, "finished both")
        await until(lambda: asyncio.sleep(0, result=not a[1].tasks), "ended A's game job")
        lapsed = [r for r in records.records if "lapsed" in r.getMessage()]
        assert [r.fields["stream"] for r in lapsed] == [GAMES.stream]  # type: ignore[attr-defined]
        assert not [r for r in a[0].log.handlers[0].records  # type: ignore[attr-defined]
                    if "lapsed" in r.getMessage()]
        assert a_bots.cancelled == [] and b_bots.jobs == []
    finally:
        stop.set()
        await asyncio.wait_for(asyncio.gather(*running, return_exceptions=True), 10)
        await redis.aclose()


async def test_a_lease_taken_over_by_another_worker_stops_the_first_workers_job(
        redis_url) -> None:
    """Another consumer claims worker A's bot seat (as a take-over after A looked dead does):
    on its next beat A finds the entry no longer its own, cancels the job and leaves the entry
    to its new holder (no acknowledgement)."""
    redis = aioredis.from_url(redis_url)
    stop = asyncio.Event()
    held = Recorder()
    held.hold = True
    seat = BotSeat(MATCH, 0, "token", Level.EASY)
    runner = bots_runner(redis, "a-bots", held)
    try:
        entry_id = await add(redis, SEATS, seat)
        running = asyncio.create_task(runner.run(stop))
        await held.got(seat)
        assert Entry(SEATS.stream, entry_id) in runner.leases
        await redis.xclaim(SEATS.stream, SEATS.group, "thief", 0, [entry_id], justid=True)

        async def stopped() -> bool:
            return held.cancelled == [seat]

        await until(stopped, "stopped the job")
        assert Entry(SEATS.stream, entry_id) not in runner.leases and not runner.tasks
        (entry,) = await redis.xpending_range(SEATS.stream, SEATS.group, "-", "+", 10)
        assert entry["consumer"] == b"thief" and await redis.xlen(SEATS.stream) == 1
        stop.set()
        await asyncio.wait_for(running, 10)
    finally:
        stop.set()
        await redis.aclose()
