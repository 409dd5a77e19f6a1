"""The whole site on this machine, as it runs: people's matches, games against the computer,
the analysis of every finished game and the pages polled as browsers do — in one run.

    .venv/bin/python bench/site.py --matches 500 --games 8 --browsers 50 --seconds 60
    .venv/bin/python bench/site.py --start 1 --matches 200 --games 4 --analysers 2

It starts a private redis-server (AOF, ``appendfsync always``) and ``--start`` server
processes of this checkout (default 2). The first runs the workers as ``fairgammon serve``
does by default: ``--bots`` bot worker process(es) and ``--analysers`` analysis worker
process(es) (the others run none: a bot's seat sits on the process its worker connects to).
Then, all at once:

* **people's matches**: ``--matches`` money sessions between two paced clients, one turn per
  ``--pace`` seconds, ``--spectators`` watchers each, seat 1 of half of them on another
  process than seat 0 (the load generators of ``bench/load.py``, which say what a turn is);
* **games against the computer**: ``--games`` going at once, levels in turn
  (``--levels``), the human thinking ``--think`` seconds on average per decision; the bot
  worker answers with no pause of its own (``FAIRGAMMON_BOT_DELAY_MS=0``: its configured
  think pause is a constant added to what is measured);
* **analysis** of every finished game by the analysis worker(s), first report then the
  deeper one (``docs/analysis.md``), asked for as the match page asks;
* **pages**: ``--browsers`` open pages asking the lobby's lists every 4 s and the boards
  every 30 s (``bench/loadgen/site_lanes.py``).

After ``--warmup`` seconds it measures for ``--seconds`` and prints: move ack p50/p99 of the
people's matches, the bot's response p50/p95 as the player sees it (from the server
timestamps of each game's transcript), the delay from a game's end to its analysis and to the
deeper one (p50/p95, games ended in the window, waiting up to ``--drain`` s for them), page
answers p50/p95, the CPU and memory of each kind of process (servers, bot worker, analysis
worker, Redis, and the load's own), and whether the targets of docs/load.md hold: move ack
p99 < 100 ms, bot p95 < 500 ms, analysis p95 < 10 s. Last, the bare WebSocket echo of
``bench/load.py`` (``--echo-seconds 0``: none), whose rate is the machine's yardstick.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import sys
import time
from pathlib import Path
from typing import Any

# Run as a script, this file's folder comes first on sys.path: put the checkout it belongs to
# ahead of any installed copy of the project.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import load
from loadgen import procs, site_lanes
from loadgen.stats import mib, ms, percentile

TARGETS = {"move": 100.0, "bot": 500.0, "analysis": 10_000.0}
"""The site's targets (ms): move ack p99, bot response p95, analysis delay p95."""


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--start", type=int, default=2, help="server processes")
    p.add_argument("--workers", type=int, default=1, help="uvicorn workers per server")
    p.add_argument("--bots", type=int, default=1, help="bot worker processes")
    p.add_argument("--analysers", type=int, default=1, help="analysis worker processes")
    p.add_argument("--no-deep", action="store_true", help="no deeper analysis pass")
    p.add_argument("--matches", type=int, default=200, help="people's matches")
    p.add_argument("--pace", type=float, default=5.0, help="seconds per turn per match")
    p.add_argument("--spectators", type=int, default=1, help="watchers per match")
    p.add_argument("--games", type=int, default=4, help="games against the computer at once")
    p.add_argument("--levels", default="easy,normal,hard,expert")
    p.add_argument("--think", type=float, default=2.0, help="the human's mean seconds a decision")
    p.add_argument("--browsers", type=int, default=20, help="pages open, polling")
    p.add_argument("--warmup", type=float, default=20.0)
    p.add_argument("--seconds", type=float, default=60.0, help="measured window")
    p.add_argument("--drain", type=float, default=120.0, help="wait for the window's analyses")
    p.add_argument("--echo-seconds", type=float, default=5.0, help="0: no echo baseline")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    # What bench/load.py's machinery reads.
    args.server, args.generators, args.connect_rate, args.drops = None, 0, 400.0, 0
    args.restart, args.kill, args.py_spy, args.server_env = False, False, None, []
    args.echo_connections, args.reconnect_cap = 64, 2.0
    return args


