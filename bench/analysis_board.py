"""The analysis board against GNU Backgammon: does our 2-ply best play agree with gnubg's?

Positions come from seeded games where both sides play gnubg's 0-ply choice or, 15% of the
time, a random legal play (``harness.board_oracle.played_games``); half are contact positions,
half races, each with a random roll that has more than one legal play. For each, the board
(:func:`analysis.board.analyse_position`, money, cube centred, as a player gets it) ranks every
play at 2-ply, and ``gnubg-nn`` (a test-only oracle) ranks them at its 2-ply (gnubg counts from
0: its 2-ply looks one roll further than ours) and at its 1-ply (our 2-ply's depth).

Printed, for contact, race and all:

* agreement: our best play is among gnubg 2-ply's top two — strictly (one of the two plays gnubg
  lists first), and counting as top two every play gnubg values within 0.001 of its second
  (ties at the precision equities are shown in);
* the same against gnubg 1-ply;
* the mean equity our choice gives away by gnubg's 2-ply judgement (cubeless, the unit gnubg
  reports), and the largest;
* the mean absolute difference between the two engines' cubeless equities of our chosen play
  at the same depth (our 2-ply, gnubg's 1-ply).

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

TIE = 0.001


def judge(position, d1, d2, cubeless: bool) -> dict:
    setup = setup_from_ids(position_id.encode(position), None, (d1, d2))
    if cubeless:
        setup = replace(setup, context=CubeContext(cube_in_play=False))
    started = time.perf_counter()
    best = analyse_position(setup, 2).plays[0]
    ours_seconds = time.perf_counter() - started
    after = position_id.decode(best.position_id)
    out = {"kind": "contact" if position.is_contact() else "race", "seconds": ours_seconds}
    for plies in (2, 1):
        top = gnubg_ranking(position, d1, d2, plies)
        mine = gnubg_equity(after, plies)
        second = top[1][1] if len(top) > 1 else top[0][1]
        strict = after in [p for p, _ in top[:2]]
        out[f"strict{plies}"] = strict
        out[f"agree{plies}"] = strict or mine >= second - TIE
        out[f"loss{plies}"] = max(0.0, top[0][1] - mine)
    out["engines"] = abs(best.probs.cubeless_equity - gnubg_equity(after, 1))
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
    print(f"\n{len(rows)} positions ({context}), our 2-ply against gnubg-nn:\n")
    print("| positions | top 2 of gnubg 2-ply (strict / ties ±0.001) | top 2 of gnubg 1-ply "
          "| mean loss by gnubg 2-ply (max) | mean engine difference |")
    print("|---|---|---|---|---|")
    for kind in ("contact", "race", "all"):
        part = [r for r in rows if kind in ("all", r["kind"])]
        n = len(part)

        def pct(key: str, part=part, n=n) -> str:
            return f"{100 * sum(r[key] for r in part) / n:.1f}%"

        losses = [r["loss2"] for r in part]
        print(f"| {kind} ({n}) | {pct('strict2')} / {pct('agree2')} | {pct('strict1')} / "
              f"{pct('agree1')} | {statistics.mean(losses):.4f} ({max(losses):.4f}) | "
              f"{statistics.mean(r['engines'] for r in part):.4f} |")
    seconds = sorted(r["seconds"] for r in rows)
    print(f"\nour 2-ply ranking: p50 {seconds[len(seconds) // 2]:.3f} s, "
          f"p95 {seconds[int(len(seconds) * 0.95)]:.3f} s per position (wall, one thread); "
          f"total {time.perf_counter() - started:.0f} s")


if __name__ == "__main__":
    main()
