"""Correspondence at rest: many idle correspondence games and many followers online on one
server process, with the figures #22 asks for (docs/correspondence.md, docs/friends.md).

Against a real server process and its own Redis it

1. signs up ``--players`` accounts who play and ``--fans`` accounts who follow them (each fan
   follows ``--follows`` players), and one more, ``hero``, whose games are listed;
2. creates ``--games`` correspondence matches (1 day a move) through ``POST /api/matches`` and
   ``POST /api/matches/{id}/join``: ``hero`` is in ``--hero-games`` of them, the rest spread over
   the players. Nobody connects to them: they are idle, as correspondence games are most of the
   time (their clocks run in Redis);
3. brings the fans online: each asks for its friends (``GET /api/my/friends``, which marks it
   online) and keeps its notices socket (``WS /ws/notices``) open;
4. measures, at rest for ``--rest`` seconds: the server process's CPU (per cent of one core)
   and memory (RSS), before the games, after the games, and with the fans online; Redis's
   memory;
5. times ``GET /api/my/games`` for ``hero`` (``--lists`` times, one after the other), and
   ``GET /api/my/friends`` for a fan following ``--follows`` players.

    .venv/bin/python bench/correspondence.py [--games 10000] [--fans 1000] [--players 200]
        [--hero-games 50] [--follows 20] [--rest 30] [--lists 100]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import redis.asyncio as aioredis
import websockets

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from harness.serverproc import ServerProcess  # noqa: E402
from harness.tournament_players import Player, sign_up_all  # noqa: E402
from server.ops.redis_process import RedisProcess  # noqa: E402


def family(pid: int) -> list[int]:
    """``pid`` and its descendants (the server's worker processes, if it started any)."""
    children: dict[int, list[int]] = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(stat.parent.name))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo += children.get(p, [])
    return out


def cpu_of(pids: list[int]) -> float:
    """User + system CPU seconds of processes ``pids`` (Linux /proc)."""
    total = 0
    for pid in pids:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def rss_mb(pids: list[int]) -> float:
    total = 0
    for pid in pids:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                total += int(line.split()[1])
    return total / 1024


async def at_rest(pid: int, seconds: float) -> tuple[float, float]:
    """(CPU per cent of one core over ``seconds``, RSS in MB at the end) of process ``pid``
    and its children."""
    pids = family(pid)
    before = cpu_of(pids)
    await asyncio.sleep(seconds)
    return 100 * (cpu_of(pids) - before) / seconds, rss_mb(pids)


async def redis_mb(url: str) -> float:
    client = aioredis.from_url(url)
    try:
        return int((await client.info("memory"))["used_memory"]) / 2**20
    finally:
        await client.aclose()


async def in_batches(calls, size: int = 32) -> list:  # type: ignore[no-untyped-def]
    out = []
    for i in range(0, len(calls), size):
        out += await asyncio.gather(*(c() for c in calls[i : i + size]))
    return out


async def correspondence_game(creator: Player, joiner: Player) -> str:
    made = await creator.call("POST", "/api/matches", {"mode": "match", "length": 5, "days": 1})
    assert made.status == 201, made.body
    match = made.body["match"]
    joined = await joiner.call("POST", f"/api/matches/{match}/join", {})
    assert joined.status == 200, joined.body
    return match


async def timed(player: Player, path: str, times: int, right) -> str:  # type: ignore[no-untyped-def]
    """``GET path`` as ``player``, ``times`` one after the other (each answer checked by
    ``right``): the timings in words."""
    samples = []
    for _ in range(times):
        t0 = time.perf_counter()
        reply = await player.call("GET", path)
        samples.append(time.perf_counter() - t0)
        assert reply.status == 200 and right(reply.body), reply.body
    return timings(samples)


def timings(samples: list[float]) -> str:
    ms = sorted(1000 * s for s in samples)
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return f"p50 {statistics.median(ms):.1f} ms, p95 {p95:.1f} ms, max {ms[-1]:.1f} ms"


