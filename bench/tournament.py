"""Tournaments through the whole shell: a knockout or an arena played by bot accounts against a
real server process and its own Redis, with the figures #21 asks for.

The players are ``harness/tournament_players.py``'s: signed-in accounts that use only the API
and the wire protocol, ask ``GET /api/tournaments/{id}`` for their match (``me``) every
``--poll`` seconds, play it with random legal moves and resign a game at a turn with
probability ``--quit`` (so that matches are short: the bench measures the tournament machinery,
not backgammon), after a random think time of mean ``--think`` seconds. Single-game matches, a
20 s clock. Without think time the players act at machine speed: an arena's matches then end
many times faster than people's (hundreds a minute), a load test of the shell rather than a
picture of a real arena.

It prints:

* **pairing latency after a match ends**, from the server's own histogram
  ``fairgammon_tournament_pairing_seconds`` (``/metrics``): from a finished tournament match
  being counted (the match-event bus tells the tournament right after the match's last commit)
  to the pairings that result allowed being stored and their matches made. A knockout pairs when
  the last match of a round ends; an arena pairs a player again as soon as their match ends and
  a partner is free. Percentiles are read from the histogram's buckets, so they are upper
  bounds (the bucket a percentile falls in);
* **Redis commands**: the server's Redis ``INFO commandstats`` calls during the run, per
  tournament match and per pairing transition (everything the server did: the matches' own
  play, the players' polling, the tournament's transitions);
* **CPU**: the server process's, Redis's and this bench process's (its clients'), in seconds
  and per match; wall time; the tournament's transitions and compare-and-set conflicts are not
  visible from outside and are not printed.

    .venv/bin/python bench/tournament.py knockout [--players 256]
    .venv/bin/python bench/tournament.py arena [--players 500] [--minutes 30]
    options: [--quit 0.5] [--think 0] [--poll 2] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import resource
import sys
import tempfile
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import redis.asyncio as aioredis

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from harness.serverproc import ServerProcess  # noqa: E402
from harness.tournament_players import Player, play_tournament, sign_up_all  # noqa: E402
from server.ops.redis_process import RedisProcess  # noqa: E402

HISTOGRAM = "fairgammon_tournament_pairing_seconds"


def scrape(base: str) -> str:
    with urllib.request.urlopen(f"{base}/metrics", timeout=10) as response:
        return response.read().decode()


def buckets(text: str) -> list[tuple[float, float]]:
    """The histogram's cumulative buckets: (upper bound, count)."""
    found = []
    for le, count in re.findall(rf'^{HISTOGRAM}_bucket{{le="([^"]+)"}} (\S+)$', text, re.M):
        found.append((float("inf") if le == "+Inf" else float(le), float(count)))
    return sorted(found)


def percentile(cumulative: list[tuple[float, float]], q: float) -> str:
    total = cumulative[-1][1] if cumulative else 0
    if not total:
        return "-"
    for bound, count in cumulative:
        if count >= q * total:
            return "> 10 s" if bound == float("inf") else f"≤ {bound * 1000:.0f} ms"
    return "-"


