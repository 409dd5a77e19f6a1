"""A crashed server process costs nobody clock: the shell of the machine's ``CrashCredit``.

Every server process has an id (:attr:`server.match.clock.ServerClock.process`, new at each
start) and a liveness record in Redis, ``fg:{clock}:proc:<id>``: the server time of its last
heartbeat (every 250 ms), written by the heartbeat itself and deleted by a graceful stop (whose
clients are moved, not lost). Its connections' ids begin with it (``<process>.<random>``), and
a seat's presence entry names the connection that holds it, so when a connection takes a seat
(:meth:`CrashCredits.seat_back`) this process learns which process served the seat before.

If that was another process and its record stops moving — it has not beaten for
:data:`server.machine.core.DEAD_AFTER_MS` — it died (or froze): this process submits
``CrashCredit(seat, process, since=<its last beat>, seen=<when it was found dead>,
back=<when the seat was back>)`` to the match, in server time. The machine (pure) decides the
rest: a credit only if the seat owes the decision due, of the gap from the last beat (or the
match's last transition) until the seat was back, at most 10 s, once per match and dead
process (a second takeover, by another tab or on a third process, is refused ``duplicate``).
The credit is stored as the event ``clock_credit`` whose clock has the new deadline, so every
process and every client computes the same one. Docs: docs/operations.md, "A crashed process
costs nobody clock"; docs/protocol.md, ``clock_credit``.

A seat that comes back before its old process's record is a second old waits until it is (a
live process beats within 250 ms): the credit arrives within about a second of the crash.

Meanwhile the clock is held (:meth:`CrashCredits.holding`, asked by the deadline sweeper of any
process before it settles a passed deadline): while a seat that owes the decision is, or was
until its last takeover, served by a process that has not beaten for 300 ms, for at most
:data:`protocol.limits.MAX_CRASH_CREDIT_MS` after that process's last beat, the sweeper looks
again a moment later instead of settling. So a player who had a second left when its server
died is not forfeited while it comes back; the credit then moves the deadline on (the machine
accepts it after the deadline as long as the credited one, with its lag allowance, has not
passed). A seat that does not come back within the credit's limit loses on time as before.

Clients of a protocol version before ``clock_credit`` (3 and older) are sent a snapshot in place
of each such event (:class:`SnapshotInstead`): a frame they understand, with the new deadline.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable

import msgpack
from redis.exceptions import RedisError

from protocol.limits import MAX_CRASH_CREDIT_MS
from protocol.versions import lacks_kind
from server.machine import core
from server.machine.commands import CrashCredit
from server.machine.state import MatchState, owing
from server.match.connections import Spawn
from server.match.hub import Sink
from server.match.seat_entry import SeatEntry
from server.match.service import MatchService, NotFound, Unavailable
from server.ops import logs
from server.ops.backoff import waits

log = logs.get("crash-credit")

RETRY_SECONDS = waits(0.25, 2.0, 8)
"""A crash credit the store could not take is tried again after each of these (0.25, 0.5, 1,
then 2 s: ~12 s in all, about as long as the sweeper holds the deadline for it:
:meth:`CrashCredits.holding`)."""
SILENT_MS = 300
"""A process whose last heartbeat is this old may have died: a deadline its seat owes is held
(a live one beats every 250 ms, and holding a slow one only waits for its next beat; the
credit itself needs :data:`core.DEAD_AFTER_MS`)."""
VERDICT_SECONDS = 30.0
"""How long a process found dead stays so for the seats that come back after."""


def connection_id(process: str, token: str) -> str:
    """The id of a connection of server process ``process``.

    >>> connection_id("0a1b2c3d", "ff00")
    '0a1b2c3d.ff00'
    """
    return f"{process}.{token}"


def process_of(entry: bytes) -> str | None:
    """The server process of the connection a presence entry names (None: none, a claim over
    HTTP, or a connection id from before processes had ids).

    >>> process_of(b"online:0a1b2c3d.ff00"), process_of(b"reconnecting:claimed"), process_of(b"")
    ('0a1b2c3d', None, None)
    """
    seat_entry = SeatEntry.read(entry)
    if seat_entry is None:
        return None
    process, dot, _ = seat_entry.conn.partition(".")
    return process if dot and process else None


class CrashCredits:
    """This process's side of the crash credit (one instance, in the gateway)."""

    def __init__(
        self,
        matches: MatchService,
        spawn: Spawn,
        retry_seconds: tuple[float, ...] = RETRY_SECONDS,
    ) -> None:
        self.matches = matches
        self.clock = matches.clock
        self.store = matches.store
        self._spawn = spawn
        self.retry_seconds = retry_seconds
        self._verdicts: dict[str, tuple[float, asyncio.Task[tuple[int, int] | None]]] = {}
        self._unrecorded: dict[str, float] = {}
        """Processes found without a liveness record (stopped gracefully, or gone for over an
        hour), and when: such a process never beats again, so the seats it served that come
        back after need no look of their own (a restart brings them all back at once)."""

    @property
    def process(self) -> str:
        return self.clock.process

    def seat_back(self, match_id: str, seat: int, before: bytes) -> None:
        """A connection of this process took ``seat``; ``before`` was the seat's presence
        entry (the connection that held it). Credits the match if that one's process died."""
        process = process_of(before)
        if process is None or process == self.process:
            return
        if self._without_record(process, time.monotonic()):
            return  # (its seats are coming back after a graceful stop: nothing to credit)
        self._spawn(self._credit(match_id, seat, process, self.clock.now()))

    def _without_record(self, process: str, now: float) -> bool:
        at = self._unrecorded.get(process)
        return at is not None and now - at <= VERDICT_SECONDS

    async def holding(self, state: MatchState) -> bool:
        """Whether the passed deadline of ``state`` waits a moment before it is settled: a seat
        owing it is (or was until its last takeover) served by another process that has not
        beaten for :data:`SILENT_MS`, and at most :data:`MAX_CRASH_CREDIT_MS` ago, whose crash
        the match was not credited for yet."""
        seats, _ = owing(state)
        if not seats:
            return False
        try:
            entries = await self.store.seat_holders(state.match_id, seats)
            for entry in entries:
                process = process_of(entry or b"")
                if process is None or process == self.process or process in state.credited:
                    continue
                last = await self.store.process_beat(process)
                silent = self.clock.now() - last if last is not None else -1
                if SILENT_MS <= silent <= MAX_CRASH_CREDIT_MS:
                    return True
        except Exception as exc:  # (the hold is a courtesy: without the store, settle)
            log.warning("crash hold not checked", extra=logs.fields(
                match=state.match_id, error=repr(exc)))  # fmt: skip
        return False

    async def _credit(self, match_id: str, seat: int, process: str, back: int) -> None:
        """Look whether ``process`` died and submit the credit; a store that does not answer
        (a failover, a cluster master restarting: the crash may have come with it) is asked
        again after each of ``retry_seconds`` (:data:`RETRY_SECONDS`), then given up."""
        for delay in (*self.retry_seconds, None):
            try:
                death = await self._verdict(process)
                if death is None:
                    return  # alive, stopped gracefully, or unknown
                since, seen = death
                command = CrashCredit(seat, process=process, since=since, seen=seen, back=back)
                outcome = await self.matches.submit(match_id, command)
            except core.Rejected as exc:
                # Nothing to credit (the seat owes nothing), or credited already: that is all.
                log.info("no crash credit", extra=logs.fields(
                    match=match_id, seat=seat, process=process, why=exc.message))  # fmt: skip
                return
            except NotFound:
                log.info("no crash credit", extra=logs.fields(
                    match=match_id, seat=seat, process=process, why="no such match"))  # fmt: skip
                return
            except (Unavailable, OSError, RedisError) as exc:
                log.warning("crash credit failed", extra=logs.fields(
                    match=match_id, seat=seat, process=process, error=repr(exc),
                    retry_in=delay))  # fmt: skip
                if delay is None:
                    return
                await asyncio.sleep(delay)
                continue
            if isinstance(outcome, core.Accepted):
                ms = outcome.events[-1].data.ms  # type: ignore[union-attr]
                log.warning("crash credited", extra=logs.fields(
                    match=match_id, seat=seat, process=process, credit_ms=ms))  # fmt: skip
            return

    async def _verdict(self, process: str) -> tuple[int, int] | None:
        """``(last beat, found dead)`` (server times) if ``process`` died, else None; one look
        per process for all the seats it served. A death is remembered a while, and so is no
        record at all; "alive" only for the seats that asked during the look (the process may
        die the next moment)."""
        now = time.monotonic()
        if self._without_record(process, now):
            return None
        self._verdicts = {k: v for k, v in self._verdicts.items() if now - v[0] <= VERDICT_SECONDS}
        self._unrecorded = {k: t for k, t in self._unrecorded.items() if now - t <= VERDICT_SECONDS}
        known = self._verdicts.get(process)
        if known is None:
            known = (now, asyncio.ensure_future(self._look(process)))
            self._verdicts[process] = known
        death = None
        try:
            death = await asyncio.shield(known[1])
        finally:
            if death is None and self._verdicts.get(process) is known:
                del self._verdicts[process]
        return death

    async def _look(self, process: str) -> tuple[int, int] | None:
        last = await self.store.process_beat(process)
        if last is None:
            self._unrecorded[process] = time.monotonic()
            return None
        # A live process beats every 250 ms: once its record is DEAD_AFTER_MS old, it died.
        wait_ms = last + core.DEAD_AFTER_MS - self.clock.now()
        if wait_ms > 0:
            await asyncio.sleep(wait_ms / 1000 + 0.02)
            if await self.store.process_beat(process) != last:
                return None
        return last, self.clock.now()


