"""A server process frozen (SIGSTOP: its sockets stay open, nothing answers) is left by its
clients: its probes stop coming, and the seat core takes a link that carried no frame for 6 s
for dead (docs/protocol.md, "Slow readers and dead links") and reconnects to another process."""

from __future__ import annotations

import asyncio
import signal
import time

from harness.failure_kit import play_until, stack_fixture, until
from harness.srv_support import seat_two
from protocol.client import play_random
from protocol.client.seat import DEAD_LINK

stack = stack_fixture()


async def test_clients_leave_a_frozen_process_for_another_within_the_dead_link_time(stack):
    frozen, healthy = await asyncio.gather(
        asyncio.to_thread(stack.server), asyncio.to_thread(stack.server)
    )
    seated = await seat_two(healthy.base, mode="single_game", clock=120)
    a, b, w = (seated.client(frozen.ws, s, fallback_urls=[healthy.ws]) for s in (0, 1, None))
    async with a, b, w:
        await play_until((a, b), lambda: a.owes() == "move" or b.owes() == "move")
        # (positive control: a live server's probes keep the links; none was dropped)
        assert [c.welcomes for c in (a, b, w)] == [1, 1, 1]
        assert frozen.process is not None
        frozen.process.send_signal(signal.SIGSTOP)
        stopped = time.monotonic()
        try:
            await until(lambda: all(c.welcomes == 2 for c in (a, b, w)), 15, "moved on")
            moved = time.monotonic() - stopped
            assert [c.dead_links for c in (a, b, w)] == [1, 1, 1]
            # The last frame came at most one probe interval before the stop.
            assert moved < DEAD_LINK + 2.5, moved
            mover = a if a.owes() == "move" else b
            version = mover.core.tracker.version
            games = asyncio.gather(play_random(a), play_random(b))
            await w.wait_for(lambda t: t.version > version, timeout=20)  # served by the other
            games.cancel()
        finally:
            frozen.process.send_signal(signal.SIGCONT)
    print(f"\nall clients resumed on the other process {moved:.2f} s after SIGSTOP")