def cpu_of(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def redis_figures(url: str) -> tuple[float, float]:
    """(commands so far, CPU seconds so far) of the Redis at ``url``."""
    client = aioredis.from_url(url)
    try:
        stats = await client.info("commandstats")
        cpu = await client.info("cpu")
    finally:
        await client.aclose()
    calls = sum(v["calls"] for v in stats.values())
    return calls, float(cpu["used_cpu_user"]) + float(cpu["used_cpu_sys"])


async def run(args: argparse.Namespace) -> int:
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=min(512, args.players + 16)))
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisProcess(Path(tmp) / "redis")
        redis.start()
        server = ServerProcess(redis.url, FAIRGAMMON_TOURNAMENTS_PER_ACCOUNT="5")
        try:
            server.start()
            started = time.monotonic()
            players = [Player(f"b{i:03d}", [server.base]) for i in range(args.players)]
            await sign_up_all(players, redis.url)
            print(f"{args.players} accounts signed up in {time.monotonic() - started:.0f} s",
                  flush=True)
            terms = {"kind": args.kind, "mode": "single_game", "clock": 20, "no_show": 60,
                     "max_players": args.players, "name": f"Bench {args.kind}"}
            if args.kind == "arena":
                terms["minutes"] = args.minutes
            made = await players[0].call("POST", "/api/tournaments", terms)
            assert made.status == 201, made.body
            tid = made.body["tournament"]
            assert server.alive(), f"the server died: {server.log_path}"
            for i in range(0, len(players), 32):
                replies = await asyncio.gather(
                    *(p.call("POST", f"/api/tournaments/{tid}/join", {})
                      for p in players[i : i + 32])
                )
                for reply in replies:
                    assert reply.status == 200, reply.body
            assert server.process is not None and server.alive(), f"died: {server.log_path}"
            print(f"{args.players} joined", flush=True)
            calls0, redis_cpu0 = await redis_figures(redis.url)
            server_cpu0 = cpu_of(server.process.pid)
            own0 = resource.getrusage(resource.RUSAGE_SELF)
            began = time.monotonic()
            views = await asyncio.gather(
                *(play_tournament(p, tid, seed=args.seed * 10_000 + i, poll=args.poll,
                                  timeout=args.minutes * 60 + 3600, quit_rate=args.quit,
                                  think=args.think)
                  for i, p in enumerate(players))
            )
            wall = time.monotonic() - began
            calls1, redis_cpu1 = await redis_figures(redis.url)
            server_cpu = cpu_of(server.process.pid) - server_cpu0
            own1 = resource.getrusage(resource.RUSAGE_SELF)
            own = (own1.ru_utime + own1.ru_stime) - (own0.ru_utime + own0.ru_stime)
            cumulative = buckets(await asyncio.to_thread(scrape, server.base))
        finally:
            server.kill()
            redis.stop()
    view = views[0]
    matches = sum(1 for r in view["rounds"] for p in r["pairings"] if p["match"])
    if args.kind == "arena":  # the view shows the last games only: count every player's
        matches = len({m for p in players for m in p.played})
    pairings = cumulative[-1][1] if cumulative else 0
    calls = calls1 - calls0
    print(f"{args.kind}, {args.players} players, single games, resign rate {args.quit}, "
          f"think {args.think} s, poll {args.poll} s (seed {args.seed}): {view['state']} "
          f"({view['end']}), "
          f"won by {view['winner']}, {matches} matches in {wall:.0f} s")
    print(f"pairing latency after a match ends ({pairings:.0f} transitions that paired): "
          f"p50 {percentile(cumulative, 0.5)}, p99 {percentile(cumulative, 0.99)}")
    print(f"Redis commands: {calls:.0f} in all, {calls / max(1, matches):.0f} per match, "
          f"{calls / max(1, pairings):.0f} per pairing transition (everything included)")
    print(f"CPU: server {server_cpu:.1f} s ({server_cpu / max(1, matches) * 1000:.0f} ms per "
          f"match), Redis {redis_cpu1 - redis_cpu0:.1f} s, the bench's clients {own:.1f} s; "
          f"wall {wall:.0f} s")
    return 0 if view["state"] == "finished" else 1


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("kind", choices=["knockout", "arena"])
    parser.add_argument("--players", type=int)
    parser.add_argument("--minutes", type=int, default=30, help="the arena's length")
    parser.add_argument("--quit", type=float, default=0.5,
                        help="chance that a player resigns the game at each of its turns")
    parser.add_argument("--think", type=float, default=0.0,
                        help="mean seconds a player waits before each decision")
    parser.add_argument("--poll", type=float, default=2.0)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.players is None:
        args.players = 256 if args.kind == "knockout" else 500
    return asyncio.run(run(args))


if __name__ == "__main__":
    sys.exit(main())
