"""The worker loop, once for every kind: takes entries from Redis as :func:`work.lease.plan`
says, runs each job in a task of its own, beats (renews leases, stops the work on lost ones,
says it is alive), and finishes entries when their work is done.

    runner = Runner(redis, "host-123", [Source(KIND, handle, Timing(5000, renews=True))],
                    capacity=200, alive="fg:kind:alive", log=log)
    await runner.run(stop)      # until ``stop`` is set

``handle(job, lease)`` does one job. When the work is done it calls ``await lease.finish()``
(acknowledge and delete the entry), and may go on with its own tidying afterwards. A handler
that returns or raises without finishing leaves the entry pending: after the kind's
``claim_idle_ms`` a worker (maybe this one) takes it over and does the job again (at least once,
never lost). An entry that holds no job of its kind is finished unread (logged). A handler's
task is cancelled when the worker stops (unless ``drain``: then the loop waits for it) and when
its lease is lost (kinds that renew): its entry stays pending for its new holder.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic

import redis.asyncio as aioredis

from work.kind import J, Kind
from work.lease import Claim, Entry, Leases, Read, Timing, plan
from work.streams import Streams, beat, ensure_groups


class Lease:
    """What a handler holds: its ``entry`` (``resumed``: taken over from another worker)."""

    def __init__(self, runner: Runner, entry: Entry, resumed: bool) -> None:
        self._runner = runner
        self.entry = entry
        self.resumed = resumed
        self.finished = False

    async def finish(self) -> None:
        """The work is done: acknowledge and delete the entry (once). Logged when its lease
        had lapsed meanwhile (the job took longer than its kind's idle time, or the worker
        stalled): another worker may have done it too."""
        if self.finished:
            return
        self.finished = True
        runner = self._runner
        if self.entry in runner.leases and runner.leases.lapsed(self.entry, runner.clock()):
            runner.log.warning("finished a job whose lease had lapsed",
                               extra=runner.about(self.entry))
        runner.leases.release(self.entry)
        await runner.streams.finish(self.entry)

    async def held(self) -> bool:
        """Whether the group still counts the entry as this worker's (not taken over)."""
        return await self._runner.streams.holds(self.entry)


@dataclass(frozen=True, slots=True)
class Source(Generic[J]):
    """One kind a runner takes work from, how its leases behave, and what does its jobs."""

    kind: Kind[J]
    handle: Callable[[J, Lease], Awaitable[None]]
    timing: Timing


@dataclass(frozen=True, slots=True)
class Taken:
    """An entry the runner has just taken, before its job starts."""

    source: Source[Any]
    entry: Entry
    fields: dict[bytes, bytes]
    resumed: bool


def monotonic_ms() -> int:
    return int(time.monotonic() * 1000)


class Runner:
    """One worker's loop over ``sources`` (by priority: the first one's entries are taken
    first), at most ``capacity`` jobs at once, beating every ``beat_ms``. ``alive``: a sorted
    set in which the worker says on every beat that it is alive (its name, wall-clock ms),
    removed when it stops."""

    def __init__(self, redis: aioredis.Redis, consumer: str, sources: Sequence[Source[Any]], *,
                 capacity: int = 1, beat_ms: int = 1000, alive: str | None = None,
                 drain: bool = False, log: logging.Logger | None = None,
                 clock: Callable[[], int] = monotonic_ms) -> None:
        self.redis = redis
        self.consumer = consumer
        self.sources = list(sources)
        self.alive = alive
        self.drain = drain
        self.log = log or logging.getLogger("fairgammon.work")
        self.clock = clock
        self.streams = Streams(redis, consumer, [s.kind for s in self.sources])
        self.leases = Leases(capacity, beat_ms, clock())
        self.plan = plan([(s.kind.stream, s.timing) for s in self.sources])
        self.tasks: dict[Entry, asyncio.Task[None]] = {}
        self._source = {s.kind.stream: s for s in self.sources}

    async def run(self, stop: asyncio.Event | None = None) -> None:
        await ensure_groups(self.redis, [s.kind for s in self.sources])
        try:
            while stop is None or not stop.is_set():
                if self.leases.beat_due(self.clock()):
                    await self._beat()
                if self.leases.room:
                    for taken in await self.take():
                        self._start(taken)
                else:  # full (each entry held has its task): until a job ends or the next beat
                    await asyncio.wait(self.tasks.values(), return_when=asyncio.FIRST_COMPLETED,
                                       timeout=self.leases.wait_ms(self.clock()) / 1000)
        finally:
            await self._stop()

    async def take(self) -> list[Taken]:
        """Take entries as the plan says, while there is room (they are held from now on)."""
        found: list[Taken] = []
        for step in self.plan:
            room = self.leases.room
            if not room or (isinstance(step, Read) and step.waits and found):
                break
            source = self._source[step.stream]
            delivered = await self.streams.take(step, room, self.leases.wait_ms(self.clock()))
            for entry_id, fields in delivered:
                entry = Entry(step.stream, entry_id)
                if self.leases.take(entry, source.timing, self.clock()):
                    found.append(Taken(source, entry, fields, isinstance(step, Claim)))
        return found

    def about(self, entry: Entry) -> dict[str, Any]:
        """A log record's fields naming this worker and ``entry``."""
        return {"fields": {"worker": self.consumer, "stream": entry.stream,
                           "entry": entry.id.decode()}}

    def _start(self, taken: Taken) -> None:
        if taken.resumed:
            self.log.info("job taken over", extra=self.about(taken.entry))
        task = asyncio.create_task(self._work(taken), name=f"job-{taken.entry.id.decode()}")
        self.tasks[taken.entry] = task
        task.add_done_callback(lambda t, e=taken.entry: self._done(e, t))

    async def _work(self, taken: Taken) -> None:
        lease = Lease(self, taken.entry, taken.resumed)
        try:
            job = taken.source.kind.parse(taken.fields)
        except (KeyError, ValueError):
            self.log.warning("not a job: dropped", extra=self.about(taken.entry))
            await lease.finish()
            return
        await taken.source.handle(job, lease)

    def _done(self, entry: Entry, task: asyncio.Task[None]) -> None:
        if self.tasks.get(entry) is task:
            del self.tasks[entry]
            self.leases.release(entry)  # unfinished: left pending, it lapses and is taken over
        if not task.cancelled() and task.exception() is not None:
            self.log.error("job failed", exc_info=task.exception(), extra=self.about(entry))

    async def _beat(self) -> None:
        if self.alive:
            await beat(self.redis, self.alive, self.consumer, int(time.time() * 1000))
        checked = self.leases.to_check()
        if checked:
            owned: set[Entry] = set()
            for stream in {e.stream for e in checked}:
                owned |= await self.streams.owned(stream)
            for entry in self.leases.lost(owned):
                task = self.tasks.pop(entry, None)
                if task is not None:  # taken over while this worker looked dead: theirs now
                    task.cancel()
        renew = self.leases.beat(self.clock())
        for stream in {e.stream for e in renew}:
            await self.streams.renew(stream, [e.id for e in renew if e.stream == stream])

    async def _stop(self) -> None:
        tasks = list(self.tasks.values())
        if not self.drain:
            for task in tasks:
                task.cancel()
        for task in tasks:
            with contextlib.suppress(BaseException):
                await task
        if self.alive:
            with contextlib.suppress(Exception):
                await self.redis.zrem(self.alive, self.consumer)