class SnapshotInstead:
    """The sink of the follower of a connection of a protocol version before ``clock_credit``:
    every frame passes to the connection's outbox but an event of a kind its version lacks.
    In its place ``resync`` is called (once), which sends a snapshot of the match and restarts
    the follower after it; events that arrive meanwhile are held back (the snapshot includes
    them) and :attr:`swallowed` says up to which version."""

    def __init__(self, outbox: Sink, proto: int, resync: Callable[[], None]) -> None:
        self.outbox = outbox
        self.proto = proto
        self.resync = resync
        self.swallowed: int | None = None
        """While a snapshot is on its way: the newest version held back."""

    def send(self, frame: bytes) -> bool:
        version = None
        if self.swallowed is not None or lacks_kind(frame, self.proto):
            version = msgpack.unpackb(frame, raw=False).get("v")
        if version is None:
            return self.outbox.send(frame)  # not an event (a notice), or one it knows
        if self.swallowed is None:
            self.swallowed = version
            self.resync()
        self.swallowed = max(self.swallowed, version)
        return True

    async def room(self, frames: int) -> bool:
        return await self.outbox.room(frames)

    def taken(self) -> int:
        """The snapshot is being sent: the newest version held back (0: none); the sink
        passes frames again."""
        swallowed, self.swallowed = self.swallowed or 0, None
        return swallowed


__all__ = ["CrashCredits", "SnapshotInstead", "connection_id", "process_of"]
