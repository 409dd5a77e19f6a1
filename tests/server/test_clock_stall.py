"""The heartbeat as the store's health beat (server/match/clock.py): a store that answers nothing is
lost after ``stall_seconds``, and back as soon as it answers; a slow store that still answers
within the limit, or a beat late only because this process itself stalled (its event loop
blocked), is not lost; another Redis answering is audited once (server/match/rewind.py).
(tests/failure/test_fail_store_notice.py pauses a real Redis.)"""

from __future__ import annotations

import asyncio
import time

from server.match.clock import ServerClock
from server.match.gateway import Gateway
from server.match.hub import Hub
from server.match.service import MatchService
from server.ops.settings import Settings

STALL = 0.2


class Store:
    """A store whose heartbeat takes ``delay`` seconds, or waits while ``frozen``."""

    def __init__(self) -> None:
        self.delay = 0.0
        self.thaw = asyncio.Event()
        self.thaw.set()
        self.beats = 0
        self.block_loop = 0.0
        self.instance = b"one Redis"
        self.refused = False
        self.stored: dict[str, int] = {}
        self.audited: list[list[str]] = []
        """The matches of each read of many versions (the rewind audit's)."""

    async def versions(self, match_ids: list[str]) -> list[int | None]:
        self.audited.append(list(match_ids))
        return [self.stored.get(x) for x in match_ids]

    async def heartbeat(
        self, wall_ms: int, outage_ms: int, beat_ms: int, process: str, address: str = ""
    ) -> int:
        if self.refused:
            raise ConnectionRefusedError("Redis is down")
        if self.block_loop:
            # The whole process stalls (no CPU) right after the beat went out; once it runs
            # again the answer, there all along, takes a few turns of the loop to be read.
            asyncio.get_running_loop().call_soon(time.sleep, self.block_loop)
            await asyncio.sleep(0.01)
            for _ in range(3):
                await asyncio.sleep(0)
        await asyncio.sleep(self.delay)
        await self.thaw.wait()
        self.beats += 1
        return 0


async def started(store: Store) -> tuple[ServerClock, list[tuple[float, bool]], asyncio.Task]:
    clock = ServerClock(store, beat_ms=50, stall_seconds=STALL)  # type: ignore[arg-type]
    changes: list[tuple[float, bool]] = []
    clock.on_change = lambda ok: changes.append((time.monotonic(), ok))
    task = asyncio.create_task(clock.run())
    while not changes:
        await asyncio.sleep(0.01)
    assert changes == [(changes[0][0], True)]
    return clock, changes, task


async def wait_beats(store: Store, n: int) -> None:
    target = store.beats + n
    while store.beats < target:
        await asyncio.sleep(0.01)


async def test_slow_but_answering_is_fine_silent_is_lost_and_an_answer_brings_it_back() -> None:
    store = Store()
    clock, changes, task = await started(store)
    try:
        store.delay = STALL * 0.6  # slow, but within the limit every time
        await wait_beats(store, 10)
        assert [ok for _, ok in changes] == [True]
        store.delay = 0.0
        store.thaw.clear()  # the store stops answering (a paused Redis)
        frozen = time.monotonic()
        while len(changes) < 2:
            await asyncio.sleep(0.01)
        noticed = changes[1][0] - frozen
        assert changes[1][1] is False and not clock.redis_ok
        assert STALL * 0.9 <= noticed < STALL + 0.05 + 0.2, noticed  # the beat's wait, no more
        store.thaw.set()  # the same beat is answered: back at once
        thawed = time.monotonic()
        while len(changes) < 3:
            await asyncio.sleep(0.01)
        assert changes[2][1] is True and changes[2][0] - thawed < 0.1
    finally:
        task.cancel()


async def test_a_beat_late_because_this_process_stalled_is_not_a_lost_store() -> None:
    store = Store()
    _, changes, task = await started(store)
    try:
        store.block_loop = STALL * 3  # the wait's timer fires that late
        await wait_beats(store, 3)
        store.block_loop = 0.0
        assert [ok for _, ok in changes] == [True]
        # The control: the same clock does lose a store that stops answering.
        store.thaw.clear()
        while len(changes) < 2:
            await asyncio.sleep(0.01)
        assert changes[1][1] is False
        store.thaw.set()
        while len(changes) < 3:
            await asyncio.sleep(0.01)
    finally:
        task.cancel()


async def test_another_redis_answering_is_announced_even_when_no_beat_failed() -> None:
    """A Redis restarted (or replaced by a replica) between two beats: no beat fails, but its
    run_id changed, and the clock says so once (server.match.rewind then audits)."""
    store = Store()
    clock, changes, task = await started(store)
    seen: list[bytes | None] = []
    clock.on_new_instance = lambda: seen.append(clock.instance)
    try:
        await wait_beats(store, 3)
        assert seen == []
        store.instance = b"another Redis"
        await wait_beats(store, 3)
        assert seen == [b"another Redis"]
        assert [ok for _, ok in changes] == [True]  # it never looked lost
    finally:
        task.cancel()


async def test_a_store_lost_and_found_on_another_redis_is_audited_once() -> None:
    """Redis dies and comes back restarted (another run_id): finding the store again and
    finding another Redis both call for an audit of the matches this process stored, and one
    audit (the one from before the loss) does for both. The control: another Redis without a
    failed beat is audited too."""
    store = Store()
    clock, changes, task = await started(store)
    hub = Hub(store, "redis://")  # type: ignore[arg-type]
    matches = MatchService(store, hub, clock, encode_event=bytes)  # type: ignore[arg-type]
    Gateway(Settings(), matches)  # it takes the clock's hooks: pass them on
    told = clock.on_change
    assert told is not None
    clock.on_change = lambda ok: (changes.append((time.monotonic(), ok)), told(ok))
    hub.known.saw("a match", 7)
    store.stored["a match"] = 7
    try:
        store.refused = True
        while changes[-1][1]:
            await asyncio.sleep(0.01)
        store.instance, store.refused = b"restarted Redis", False
        while not changes[-1][1]:
            await asyncio.sleep(0.01)
        while not store.audited:
            await asyncio.sleep(0.01)
        await wait_beats(store, 3)  # (both would have started within the beat that answered)
        assert store.audited == [["a match"]]
        store.instance = b"promoted replica"  # no beat fails this time
        while len(store.audited) < 2:
            await asyncio.sleep(0.01)
        await wait_beats(store, 3)
        assert store.audited == [["a match"]] * 2
        assert [ok for _, ok in changes] == [True, False, True]
    finally:
        task.cancel()
