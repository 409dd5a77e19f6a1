"""The server's action against the floor of an action, alternated in one sitting.

    .venv/bin/python bench/above_floor.py                     # 1,000 matches, 3 rounds of 30 s
    .venv/bin/python bench/above_floor.py --matches 500 --rounds 2 --seconds 20

Each round runs ``bench/load.py --start 1`` (the server: ``--matches`` matches on one process,
a turn per ``--pace`` seconds each, three stored actions a turn) and ``bench/floor.py`` with the
same traffic (as many pairs of sockets, the same actions a second in chains of three, the
rules' work and the probes every 2 s, as the server probes), one after the other, the order
swapped every round (floor first in odd rounds) so that a machine getting busier or quieter
does not favour either. Every run is a fresh process with its own Redis and its own echo.

It prints each run's CPU per action and echo round trips as the two scripts report them, the
load average before it, and per round the server's CPU per action over the floor's: what the
server's own shell costs above the work no server in this stack can skip (``docs/load.md``,
"the floor of an action"). That ratio, measured in the same sitting, is the figure that counts
on a shared machine: both runs pay the same noise. ``--most`` (1.5 by default) is the ratio the
summary checks every round against.
"""

from __future__ import annotations

import argparse
import dataclasses
import re
import statistics
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


class ReportError(RuntimeError):
    """A run ended without the figures it prints (the tail of its output says why)."""


@dataclass(frozen=True)
class Run:
    """One run's figures: CPU per stored action (us) and echo round trips by the echo's CPU."""

    what: str
    cpu_us: float
    round_trips: float
    actions_per_s: float
    load: str
    errors: str = "none"


def _figure(pattern: str, text: str, what: str) -> str:
    found = re.search(pattern, text)
    if not found:
        raise ReportError(f"{what}: no {pattern!r} in its report:\n{text[-2000:]}")
    return found.group(1)


_FLOOR = (
    r"floor CPU\s+([\d.]+) us per action",
    r"floor / echo\s+([\d.]+) echo round trips",
    r"actions\s+(\d+)/s acked",
)
_SERVER = (
    r"server CPU\s+\d+% of a core \(([\d.]+) us per action\)",
    r"([\d.]+) by the echo's CPU per round trip",
    r"\(all actions (\d+)/s",
)


def _parse(what: str, patterns: tuple[str, str, str], text: str, load: str) -> Run:
    """A report read back: CPU per action, echo round trips and actions a second."""
    cpu, round_trips, rate = (float(_figure(x, text, what)) for x in patterns)
    return Run(what, cpu, round_trips, rate, load)


def parse_floor(text: str, load: str) -> Run:
    """``bench/floor.py``'s report read back (its last lines)."""
    return _parse("floor", _FLOOR, text, load)


def parse_server(text: str, load: str) -> Run:
    """``bench/load.py``'s report read back (its summary, and its errors)."""
    run = _parse("server", _SERVER, text, load)
    errors = _figure(r"errors \(whole run\) (.*)", text, "server").strip()
    return dataclasses.replace(run, errors=errors)


def loadavg() -> str:
    return " ".join(Path("/proc/loadavg").read_text().split()[:3])


def run_script(command: list[str], timeout: float) -> str:
    done = subprocess.run(
        command, cwd=HERE.parent, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        raise ReportError(f"{' '.join(command[1:])} exited {done.returncode}:\n"
                          f"{done.stderr[-2000:]}")  # fmt: skip
    return done.stdout


def floor_command(a: argparse.Namespace) -> list[str]:
    rate = 3 * a.matches / a.pace  # roll, reveal, move: three stored actions a turn
    return [sys.executable, str(HERE / "floor.py"), "--pairs", str(a.matches), "--rate",
            f"{rate:g}", "--rules", "--probes", "2", "--chain", "3", "--seconds",
            f"{a.seconds:g}", "--warmup", f"{a.warmup:g}", "--echo-seconds",
            f"{a.echo_seconds:g}", "--echo-connections", str(a.echo_connections),
            "--echo-ws", a.echo_ws]  # fmt: skip


def server_command(a: argparse.Namespace) -> list[str]:
    return [sys.executable, str(HERE / "load.py"), "--start", "1", "--matches", str(a.matches),
            "--pace", f"{a.pace:g}", "--seconds", f"{a.seconds:g}", "--warmup",
            f"{a.warmup:g}", "--echo-seconds", f"{a.echo_seconds:g}", "--echo-connections",
            str(a.echo_connections), "--echo-ws", a.echo_ws]  # fmt: skip


def measure(what: str, a: argparse.Namespace) -> Run:
    load = loadavg()
    timeout = 300 + 2 * (a.seconds + a.warmup + a.echo_seconds) + a.matches / 50
    if what == "floor":
        run = parse_floor(run_script(floor_command(a), timeout), load)
    else:
        run = parse_server(run_script(server_command(a), timeout), load)
    print(f"  {run.what:6}  {run.cpu_us:7.1f} us per action  {run.round_trips:5.1f} echo round "
          f"trips  {run.actions_per_s:.0f} actions/s  (load {load}"
          f"{'' if run.errors == 'none' else '; errors ' + run.errors})", flush=True)  # fmt: skip
    return run


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", type=int, default=1000, help="matches (the floor: pairs)")
    p.add_argument("--pace", type=float, default=5.0, help="seconds per turn per match")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--seconds", type=float, default=30.0, help="measured window of each run")
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--echo-seconds", type=float, default=5.0)
    p.add_argument("--echo-connections", type=int, default=64)
    p.add_argument("--echo-ws", default="websockets-sansio", help="the echo's uvicorn protocol")
    p.add_argument("--most", type=float, default=1.5, help="the ratio each round is checked at")
    a = p.parse_args(argv)
    if a.rounds < 1 or a.matches < 1:
        p.error("--rounds and --matches are at least 1")
    print(f"== the server against the floor: {a.matches} matches, a turn per {a.pace:g} s, "
          f"{a.rounds} round(s) of {a.seconds:g} s ==", flush=True)  # fmt: skip
    ratios: list[float] = []
    above: list[float] = []
    for i in range(a.rounds):
        print(f"round {i + 1}", flush=True)
        order = ("floor", "server") if i % 2 == 0 else ("server", "floor")
        runs = {what: measure(what, a) for what in order}
        ratios.append(runs["server"].cpu_us / runs["floor"].cpu_us)
        above.append(runs["server"].round_trips - runs["floor"].round_trips)
        print(f"  server / floor {ratios[-1]:.2f} of the floor's CPU, "
              f"{above[-1]:+.1f} echo round trips", flush=True)  # fmt: skip
    held = sum(r <= a.most for r in ratios)
    spread = f" (from {min(ratios):.2f} to {max(ratios):.2f})" if len(ratios) > 1 else ""
    print(f"server / floor     {statistics.fmean(ratios):.2f} of the floor's CPU per action on "
          f"average{spread}, {statistics.fmean(above):+.1f} echo round trips")  # fmt: skip
    print(f"at most {a.most:g}       held in {held} of {len(ratios)} round(s)")


if __name__ == "__main__":
    main()
