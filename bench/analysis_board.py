"""The analysis board against GNU Backgammon: does our best play agree with gnubg's?

Positions come from seeded games where both sides play gnubg's 0-ply choice or, 15% of the
time, a random legal play (``harness.board_oracle.played_games``); half are contact positions,
half races, each with a random roll that has more than one legal play. For each, the board
(:func:`analysis.board.analyse_position`, money, cube centred, as a player gets it) ranks every
play at 2-ply and at 3-ply, and ``gnubg-nn`` (a test-only oracle) ranks them at its 1-ply and
2-ply.

**Plies.** bgsage counts the net itself as 1-ply, gnubg as 0-ply: gnubg's N-ply looks exactly
as far ahead as our (N+1)-ply. So *like with like* is our 2-ply against gnubg's 1-ply and our
3-ply against gnubg's 2-ply; the issue's own wording ("our 2-ply ... gnubg 2-ply") compares
our 2-ply with a search one roll deeper, and is printed too.

**Agreement.** Our best play is among gnubg's top two when gnubg values it at least as high as
the play gnubg ranks second, at the same depth: plays of equal value share a rank (in a
decided race every play is worth exactly -1 or -2, and the order gnubg lists them in is
arbitrary), and a play gnubg's move filter left out of its list counts when gnubg's own
evaluation of it is that high. Three readings are printed:

* *listed*: our play is one of the two plays gnubg lists first (ties broken by gnubg's order);
* *ties shared*: gnubg's value of our play >= its second's − 1e-6 (equal up to float noise):
  the figure the docs report;
* *±0.001*: the same within 0.001, the precision gnubg shows equities in.

Also printed: the mean equity our choice gives away by gnubg's judgement at the compared depth
(cubeless, the unit gnubg reports), and the mean absolute difference between the two engines'
cubeless equities of our 2-ply choice at the same depth (ours 2-ply, gnubg 1-ply).

    .venv/bin/python bench/analysis_board.py [--positions 500] [--seed 1] [--cubeless]

``--cubeless`` ranks with the cube out of play (gnubg's own criterion) instead.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from analysis.board import analyse_position, setup_from_ids  # noqa: E402
from brain.context import CubeContext  # noqa: E402
from engine import position_id  # noqa: E402
from harness.board_oracle import board_cases, gnubg_equity, gnubg_ranking  # noqa: E402

EXACT = 1e-6
SHOWN = 0.001
PAIRS = ((2, 1), (3, 2), (2, 2))
"""(our ply, gnubg's ply): like with like first, then the issue's literal comparison."""


def judge(position, d1, d2, cubeless: bool) -> dict:
    setup = setup_from_ids(position_id.encode(position), None, (d1, d2))
    if cubeless:
        setup = replace(setup, context=CubeContext(cube_in_play=False))
    out: dict = {"kind": "contact" if position.is_contact() else "race"}
    chosen = {}
    for ours in (2, 3):
        started = time.perf_counter()
        best = analyse_position(setup, ours).plays[0]
        out[f"seconds{ours}"] = time.perf_counter() - started
        chosen[ours] = (best, position_id.decode(best.position_id))
    tops = {g: gnubg_ranking(position, d1, d2, g) for g in (1, 2)}
    for ours, theirs in PAIRS:
        after = chosen[ours][1]
        top = tops[theirs]
        mine = gnubg_equity(after, theirs)
        second = top[1][1] if len(top) > 1 else top[0][1]
        key = f"{ours}/{theirs}"
        out[f"listed {key}"] = after in [p for p, _ in top[:2]]
        out[f"shared {key}"] = out[f"listed {key}"] or mine >= second - EXACT
        out[f"shown {key}"] = out[f"listed {key}"] or mine >= second - SHOWN
        out[f"loss {key}"] = max(0.0, top[0][1] - mine)
    best2, after2 = chosen[2]
    out["engines"] = abs(best2.probs.cubeless_equity - gnubg_equity(after2, 1))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cubeless", action="store_true")
    args = parser.parse_args()
    half = args.positions // 2
    cases = board_cases(args.seed, half, args.positions - half, games=max(60, args.positions // 4))
    rows = []
    started = time.perf_counter()
    for i, case in enumerate(cases, 1):
        rows.append(judge(*case, cubeless=args.cubeless))
        if i % 100 == 0:
            print(f"  {i} positions, {time.perf_counter() - started:.0f} s", flush=True)
    context = "cubeless money" if args.cubeless else "money, cube centred"
    print(f"\n{len(rows)} positions ({context}), our best play among gnubg-nn's top two "
          f"(listed / ties shared / ±0.001), and the mean equity it gives away by gnubg (max):\n")
    print("| positions | " + " | ".join(f"ours {o}-ply vs gnubg {g}-ply" for o, g in PAIRS)
          + " | engines' difference |")
    print("|---|" + "---|" * (len(PAIRS) + 1))
    for kind in ("contact", "race", "all"):
        part = [r for r in rows if kind in ("all", r["kind"])]
        n = len(part)

        def pct(key: str, part=part, n=n) -> str:
            return f"{100 * sum(r[key] for r in part) / n:.1f}%"

        cells = []
        for o, g in PAIRS:
            k = f"{o}/{g}"
            losses = [r[f"loss {k}"] for r in part]
            cells.append(f"{pct('listed ' + k)} / **{pct('shared ' + k)}** / {pct('shown ' + k)}; "
                         f"{statistics.mean(losses):.4f} ({max(losses):.3f})")
        print(f"| {kind} ({n}) | " + " | ".join(cells)
              + f" | {statistics.mean(r['engines'] for r in part):.4f} |")
    for ours in (2, 3):
        seconds = sorted(r[f"seconds{ours}"] for r in rows)
        print(f"\nour {ours}-ply ranking: p50 {seconds[len(seconds) // 2]:.3f} s, "
              f"p95 {seconds[int(len(seconds) * 0.95)]:.3f} s per position (wall, one thread)")
    print(f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
