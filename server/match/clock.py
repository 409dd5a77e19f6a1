"""Server time, heartbeats and the deadline sweeper.

*Server time* is wall-clock milliseconds minus the **clock credit**: the total time during which
no server process (or Redis) was alive. Every deadline is in server time, so an outage of the
servers or of Redis stops every clock and extends every deadline by the outage: a server fault
never costs a player the game. Players only ever see server time (deadlines and ``server_time``
fields), never the credit.

The credit is kept in Redis and grown by the heartbeat script when it sees a gap longer than
``outage_ms`` since the last heartbeat of any process.

The heartbeat is also this process's health beat of the store. A refused connection fails it
at once; a store that stalls (a paused or wedged Redis, a dead host whose TCP connection has
not broken yet) answers nothing, so a beat not answered within :data:`STALL_SECONDS` counts as
losing the store too (``on_change(False)``: clients are told ``degraded`` at once), and the
store is back when that very beat is answered. The beat has a connection of its own
(:class:`server.match.store.Store`), so it measures the store, not this process's queue for pooled
connections; and the wait counts this process's own running time (:func:`answered`), so a
process starved of CPU (or whose event loop is swamped) does not blame the store for the
answer it had no time to read.

Why 0.75 s: a heartbeat is one small script (and its fsync, with ``appendfsync always``),
which a live Redis answers within milliseconds; a beat unanswered for 0.75 s means every
command waits at least as long, and players see their actions hang. Neither the test suite's
kill loops nor a saturating ``bench/load.py`` run (acks at p99 2 s) raised a false alarm. With
a beat every 250 ms a stall is noticed 0.75 to 1 s after it begins (0.9 s measured in
tests/failure/test_fail_store_notice.py), where the socket timeout alone took 5 s.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable

from server.match.store import Store
from server.ops import logs

log = logs.get("clock")


STALL_SECONDS = 0.75
"""A heartbeat unanswered this long: the store is lost (see the module docstring)."""
TICK_SECONDS = 0.05
"""The step in which :func:`answered` counts this process's own running time."""


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


async def answered(task: asyncio.Future[object], limit: float) -> bool:
    """Wait for ``task`` up to ``limit`` seconds of this process's own running time; True once
    it is done. The wait goes in ticks of :data:`TICK_SECONDS`, and a tick that took longer
    (the process had no CPU, or its event loop was busy) counts for one tick only: an answer
    that arrived meanwhile is read within a tick or two of the loop running again, so only a
    store that answers nothing while this process runs is blamed."""
    waited = 0.0
    while waited < limit:
        done, _ = await asyncio.wait({task}, timeout=TICK_SECONDS)
        if done:
            return True
        waited += TICK_SECONDS
    return task.done()


class ServerClock:
    """Server time for this process; :meth:`run` keeps the credit in step with Redis."""

    def __init__(
        self,
        store: Store,
        beat_ms: int = 250,
        outage_ms: int = 1000,
        stall_seconds: float = STALL_SECONDS,
    ) -> None:
        self.store = store
        self.beat_ms = beat_ms
        self.outage_ms = outage_ms
        self.stall_seconds = stall_seconds
        self.credit = 0
        self.process = secrets.token_hex(4)
        """This server process's id (new at every start): its heartbeat keeps a liveness record
        under it, and its connections' ids begin with it (:mod:`server.match.crash_credit`)."""
        self.address = ""
        """Where this process listens (``host:port``; its workers share it): its entry in the
        index of processes is under it (:data:`server.match.store.PROCESSES`)."""
        self._redis_ok = False
        self.on_change: Callable[[bool], None] | None = None
        """Called when Redis becomes unreachable (False) or reachable again (True)."""
        self.instance: bytes | None = None
        self.on_new_instance: Callable[[], None] | None = None
        """Called when the heartbeat is answered by another Redis than before (its run_id
        changed: it restarted, or a replica took over), whether or not a beat failed (then
        before ``on_change(True)``)."""

    @property
    def redis_ok(self) -> bool:
        return self._redis_ok

    @redis_ok.setter
    def redis_ok(self, ok: bool) -> None:
        changed = ok != self._redis_ok
        self._redis_ok = ok
        if changed and self.on_change is not None:
            self.on_change(ok)

    def now(self) -> int:
        return wall_ms() - self.credit

    async def beat(self) -> None:
        """One heartbeat; raises if Redis is unreachable."""
        self.credit = await self.store.heartbeat(
            wall_ms(), self.outage_ms, self.beat_ms, self.process, self.address
        )
        instance = self.store.instance
        if instance != self.instance:
            before, self.instance = self.instance, instance
            if before is not None and self.on_new_instance is not None:
                self.on_new_instance()
        self.redis_ok = True

    async def beat_or_stall(self) -> None:
        """One heartbeat; the store counts as lost (``redis_ok`` False) as soon as it goes
        unanswered for ``stall_seconds``, then this waits for its answer (the store is back)
        or its failure (raised)."""
        beat = asyncio.ensure_future(self.beat())
        try:
            started = time.monotonic()
            if not await answered(beat, self.stall_seconds):
                if self.redis_ok:
                    log.error(
                        "redis stalled: no answer to the heartbeat",
                        extra=logs.fields(waited_ms=int((time.monotonic() - started) * 1000)),
                    )
                self.redis_ok = False
            await beat
        finally:
            if not beat.done():
                beat.cancel()

    async def run(self) -> None:
        while True:
            try:
                before = self.credit
                await self.beat_or_stall()
                if self.credit != before:
                    log.warning(
                        "outage detected: clocks extended",
                        extra=logs.fields(credit_ms=self.credit, added_ms=self.credit - before),
                    )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.redis_ok:
                    log.error("redis unreachable", extra=logs.fields(error=repr(exc)))
                self.redis_ok = False
            await asyncio.sleep(self.beat_ms / 1000)


async def sweep_deadlines(
    store: Store,
    clock: ServerClock,
    expire: Callable[[str], Awaitable[object]],
    interval: float = 0.1,
) -> None:
    """Forever: claim matches whose deadline has passed and let ``expire`` settle them (at its
    own server time, under the match's lock: :meth:`server.match.service.MatchService.expire`).

    Any process may claim a due match (the claim is a short lease in the index, so a claimant
    that dies is replaced); ``expire`` applies the timeout through the usual compare-and-set,
    so a last-second move and a timeout can never both win.
    """
    while True:
        try:
            if clock.redis_ok:
                now = clock.now()
                for match_id in await store.claim_due(now):
                    try:
                        await expire(match_id)
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("deadline not settled", extra=logs.fields(match=match_id))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("deadline sweep failed", extra=logs.fields(error=repr(exc)))
        await asyncio.sleep(interval)
