"""Move generation and validation throughput, against GNU Backgammon's C generator.

Builds a reproducible mixed set (random-play positions plus the tricky families of
``harness/corpus.py``: bar against closed boards, bear-offs with gaps and hits, one-die-only
rolls, partial doubles, nearly finished games), each with a seeded roll. Then, in one run and
on the same list:

* ``legal_plays`` (Positions prebuilt) against ``gnubg_nn.moves`` (boards prebuilt): positions
  per second and the ratio — the figure that matters, since both share the machine's noise;
* the readable reference generator, on a subset, for information;
* ``validate_play`` of a legal play (in the generator's order and shuffled into another legal
  order) and of illegal submissions;
* the ``legal`` CLI loop (decode, generate, encode and sort every result), in process.

Each measurement is the best of several repetitions, ours and gnubg's interleaved. The machine
may be shared: pin the process (``--cpu``, or ``taskset -c 1``) and compare ratios, not absolute
figures.

    .venv/bin/python bench/engine.py [--positions 3000] [--repeats 7] [--seed 1] [--cpu 1]
"""

from __future__ import annotations

import argparse
import io
import os
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an install

import gnubg_nn as gnubg

from engine.movegen import legal_plays
from engine.position_id import encode
from engine.reference import apply_move, reference_plays, single_moves
from engine.validate import IllegalPlay, validate_play
from harness.corpus import mixed_cases, to_gnubg
from server.cli.legal import serve


def best_of(repeats: int, runs: dict[str, Callable[[], None]], label: str) -> dict[str, float]:
    """Best wall time of each run over ``repeats`` interleaved rounds (prints progress)."""
    best = dict.fromkeys(runs, float("inf"))
    for round_ in range(1, repeats + 1):
        for name, run in runs.items():
            t0 = time.perf_counter()
            run()
            best[name] = min(best[name], time.perf_counter() - t0)
        shown = "  ".join(f"{name} {seconds * 1e3:8.1f} ms" for name, seconds in best.items())
        print(f"  {label} round {round_}/{repeats}: best {shown}", file=sys.stderr, flush=True)
    return best


def legal_order(play_moves, position, d1, d2, rng: random.Random):
    """A shuffled legal order of the play's moves (falls back to the listed order)."""
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    orders = [list(play_moves)]
    for _ in range(6):
        order = list(play_moves)
        rng.shuffle(order)
        orders.insert(0, order)
    for order in orders:
        current, left, ok = position, list(dice), True
        for move in order:
            die = next((d for d in left if move in single_moves(current, d)), None)
            if die is None:
                ok = False
                break
            left.remove(die)
            current = apply_move(current, move)
        if ok:
            return order
    return list(play_moves)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--positions", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--reference", type=int, default=200, help="subset for the reference")
    parser.add_argument("--cpu", type=int, default=None, help="pin this process to one CPU")
    args = parser.parse_args()
    if args.cpu is not None:
        os.sched_setaffinity(0, {args.cpu})

    print(f"building {args.positions} positions (seed {args.seed})...", file=sys.stderr)
    cases = mixed_cases(args.seed, args.positions)
    boards = [(to_gnubg(position), d1, d2) for position, d1, d2 in cases]
    doubles = sum(d1 == d2 for _, d1, d2 in cases)
    results = sum(len(legal_plays(*case)) for case in cases)
    n = len(cases)
    print(
        f"{n} positions: {doubles} doubles, {sum(p.mover[25] > 0 for p, _, _ in cases)} with "
        f"the mover on the bar, {results} plays in all ({results / n:.1f} per position)"
    )

    def ours() -> None:
        for position, d1, d2 in cases:
            legal_plays(position, d1, d2)

    def theirs() -> None:
        moves = gnubg.moves
        for board, d1, d2 in boards:
            moves(board, d1, d2)

    best = best_of(args.repeats, {"fairgammon": ours, "gnubg": theirs}, "generate")
    mine, gnu = n / best["fairgammon"], n / best["gnubg"]
    print("\nAll legal plays (positions per second, best of", args.repeats, "rounds):")
    print(f"  fairgammon legal_plays   {mine:12,.0f}/s  {1e6 / mine:7.1f} us/position")
    print(f"  gnubg_nn.moves (C)       {gnu:12,.0f}/s  {1e6 / gnu:7.2f} us/position")
    print(f"  ratio fairgammon/gnubg   {mine / gnu:12.4f}")

    subset = cases[: args.reference]
    t0 = time.perf_counter()
    for position, d1, d2 in subset:
        reference_plays(position, d1, d2)
    ref = len(subset) / (time.perf_counter() - t0)
    print(f"  reference (readable)     {ref:12,.0f}/s  on {len(subset)} positions (1 round)")

    # Validation: one legal play per position (in a shuffled legal order), and junk.
    rng = random.Random(args.seed)
    submissions = []
    for position, d1, d2 in cases:
        plays = legal_plays(position, d1, d2)
        if plays:
            play = rng.choice(plays)
            order = legal_order(play.moves, position, d1, d2, rng)
            submissions.append((position, d1, d2, order))
    illegal = []
    for position, d1, d2 in cases:
        frm = rng.choice([p for p in range(1, 26) if position.mover[p]] or [25])
        illegal.append((position, d1, d2, [(frm, max(0, frm - rng.randint(1, 6)))] * 2))

    def validate_legal() -> None:
        for position, d1, d2, moves in submissions:
            validate_play(position, d1, d2, moves)

    def validate_illegal() -> None:
        refused = 0
        for position, d1, d2, moves in illegal:
            try:
                validate_play(position, d1, d2, moves)
            except IllegalPlay:
                refused += 1
        assert refused

    best = best_of(args.repeats, {"legal": validate_legal, "illegal": validate_illegal}, "validate")
    print("\nValidation (validate_play calls per second):")
    print(f"  a legal play, any order  {len(submissions) / best['legal']:12,.0f}/s")
    print(f"  an illegal submission    {len(illegal) / best['illegal']:12,.0f}/s")

    lines = "".join(f"{encode(position)} {d1} {d2}\n" for position, d1, d2 in cases).encode()
    size = 1 << 16  # as the CLI reads standard input
    chunks = [lines[i : i + size] for i in range(0, len(lines), size)]

    def cli() -> None:
        serve(chunks, io.StringIO().write, io.StringIO())

    best = best_of(max(1, args.repeats // 2), {"legal-cli": cli}, "cli")
    print("\n`fairgammon legal` loop (in process: decode, generate, encode, sort, write):")
    print(f"  lines per second         {n / best['legal-cli']:12,.0f}/s")


if __name__ == "__main__":
    main()
