"""A server process frozen (SIGSTOP: its sockets stay open, nothing answers) is left by its
clients: they hear no probe for 6 s (docs/protocol.md, "Slow readers and dead links"), drop the
link and resume on the other process, while a client of the running process stays put."""

from __future__ import annotations

import asyncio
import signal
import time

from harness.failure_kit import stack_fixture
from harness.srv_support import seat_two
from protocol.client import seat as sc

stack = stack_fixture()


async def test_clients_leave_a_frozen_server_for_the_other_process_within_eight_seconds(stack):
    frozen, running = await asyncio.gather(
        asyncio.to_thread(stack.server), asyncio.to_thread(stack.server)
    )
    seated = await seat_two(frozen.base, mode="single_game")
    a = seated.client(frozen.ws, 0, fallback_urls=[running.ws])
    w = seated.client(frozen.ws, None, fallback_urls=[running.ws])
    b = seated.client(running.ws, 1, fallback_urls=[frozen.ws])
    async with a, w, b:
        assert frozen.process is not None
        frozen.process.send_signal(signal.SIGSTOP)
        try:
            stopped = time.monotonic()
            moved = [
                c.wait_for(lambda t, c=c: c.welcomes == 2 and c.core.caught_up, timeout=8)
                for c in (a, w)
            ]
            await asyncio.gather(*moved)
            left = time.monotonic() - stopped
        finally:
            frozen.process.send_signal(signal.SIGCONT)
        # Not before the probes stopped for 6 s (the last came at most 2 s before the stop).
        assert sc.DEAD_LINK - 2.5 < left < 8, left
        for c in (a, w):
            assert c.url == running.ws and c.dead_links == 1
        # The positive control: the client of the running process heard its probes all along.
        assert b.welcomes == 1 and b.dead_links == 0 and b.core.welcomed
        # The seat plays on through the other process.
        await a.wait_for(lambda t: t.version == b.tracker.version, timeout=5)
    print(f"\nfrozen server: its clients resumed on the other process {left:.2f} s after SIGSTOP")
