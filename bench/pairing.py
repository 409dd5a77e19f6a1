"""Quick pairing under arrivals: N guests seeking over T seconds across two server processes.

Starts its own ``redis-server`` and two server processes (as the tests do), then lets ``--seekers``
guests arrive at random moments spread over ``--seconds`` (a Poisson-like stream: uniform
arrival times), each through one of the two processes in turn, each its own browser (its own
``fg_browser`` cookie). A seeker asks for one of four common formats (``FORMATS``, weighted as a
lobby might see them), opens its seek's socket as a page does, and waits until it is told
``paired``: by the POST's answer when a compatible seek was already waiting, or on its socket.

For each pair it takes the **latency after a compatible partner arrived**: from the later
seeker's POST to the moment both seekers know (the later of the POST's answer and the waiting
one's socket message). It prints p50/p95/p99/max of that over all pairs, and checks what the
issue asks for: every seek paired at most once, each match has exactly two seekers in seats 0
and 1 from two different browsers, and no two seekers of a compatible format are left waiting
together at the end (one per format may be left over: an odd count).

    .venv/bin/python bench/pairing.py [--seekers 200] [--seconds 10] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import websockets

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from harness.accounts import Browser  # noqa: E402
from harness.serverproc import ServerProcess  # noqa: E402
from server.ops.redis_process import RedisProcess  # noqa: E402

FORMATS = [
    ({"mode": "single_game", "clock": 30}, 4),
    ({"mode": "match", "length": 3, "clock": 30}, 3),
    ({"mode": "match", "length": 5, "clock": 60}, 2),
    ({"mode": "money", "clock": 30}, 1),
]
"""The formats seekers ask for, with their weights."""


@dataclass
class Seeker:
    index: int
    fmt: int
    server: str
    arrived: float = 0.0
    told: float = 0.0
    seek: str = ""
    match: str = ""
    seat: int = -1
    browser: str = ""
    waiting_left: bool = False


async def seek(s: Seeker, start: float, at: float, deadline: float) -> Seeker:
    await asyncio.sleep(max(0.0, start + at - time.monotonic()))
    browser = Browser(s.server, origin=s.server)
    terms = FORMATS[s.fmt][0]
    s.arrived = time.monotonic()
    reply = await browser.post("/api/seeks", {**terms, "name": f"S{s.index}"})
    if reply.status != 201:
        raise SystemExit(f"seek {s.index} refused: {reply.status} {reply.body}")
    s.seek, s.browser = reply.body["seek"], browser.cookies.get("fg_browser", "")
    if reply.body["state"] == "paired":
        s.told = time.monotonic()
        s.match, s.seat = reply.body["match"], reply.body["seat"]
        return s
    url = s.server.replace("http://", "ws://") + reply.body["socket"]
    async with websockets.connect(url, origin=s.server) as socket:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                s.waiting_left = True
                return s
            try:
                message = json.loads(await asyncio.wait_for(socket.recv(), left))
            except (TimeoutError, websockets.ConnectionClosed):
                s.waiting_left = True
                return s
            if message["state"] == "paired":
                s.told = time.monotonic()
                s.match, s.seat = message["match"], message["seat"]
                return s
            if message["state"] == "gone":
                raise SystemExit(f"seek {s.index} gone: {message}")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def run(args: argparse.Namespace) -> int:
    rng = random.Random(args.seed)
    weights = [w for _, w in FORMATS]
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=args.seekers + 8))
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisProcess(Path(tmp) / "redis")
        redis.start()
        servers = [ServerProcess(redis.url), ServerProcess(redis.url)]
        try:
            for proc in servers:
                proc.start()
            seekers = [
                Seeker(i, rng.choices(range(len(FORMATS)), weights)[0], servers[i % 2].base)
                for i in range(args.seekers)
            ]
            times = sorted(rng.uniform(0, args.seconds) for _ in seekers)
            start = time.monotonic()
            deadline = start + args.seconds + args.linger
            done = await asyncio.gather(
                *(seek(s, start, t, deadline) for s, t in zip(seekers, times, strict=True))
            )
        finally:
            for proc in servers:
                proc.kill()
            redis.stop()
    by_match: dict[str, list[Seeker]] = {}
    for s in done:
        if s.match:
            by_match.setdefault(s.match, []).append(s)
    latencies = []
    for match, pair in by_match.items():
        assert len(pair) == 2, f"match {match} has {len(pair)} seekers"
        assert sorted(s.seat for s in pair) == [0, 1], match
        assert pair[0].browser != pair[1].browser, f"a browser met itself in {match}"
        assert pair[0].fmt == pair[1].fmt, f"{match} paired two formats"
        latencies.append(max(s.told for s in pair) - max(s.arrived for s in pair))
    assert len({s.seek for s in done}) == len(done), "a seek id was given twice"
    left = [s for s in done if s.waiting_left]
    per_format = [sum(1 for s in left if s.fmt == f) for f in range(len(FORMATS))]
    assert all(n <= 1 for n in per_format), f"compatible seekers left waiting: {per_format}"
    ms = [x * 1000 for x in latencies]
    print(f"{args.seekers} seekers over {args.seconds:g} s on two processes (seed {args.seed}): "
          f"{len(by_match)} pairs, {len(left)} left waiting alone (one per format at most: "
          f"{per_format})")
    print(f"latency after the partner arrived: p50 {pct(ms, 0.5):.0f} ms, p95 "
          f"{pct(ms, 0.95):.0f} ms, p99 {pct(ms, 0.99):.0f} ms, max {max(ms):.0f} ms, "
          f"mean {statistics.fmean(ms):.0f} ms")
    print(f"paired within 1 s: {sum(x < 1000 for x in ms)}/{len(ms)}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seekers", type=int, default=200)
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--linger", type=float, default=3.0,
                        help="how long after the last arrival the waiting ones keep waiting")
    parser.add_argument("--seed", type=int, default=1)
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    sys.exit(main())
