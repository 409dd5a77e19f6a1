"""Strength and speed of the computer opponent's levels: three modes.

``oracle``: each level against two opponents from GNU Backgammon's library (``gnubg-nn``, a
test-only oracle): **pubeval** (Tesauro's public linear evaluator, ``pub_best_move``) and
**gnubg 0-ply** (its neural net, ``best_move``). Cubeless money games (single 1, gammon 2,
backgammon 3), which measure checker play.

``duel``: one level against another, directly. Cubeless by default; with ``--cube``, money
games with the cube (no Jacoby rule, no beavers; a dropped double ends the game), both sides
using their levels' cube decisions, and each side's cube figures printed: the share of games in
which it doubled, its doubles below 50% and 60% winning chances, its takes below 15% and its
passes above 30% (cubeless 1-ply winning chances before the roll, the doubler's for a double,
the taker's for an answer).

Both modes play **paired dice**: game ``i`` is played twice with the same dice sequence, the
sides swapping seats, so much of the luck of the dice cancels; every play of every side is
checked against ``engine.movegen.legal_plays``. They print points per game for the first side
with the 95% interval over the pairs (normal approximation), and the same **luck-adjusted**:
each game's result minus the luck of every roll after the opening one, a roll's luck being the
1-ply equity after the best play of that roll less the mean over all 36 rolls (cubeless, times
the cube; the analysis's definition, docs/analysis.md), seen by the first side. A roll's luck
has mean zero whatever the players do, so the adjusted mean estimates the same expected result
with several times less variance; the plain figures are printed beside it.

With ``--state FILE`` results are appended to ``FILE`` pair by pair (JSON lines, first a header
naming the run) and a later run with the same settings carries on where it stopped: run it in
chunks, ``--games`` being the total wanted (the seeds depend only on the pair's index).

``speed``: decision time per level in money games with the cube, as a bot worker makes them:
alone, and ``--concurrent`` games at once (default 10) in this one process, each decision
(double or not, take or not, the play) on a thread as the worker runs them
(``asyncio.to_thread``), every game asking again as soon as it is answered (a worker never
busier). Prints p50 and p95 of the wall-clock time from asking to the answer, of plays, of cube
decisions and of both; the CPU time a decision takes (its thread's); and the cores this process
got while the games ran (below 2 on a 2-core machine shared with other work, and wall times
grow as it shrinks).

    .venv/bin/python bench/bots.py oracle [--levels easy,normal,hard,expert]
                     [--opponents pubeval,gnubg] [--games 1000] [--seed 1] [--state FILE]
    .venv/bin/python bench/bots.py duel LEVEL LEVEL [--games 1000] [--cube] [--seed 1]
                     [--state FILE]
    .venv/bin/python bench/bots.py report FILE [FILE ...]   # pool --state files (other seeds)
    .venv/bin/python bench/bots.py speed [--levels ...] [--concurrent 10] [--decisions 400]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an install

import gnubg_nn as gnubg

from bots.levels import Level, answer_double, choose_play, should_double
from brain.context import CubeContext, Owner
from brain.nets import nets
from engine.game import Action
from engine.movegen import legal_plays
from engine.position import OFF, Position
from engine.reference import apply_move
from engine.results import result_kind

CUBELESS = CubeContext(cube_in_play=False)
"""Cubeless games are played with cubeless equities."""
PROGRESS = 50
"""Print a progress line every this many games."""


# -- players ----------------------------------------------------------------------------------

class Player(Protocol):
    name: str

    def play(self, position: Position, d1: int, d2: int, context: CubeContext) -> Position | None:
        """The position after this side's play (None or ``position`` when none is legal)."""

    def doubles(self, position: Position, context: CubeContext) -> bool: ...

    def answer(self, position: Position, context: CubeContext) -> Action:
        """Take or drop a double offered by the player on roll in ``position``/``context``."""


@dataclass
class LevelPlayer:
    level: Level
    rng: random.Random

    @property
    def name(self) -> str:
        return str(self.level)

    def play(self, position: Position, d1: int, d2: int, context: CubeContext) -> Position | None:
        play = choose_play(self.level, position, d1, d2, context, self.rng)
        return None if play is None else play.position

    def doubles(self, position: Position, context: CubeContext) -> bool:
        return should_double(self.level, position, context, self.rng)

    def answer(self, position: Position, context: CubeContext) -> Action:
        return answer_double(self.level, position, context, False, self.rng)


