"""How well the computer plays the variants: one player against another over paired games.

A player is a level of the computer (``easy``, ``normal``, ``hard``, ``expert``: bgsage's nets,
through :func:`bots.variants.choose_play`, so in plakoto and fevga the heuristic whatever the
level), ``heuristic`` (:mod:`bots.heuristic`, plakoto and fevga only), ``random`` (a legal play
picked uniformly) or, for the 15-checker backgammon family (backgammon, nackgammon, portes),
``gnubg`` (GNU Backgammon's 0-ply net through ``gnubg-nn``, a test-only oracle) or ``pubeval``.

Games follow the variant's rules (:func:`engine.variants.variant`: start, legal plays, ending
and its points; cubeless), with **paired dice**: game ``i`` is played twice with the same dice,
the sides swapping seats, and the first player to move is seat 0 in both (the variant's opening
is not played: a backgammon-family game opens with a non-double, a Tavli game with any roll).
Every play is checked against the variant's legal plays. A game still going after 1,000 turns
counts 0 (none did in the runs of docs/bots.md).

Prints points per game for the first player with the 95% interval over the pairs (normal
approximation), its share of games won, and the time per decision of each side.

    .venv/bin/python bench/variant_bots.py VARIANT FIRST SECOND [--games 400] [--seed 1]

e.g. ``plakoto heuristic random``, ``nackgammon hard gnubg``, ``hypergammon hard random``.
"""

from __future__ import annotations

import argparse
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an install

from bots import heuristic
from bots.catalog import Level
from bots.variants import CUBELESS, choose_play
from engine.position import OFF, Position
from engine.reference import apply_move
from engine.variants import Variant, variant
from engine.variants.variant import Side

MAX_TURNS = 1000

Chooser = Callable[[object, int, int], object | None]
"""A player: (position, d1, d2) -> the position after its play, or None (no play)."""


def player(name: str, game: str, rng: random.Random) -> Chooser:
    v = variant(game)
    if name == "random":
        def pick(position: object, d1: int, d2: int) -> object | None:
            plays = v.legal_plays(position, d1, d2)
            return rng.choice(plays).position if plays else None
        return pick
    if name == "heuristic":
        return lambda p, d1, d2: _after(heuristic.choose_play(game, p, d1, d2, rng))
    if name in ("gnubg", "pubeval"):
        if game not in ("backgammon", "nackgammon", "portes"):
            raise SystemExit(f"{name} plays the 15-checker backgammon family only")
        return lambda p, d1, d2: oracle_play(name, p, d1, d2)
    level = Level(name)
    return lambda p, d1, d2: _after(choose_play(game, level, p, d1, d2, CUBELESS, rng))


def oracle_play(name: str, position: Position, d1: int, d2: int) -> Position:
    """gnubg's 0-ply choice (``best_move``) or pubeval's (``pub_best_move``)."""
    import gnubg_nn as gnubg  # test-only oracle: imported when asked for

    halves = [list(position.opponent[1:26]), list(position.mover[1:26])]
    if name == "gnubg":
        for move in gnubg.best_move(halves, d1, d2):
            position = apply_move(position, move)
        return position
    flat = gnubg.pub_best_move(halves, d1, d2)
    for i in range(0, len(flat), 2):
        position = apply_move(position, (flat[i] + 1, max(flat[i + 1] + 1, OFF)))
    return position


def _after(play: object | None) -> object | None:
    return None if play is None else play.position  # type: ignore[attr-defined]


@dataclass
class Timing:
    seconds: list[float] = field(default_factory=list)


def play_game(v: Variant, sides: tuple[Chooser, Chooser], dice: random.Random,
              timings: tuple[Timing, Timing]) -> tuple[int | None, int]:
    """One game, seat 0 moving first: (the winner's seat or None, the points)."""
    position = v.start()
    seat = 0
    for turn in range(MAX_TURNS):
        d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
        if turn == 0 and v.opening.value == "rolloff":
            while d1 == d2:
                d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
        legal = {p.position for p in v.legal_plays(position, d1, d2)}
        started = time.perf_counter()
        after = sides[seat](position, d1, d2)
        timings[seat].seconds.append(time.perf_counter() - started)
        if not legal:
            if after not in (None, position):
                raise AssertionError(f"a play where none is legal: {position} {d1}-{d2}")
            after = position
        elif after not in legal:
            raise AssertionError(f"illegal play by seat {seat}: {position} {d1}-{d2} -> {after}")
        ending = v.ending(after)
        if ending is not None:
            if ending.winner is None:
                return None, 0
            winner = seat if ending.winner is Side.MOVER else 1 - seat
            return winner, ending.points
        position = after.swapped()  # type: ignore[attr-defined]
        seat = 1 - seat
    return None, 0


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("variant")
    parser.add_argument("first")
    parser.add_argument("second")
    parser.add_argument("--games", type=int, default=400, help="games in all (pairs × 2)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    v = variant(args.variant)
    rng = random.Random(args.seed)
    sides = (player(args.first, args.variant, rng), player(args.second, args.variant, rng))
    timings = (Timing(), Timing())
    pairs: list[float] = []
    won = games = draws = 0
    for i in range(args.games // 2):
        total = 0.0
        for swap in (False, True):
            seated = (sides[1], sides[0]) if swap else sides
            times = (timings[1], timings[0]) if swap else timings
            winner, points = play_game(v, seated, random.Random(args.seed * 1_000_003 + i), times)
            games += 1
            if winner is None:
                draws += 1
                continue
            first_won = (winner == 1) if swap else (winner == 0)
            won += first_won
            total += points if first_won else -points
        pairs.append(total / 2)
        if (i + 1) % 50 == 0:
            print(f"  {games} games: {statistics.fmean(pairs):+.3f} ppg", flush=True)
    mean = statistics.fmean(pairs)
    half = 1.96 * statistics.stdev(pairs) / math.sqrt(len(pairs)) if len(pairs) > 1 else 0.0
    print(f"{args.variant}: {args.first} vs {args.second}, {games} games ({len(pairs)} pairs of "
          f"dice), seed {args.seed}")
    print(f"  points per game for {args.first}: {mean:+.3f} [{mean - half:+.3f}, "
          f"{mean + half:+.3f}]; won {won}/{games} ({100 * won / games:.1f}%), drawn {draws}")
    for name, timing in zip((args.first, args.second), timings, strict=True):
        s = sorted(timing.seconds)
        p50, p95 = s[len(s) // 2], s[int(len(s) * 0.95)]
        print(f"  {name}: {len(s)} decisions, p50 {1000 * p50:.1f} ms, p95 {1000 * p95:.1f} ms")


if __name__ == "__main__":
    main()
