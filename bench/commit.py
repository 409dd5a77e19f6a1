"""What a stored transition costs this process: CPU per commit, through the real service.

Plays ``--matches`` seeded money sessions (no doubling, as ``bench/load.py`` plays them; their
first :data:`STEPS` transitions) with the honest test seats (``harness/machine_driver.py``)
once, recording each seat's commands; then replays them against a private redis-server
(``--fsync``, default ``everysec``: the client's CPU is the figure, not the disk) from
``--writers`` concurrent writers, each playing its share of the matches one after the other,
and prints this process's CPU (user + system) per commit, the best of ``--repeats`` runs:

* ``submit``: :meth:`server.match.service.MatchService.submit` (load from the cache, the pure
  machine's ``apply``, the state snapshot, summary and command record, the commit script
  through :class:`server.match.batch.ScriptBatcher`, the local publish);
* ``apply``: the pure machine alone over the same transitions (best of three), so that
  ``submit - apply`` is the shell's cost of storing a transition;
* ``commit``: :meth:`server.match.store.Store.commit` alone with the same pre-encoded blobs
  (the Redis client's share).

With more writers, more commits share one loop iteration (one batch: ``per batch`` is the
mean count); under ``bench/load.py --matches 1000`` a batch holds a few.

    .venv/bin/python bench/commit.py [--writers 1,4,32] [--matches 48] [--repeats 3]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an install

import msgpack

from engine.match import MatchOptions
from harness.machine_driver import Seat
from server.machine import core, serial
from server.machine.commands import Command, Join
from server.machine.state import Config, MatchState
from server.match.clock import ServerClock
from server.match.hub import Hub
from server.match.service import MatchService
from server.match.store import Store
from server.match.stored import command_record, summary
from server.ops.redis_process import RedisProcess

CONFIG = Config(MatchOptions.money(), clock_ms=600_000)
STEPS = 150
"""Transitions recorded per match (a money session goes on game after game)."""

Played = tuple[str, list[tuple[MatchState, Command, int]]]
"""A match's id and its transitions: (state before, command, server time)."""


def play(index: int) -> Played:
    """One seeded money game, played to its end: the commands that made it."""
    rng = random.Random(index)
    match_id = f"{index:032x}"
    seats = [Seat(s, random.Random(rng.random()), double_rate=0, resign_rate=0) for s in (0, 1)]
    state, _ = core.create(match_id, CONFIG, "ann", 0)
    now = 10
    steps: list[tuple[MatchState, Command, int]] = []
    command: Command | None = Join(1, name="bob")
    while command is not None:
        steps.append((state, command, now))
        outcome = core.apply(state, command, now)
        assert isinstance(outcome, core.Accepted), outcome
        state = outcome.state
        now += 50
        if state.is_over or len(steps) >= STEPS:
            break
        command = next((c for s in seats if (c := s.decide(state)) is not None), None)
    return match_id, steps


def counting_batches(store: Store) -> list[int]:
    """Count the commit script's batches (sends of one loop iteration), in a one-item list."""
    batches = [0]
    batcher = store._commit
    send_all = batcher._send_all

    async def counted(calls: list[Any]) -> list[Any]:
        batches[0] += 1
        return await send_all(calls)

    batcher._send_all = counted  # type: ignore[method-assign]
    return batches


async def timed(
    store: Store,
    batches: list[int],
    writer: Callable[[list[Any]], Awaitable[None]],
    work: list[Any],
    writers: int,
) -> float:
    """CPU seconds of ``writers`` writers sharing ``work`` (each a slice of it) at once; the
    batch count starts from 0 and the store is closed after."""
    batches[0] = 0
    cpu = time.process_time()
    await asyncio.gather(*(writer(work[w::writers]) for w in range(writers)))
    cpu = time.process_time() - cpu
    await store.close()
    return cpu