def kind_of(pid: int) -> str:
    """``server``, ``bots`` or ``analysis``: what a process under ``fairgammon serve`` is."""
    try:
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return "server"
    if b"server.cli" in argv and len(argv) > argv.index(b"server.cli") + 1:
        command = argv[argv.index(b"server.cli") + 1]
        if command == b"bots":
            return "bots"
        if command == b"analyse":
            return "analysis"
    return "server"


class Site(load.Run):
    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(args)
        self.lanes: Any = None
        self.lanes_pipe: Any = None

    def server_env(self, i: int) -> dict[str, str]:
        """The first process runs the workers; the bot answers with no pause of its own."""
        a = self.args
        return {
            "FAIRGAMMON_BOTS": str(a.bots if i == 0 else 0),
            "FAIRGAMMON_ANALYSERS": str(a.analysers if i == 0 else 0),
            "FAIRGAMMON_BOT_DELAY_MS": "0",
            "FAIRGAMMON_ANALYSIS_DEEP": "0" if a.no_deep else "1",
        }

    def start_lanes(self) -> None:
        a = self.args
        config = site_lanes.LanesConfig(
            servers=tuple(self.bases),
            games=a.games,
            levels=tuple(a.levels.split(",")),
            think=a.think,
            browsers=a.browsers,
            seed=a.seed,
            deep=not a.no_deep,
        )
        parent, child = self.ctx.Pipe()
        self.lanes = self.ctx.Process(target=site_lanes.run, args=(config, child), daemon=True)
        self.lanes.start()
        self.lanes_pipe = parent

    def by_kind(self) -> dict[str, list[int]]:
        out: dict[str, list[int]] = {"server": [], "bots": [], "analysis": []}
        for server in self.servers:
            for pid in server.pids():
                out[kind_of(pid)].append(pid)
        out["redis"] = self.redis_pids()
        out["load"] = [w.pid for w in self.workers if w.pid] + [self.lanes.pid]
        return out

    def usage(self) -> dict[str, procs.Usage]:
        return {kind: procs.Usage.of(pids) for kind, pids in self.by_kind().items()}

    def run(self) -> None:
        a = self.args
        self.start_servers()
        self.start_generators()
        self.start_lanes()
        started = time.monotonic()
        self.gather("setup")
        self.tell("connect")
        connected = self.gather("connected", timeout=3600)
        live = sum(m[1] for m in connected)
        load.say(
            f"{a.matches} matches set up and {live} sockets connected in "
            f"{time.monotonic() - started:.1f} s; starting the computer's games and the pages"
        )
        self.lanes_pipe.send(("go",))
        self.pump(a.warmup)
        u0, p0, t0 = self.usage(), self.pauses(), time.monotonic()
        load.say(f"measuring for {a.seconds:.0f} s")
        self.pump(a.seconds)
        u1, p1, t1 = self.usage(), self.pauses(), time.monotonic()
        pauses = load.scrape.window(p0, p1) if p0 and p1 else None
        self.tell("report", t0, t1)
        reports = [m[1] for m in self.gather("report")]
        load.say(f"waiting up to {a.drain:.0f} s for the analyses of the window's games")
        self.lanes_pipe.send(("report", t0, t1, a.drain))
        while not self.lanes_pipe.poll(0):
            self.pump(1.0)  # the people's matches go on meanwhile (their progress is read)
        lanes = self.lanes_pipe.recv()[1]
        self.lanes_pipe.send(("stop",))
        self.tell("stop")
        self.gather("stopped", timeout=60)
        if self.lanes_pipe.poll(30):
            self.lanes_pipe.recv()
        echo_rate = self.echo() if a.echo_seconds > 0 else None
        self.print_site(reports, lanes, (u0, u1), t1 - t0, live, echo_rate, pauses)

    def print_site(
        self,
        reports: list[dict[str, Any]],
        lanes: dict[str, Any],
        usage: tuple[dict[str, procs.Usage], dict[str, procs.Usage]],
        window: float,
        live: int,
        echo_rate: dict[str, Any] | None,
        pauses: dict[str, load.scrape.Histogram] | None = None,
    ) -> None:
        a = self.args
        samples, counters = load.merged(reports)
        s = {**samples, **lanes["samples"]}
        actions = sum(len(samples.get(k, [])) for k in ("roll", "reveal", "move", "commit"))

        def line(name: str, values: list[float], qs: tuple[int, ...], unit: str = "ms") -> str:
            figures = "  ".join(f"p{q} {ms(percentile(values, q))}" for q in qs)
            return f"{name:22s}{figures} {unit}  (n={len(values)})"

        bot = s.get("bot_play", []) + s.get("bot_roll", [])
        load.say("")
        load.say(
            f"== fairgammon site: {a.matches} matches (a turn per {a.pace:g} s, "
            f"{a.spectators} watcher(s) each) on {a.start} process(es), {a.games} games "
            f"against the computer ({a.levels}), {a.browsers} browsers; {window:.0f} s "
            "measured =="
        )
        load.say(f"connections           {live}; stored actions {actions / window:.0f}/s")
        load.say(line("move ack", samples.get("move", []), (50, 99)))
        load.say(line("bot play", s.get("bot_play", []), (50, 95)))
        load.say(line("bot roll", s.get("bot_roll", []), (50, 95)))
        load.say(line("analysis after end", s.get("analysis", []), (50, 95)))
        load.say(line("deeper after end", s.get("deeper", []), (50, 95)))
        load.say(line("page answer", s.get("page", []), (50, 95)))
        before, after = usage
        cpu = {k: (after[k].cpu - before[k].cpu) / window * 100 for k in after}
        load.say("CPU, % of a core      " + ", ".join(f"{k} {v:.0f}%" for k, v in cpu.items()))
        load.say(
            "memory (RSS)          "
            + ", ".join(f"{k} {mib(after[k].rss)}" for k in after if k != "load")
        )
        if actions:
            per = (after["server"].cpu - before["server"].cpu) / actions * 1e6
            load.say(
                f"server CPU per stored action {per:.0f} us (people's actions; the rest of the "
                "site's work included)"
            )
        if pauses:
            load.say(f"server pauses         {load.pause_line(pauses)}")
        games = {k: v for k, v in sorted(lanes["counters"].items()) if v}
        errors = {
            k: v
            for k, v in sorted(counters.items())
            if k.split(":")[0] in ("reject", "closed", "error", "gap", "connect_failed")
        }
        load.say(f"the computer's games  {games}")
        load.say(f"errors                {errors or 'none'}")
        checks = (
            ("move ack p99 < 100 ms", percentile(samples.get("move", []), 99), TARGETS["move"]),
            ("bot p95 < 500 ms", percentile(bot, 95), TARGETS["bot"]),
            ("analysis p95 < 10 s", percentile(s.get("analysis", []), 95), TARGETS["analysis"]),
        )
        load.say(
            "targets               "
            + "; ".join(
                f"{name}: {'n/a' if v is None else ('yes' if v < limit else 'NO')}"
                for name, v, limit in checks
            )
        )
        if echo_rate:
            load.say(
                f"echo baseline         {echo_rate['round_trips_per_s']:.0f} round trips/s "
                f"({1e6 / echo_rate['round_trips_per_s']:.0f} us each)"
            )

    def close(self) -> None:
        if self.lanes is not None and self.lanes.is_alive():
            self.lanes.terminate()
        super().close()


def main() -> None:
    mp.set_start_method("spawn", force=True)
    load.main(Site, parse_args)


if __name__ == "__main__":
    main()
