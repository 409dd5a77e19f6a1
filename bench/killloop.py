"""The kill loop: matches played by the client library while server processes are SIGKILLed.

    .venv/bin/python bench/killloop.py                       # 50 matches, 25 kills
    .venv/bin/python bench/killloop.py --matches 6 --kills 3 --length 1
    .venv/bin/python bench/killloop.py --commit-window-ms 3     # the servers with a commit window

It starts a private redis-server (AOF, ``appendfsync always``) and two ``fairgammon serve``
processes of this checkout on it. Each match is two :class:`protocol.client.MatchClient` seats
(unpatched: reconnection and retries are the library's own) playing ``play_random``; each seat
starts on a random process and has the other as its fallback. Meanwhile a random process is
SIGKILLed every ``--every`` seconds (on average) and started again on the same port, ``--kills``
times. At the end it prints, and checks:

* forfeits: any forfeit is caused by the crashes (the bots never run out their clocks);
* stuck matches: any match not over within ``--timeout`` after the last kill;
* lost or seen twice: each client's received stream against the stored log (every event is the
  stored one, versions follow without a gap or a repeat, a snapshot only jumps forward), and
  every acknowledged action is among the stored commands, once.

Exit status 0 when all three are zero. ``run()`` is also the suite's small version.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import msgpack

# This checkout first (bench/ holds an engine.py of its own); bench/ for loadgen.
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.append(str(ROOT / "bench"))

from loadgen.procs import Server  # noqa: E402

from harness import srv_support  # noqa: E402
from protocol import codec  # noqa: E402
from protocol import events as pe  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.client import MatchClient, create_match, join_match, play_random  # noqa: E402
from server.machine import commands  # noqa: E402
from server.match.store import Store  # noqa: E402
from server.ops.redis_process import RedisProcess, free_port  # noqa: E402


@dataclass
class Seat:
    client: MatchClient
    seen: list[m.ServerMessage] = field(default_factory=list)
    acks: list[m.Ack] = field(default_factory=list)


@dataclass
class Report:
    matches: int
    kills: int
    seconds: float
    over: int = 0
    forfeits: Counter[str] = field(default_factory=Counter)
    stuck: list[str] = field(default_factory=list)
    stream_faults: list[str] = field(default_factory=list)
    ack_faults: list[str] = field(default_factory=list)
    events: int = 0
    acks: int = 0
    reconnects: int = 0

    @property
    def ok(self) -> bool:
        faults = self.stuck or self.stream_faults or self.ack_faults
        return not faults and not self.forfeits and self.over == self.matches

    def lines(self) -> list[str]:
        return [
            f"matches            {self.matches} ({self.over} over), {self.kills} SIGKILLs, "
            f"{self.seconds:.1f} s",
            f"events received    {self.events}, actions acknowledged {self.acks}, "
            f"reconnects {self.reconnects}",
            f"crash forfeits     {sum(self.forfeits.values())} {dict(self.forfeits) or ''}",
            f"stuck matches      {len(self.stuck)} {self.stuck[:5] or ''}",
            f"lost / seen twice  {len(self.stream_faults) + len(self.ack_faults)} "
            f"{(self.stream_faults + self.ack_faults)[:5] or ''}",
            "OK" if self.ok else "FAILED",
        ]


def check_stream(seen: list[m.ServerMessage], log: dict[int, bytes]) -> str | None:
    """What one client received against the stored log (the suite's check); None when exact."""
    try:
        srv_support.check_stream(seen, log)
    except AssertionError as fault:
        return str(fault).split("\n")[0] or "the stream does not match the log"
    return None


async def stored(redis_url: str, match_id: str) -> tuple[dict[int, bytes], list[tuple[int, int]]]:
    """The stored log (version -> frame) and every stored command's (seat, seq)."""
    store = Store.from_url(redis_url)
    try:
        log = {v: f[b"e"] for v, f in await store.log_entries(match_id)}
        keys = []
        for record in await store.commands(match_id):
            kind, body, _t = msgpack.unpackb(record, raw=False)
            if kind in (commands.CREATE, commands.EXPIRE):
                continue
            command = commands.recorded_command(kind, body)
            if command.seq > 0:
                keys.append((command.seat, command.seq))
        return log, keys
    finally:
        await store.close()


async def set_up(base: str, length: int) -> tuple[str, str, str]:
    """A match created and joined through the lobby: its id and both seat tokens."""
    created = await create_match(base, name="Ann", mode="match", length=length)
    joined = await join_match(base, created["match"], name="Bob")
    return created["match"], created["token"], joined["token"]


async def play_match(match: tuple[str, str, str], urls: list[str], rng: random.Random,
                     seats_out: list[Seat], think: float) -> str:  # fmt: skip
    match_id = match[0]
    seats = []
    for token in match[1:]:
        first = rng.randrange(len(urls))
        seat = Seat(None)  # type: ignore[arg-type]
        seat.client = MatchClient(
            urls[first], match_id, token,
            fallback_urls=[u for i, u in enumerate(urls) if i != first],
            on_event=seat.seen.append, rng=random.Random(rng.random()),
        )  # fmt: skip
        seats.append(seat)
    seats_out += seats
    for seat in seats:
        await seat.client.start(timeout=120)  # it keeps trying through restarts
    try:
        results = await asyncio.gather(*(
            play_random(s.client, random.Random(rng.random()), think=(0.0, think), timeout=600)
            for s in seats
        ))  # fmt: skip
        assert results[0] == results[1]
    finally:
        for s in seats:
            await s.client.close()
    return match_id


async def killer(servers: list[Server], kills: int, every: float, rng: random.Random,
                 done: asyncio.Event, log: list[str]) -> int:  # fmt: skip
    n = 0
    loop = asyncio.get_running_loop()
    due = loop.time()
    while n < kills and not done.is_set():
        # ``every`` is the mean time from one kill to the next: the wait overlaps the last
        # victim's restart (a slow start-up on a loaded machine does not space the kills out).
        due += every * (0.5 + rng.random())
        await asyncio.sleep(max(0.0, due - loop.time()))
        if done.is_set():
            break
        victim = rng.choice(servers)
        victim.signal(signal.SIGKILL)
        await asyncio.to_thread(victim.wait, 10)
        n += 1
        log.append(f"kill {n}: port {victim.port}")
        await asyncio.sleep(rng.uniform(0.0, 0.5))  # down for a moment
        victim.start()
        await asyncio.to_thread(victim.wait_healthy, 30)
    return n


async def run(matches: int = 50, kills: int = 25, every: float = 2.0, length: int = 3,
              seed: int = 1, timeout: float = 300, verbose: bool = False,
              think: float = 0.1, window_ms: float | None = None) -> Report:  # fmt: skip
    """``window_ms``: the servers' ``FAIRGAMMON_COMMIT_WINDOW_MS`` (None: from this process's
    environment, as every other setting)."""
    rng = random.Random(seed)
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="fairgammon-killloop-") as tmp:
        redis = RedisProcess(Path(tmp) / "redis")
        redis.start()
        env = {"FAIRGAMMON_RATE_BURST": "500", "FAIRGAMMON_RATE_PER_SECOND": "500"}
        if window_ms is not None:
            env["FAIRGAMMON_COMMIT_WINDOW_MS"] = str(window_ms)
        servers = [Server(free_port(), redis.url, Path(tmp), env=env) for _ in range(2)]
        try:
            for s in servers:
                s.start()
            for s in servers:
                await asyncio.to_thread(s.wait_healthy, 30)
            urls = [f"ws://127.0.0.1:{s.port}/ws" for s in servers]
            # The lobby is set up before the kills start: its HTTP calls are not the subject.
            made = [await set_up(servers[i % 2].base, length) for i in range(matches)]
            seats: list[Seat] = []
            done = asyncio.Event()
            log: list[str] = []
            games = [
                asyncio.create_task(
                    play_match(match, urls, random.Random(rng.random()), seats, think)
                )
                for match in made
            ]
            kill_task = asyncio.create_task(killer(servers, kills, every, rng, done, log))
            finished, pending = await asyncio.wait(games, timeout=timeout)
            done.set()
            killed = await kill_task
            for task in pending:
                task.cancel()
            report = Report(matches, killed, time.monotonic() - t0)
            ids = []
            for task in games:
                if task in finished and task.exception() is None:
                    ids.append(task.result())
                elif task in finished:
                    report.stuck.append(repr(task.exception()))
                else:
                    report.stuck.append("timeout")
            report.over = len(ids)
            by_match: dict[str, list[Seat]] = {}
            for seat in seats:
                by_match.setdefault(seat.client.match_id, []).append(seat)
            for match_id in ids:
                log_frames, keys = await stored(redis.url, match_id)
                if len(keys) != len(set(keys)):
                    report.ack_faults.append(f"{match_id}: a command stored twice")
                for v in sorted(log_frames):
                    event = codec.decode_from_server(log_frames[v])
                    if isinstance(event, m.Event) and isinstance(event.data, pe.Forfeit):
                        report.forfeits[event.data.reason] += 1
                for seat in by_match[match_id]:
                    fault = check_stream(seat.seen, log_frames)
                    if fault:
                        report.stream_faults.append(f"{match_id} seat {seat.client.seat}: {fault}")
                    report.events += sum(isinstance(x, m.Event) for x in seat.seen)
                    report.reconnects += max(0, seat.client.welcomes - 1)
                    acked = [x for x in seat.seen if isinstance(x, m.Ack)]
                    report.acks += len({a.seq for a in acked})
                    for ack in acked:
                        if (seat.client.seat, ack.seq) not in keys:
                            report.ack_faults.append(f"{match_id}: ack {ack.seq} not stored")
            if verbose:
                print("\n".join(log))
            return report
        finally:
            for s in servers:
                s.signal(signal.SIGKILL)
                s.wait(10)
            redis.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=50)
    p.add_argument("--kills", type=int, default=25)
    p.add_argument("--every", type=float, default=1.0, help="mean seconds between kills")
    p.add_argument("--length", type=int, default=3, help="match length in points")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--timeout", type=float, default=600)
    p.add_argument("--think", type=float, default=0.1, help="longest pause before a decision")
    p.add_argument("--commit-window-ms", type=float, default=None,
                   help="the servers' FAIRGAMMON_COMMIT_WINDOW_MS (default: as in the "
                        "environment, else none)")  # fmt: skip
    args = p.parse_args(argv)
    window = f", a {args.commit_window_ms:g} ms commit window" if args.commit_window_ms else ""
    print(f"kill loop: {args.matches} matches to {args.length}, {args.kills} SIGKILLs over two "
          f"server processes{window}", flush=True)  # fmt: skip
    report = asyncio.run(run(args.matches, args.kills, args.every, args.length, args.seed,
                             args.timeout, verbose=True, think=args.think,
                             window_ms=args.commit_window_ms))  # fmt: skip
    print("\n".join(report.lines()))
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