async def run(args: argparse.Namespace) -> int:
    loop = asyncio.get_running_loop()
    loop.set_default_executor(ThreadPoolExecutor(max_workers=64))
    per_player = 2 * (args.games - args.hero_games) // args.players + 2
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisProcess(Path(tmp) / "redis")
        redis.start()
        server = ServerProcess(
            redis.url,
            FAIRGAMMON_GAMES_PER_ACCOUNT=str(max(per_player, args.hero_games) + 10),
            FAIRGAMMON_CREATE_BURST="1000000",
            FAIRGAMMON_CREATE_PER_MINUTE="1000000",
            FAIRGAMMON_OPEN_PER_CREATOR="1000000",
        )
        sockets: list[websockets.ClientConnection] = []
        try:
            server.start()
            pid = server.process.pid
            started = time.monotonic()
            hero = Player("hero", [server.base])
            players = [Player(f"p{i:03d}", [server.base]) for i in range(args.players)]
            fans = [Player(f"f{i:04d}", [server.base]) for i in range(args.fans)]
            await sign_up_all([hero, *players, *fans], redis.url)
            print(f"{1 + args.players + args.fans} accounts signed up in "
                  f"{time.monotonic() - started:.0f} s", flush=True)
            cpu, rss = await at_rest(pid, args.rest)
            print(f"at rest, no game:        server CPU {cpu:5.2f} % of a core, "
                  f"RSS {rss:6.1f} MB, Redis {await redis_mb(redis.url):6.1f} MB", flush=True)

            started = time.monotonic()
            pairs = [(hero, players[i % args.players]) for i in range(args.hero_games)]
            rest = args.games - args.hero_games
            for i in range(rest):
                a = players[i % args.players]
                b = players[(i + 1 + i // args.players) % args.players]
                if b is a:
                    b = players[(i + 1) % args.players]
                pairs.append((a, b))
            made = await in_batches([lambda a=a, b=b: correspondence_game(a, b) for a, b in pairs])
            took = time.monotonic() - started
            print(f"{len(made)} correspondence games created and joined in {took:.0f} s "
                  f"({len(made) / took:.0f} a second)", flush=True)
            cpu, rss = await at_rest(pid, args.rest)
            print(f"at rest, {len(made)} idle games: server CPU {cpu:5.2f} % of a core, "
                  f"RSS {rss:6.1f} MB, Redis {await redis_mb(redis.url):6.1f} MB", flush=True)

            started = time.monotonic()

            async def fan_online(i: int) -> None:
                fan = fans[i]
                for k in range(args.follows):
                    p = players[(i * 7 + k) % args.players]
                    reply = await fan.call("POST", "/api/my/friends", {"name": p.name})
                    assert reply.status == 200, reply.body
                cookie = "; ".join(f"{k}={v}" for k, v in fan.cookies.items())
                ws_url = server.base.replace("http://", "ws://") + "/ws/notices"
                ws = await websockets.connect(
                    ws_url, additional_headers={"Cookie": cookie}, origin=server.base
                )
                first = await ws.recv()
                assert "unread" in first, first
                sockets.append(ws)

            await in_batches([lambda i=i: fan_online(i) for i in range(args.fans)])
            print(f"{args.fans} fans following {args.follows} players each, online with their "
                  f"notices socket open, in {time.monotonic() - started:.0f} s", flush=True)
            cpu, rss = await at_rest(pid, args.rest)
            print(f"at rest, + {args.fans} fans online: server CPU {cpu:5.2f} % of a core, "
                  f"RSS {rss:6.1f} MB, Redis {await redis_mb(redis.url):6.1f} MB", flush=True)

            games = await timed(hero, "/api/my/games", args.lists,
                                lambda body: body["count"] == args.hero_games)
            print(f"GET /api/my/games for an account with {args.hero_games} games "
                  f"({args.lists} times): {games}")
            friends = await timed(fans[0], "/api/my/friends", args.lists,
                                  lambda body: len(body["following"]) == args.follows)
            print(f"GET /api/my/friends following {args.follows} players "
                  f"({args.lists} times): {friends}")
            assert server.alive(), f"the server died: {server.log_path}"
        finally:
            for ws in sockets:
                await ws.close()
            server.stop()
            redis.stop()
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--fans", type=int, default=1000)
    parser.add_argument("--players", type=int, default=200)
    parser.add_argument("--hero-games", type=int, default=50)
    parser.add_argument("--follows", type=int, default=20)
    parser.add_argument("--rest", type=float, default=30.0)
    parser.add_argument("--lists", type=int, default=100)
    return asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
