"""Whole-game analysis time at 1-ply and at 2-ply (the deeper pass): p50/p95 over reproducible
games.

Games are played out by policies from ``harness/analysis.py`` (best against best is
closest to real play; random against random gives long games full of contact; the cube paths
come with money and match games), then each is analysed by :func:`analysis.core.analyse` on
one thread, as a worker does. Wall and CPU time are both printed: on a shared machine the CPU
time says what one game costs, the wall time what a player waits (pin with ``--cpu``).
Each game is then analysed again by the deeper pass
(:class:`analysis.equity.DeepEvaluator`: checker plays at 2-ply) as the worker runs it, on the
1-ply report's basis (its luck and cube figures, not computed again); its line says what that
costs on top (``--no-deep`` to skip it, ``--no-reuse`` to time the full deeper analysis, which
the worker falls back to without a basis).

    .venv/bin/python bench/analysis.py [--games 20] [--seed 1] [--cpu 1] [--no-deep] [--no-reuse]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from analysis.core import analyse  # noqa: E402
from analysis.equity import DeepEvaluator, Evaluator  # noqa: E402
from engine.match import MatchOptions  # noqa: E402
from harness.analysis import constructed_game  # noqa: E402

KINDS = [
    ("money, best v best, cube", ("best", "best"), MatchOptions.money(), 0.03),
    ("single, random v random", ("random", "random"), MatchOptions.single_game(), 0.0),
    ("money, random v best, cube", ("random", "best"), MatchOptions.money(), 0.08),
    ("match to 5, random v random, cube", ("random", "random"), MatchOptions.match(5), 0.08),
]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    k = min(len(ordered) - 1, max(0, round(p / 100 * (len(ordered) - 1))))
    return ordered[k]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="games per kind (default 20)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cpu", type=int, help="pin to this CPU")
    parser.add_argument("--no-deep", action="store_true", help="skip the 2-ply pass")
    parser.add_argument("--no-reuse", action="store_true",
                        help="the 2-ply pass computes luck and cube again")
    args = parser.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})
    started = time.perf_counter()
    evaluator = Evaluator()
    deeper = DeepEvaluator(evaluator.nets)
    print(f"nets loaded in {time.perf_counter() - started:.2f} s")
    every: list[float] = []
    every_cpu: list[float] = []
    deep: list[float] = []
    deep_cpu: list[float] = []
    for label, policies, options, rate in KINDS:
        times, cpus, turns = [], [], []
        for i in range(args.games):
            _, game = constructed_game(policies, args.seed * 1000 + i, evaluator, options,
                                       double_rate=rate)
            t, c = time.perf_counter(), time.process_time()
            report = analyse(game, evaluator)
            times.append(time.perf_counter() - t)
            cpus.append(time.process_time() - c)
            turns.append(len(game.turns))
            if not args.no_deep:
                t, c = time.perf_counter(), time.process_time()
                analyse(game, deeper, basis=None if args.no_reuse else report.basis())
                deep.append(time.perf_counter() - t)
                deep_cpu.append(time.process_time() - c)
        every += times
        every_cpu += cpus
        print(f"{label:36s} {len(times)} games, {statistics.mean(turns):5.1f} turns: "
              f"wall p50 {percentile(times, 50):.2f} s  p95 {percentile(times, 95):.2f} s  "
              f"max {max(times):.2f} s; CPU p50 {percentile(cpus, 50):.2f} s  "
              f"p95 {percentile(cpus, 95):.2f} s")
    print(f"{'all':36s} {len(every)} games: wall p50 {percentile(every, 50):.2f} s  "
          f"p95 {percentile(every, 95):.2f} s; CPU p50 {percentile(every_cpu, 50):.2f} s  "
          f"p95 {percentile(every_cpu, 95):.2f} s")
    if deep:
        label = "all, deeper pass" + (" (full)" if args.no_reuse else " (on the basis)")
        print(f"{label:36s} {len(deep)} games: "
              f"wall p50 {percentile(deep, 50):.2f} s  p95 {percentile(deep, 95):.2f} s; "
              f"CPU p50 {percentile(deep_cpu, 50):.2f} s  p95 {percentile(deep_cpu, 95):.2f} s")
    print(f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
