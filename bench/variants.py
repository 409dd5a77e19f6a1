"""The variants' move generators: speed, and the big differential runs the unit tests sample.

For each variant (engine.variants), on a reproducible mix of positions from seeded random play
(plus plakoto's and fevga's rule families from harness/variant_corpus.py), each with a seeded
roll:

* ``legal_plays``: positions and plays per second (best of ``--repeats`` rounds), next to
  backgammon's on its own random play for scale;
* ``validate``: a legal play, in its listed order, per second;
* the reference generator on a subset (positions per second, one round);
* ``--check N``: fast against reference on N positions per variant (and against gnubg_nn for
  nackgammon and hypergammon), printing how many agree;
* ``--perft``: perft depth 2 from each start by the fast and the reference generators, depth 3
  for plakoto and fevga.

The machine may be shared: pin the process (``--cpu``) and compare ratios.

    .venv/bin/python bench/variants.py [--positions 2000] [--repeats 5] [--check 20000] [--perft]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an install

from engine.variants import VARIANTS, variant
from harness.variant_corpus import FAMILIES, ROLLS, family_cases, random_play_cases


def cases_for(name: str, seed: int, n: int) -> list:
    v = variant(name)
    games = max(20, n // (8 if name == "hypergammon" else 25))  # hypergammon's games are short
    if name not in FAMILIES:
        return random_play_cases(v, seed, n, games=games)
    tricky = [c for f in family_cases(name, seed + 1, max(1, n // 10)).values() for c in f]
    return random_play_cases(v, seed, n - len(tricky), games=games) + tricky


def speed(name: str, cases: list, repeats: int) -> tuple[float, float, float]:
    """(positions/s, plays/s, validations/s), best of ``repeats`` rounds."""
    v = variant(name)
    plays = sum(len(v.legal_plays(*c)) for c in cases)
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        for c in cases:
            v.legal_plays(*c)
        best = min(best, time.perf_counter() - t0)
    submissions = []
    for position, d1, d2 in cases:
        found = v.legal_plays(position, d1, d2)
        if found:
            submissions.append((position, d1, d2, list(found[len(found) // 2].moves)))
    valid = float("inf")
    for _ in range(max(1, repeats // 2)):
        t0 = time.perf_counter()
        for position, d1, d2, moves in submissions:
            v.validate(position, d1, d2, moves)
        valid = min(valid, time.perf_counter() - t0)
    return len(cases) / best, plays / best, len(submissions) / valid


def check(name: str, n: int, seed: int) -> str:
    v = variant(name)
    cases = cases_for(name, seed, n)
    agree = sum(
        {p.position for p in v.legal_plays(*c)} == set(v.reference(*c)) for c in cases
    )
    line = f"  {name:12} fast = reference on {agree:,} of {len(cases):,} positions"
    if name in ("nackgammon", "hypergammon"):
        import gnubg_nn as gnubg

        same = 0
        for position, d1, d2 in cases:
            keys = gnubg.moves((position.opponent[1:26], position.mover[1:26]), d1, d2)
            theirs = {gnubg.board_from_position_key(k) for k in keys}
            ours = {(p.position.opponent[1:26], p.position.mover[1:26])
                    for p in v.legal_plays(position, d1, d2)}
            same += {(tuple(a), tuple(b)) for a, b in theirs} == ours
        line += f"; = gnubg_nn on {same:,}"
    return line


def perft(v, position, depth: int, reference: bool) -> int:
    if depth == 0:
        return 1
    total = 0
    for d1, d2 in ROLLS:
        if reference:
            results = list(v.reference(position, d1, d2)) or [position]
        else:
            results = [p.position for p in v.legal_plays(position, d1, d2)] or [position]
        total += sum(perft(v, child.swapped(), depth - 1, reference) for child in results)
    return total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reference", type=int, default=300, help="subset for the reference")
    parser.add_argument("--check", type=int, default=0, help="differential positions per variant")
    parser.add_argument("--perft", action="store_true")
    parser.add_argument("--cpu", type=int, default=None, help="pin this process to one CPU")
    args = parser.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})

    print(f"legal plays ({args.positions} positions a variant, best of {args.repeats} rounds):")
    print(f"  {'variant':12} {'positions/s':>12} {'plays/s':>12} {'plays/pos':>9} "
          f"{'us/pos':>7} {'validate/s':>11} {'reference/s':>11}")
    for name in VARIANTS:
        cases = cases_for(name, args.seed, args.positions)
        per_second, plays, valid = speed(name, cases, args.repeats)
        subset = cases[: args.reference]
        t0 = time.perf_counter()
        for c in subset:
            variant(name).reference(*c)
        ref = len(subset) / (time.perf_counter() - t0)
        print(f"  {name:12} {per_second:12,.0f} {plays:12,.0f} {plays / per_second:9.1f} "
              f"{1e6 / per_second:7.1f} {valid:11,.0f} {ref:11,.0f}", flush=True)

    if args.check:
        print(f"\ndifferential ({args.check:,} positions a variant):")
        for name in VARIANTS:
            print(check(name, args.check, args.seed + 7), flush=True)

    if args.perft:
        print("\nperft from the start (fast / reference):")
        for name in VARIANTS:
            v = variant(name)
            depths = (2, 3) if name in ("plakoto", "fevga") else (2,)
            for depth in depths:
                t0 = time.perf_counter()
                mine = perft(v, v.start(), depth, reference=False)
                t1 = time.perf_counter()
                theirs = perft(v, v.start(), depth, reference=True)
                t2 = time.perf_counter()
                print(f"  {name:12} depth {depth}: {mine:,} / {theirs:,} "
                      f"({t1 - t0:.1f} s / {t2 - t1:.1f} s)", flush=True)


if __name__ == "__main__":
    main()
