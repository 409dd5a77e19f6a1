"""Strength and speed of the computer opponent's levels.

For each level: points per game, with a 95% confidence interval, against two opponents from
GNU Backgammon's library (``gnubg-nn``): **pubeval** (Tesauro's public linear evaluator,
``pub_best_move``) and **gnubg 0-ply** (its neural net, ``best_move``). Cubeless money games
(single 1, gammon 2, backgammon 3; no cube), which measure checker-play strength; the cube
policy is the same 1-ply decision at every level and is not measured here.

Paired dice: game ``i`` is played twice with the same dice sequence, the level taking each seat
once, so the luck of the dice largely cancels; the interval is over the pairs' means. Every play
of every side is checked against ``engine.movegen.legal_plays``.

Then decision time (choosing a play, or deciding the cube, as the worker does) per level:
p50 and p95 alone, and under load: ``--concurrent`` games (default 10) played at once by one
process, each decision on a thread as the bot worker runs them.

    .venv/bin/python bench/bots.py [--games 1000] [--levels easy,normal,hard,expert]
                                   [--opponents pubeval,gnubg] [--seed 1] [--concurrent 10]

Prints one progress line per 100 games and a Markdown table at the end.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an install

import gnubg_nn as gnubg

from bots.levels import Level, choose_play, should_double
from brain.context import MONEY, CubeContext
from engine.movegen import legal_plays
from engine.position import OFF, Position
from engine.reference import apply_move
from engine.results import result_kind

Chooser = Callable[[Position, int, int], Position | None]
CUBELESS = CubeContext(cube_in_play=False)
"""The games here are cubeless: the levels play them with cubeless equities."""


def halves(position: Position) -> list[list[int]]:
    return [list(position.opponent[1:26]), list(position.mover[1:26])]


def _checked(position: Position, after: Position | None, d1: int, d2: int, who: str) -> Position:
    results = {p.position for p in legal_plays(position, d1, d2)}
    if not results:
        return position
    if after not in results:
        raise AssertionError(f"{who} made an illegal play with {d1}-{d2} in {position}")
    return after


def gnubg_chooser(position: Position, d1: int, d2: int) -> Position | None:
    moves = gnubg.best_move(halves(position), d1, d2)
    for move in moves:
        position = apply_move(position, move)
    return position


def pubeval_chooser(position: Position, d1: int, d2: int) -> Position | None:
    flat = gnubg.pub_best_move(halves(position), d1, d2)
    for i in range(0, len(flat), 2):
        frm, to = flat[i] + 1, flat[i + 1] + 1
        position = apply_move(position, (frm, max(to, OFF)))
    return position


def level_chooser(level: Level, rng: random.Random) -> Chooser:
    def choose(position: Position, d1: int, d2: int) -> Position | None:
        play = choose_play(level, position, d1, d2, CUBELESS, rng)
        return None if play is None else play.position

    return choose


def play_game(first: Chooser, second: Chooser, seed: int) -> int:
    """One cubeless game; the points ``first`` (seat 0) wins (negative: loses)."""
    dice = random.Random(seed)
    players = (first, second)
    while True:
        d0, d1 = dice.randint(1, 6), dice.randint(1, 6)
        if d0 != d1:
            break
    seat = 0 if d0 > d1 else 1
    roll = (d0, d1)
    position = Position.start()
    for _ in range(1000):
        after = players[seat](position, *roll)
        position = _checked(position, after, *roll, who=f"seat {seat}")
        if position.mover[OFF] == 15:
            points = int(result_kind(position.opponent, position.mover))
            return points if seat == 0 else -points
        position = position.swapped()
        seat = 1 - seat
        roll = (dice.randint(1, 6), dice.randint(1, 6))
    raise AssertionError("a game did not end in 1000 turns")


def match_up(level: Level, opponent: str, games: int, seed: int) -> tuple[float, float, int]:
    """Mean points per game for ``level`` and the half-width of its 95% interval."""
    other = pubeval_chooser if opponent == "pubeval" else gnubg_chooser
    rng = random.Random(seed)
    me = level_chooser(level, rng)
    pairs: list[float] = []
    started = time.monotonic()
    for i in range(games // 2):
        game_seed = seed * 1_000_003 + i
        a = play_game(me, other, game_seed)
        b = -play_game(other, me, game_seed)
        pairs.append((a + b) / 2)
        if (2 * (i + 1)) % 100 == 0:
            mean, half = _interval(pairs)
            print(f"  {level} vs {opponent}: {2 * (i + 1)} games, {mean:+.3f} ppg "
                  f"[{mean - half:+.3f}, {mean + half:+.3f}], {time.monotonic() - started:.0f} s",
                  flush=True)
    mean, half = _interval(pairs)
    return mean, half, 2 * len(pairs)


def _interval(pairs: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(pairs)
    half = 1.96 * statistics.stdev(pairs) / math.sqrt(len(pairs)) if len(pairs) > 1 else math.inf
    return mean, half


def decisions(level: Level, seed: int, count: int) -> tuple[list[float], list[float]]:
    """Seconds per play and per cube decision over ``count`` turns of self-play."""
    rng = random.Random(seed)
    dice = random.Random(seed + 1)
    plays: list[float] = []
    cubes: list[float] = []
    position = Position.start()
    while len(plays) < count:
        if position.is_over():
            position = Position.start()
        started = time.perf_counter()
        should_double(level, position, MONEY, rng)
        cubes.append(time.perf_counter() - started)
        d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
        started = time.perf_counter()
        play = choose_play(level, position, d1, d2, MONEY, rng)
        plays.append(time.perf_counter() - started)
        if play is not None:
            position = play.position
        position = position.swapped()
    return plays, cubes


async def decisions_under_load(level: Level, seed: int, concurrent: int,
                               per_game: int) -> list[float]:
    """The same, ``concurrent`` games at once in this process, each decision on a thread."""
    times: list[float] = []

    async def one(game: int) -> None:
        rng = random.Random(seed + game)
        dice = random.Random(seed + 1000 + game)
        position = Position.start()
        for _ in range(per_game):
            if position.is_over():
                position = Position.start()
            d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
            started = time.perf_counter()
            play = await asyncio.to_thread(choose_play, level, position, d1, d2, MONEY, rng)
            times.append(time.perf_counter() - started)
            if play is not None:
                position = play.position
            position = position.swapped()

    await asyncio.gather(*(one(g) for g in range(concurrent)))
    return times


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--levels", default="easy,normal,hard,expert")
    parser.add_argument("--opponents", default="pubeval,gnubg")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--concurrent", type=int, default=10)
    parser.add_argument("--decisions", type=int, default=400)
    parser.add_argument("--speed-only", action="store_true", help="skip the strength games")
    parser.add_argument("--expert-games", type=int, default=None,
                        help="games per opponent for Expert (2-ply is ~50x slower)")
    args = parser.parse_args(argv)
    levels = [Level(name) for name in args.levels.split(",")]
    opponents = args.opponents.split(",")

    strength: dict[tuple[Level, str], tuple[float, float, int]] = {}
    speed: dict[Level, tuple[float, ...]] = {}
    for level in levels:
        games = args.games
        if level is Level.EXPERT and args.expert_games is not None:
            games = args.expert_games
        for opponent in [] if args.speed_only else opponents:
            print(f"{level} vs {opponent}: {games} games (paired dice)", flush=True)
            strength[level, opponent] = match_up(level, opponent, games, args.seed)
        alone, cubes = decisions(level, args.seed, args.decisions)
        loaded = asyncio.run(decisions_under_load(level, args.seed, args.concurrent,
                                                  max(1, args.decisions // args.concurrent)))
        speed[level] = tuple(pct(times, q) for times in (alone, cubes, loaded)
                             for q in (0.5, 0.95))
        ms = [f"{t * 1e3:.2f}" for t in speed[level]]
        print(f"{level}: play p50 {ms[0]} ms, p95 {ms[1]} ms; cube p50 {ms[2]} ms, p95 {ms[3]} "
              f"ms; {args.concurrent} games at once: play p50 {ms[4]} ms, p95 {ms[5]} ms",
              flush=True)

    print()
    shown = [] if args.speed_only else opponents
    heads = [f"vs {o} (ppg [95% CI], games)" for o in shown]
    print("| level | " + "".join(h + " | " for h in heads) + "play p50 / p95 | cube p50 / p95 | "
          f"play, {args.concurrent} games at once, p50 / p95 |")
    print("|---|" + "---|" * len(shown) + "---|---|---|")
    for level in levels:
        cells = []
        for opponent in shown:
            mean, half, n = strength[level, opponent]
            cells.append(f"{mean:+.2f} [{mean - half:+.2f}, {mean + half:+.2f}], {n}")
        a50, a95, c50, c95, l50, l95 = (t * 1e3 for t in speed[level])
        print(f"| {level} | " + "".join(c + " | " for c in cells)
              + f"{a50:.1f} / {a95:.1f} ms | {c50:.2f} / {c95:.2f} ms | "
              f"{l50:.1f} / {l95:.1f} ms |")


if __name__ == "__main__":
    main()
