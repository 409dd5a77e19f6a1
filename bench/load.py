"""The load benchmark: M concurrent matches of paced bots against fairgammon servers.

    .venv/bin/python bench/load.py --start 2 --matches 2000 --pace 5 --seconds 30
    .venv/bin/python bench/load.py --server http://127.0.0.1:8000 --matches 500
    .venv/bin/python bench/load.py --start 1 --matches 1000 --seconds 10 --restart

With ``--start N`` it starts a private redis-server (AOF, ``appendfsync always``) and N
``python -m server.cli serve`` processes of this checkout on it (``--workers`` each);
with ``--server URL[,URL...]`` it drives servers that are already running on this machine
(their processes are found through their listening ports, for CPU and memory figures).
Everything runs on loopback.

Each match is two bot seats (and ``--spectators`` watchers) in money mode, without doubling,
playing one turn per ``--pace`` seconds: the player on roll rolls (revealing its link), the
opponent's client reveals at once, the dice come, the player moves at once. So a turn is three
stored actions (roll, reveal, move) and about six events to the players. Matches are spread
over ``--generators`` processes, each holding its share of the sockets; seat 1 of half of the
matches sits on another server process than seat 0 (events cross through Redis pub/sub).

Phases: set up the matches through the lobby, connect everyone (``--connect-rate``), warm
up, then measure for ``--seconds`` while cutting ``--drops`` random connections every 2 s
(they reconnect at once and resume). Then, with ``--restart``, SIGTERM (``--kill``: SIGKILL)
server process 1, start it again on the same port and time until every client it held has
resumed. Last, a bare WebSocket echo on the same uvicorn settings gives the stack's ceiling.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing as mp
import signal
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path: put the checkout it belongs to
# ahead of any installed copy of the project.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadgen import echo, generator, procs, scrape
from loadgen.stats import mib, ms, percentile

from server.ops.redis_process import RedisProcess, free_port

MAX_SOCKETS_PER_GENERATOR = 15_000


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--server", help="base URL(s) of running servers, comma-separated")
    where.add_argument("--start", type=int, metavar="N", help="start N server processes")
    p.add_argument("--workers", type=int, default=1, help="uvicorn workers per started server")
    p.add_argument("--matches", type=int, default=100)
    p.add_argument("--pace", type=float, default=5.0, help="seconds per turn per match")
    p.add_argument("--seconds", type=float, default=30.0, help="measured window")
    p.add_argument("--warmup", type=float, default=10.0, help="seconds before measuring")
    p.add_argument("--spectators", type=int, default=0, help="watchers per match")
    p.add_argument("--generators", type=int, default=0, help="load processes (0: by sockets)")
    p.add_argument("--connect-rate", type=float, default=400.0, help="new sockets per second")
    p.add_argument("--drops", type=int, default=4, help="connections cut every 2 s")
    p.add_argument("--restart", action="store_true", help="then restart server process 1")
    p.add_argument("--kill", action="store_true", help="with --restart: SIGKILL, not SIGTERM")
    p.add_argument(
        "--rolling", action="store_true",
        help="with --restart and --start 2 or more: every bot also knows the other servers, so"
        " the clients of the stopping process move to them (its drain) before it starts again",
    )  # fmt: skip
    p.add_argument("--echo-seconds", type=float, default=5.0, help="0: no echo baseline")
    p.add_argument("--echo-connections", type=int, default=64)
    p.add_argument(
        "--echo-ws", default=echo.SERVER_WS,
        help="uvicorn ws protocol of the echo (websockets-sansio: uvicorn's own)",
    )  # fmt: skip
    p.add_argument("--seed", type=int, default=1)
    p.add_argument(
        "--reconnect-cap",
        type=float,
        default=2.0,
        help="longest reconnect back-off, s (2.0 as protocol.client.MatchClient)",
    )
    p.add_argument(
        "--py-spy",
        metavar="PREFIX",
        help="record server process 1 with py-spy during the window (PREFIX.window.txt)"
        " and after a restart (PREFIX.restart.txt), collapsed stacks",
    )
    p.add_argument(
        "--server-env", action="append", default=[], metavar="NAME=VALUE",
        help="environment of the started servers (repeatable), e.g. FAIRGAMMON_LOG_LEVEL=info",
    )  # fmt: skip
    args = p.parse_args(argv)
    if args.restart and not args.start:
        p.error("--restart needs --start (it restarts a server it started)")
    if args.rolling and (not args.restart or args.start < 2):
        p.error("--rolling needs --restart and --start 2 or more")
    return args


class Run:
    """The coordinating process: the servers, the generator processes, the figures."""

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.tmp = Path(tempfile.mkdtemp(prefix="fairgammon-load-"))
        self.redis: RedisProcess | None = None
        self.servers: list[procs.Server] = []
        self.bases: list[str] = []
        self.pipes: list[Any] = []
        self.workers: list[mp.Process] = []
        self.progress: dict[int, dict[str, Any]] = {}
        self.ctx = mp.get_context("spawn")

    # ---------------------------------------------------------------- processes

    def start_servers(self) -> None:
        a = self.args
        if a.server:
            self.bases = [b.strip().rstrip("/") for b in a.server.split(",") if b.strip()]
            return
        self.redis = RedisProcess(self.tmp / "redis")
        self.redis.start()
        for i in range(a.start):
            env = self.server_env(i)
            server = procs.Server(free_port(), self.redis.url, self.tmp, a.workers, env)
            server.start()
            self.servers.append(server)
        for server in self.servers:
            server.wait_healthy()
        self.bases = [s.base for s in self.servers]
        say(f"started redis {self.redis.url} and {a.start} server process(es) x {a.workers} "
            f"worker(s): {', '.join(self.bases)}; logs in {self.tmp}")  # fmt: skip

    def server_env(self, i: int) -> dict[str, str]:
        """The environment of started server process ``i`` (``--server-env``)."""
        return dict(item.split("=", 1) for item in self.args.server_env)

    def server_pids(self) -> list[int]:
        if self.servers:
            return [p for s in self.servers for p in s.pids()]
        return [p for b in self.bases for p in procs.pids_listening(int(b.rsplit(":", 1)[1]))]

    def redis_pids(self) -> list[int]:
        return [self.redis.process.pid] if self.redis and self.redis.process else []

    def start_generators(self) -> None:
        a = self.args
        per_match = 2 + a.spectators
        sockets = a.matches * per_match
        count = a.generators or max(1, math.ceil(sockets / MAX_SOCKETS_PER_GENERATOR))
        first = 0
        for i in range(count):
            share = a.matches // count + (1 if i < a.matches % count else 0)
            config = generator.Config(
                index=i, first_match=first, matches=share, servers=tuple(self.bases),
                pace=a.pace, spectators=a.spectators, connect_rate=a.connect_rate / count,
                seed=a.seed * 1000 + i, reconnect_cap=a.reconnect_cap,
                fallback=getattr(a, "rolling", False),
            )  # fmt: skip
            first += share
            parent, child = self.ctx.Pipe()
            proc = self.ctx.Process(target=generator.run, args=(config, child), daemon=True)
            proc.start()
            self.pipes.append(parent)
            self.workers.append(proc)
        say(f"{count} load generator process(es), {sockets} sockets")

    def gather(self, name: str, timeout: float = 600) -> list[tuple[Any, ...]]:
        """One ``name`` message from every generator (progress lines meanwhile)."""
        got: dict[int, tuple[Any, ...]] = {}
        deadline = time.monotonic() + timeout
        while len(got) < len(self.pipes):
            if time.monotonic() > deadline:
                raise TimeoutError(f"generators did not all answer {name}")
            for i, pipe in enumerate(self.pipes):
                while i not in got and pipe.poll(0.05):
                    message = pipe.recv()
                    if message[0] == name:
                        got[i] = message
                    elif message[0] == "progress":
                        self.progress[message[1]] = message[2]
        return [got[i] for i in range(len(self.pipes))]

    def tell(self, *command: Any) -> None:
        for pipe in self.pipes:
            pipe.send(command)

    def pump(self, seconds: float, every: float = 2.0, drops: bool = False) -> None:
        """Wait ``seconds``, printing progress (and cutting connections if ``drops``)."""
        end = time.monotonic() + seconds
        next_line = time.monotonic() + every
        last_moves = None
        while (now := time.monotonic()) < end:
            for pipe in self.pipes:
                while pipe.poll(0):
                    message = pipe.recv()
                    if message[0] == "progress":
                        self.progress[message[1]] = message[2]
            if now >= next_line:
                moves = self.total("moves")
                rate = "" if last_moves is None else f"{(moves - last_moves) / every:6.0f} moves/s"
                self.line(rate)
                last_moves = moves
                next_line += every
                if drops and self.args.drops:
                    per = max(1, self.args.drops // len(self.pipes))
                    self.tell("drop", per)
            time.sleep(0.05)

    def total(self, key: str) -> int:
        return sum(p.get(key, 0) for p in self.progress.values())

    def line(self, head: str) -> None:
        live, bots = self.total("live"), self.total("bots")
        recent = [v for p in self.progress.values() for v in p.get("recent_move_ms", [])]
        errors = Counter()
        for p in self.progress.values():
            for k, v in p["counters"].items():
                if k.startswith(("reject:", "closed:", "error:", "gap", "connect_failed")):
                    errors[k] += v
        usage = procs.Usage.of(self.server_pids())
        say(f"  {head}  live {live}/{bots}  move ack p99 (2 s) {ms(percentile(recent, 99))} ms"
            f"  server RSS {mib(usage.rss)}  {dict(errors) or ''}")  # fmt: skip

    # ---------------------------------------------------------------- the run

    def run(self) -> None:
        a = self.args
        self.start_servers()
        self.start_generators()
        started = time.monotonic()
        setup = self.gather("setup")
        say(f"set up {a.matches} matches in {time.monotonic() - started:.1f} s "
            f"({sum(m[1] for m in setup)} bots)")  # fmt: skip
        base_usage = procs.Usage.of(self.server_pids())
        self.tell("connect")
        started = time.monotonic()
        connected = self.gather("connected", timeout=3600)
        live = sum(m[1] for m in connected)
        cpu = (procs.Usage.of(self.server_pids()).cpu - base_usage.cpu) / max(live, 1) * 1e3
        say(f"connected {live} sockets in {time.monotonic() - started:.1f} s (server CPU "
            f"{cpu:.2f} ms per socket, with the start of its match)")  # fmt: skip
        self.pump(a.warmup)

        pids, gens, redis = self.server_pids(), [w.pid for w in self.workers], self.redis_pids()
        u0, g0, r0 = procs.Usage.of(pids), procs.Usage.of(gens), procs.Usage.of(redis)
        p0 = self.pauses()
        t0 = time.monotonic()
        say(f"measuring for {a.seconds:.0f} s")
        spy = self.py_spy("window", a.seconds)
        self.pump(a.seconds, drops=True)
        if spy:
            spy.wait()
        t1 = time.monotonic()
        u1, g1, r1 = procs.Usage.of(pids), procs.Usage.of(gens), procs.Usage.of(redis)
        p1 = self.pauses()
        self.tell("report", t0, t1)
        reports = [m[1] for m in self.gather("report")]
        figures = self.figures(reports, t1 - t0, live, base_usage, (u0, u1), (g0, g1), (r0, r1))
        figures["pauses"] = scrape.window(p0, p1) if p0 is not None and p1 is not None else None

        restart = self.restart_test() if a.restart else None
        self.tell("stop")
        self.gather("stopped", timeout=60)
        for w in self.workers:
            w.join(5)
        echo_rate = self.echo() if a.echo_seconds > 0 else None
        self.print_report(figures, restart, echo_rate)

    def figures(
        self, reports: list[dict[str, Any]], window: float, live: int, base: procs.Usage,
        server: tuple[procs.Usage, procs.Usage], gens: tuple[procs.Usage, procs.Usage],
        redis: tuple[procs.Usage, procs.Usage],
    ) -> dict[str, Any]:  # fmt: skip
        samples, counters = merged(reports)
        actions = sum(len(v) for k, v in samples.items() if k in ("roll", "reveal", "move",
                                                                   "commit"))  # fmt: skip
        server_cpu = server[1].cpu - server[0].cpu
        return {
            "window": window,
            "connections": live,
            "samples": samples,
            "counters": counters,
            "moves_per_s": len(samples.get("move", [])) / window,
            "actions_per_s": actions / window,
            "server_cpu": server_cpu / window,
            "server_cpu_per_action_us": server_cpu / max(actions, 1) * 1e6,
            "server_rss": server[1].rss,
            "rss_per_conn": (server[1].rss - base.rss) / max(live, 1),
            "gen_cpu": (gens[1].cpu - gens[0].cpu) / window,
            "redis_cpu": (redis[1].cpu - redis[0].cpu) / window if self.redis else None,
            "server_processes": len(self.server_pids()),
        }

    def pauses(self, bases: list[str] | None = None) -> dict[str, scrape.Histogram] | None:
        """The collector passes and loop lag so far of the servers at ``bases`` (all of them
        by default; None if /metrics did not answer)."""
        try:
            return scrape.scrape(self.bases if bases is None else bases)
        except OSError as exc:
            say(f"(no pause figures: {exc})")
            return None

    def restart_test(self) -> dict[str, float]:
        """Stop server process 1 with its clients attached, start it again on the same port,
        and time until every one of its clients has resumed."""
        server = self.servers[0]
        self.tell("resumes")
        before = sum(len(m[1]) for m in self.gather("resumes"))
        held = self.connections_on(server.base)
        sig = signal.SIGKILL if self.args.kill else signal.SIGTERM
        say(f"restart: {sig.name} to {server.base} holding {held} connections")
        t_signal = time.monotonic()
        server.signal(sig)
        server.wait(30)
        t_exited = time.monotonic()
        server.start()
        server.wait_healthy()
        t_healthy = time.monotonic()
        cpu0 = procs.Usage.of(server.pids()).cpu
        main_pid = server.process.pid if server.process else 0
        main0 = procs.cpu_seconds(main_pid)
        spy = self.py_spy("restart", 5)
        deadline = t_healthy + 60
        resumes: list[tuple[float, float, float, bool]] = []
        while time.monotonic() < deadline:
            time.sleep(0.25)
            self.tell("resumes")
            resumes = [r for m in self.gather("resumes") for r in m[1]]
            fresh = [r for r in resumes[before:] if not r[3] and r[0] >= t_signal - 0.01]
            if len(fresh) >= held:
                break
        cpu = procs.Usage.of(server.pids()).cpu - cpu0
        main_cpu = procs.cpu_seconds(main_pid) - main0
        pauses = None if self.args.rolling else self.pauses([server.base])
        if spy:
            spy.wait()
        fresh = [r for r in resumes if not r[3] and r[0] >= t_signal - 0.01]
        last = max((r[2] for r in fresh), default=float("nan"))
        back = sorted(r[2] - t_healthy for r in fresh)
        self.tell("report", t_signal, time.monotonic())
        during = merged([m[1] for m in self.gather("report")])[0].get("move", [])
        return {
            "rolling": self.args.rolling,
            "move_p99_ms": percentile(during, 99) or 0.0,
            "moves": len(during),
            "away_p50_ms": percentile([(r[2] - r[0]) * 1000 for r in fresh], 50) or 0.0,
            "away_p99_ms": percentile([(r[2] - r[0]) * 1000 for r in fresh], 99) or 0.0,
            "away_max_ms": max(((r[2] - r[0]) * 1000 for r in fresh), default=0.0),
            "held": held,
            "resumed": len(fresh),
            "signal": sig.name,
            "exit_s": t_exited - t_signal,
            "healthy_s": t_healthy - t_exited,
            "all_resumed_after_healthy_s": last - t_healthy,
            "all_resumed_after_signal_s": last - t_signal,
            "resume_p99_ms": percentile([(r[2] - r[1]) * 1000 for r in fresh], 99) or 0.0,
            "cpu_per_resume_ms": cpu / max(len(fresh), 1) * 1000,
            # How the storm went: when the clients were back (after up), and what the
            # restarted process did meanwhile (its own CPU; the collector since it started).
            "back_by_s": {q: back[min(len(back) - 1, len(back) * q // 100)] for q in (10, 50, 90)}
            if back
            else {},
            "server_cpu_s": main_cpu,
            "workers_cpu_s": cpu - main_cpu,
            "storm_s": last - t_healthy,
            "pauses": pauses,
        }

    def py_spy(self, phase: str, seconds: float) -> Any:
        """Start py-spy on the first server process for ``seconds`` (if asked for)."""
        if not self.args.py_spy or not self.servers:
            return None
        import shutil
        import subprocess

        binary = shutil.which("py-spy") or str(Path(sys.executable).parent / "py-spy")
        out = f"{self.args.py_spy}.{phase}.txt"
        pid = str(self.servers[0].process.pid)  # type: ignore[union-attr]
        command = [binary, "record", "--pid", pid, "--duration", str(int(seconds)), "--rate",
                   "200", "--format", "raw", "--output", out, "--nonblocking"]  # fmt: skip
        return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def connections_on(self, base: str) -> int:
        """Seats and spectators the generators placed on ``base`` (as ``setup`` spreads them)."""
        a, n = self.args, len(self.bases)
        i = self.bases.index(base)
        count = 0
        for g in range(a.matches):
            count += (g % n == i) + ((g + g // n) % n == i)
            count += sum((g + 1 + s) % n == i for s in range(a.spectators))
        return count

    def echo(self) -> dict[str, float]:
        port = free_port()
        script = Path(echo.__file__)
        import subprocess

        ws = getattr(self.args, "echo_ws", echo.SERVER_WS)  # (bench/site.py has no --echo-ws)
        proc = subprocess.Popen([sys.executable, str(script), str(port), ws], cwd=procs.ROOT)
        try:
            procs.listening(port, 20)
            parent, child = self.ctx.Pipe()
            url = f"ws://127.0.0.1:{port}/ws"
            args = (url, self.args.echo_connections, self.args.echo_seconds, child)
            client = self.ctx.Process(target=echo.client, args=args)
            client.start()
            parent.recv()  # "go": connected, starting the round trips
            u0, t0 = procs.Usage.of([proc.pid]), time.monotonic()
            result = parent.recv()
            u1, t1 = procs.Usage.of([proc.pid]), time.monotonic()
            client.join(5)
            result["server_cpu"] = (u1.cpu - u0.cpu) / (t1 - t0)
            return result
        finally:
            proc.send_signal(signal.SIGTERM)
            proc.wait(10)

    def print_report(
        self, f: dict[str, Any], restart: dict[str, Any] | None, echo_rate: dict[str, Any] | None
    ) -> None:
        a, s = self.args, f["samples"]
        say("")
        say(f"== fairgammon load: {a.matches} matches, one turn per {a.pace:g} s per match, "
            f"{f['window']:.0f} s measured ==")  # fmt: skip
        say(f"servers            {len(self.bases)} address(es), {f['server_processes']} "
            f"process(es); {len(self.workers)} load generator process(es)")  # fmt: skip
        say(f"connections        {f['connections']} "
            f"({a.matches * 2} players + {a.matches * a.spectators} spectators)")  # fmt: skip
        say(f"moves/s            {f['moves_per_s']:.0f}   (all actions {f['actions_per_s']:.0f}/s;"
            f" target {a.matches / a.pace:.0f} moves/s)")  # fmt: skip
        for kind in ("move", "roll", "reveal"):
            v = s.get(kind, [])
            say(f"{kind + ' submit->ack':18s} p50 {ms(percentile(v, 50))}  p95 "
                f"{ms(percentile(v, 95))}  p99 {ms(percentile(v, 99))}  max "
                f"{ms(max(v) if v else None)} ms  (n={len(v)})")  # fmt: skip
        b = s.get("broadcast", [])
        say(f"move->opponent     p50 {ms(percentile(b, 50))}  p99 {ms(percentile(b, 99))} ms "
            f"(n={len(b)})")  # fmt: skip
        r = s.get("resume", [])
        say(f"reconnect->resumed p50 {ms(percentile(r, 50))}  p99 {ms(percentile(r, 99))} ms "
            f"(n={len(r)} dropped on purpose)")  # fmt: skip
        say(f"server CPU         {f['server_cpu'] * 100:.0f}% of a core "
            f"({f['server_cpu_per_action_us']:.0f} us per action)")  # fmt: skip
        say(f"server RSS         {mib(f['server_rss'])} total, "
            f"{f['rss_per_conn'] / 1024:.1f} KiB per connection")  # fmt: skip
        redis = f"{f['redis_cpu'] * 100:.0f}%" if f["redis_cpu"] is not None else "n/a"
        say(f"other CPU          load generators {f['gen_cpu'] * 100:.0f}%, redis {redis}")
        if f.get("pauses"):
            say(f"server pauses      {pause_line(f['pauses'])}")
        errors = {k: v for k, v in sorted(f["counters"].items())
                  if k.split(":")[0] in ("reject", "closed", "error", "gap", "duplicate_event",
                                         "connect_failed", "snapshot")}  # fmt: skip
        say(f"errors (whole run) {errors or 'none'}")
        if restart and restart["rolling"]:
            say(f"rolling restart    {restart['signal']} with {restart['held']} connections, "
                f"moved to the other process(es): exit {restart['exit_s']:.2f} s, all "
                f"{restart['resumed']} resumed {restart['all_resumed_after_signal_s']:.2f} s "
                f"after the signal; each connection away (close->resumed) p50 "
                f"{ms(restart['away_p50_ms'])} p99 {ms(restart['away_p99_ms'])} max "
                f"{ms(restart['away_max_ms'])} ms; move ack p99 {ms(restart['move_p99_ms'])} ms "
                f"(n={restart['moves']}) from the signal until all were back")  # fmt: skip
        elif restart:
            say(f"restart            {restart['signal']} with {restart['held']} connections: "
                f"exit {restart['exit_s']:.2f} s, up again {restart['healthy_s']:.2f} s, all "
                f"{restart['resumed']} resumed {restart['all_resumed_after_healthy_s']:.2f} s "
                f"after it was up ({restart['all_resumed_after_signal_s']:.2f} s after the "
                f"signal; reconnect->resumed p99 {ms(restart['resume_p99_ms'])} ms; server CPU "
                f"{restart['cpu_per_resume_ms']:.2f} ms per resumed connection)")  # fmt: skip
            if restart["back_by_s"]:
                by = ", ".join(f"{q} % {t:.2f} s" for q, t in restart["back_by_s"].items())
                busy = restart["server_cpu_s"] / max(restart["storm_s"], 1e-9) * 100
                say(f"restart storm      back by {by}, all {restart['storm_s']:.2f} s after up; "
                    f"the server process {restart['server_cpu_s']:.2f} s of CPU meanwhile "
                    f"({busy:.0f} % busy), its workers {restart['workers_cpu_s']:.2f} s"
                    )  # fmt: skip
            if restart["pauses"]:
                say(f"restarted pauses   since it started: {pause_line(restart['pauses'])}")
        if echo_rate:
            rate = echo_rate["round_trips_per_s"]
            per_rt = echo_rate["server_cpu"] / max(rate, 1) * 1e6
            say(f"echo baseline      {rate:.0f} round trips/s over "
                f"{echo_rate['connections']} sockets (one client process; echo server CPU "
                f"{echo_rate['server_cpu'] * 100:.0f}%: {per_rt:.1f} us per round trip)"
                )  # fmt: skip
            action = f["server_cpu_per_action_us"]
            say(f"action / echo      {action * rate / 1e6:.1f} echo round trips per stored action "
                f"(at the echo's rate), {action / max(per_rt, 1e-9):.1f} by the echo's CPU per "
                f"round trip")  # fmt: skip

    def close(self) -> None:
        for w in self.workers:
            if w.is_alive():
                w.terminate()
        for s in self.servers:
            s.stop()
        if self.redis:
            self.redis.stop()


def pause_line(p: dict[str, scrape.Histogram]) -> str:
    """The window's collector passes by generation and the loop's lag, as one line."""
    parts = []
    for key, name in (("gc0", "young"), ("gc1", "middle"), ("gc2", "full")):
        h = p.get(key)
        if h is None or h.count <= 0:
            parts.append(f"{name} 0")
            continue
        parts.append(f"{name} {h.count:.0f} ({h.total * 1e3:.0f} ms, longest <= "
                     f"{(h.most() or 0) * 1e3:g} ms)")  # fmt: skip
    lag = p.get("lag")
    if lag is not None and lag.count > 0:
        parts.append(f"loop lag p99 <= {(lag.quantile(0.99) or 0) * 1e3:g} ms, max <= "
                     f"{(lag.most() or 0) * 1e3:g} ms")  # fmt: skip
    line = "collector passes: " + ", ".join(parts)
    append = p.get("append")
    if append is not None and append.count > 0:
        line += (f"; store commit p99 <= {(append.quantile(0.99) or 0) * 1e3:g} ms, max <= "
                 f"{(append.most() or 0) * 1e3:g} ms")  # fmt: skip
    return line


def merged(reports: list[dict[str, Any]]) -> tuple[dict[str, list[float]], Counter[str]]:
    """The generators' reports as one: every sample by metric, every counter summed."""
    samples: dict[str, list[float]] = {}
    counters: Counter[str] = Counter()
    for r in reports:
        for k, v in r["samples"].items():
            samples.setdefault(k, []).extend(v)
        counters.update(r["counters"])
    return samples, counters


def say(text: str) -> None:
    print(text, flush=True)


def main(make: Any = None, parse: Any = None) -> None:
    """Run the benchmark: ``make(parse())``, by default this file's (bench/site.py its own)."""
    run = (make or Run)((parse or parse_args)())
    try:
        run.run()
    finally:
        run.close()


if __name__ == "__main__":
    main()