def _halves(position: Position) -> list[list[int]]:
    return [list(position.opponent[1:26]), list(position.mover[1:26])]


@dataclass
class OraclePlayer:
    """gnubg's 0-ply net or pubeval, cubeless only."""

    name: str

    def play(self, position: Position, d1: int, d2: int, context: CubeContext) -> Position | None:
        if self.name == "gnubg":
            for move in gnubg.best_move(_halves(position), d1, d2):
                position = apply_move(position, move)
            return position
        flat = gnubg.pub_best_move(_halves(position), d1, d2)
        for i in range(0, len(flat), 2):
            position = apply_move(position, (flat[i] + 1, max(flat[i + 1] + 1, OFF)))
        return position

    def doubles(self, position: Position, context: CubeContext) -> bool:
        raise NotImplementedError("the oracles play cubeless games only")

    def answer(self, position: Position, context: CubeContext) -> Action:
        raise NotImplementedError("the oracles play cubeless games only")


OPPONENTS = ("pubeval", "gnubg")


def player(name: str, rng: random.Random) -> Player:
    if name in OPPONENTS:
        return OraclePlayer(name)
    return LevelPlayer(Level(name), rng)


# -- one game ---------------------------------------------------------------------------------

def _checked(position: Position, after: Position | None, d1: int, d2: int, who: str) -> Position:
    results = {p.position for p in legal_plays(position, d1, d2)}
    if not results:
        return position
    if after not in results:
        raise AssertionError(f"{who} made an illegal play with {d1}-{d2} in {position}")
    return after


def luck(position: Position, d1: int, d2: int) -> float:
    """The luck of ``d1``-``d2`` for the player on roll in ``position``, per unit cube: the
    equity after its best play less the mean over the 36 rolls (cubeless, 1-ply)."""
    values = nets().roll_equities(position)
    mean = sum(w * value for _, _, w, value in values) / 36.0
    low, high = min(d1, d2), max(d1, d2)
    return next(value for a, b, _, value in values if (a, b) == (low, high)) - mean


@dataclass
class CubeLog:
    """One side's cube decisions in one game, with the winning chances they were made at."""

    doubles: list[float] = field(default_factory=list)  # the doubler's chances
    takes: list[float] = field(default_factory=list)  # the taker's chances
    drops: list[float] = field(default_factory=list)


@dataclass
class GameResult:
    points: int  # won by seat 0 (negative: lost)
    luck: float  # seat 0's luck, points
    cube: tuple[CubeLog, CubeLog]

    @property
    def adjusted(self) -> float:
        return self.points - self.luck


def _context(cube: bool, value: int, owner: int | None, seat: int) -> CubeContext:
    if not cube:
        return CUBELESS
    own = Owner.CENTRED if owner is None else Owner.MOVER if owner == seat else Owner.OPPONENT
    return CubeContext(value=value, owner=own)


def play_game(players: tuple[Player, Player], seed: int, cube: bool = False,
              with_luck: bool = True) -> GameResult:
    """One money game between ``players`` (seat 0, seat 1) with the dice of ``seed``."""
    dice = random.Random(seed)
    while True:
        d0, d1 = dice.randint(1, 6), dice.randint(1, 6)
        if d0 != d1:
            break
    seat = 0 if d0 > d1 else 1
    roll = (d0, d1)
    position = Position.start()
    value, owner = 1, None
    logs = (CubeLog(), CubeLog())
    lucky = 0.0
    opening = True
    for _ in range(1000):
        if not opening:
            context = _context(cube, value, owner, seat)
            if cube and context.may_double and players[seat].doubles(position, context):
                win = nets().pre_roll_probs(position).win
                logs[seat].doubles.append(win)
                answer = players[1 - seat].answer(position, context)
                if answer is Action.DROP:
                    logs[1 - seat].drops.append(1.0 - win)
                    return GameResult(value if seat == 0 else -value, lucky, logs)
                logs[1 - seat].takes.append(1.0 - win)
                value, owner = value * 2, 1 - seat
            if with_luck:
                lucky += luck(position, *roll) * value * (1 if seat == 0 else -1)
        opening = False
        context = _context(cube, value, owner, seat)
        after = players[seat].play(position, *roll, context)
        position = _checked(position, after, *roll, who=f"{players[seat].name} (seat {seat})")
        if position.mover[OFF] == 15:
            points = int(result_kind(position.opponent, position.mover)) * value
            return GameResult(points if seat == 0 else -points, lucky, logs)
        position = position.swapped()
        seat = 1 - seat
        roll = (dice.randint(1, 6), dice.randint(1, 6))
    raise AssertionError("a game did not end in 1000 turns")


