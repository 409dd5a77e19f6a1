"""A rolling restart: SIGTERM to one of two server processes moves its clients to the other,
paced, before it exits, and no match stalls for more than a second meanwhile
(server/match/gateway.py, the drain; server/web/websocket.py)."""

from __future__ import annotations

import asyncio
import itertools
import random
import time
from typing import Any

from harness.serverproc import ServerProcess
from harness.srv_support import seat_two
from protocol import messages as m
from protocol.client import MatchClient, play_random

MATCHES = 5
PER_SECOND = 10  # the drain's pace here: 10 seats take about a second to move


class Heard:
    """What one seat's client received: (when, from which server, message)."""

    def __init__(self) -> None:
        self.client: MatchClient | None = None
        self.frames: list[tuple[float, str, m.ServerMessage]] = []

    def __call__(self, message: m.ServerMessage) -> None:
        assert self.client is not None
        self.frames.append((time.monotonic(), self.client.url, message))

    def longest_silence(self, since: float) -> float:
        times = [t for t, _, _ in self.frames if t >= since]
        return max((b - a for a, b in itertools.pairwise(times)), default=0.0)

    def last_from(self, url: str) -> float:
        return max(t for t, u, _ in self.frames if u == url)


async def test_a_stopping_process_moves_its_clients_to_the_other_paced(redis_process: Any):
    if not redis_process.alive():
        redis_process.start()
    env = {"FAIRGAMMON_DRAIN_PER_SECOND": str(PER_SECOND)}
    doomed, survivor = ServerProcess(redis_process.url, **env), ServerProcess(redis_process.url)
    doomed.start()
    survivor.start()
    clients: list[MatchClient] = []
    heard: list[Heard] = []
    players: list[asyncio.Task[Any]] = []
    try:
        for _ in range(MATCHES):
            seated = await seat_two(doomed.base, mode="money")
            for seat in (0, 1):
                h = Heard()
                h.client = seated.client(
                    doomed.ws, seat, on_event=h, fallback_urls=[survivor.ws]
                )
                clients.append(h.client)
                heard.append(h)
        await asyncio.gather(*(c.start() for c in clients))
        rng = random.Random(25)
        for c in clients:
            # Human-ish but quick: a decision every 10-50 ms, so frames flow all the time.
            players.append(asyncio.create_task(
                play_random(c, random.Random(rng.random()), think=(0.01, 0.05), timeout=30)
            ))  # fmt: skip
        await asyncio.gather(*(c.wait_for(lambda t: t.version >= 20) for c in clients))

        assert doomed.process is not None
        doomed.process.terminate()  # SIGTERM: a rolling restart's stop
        stopped = time.monotonic()
        ended: list[float] = []
        exit_code = asyncio.create_task(asyncio.to_thread(doomed.process.wait, 15))
        exit_code.add_done_callback(lambda _: ended.append(time.monotonic() - stopped))
        versions = [c.tracker.version for c in clients]
        # Every seat carries on on the other process, and its match moves on there.
        def moved(c: MatchClient, v: int) -> bool:
            on_survivor = c.url == survivor.ws and c.welcomes >= 2 and c.core.welcomed
            return on_survivor and c.tracker.version >= v + 10

        for c, v in zip(clients, versions, strict=True):
            await c.wait_for(lambda t, c=c, v=v: moved(c, v))
        assert await exit_code == 0  # a clean exit
        exited = ended[0]

        for c in clients:
            assert c.welcomes >= 2 and c.core.welcomed
        assert not any(p.done() for p in players)  # nobody's play ended (no error, no end)
        # Paced: the connections were closed over about MATCHES * 2 / PER_SECOND seconds, not
        # all at once (uvicorn's own shutdown closes every socket in the same instant).
        last = sorted(h.last_from(doomed.ws) for h in heard)
        assert last[-1] - last[0] >= 0.5, last
        assert exited >= 0.5
        # No seat heard nothing for a second or more: no match stalled (a seat whose opponent
        # was away would have heard nothing meanwhile).
        silences = [h.longest_silence(stopped - 0.5) for h in heard]
        longest = max(silences) * 1000
        print(f"drain: {len(clients)} seats moved over {last[-1] - last[0]:.2f} s, exit after "
              f"{exited:.2f} s, longest silence of a seat {longest:.0f} ms")  # fmt: skip
        assert max(silences) < 1.0, silences
    finally:
        for p in players:
            p.cancel()
        await asyncio.gather(*players, return_exceptions=True)
        await asyncio.gather(*(c.close() for c in clients), return_exceptions=True)
        doomed.stop()
        survivor.stop()
