"""The largest site this machine serves within the targets: ``bench/site.py`` stepped up.

    .venv/bin/python bench/site_search.py --matches 250,500,750,1000 --games 8,16,32,64

First the people's matches: ``bench/site.py`` with each ``--matches`` in turn (and the first
``--games``) until the move ack target fails; then, at the largest number of matches that
held, each ``--games`` in turn until the computer's or the analysis's target fails. Every run
is a fresh ``bench/site.py`` (its own Redis and servers); ``--repeat`` runs each step that
many times and counts a step as held only when every run held (this machine is shared: one
lucky run proves little). Arguments after ``--`` go to every ``bench/site.py`` run as they are
(``-- --seconds 60 --warmup 20``).

It prints each run's figures as it goes, then a table: matches, games, move ack p99, bot p95,
analysis p95, server CPU, and which targets held. The targets are bench/site.py's.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Step:
    matches: int
    games: int
    move_p99: float | None
    bot_p95: float | None
    analysis_p95: float | None
    server_cpu: str
    held: dict[str, bool | None]
    load: str

    def ok(self, *targets: str) -> bool:
        return all(self.held.get(t) is not False for t in targets)


def _ms(text: str, label: str, q: str) -> float | None:
    """The ``pQ`` figure (ms) of the line starting with ``label`` (None: no sample)."""
    line = next((x for x in text.splitlines() if x.startswith(label)), "")
    found = re.search(rf"p{q} ([0-9.]+|-)", line)
    return None if not found or found.group(1) == "-" else float(found.group(1))


def parse(text: str, matches: int, games: int, load: str) -> Step:
    """One bench/site.py report read back (see its print_site)."""
    targets = next((x for x in text.splitlines() if x.startswith("targets")), "")
    held: dict[str, bool | None] = {}
    for key, name in (("move", "move ack"), ("bot", "bot p95"), ("analysis", "analysis p95")):
        found = re.search(rf"{name}[^:]*: (yes|NO|n/a)", targets)
        held[key] = None if not found or found.group(1) == "n/a" else found.group(1) == "yes"
    cpu = next((x for x in text.splitlines() if x.startswith("CPU")), "")
    bot = [v for v in (_ms(text, "bot play", "95"), _ms(text, "bot roll", "95")) if v is not None]
    return Step(
        matches,
        games,
        _ms(text, "move ack", "99"),
        max(bot) if bot else None,
        _ms(text, "analysis after end", "95"),
        cpu.split("core", 1)[-1].strip() if cpu else "?",
        held,
        load,
    )


def run(matches: int, games: int, extra: list[str]) -> Step:
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    command = [sys.executable, str(HERE / "site.py"), "--matches", str(matches), "--games",
               str(games), *extra]  # fmt: skip
    print(f"\n$ bench/site.py --matches {matches} --games {games} {' '.join(extra)}  (load {load})")
    started = time.monotonic()
    done = subprocess.run(command, check=False, capture_output=True, text=True, cwd=HERE.parent)
    report = done.stdout[done.stdout.rfind("== fairgammon site") :]
    print(report.rstrip() or done.stderr[-2000:])
    print(f"({time.monotonic() - started:.0f} s)")
    return parse(report, matches, games, load)


def fmt(v: float | None) -> str:
    return "-" if v is None else f"{v:.0f} ms"


def main() -> None:
    argv = sys.argv[1:]
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    ours = argv[: argv.index("--")] if "--" in argv else argv
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--matches", default="250,500,750,1000,1500")
    p.add_argument("--games", default="8,16,32,64")
    p.add_argument("--repeat", type=int, default=1)
    a = p.parse_args(ours)
    counts = [int(x) for x in a.matches.split(",")]
    games = [int(x) for x in a.games.split(",")]
    steps: list[Step] = []

    def held(n: int, g: int, *targets: str) -> bool:
        results = [run(n, g, extra) for _ in range(a.repeat)]
        steps.extend(results)
        return all(r.ok(*targets) for r in results)

    best_n = None
    for n in counts:
        if not held(n, games[0], "move", "bot", "analysis"):
            break
        best_n = n
    best_g = None
    if best_n is not None:
        best_g = games[0]
        for g in games[1:]:
            if not held(best_n, g, "move", "bot", "analysis"):
                break
            best_g = g
    print("\n| matches | games | move ack p99 | bot p95 | analysis p95 | CPU | held | load |")
    print("|---|---|---|---|---|---|---|---|")
    for s in steps:
        marks = ", ".join(f"{k} {'-' if v is None else ('yes' if v else 'NO')}"
                          for k, v in s.held.items())  # fmt: skip
        print(f"| {s.matches} | {s.games} | {fmt(s.move_p99)} | {fmt(s.bot_p95)} | "
              f"{fmt(s.analysis_p95)} | {s.server_cpu} | {marks} | {s.load} |")  # fmt: skip
    print(f"\nlargest held: {best_n} matches with {best_g} games against the computer")


if __name__ == "__main__":
    main()