# -- paired runs, resumable -------------------------------------------------------------------

@dataclass
class Pair:
    """Game ``index`` played twice, the first side in seat 0 then in seat 1: results seen by
    the first side."""

    index: int
    points: tuple[int, int]
    adjusted: tuple[float, float]
    cube: tuple[tuple[CubeLog, CubeLog], tuple[CubeLog, CubeLog]] | None = None
    """Per game: (first side's log, second side's log)."""

    def as_json(self) -> dict[str, Any]:
        cube = None if self.cube is None else [[asdict(log) for log in game] for game in self.cube]
        return {"pair": self.index, "points": list(self.points),
                "adjusted": list(self.adjusted), "cube": cube}

    @classmethod
    def of_json(cls, data: dict[str, Any]) -> Pair:
        cube = None if data["cube"] is None else tuple(
            tuple(CubeLog(**log) for log in game) for game in data["cube"])
        return cls(data["pair"], tuple(data["points"]), tuple(data["adjusted"]), cube)

    @property
    def mean(self) -> float:
        return sum(self.points) / 2

    @property
    def adjusted_mean(self) -> float:
        return sum(self.adjusted) / 2


def play_pair(first: str, second: str, seed: int, index: int, cube: bool) -> Pair:
    game_seed = seed * 1_000_003 + index

    def side(name: str, game: int) -> Player:
        return player(name, random.Random(f"{seed}/{index}/{game}/{name}"))

    a = play_game((side(first, 0), side(second, 0)), game_seed, cube)
    b = play_game((side(second, 1), side(first, 1)), game_seed, cube)
    logs = ((a.cube[0], a.cube[1]), (b.cube[1], b.cube[0])) if cube else None
    return Pair(index, (a.points, -b.points), (a.adjusted, -b.adjusted), logs)


def interval(values: list[float]) -> tuple[float, float]:
    """Mean and the half-width of its 95% confidence interval (normal approximation)."""
    mean = statistics.fmean(values)
    half = 1.96 * statistics.stdev(values) / math.sqrt(len(values)) if len(values) > 1 else math.inf
    return mean, half


def _ci(values: list[float]) -> str:
    mean, half = interval(values)
    return f"{mean:+.3f} [{mean - half:+.3f}, {mean + half:+.3f}]"


