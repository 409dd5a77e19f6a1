"""Snapshot serialization: size and time to store and load a realistic mid-match state.

Every commit stores the match state (``server.machine.serial.dumps``) and a loaded match reads
it back (``serial.loads``). Plays a 7-point match with a time reserve with the honest test
seats (``harness/machine_driver.py``, seeded) to a move owed mid-game, with the cube turned and
a score on the board, then prints the snapshot's size and the best-of-``--repeats`` time per
dump, per load and per dump+load; and the same for a ``MovePlay`` command record.

    .venv/bin/python bench/snapshot.py [--seconds 0.5] [--repeats 5] [--seed 6]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an install

import msgpack

from engine.match import MatchOptions
from harness.machine_driver import Seat
from server.machine import core, serial
from server.machine.commands import Command, Join, MovePlay
from server.machine.state import Config, MatchState, Phase, owing
from server.match.stored import command_record

MID = "0123456789abcdef0123456789abcdef"


def mid_match(seed: int) -> tuple[MatchState, MovePlay]:
    """A 7-point match in its third game or later, cube turned, a move owed; and that move."""
    rng = random.Random(seed)
    config = Config(MatchOptions.match(7), reserve_ms=120_000)
    state, _ = core.create(MID, config, "ann", 0)
    state = core.apply(state, Join(1, name="bob"), 10).state
    seats = [Seat(s, random.Random(rng.random()), double_rate=0.1) for s in (0, 1)]
    now = 10
    for _ in range(20_000):
        game = state.match.game
        if (
            state.phase is Phase.PLAY
            and game is not None
            and state.dice.game >= 3
            and game.cube.value >= 2
            and game.turns >= 10
            and owing(state)[1] == "move"
        ):
            (seat,) = owing(state)[0]
            command = seats[seat].decide(state)
            assert isinstance(command, MovePlay)
            return state, command
        if state.is_over:
            raise SystemExit(f"seed {seed}: the match ended first, try another --seed")
        for seat in seats:
            command: Command | None = seat.decide(state)
            if command is not None:
                now += rng.randint(500, 5_000)
                outcome = core.apply(state, command, now)
                assert isinstance(outcome, core.Accepted)
                state = outcome.state
                break
    raise SystemExit("no mid-match state reached")


def best_us(fn: Callable[[], object], seconds: float, repeats: int) -> float:
    """Microseconds per call of ``fn``: the best of ``repeats`` runs of about ``seconds``."""
    best = float("inf")
    for _ in range(repeats):
        calls, start = 0, time.perf_counter()
        while (elapsed := time.perf_counter() - start) < seconds:
            for _ in range(200):
                fn()
            calls += 200
        best = min(best, elapsed / calls * 1e6)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=0.5, help="per run")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=6)
    args = parser.parse_args()
    state, move = mid_match(args.seed)
    game = state.match.game
    assert game is not None
    blob = serial.dumps(state)
    assert serial.loads(MatchState, blob) == state
    record = command_record(move, 123_456)
    body = msgpack.unpackb(record, raw=False)[1]

    def round_trip() -> object:
        return serial.loads(MatchState, serial.dumps(state))

    print(
        f"mid-match state: game {state.dice.game}, score {state.match.score}, "
        f"cube {game.cube.value}, turn {game.turns}, version {state.version}"
    )
    w, t = args.seconds, args.repeats
    print(f"{'':<22}{'bytes':>7}{'dump us':>10}{'load us':>10}{'both us':>10}")
    print(
        f"{'snapshot (MatchState)':<22}{len(blob):>7}"
        f"{best_us(lambda: serial.dumps(state), w, t):>10.1f}"
        f"{best_us(lambda: serial.loads(MatchState, blob), w, t):>10.1f}"
        f"{best_us(round_trip, w, t):>10.1f}"
    )
    print(
        f"{'command record':<22}{len(record):>7}"
        f"{best_us(lambda: command_record(move, 123_456), w, t):>10.1f}"
        f"{best_us(lambda: serial.load(MovePlay, body), w, t):>10.1f}"
    )


if __name__ == "__main__":
    main()
