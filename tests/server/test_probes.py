"""Probes (docs/protocol.md, "Slow readers and dead links"): every connection is probed every
``probe_seconds``, but the connections of a process are probed in slices spread over that
interval, not all in one burst that the actions arriving meanwhile wait behind."""

from __future__ import annotations

import asyncio
import itertools
import time

from websockets.asyncio.client import connect

from harness.srv_support import WAIT, seat_two, server_fixture
from protocol import codec
from protocol import messages as m
from protocol.limits import PROTOCOL_VERSION as PROTO

server = server_fixture(FAIRGAMMON_PROBE_SECONDS="1")

WATCHERS = 30
PROBES = 5  # the welcome's, then four of the schedule


async def probed(url: str, match_id: str) -> list[float]:
    """When a spectator of the match received its first ``PROBES`` probes (each answered)."""
    arrivals: list[float] = []
    async with connect(url, compression=None, max_size=1 << 20) as ws:
        await ws.send(codec.encode(m.Hello(PROTO, match_id, None, None, None)))
        while len(arrivals) < PROBES:
            message = codec.decode_from_server(await asyncio.wait_for(ws.recv(), WAIT))
            if isinstance(message, m.Probe):
                arrivals.append(time.monotonic())
                await ws.send(codec.encode(m.Echo(message.t)))
    return arrivals


def most_within(times: list[float], window: float) -> int:
    """The most of ``times`` that fall within any ``window`` seconds."""
    times = sorted(times)
    best, start = 0, 0
    for end, t in enumerate(times):
        while t - times[start] > window:
            start += 1
        best = max(best, end - start + 1)
    return best


async def test_each_connection_is_probed_every_interval_but_not_all_at_once(server):
    seated = await seat_two(server.base)
    arrivals = await asyncio.gather(*(probed(server.ws, seated.match_id) for _ in range(WATCHERS)))
    # Each connection: the probe of its welcome, then one every second (on its own slice;
    # the first of the schedule may be skipped while the welcome's is still unanswered).
    for times in arrivals:
        gaps = [b - a for a, b in itertools.pairwise(times[1:])]
        assert all(0.7 < gap < 1.5 for gap in gaps), gaps
    # The connections opened together, yet their scheduled probes came spread over each
    # interval: a tenth of a second holds about 3 of the 30 (all 30 when they went in one
    # burst), and at most half of them however the loop's ticks bunch up.
    scheduled = [t for times in arrivals for t in times[1:]]
    assert len(scheduled) == WATCHERS * (PROBES - 1)
    crowd = most_within(scheduled, 0.15)
    assert crowd <= WATCHERS // 2, crowd