def run_pairs(first: str, second: str, games: int, seed: int, cube: bool,
              state: Path | None) -> list[Pair]:
    """``games`` games (``games // 2`` pairs) of ``first`` against ``second``, carrying on from
    the pairs already in ``state``."""
    header = {"first": first, "second": second, "seed": seed, "cube": cube}
    pairs: list[Pair] = []
    if state is not None and state.exists():
        lines = state.read_text().splitlines()
        if lines and json.loads(lines[0]) != header:
            raise SystemExit(f"{state} holds another run ({lines[0]}): name another file")
        pairs = [Pair.of_json(json.loads(line)) for line in lines[1:] if line.strip()]
        pairs = pairs[: games // 2]
        print(f"{first} vs {second}: {2 * len(pairs)} games read from {state}", flush=True)
    elif state is not None:
        state.parent.mkdir(parents=True, exist_ok=True)
        state.write_text(json.dumps(header) + "\n")
    started = time.monotonic()
    for index in range(len(pairs), games // 2):
        pair = play_pair(first, second, seed, index, cube)
        pairs.append(pair)
        if state is not None:
            with state.open("a") as out:
                out.write(json.dumps(pair.as_json()) + "\n")
        if (2 * len(pairs)) % PROGRESS == 0:
            print(f"  {first} vs {second}: {2 * len(pairs)} games, "
                  f"{_ci([p.mean for p in pairs])} ppg, luck-adjusted "
                  f"{_ci([p.adjusted_mean for p in pairs])}, "
                  f"{time.monotonic() - started:.0f} s", flush=True)
    return pairs


@dataclass
class CubeFigures:
    games: int = 0
    doubled_in: int = 0
    doubles: list[float] = field(default_factory=list)
    takes: list[float] = field(default_factory=list)
    drops: list[float] = field(default_factory=list)

    def add(self, log: CubeLog) -> None:
        self.games += 1
        self.doubled_in += bool(log.doubles)
        self.doubles += log.doubles
        self.takes += log.takes
        self.drops += log.drops

    def line(self, name: str) -> str:
        def share(count: int, of: int) -> str:
            return f"{count}/{of} ({100 * count / of:.0f}%)" if of else "0/0"

        return (f"| {name} | {share(self.doubled_in, self.games)} | {len(self.doubles)} | "
                f"{share(sum(w < 0.5 for w in self.doubles), len(self.doubles))} | "
                f"{share(sum(w < 0.6 for w in self.doubles), len(self.doubles))} | "
                f"{share(sum(w < 0.15 for w in self.takes), len(self.takes))} | "
                f"{share(sum(w > 0.30 for w in self.drops), len(self.drops))} |")


def report_pairs(first: str, second: str, pairs: list[Pair]) -> None:
    print(f"\n{first} vs {second}: {2 * len(pairs)} games ({len(pairs)} pairs of dice)")
    print(f"  points per game for {first}: {_ci([p.mean for p in pairs])}")
    print(f"  luck-adjusted:             {_ci([p.adjusted_mean for p in pairs])}")
    if pairs and pairs[0].cube is not None:
        figures = (CubeFigures(), CubeFigures())
        for pair in pairs:
            for game in pair.cube or ():
                figures[0].add(game[0])
                figures[1].add(game[1])
        print("\n| side | games it doubled in | doubles | below 50% | below 60% "
              "| takes below 15% | passes above 30% |")
        print("|---|---|---|---|---|---|---|")
        print(figures[0].line(first))
        print(figures[1].line(second))


def report_files(files: list[Path]) -> None:
    """Pool the pairs of several state files (the same two sides and cube setting; each file's
    seed gives independent dice) and report them."""
    headers, pairs = set(), []
    for path in files:
        lines = path.read_text().splitlines()
        header = json.loads(lines[0])
        headers.add((header["first"], header["second"], header["cube"]))
        pairs += [Pair.of_json(json.loads(line)) for line in lines[1:] if line.strip()]
        print(f"{path}: {2 * (len(lines) - 1)} games, seed {header['seed']}")
    if len(headers) != 1:
        raise SystemExit(f"the files hold different match-ups: {sorted(headers)}")
    ((first, second, _cube),) = headers
    report_pairs(first, second, pairs)


# -- speed ------------------------------------------------------------------------------------

@dataclass
class Times:
    """Wall-clock seconds from asking to answer, and the CPU seconds of the decision itself
    (its thread's), of plays and of cube decisions."""

    plays: list[float] = field(default_factory=list)
    cubes: list[float] = field(default_factory=list)
    play_cpu: list[float] = field(default_factory=list)
    cube_cpu: list[float] = field(default_factory=list)


def _on_cpu(call: Callable[..., Any], *args: Any) -> tuple[Any, float]:
    started = time.thread_time()
    result = call(*args)
    return result, time.thread_time() - started


async def _speed_game(level: Level, seed: int, decisions: int, times: Times,
                      threads: bool) -> None:
    """Self-play money games with the cube until ``decisions`` plays are timed."""
    rng = random.Random(seed)
    dice = random.Random(seed + 1)

    async def timed(cube: bool, call: Callable[..., Any], *args: Any) -> Any:
        started = time.perf_counter()
        if threads:
            result, cpu = await asyncio.to_thread(_on_cpu, call, *args)
        else:
            result, cpu = _on_cpu(call, *args)
        (times.cubes if cube else times.plays).append(time.perf_counter() - started)
        (times.cube_cpu if cube else times.play_cpu).append(cpu)
        return result

    plays = 0
    while plays < decisions:
        position, value, owner, seat = Position.start(), 1, None, 0
        while not position.is_over() and plays < decisions:
            context = _context(True, value, owner, seat)
            if context.may_double and await timed(True, should_double, level, position,
                                                  context, rng):
                answer = await timed(True, answer_double, level, position, context, False, rng)
                if answer is Action.DROP:
                    break
                value, owner = value * 2, 1 - seat
                context = _context(True, value, owner, seat)
            d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
            play = await timed(False, choose_play, level, position, d1, d2, context, rng)
            plays += 1
            if play is not None:
                position = play.position
            position, seat = position.swapped(), 1 - seat


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else math.nan


def _ms(values: list[float]) -> str:
    return f"{pct(values, 0.5) * 1e3:.0f} / {pct(values, 0.95) * 1e3:.0f}"


def speed(levels: list[Level], concurrent: int, decisions: int, seed: int) -> None:
    """Decision times per level, alone and ``concurrent`` games at once; with the CPU each
    decision took and the cores this process got, since the machine may be shared."""
    rows = []
    for level in levels:
        alone = Times()
        asyncio.run(_speed_game(level, seed, decisions, alone, threads=False))
        loaded = Times()

        async def many(level: Level = level, loaded: Times = loaded) -> None:
            each = max(1, decisions // concurrent)
            await asyncio.gather(*(_speed_game(level, seed + 7919 * g, each, loaded, True)
                                   for g in range(concurrent)))

        wall, cpu = time.perf_counter(), time.process_time()
        asyncio.run(many())
        cores = (time.process_time() - cpu) / (time.perf_counter() - wall)
        row = [f"{_ms(alone.play_cpu)} / {_ms(alone.cube_cpu)}",
               f"{_ms(alone.plays)} / {_ms(alone.cubes)}",
               f"{len(loaded.plays)} + {len(loaded.cubes)}",
               f"{_ms(loaded.plays)} / {_ms(loaded.cubes)}",
               _ms(loaded.plays + loaded.cubes), f"{cores:.2f}"]
        rows.append(row)
        print(f"{level}: {row}", flush=True)
    print(f"\nms, p50 / p95; plays / cube decisions; money games with the cube\n"
          f"\n| level | CPU per decision, alone | wall, alone | {concurrent} games at once: "
          f"decisions timed | wall: plays / cube | wall: all decisions | cores used |")
    print("|---|---|---|---|---|---|---|")
    for level, row in zip(levels, rows, strict=True):
        print(f"| {level} | " + " | ".join(row) + " |")


# -- command line -----------------------------------------------------------------------------

def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    modes = parser.add_subparsers(dest="mode", required=True)
    oracle = modes.add_parser("oracle", help="levels against pubeval and gnubg 0-ply")
    oracle.add_argument("--levels", default="easy,normal,hard,expert")
    oracle.add_argument("--opponents", default=",".join(OPPONENTS))
    duel = modes.add_parser("duel", help="one level against another")
    duel.add_argument("first", type=Level)
    duel.add_argument("second", type=Level)
    duel.add_argument("--cube", action="store_true", help="money games with the cube")
    for sub in (oracle, duel):
        sub.add_argument("--games", type=int, default=1000)
        sub.add_argument("--seed", type=int, default=1)
        sub.add_argument("--state", type=Path, default=None,
                         help="append results here and carry on from them "
                              "(oracle: one file per match-up, named FILE.LEVEL-OPPONENT)")
    pooled = modes.add_parser("report", help="the figures of one or more --state files "
                              "of the same two sides (run with different seeds), pooled")
    pooled.add_argument("files", type=Path, nargs="+")
    fast = modes.add_parser("speed", help="decision times, alone and many games at once")
    fast.add_argument("--levels", default="easy,normal,hard,expert")
    fast.add_argument("--concurrent", type=int, default=10)
    fast.add_argument("--decisions", type=int, default=400)
    fast.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    if args.mode == "speed":
        speed([Level(n) for n in args.levels.split(",")], args.concurrent, args.decisions,
              args.seed)
        return
    if args.mode == "report":
        report_files(args.files)
        return
    if args.mode == "duel":
        pairs = run_pairs(str(args.first), str(args.second), args.games, args.seed, args.cube,
                          args.state)
        report_pairs(str(args.first), str(args.second), pairs)
        return
    results = {}
    for name in args.levels.split(","):
        for opponent in args.opponents.split(","):
            level = str(Level(name))
            state = (None if args.state is None
                     else args.state.with_name(f"{args.state.name}.{level}-{opponent}"))
            results[level, opponent] = run_pairs(level, opponent, args.games, args.seed, False,
                                                 state)
    for (level, opponent), pairs in results.items():
        report_pairs(level, opponent, pairs)


if __name__ == "__main__":
    main()