async def run_submit(
    url: str, games: list[Played], writers: int, run: int
) -> tuple[float, int, int]:
    """CPU seconds, commits and batches of replaying ``games`` through the service."""
    store = Store.from_url(url)
    clock = ServerClock(store)
    await clock.beat()
    matches = MatchService(store, Hub(store, url), clock, encode_event=lambda e: b"e" * 120)
    batches = counting_batches(store)
    await store.redis.flushall()
    ids = {match_id: match_id for match_id, _ in games}
    for match_id, _ in games:  # created outside the measure
        await matches.begin(ids[match_id], CONFIG, "ann", {"0": b"h" * 32})

    async def writer(mine: list[Played]) -> None:
        for match_id, steps in mine:
            for _, command, _ in steps:
                await matches.submit(ids[match_id], command)

    cpu = await timed(store, batches, writer, games, writers)
    return cpu, sum(len(steps) for _, steps in games), batches[0]


async def run_commit(
    url: str, games: list[Played], writers: int, run: int
) -> tuple[float, int, int]:
    """CPU seconds, commits and batches of storing the pre-encoded transitions of ``games``."""
    store = Store.from_url(url)
    await store.redis.flushall()
    batches = counting_batches(store)
    encoded = []
    for match_id, steps in games:
        blobs = []
        for state, command, now in steps:
            after = core.apply(state, command, now).state
            blobs.append(
                (
                    state.version,
                    serial.dumps(after),
                    msgpack.packb(summary(after), use_bin_type=True),
                    command_record(command, now, after.names[0]),
                )
            )
        encoded.append((match_id, blobs))
    first = {}
    for match_id, _ in encoded:
        fields = {"0": b"h" * 32}
        first[match_id] = await store.commit(match_id, -1, b"s", b"m", [b"e"], seat_fields=fields)
    frames = [b"e" * 120, b"e" * 120]

    async def writer(mine: list[tuple[str, list[tuple[int, bytes, bytes, bytes]]]]) -> None:
        for match_id, blobs in mine:
            version = first[match_id]
            for _, state, summary_blob, record in blobs:
                version = await store.commit(
                    match_id, version, state, summary_blob, frames, command=record
                )

    cpu = await timed(store, batches, writer, encoded, writers)
    return cpu, sum(len(blobs) for _, blobs in encoded), batches[0]


def apply_cpu(games: list[Played]) -> float:
    """CPU seconds per transition of the pure machine over ``games`` (best of three)."""
    steps = [step for _, s in games for step in s]
    best = float("inf")
    for _ in range(3):
        cpu = time.process_time()
        for state, command, now in steps:
            core.apply(state, command, now)
        best = min(best, time.process_time() - cpu)
    return best / len(steps)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", default="1,4,32", help="comma-separated counts")
    parser.add_argument("--matches", type=int, default=48)
    parser.add_argument("--repeats", type=int, default=3, help="runs per figure (best kept)")
    parser.add_argument("--fsync", default="everysec", choices=("always", "everysec"))
    args = parser.parse_args()
    games = [play(i) for i in range(args.matches)]
    total = sum(len(s) for _, s in games)
    apply_us = apply_cpu(games) * 1e6
    print(f"{args.matches} money sessions, {total} transitions; apply {apply_us:.1f} us each")
    print(f"{'writers':>8}{'per batch':>11}{'submit us':>11}{'-apply us':>11}{'commit us':>11}")
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisProcess(Path(tmp), appendfsync=args.fsync)
        redis.start()
        run = 0
        try:
            for writers in (int(w) for w in args.writers.split(",")):
                best_submit = best_commit = float("inf")
                per_batch = 0.0
                for _ in range(args.repeats):
                    run += 1
                    cpu, n, b = asyncio.run(run_submit(redis.url, games, writers, run))
                    best_submit = min(best_submit, cpu / n * 1e6)
                    per_batch = n / max(b, 1)
                    run += 1
                    cpu, n, _ = asyncio.run(run_commit(redis.url, games, writers, run))
                    best_commit = min(best_commit, cpu / n * 1e6)
                print(
                    f"{writers:>8}{per_batch:>11.1f}{best_submit:>11.1f}"
                    f"{best_submit - apply_us:>11.1f}{best_commit:>11.1f}"
                )
        finally:
            redis.stop()


if __name__ == "__main__":
    main()
