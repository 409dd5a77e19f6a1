"""The pure match machine's cost per transition: ``core.apply`` over every command of six
seeded 5-point matches with a time reserve (the honest test seats of harness/machine_driver.py,
cube turned now and then), best of five passes.

    .venv/bin/python bench/machine.py [--kinds]

``--kinds`` adds the figure per kind of command (Roll, Reveal, MovePlay...).
"""

import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an install

from engine.match import MatchOptions
from harness.machine_driver import Seat
from server.machine import core
from server.machine.commands import Join
from server.machine.state import Config


def run(seed: int) -> list:
    rng = random.Random(seed)
    seats = [Seat(s, random.Random(rng.random()), double_rate=0.05, resign_rate=0) for s in (0, 1)]
    state, _ = core.create("ab" * 16, Config(MatchOptions.match(5), reserve_ms=120_000), "a", 0)
    state = core.apply(state, Join(1, name="b"), 0).state
    cmds = []
    now = 0
    while not state.is_over and len(cmds) < 3000:
        for s in seats:
            c = s.decide(state)
            if c is not None:
                now += 100
                cmds.append((state, c, now))
                state = core.apply(state, c, now).state
                break
    return cmds

cmds = [x for seed in range(6) for x in run(seed)]


def best_of_5(transitions: list) -> float:
    """The fastest of five passes over ``transitions``, in seconds."""
    best = 1e9
    for _ in range(5):
        t = time.perf_counter()
        for st, c, n in transitions:
            core.apply(st, c, n)
        best = min(best, time.perf_counter() - t)
    return best


best = best_of_5(cmds)
print(f"{len(cmds)} transitions, apply {best / len(cmds) * 1e6:.1f} us each (best of 5)")
if "--kinds" in sys.argv:  # the same, per kind of command
    kinds: dict[str, list] = {}
    for x in cmds:
        kinds.setdefault(type(x[1]).__name__, []).append(x)
    for name, group in sorted(kinds.items(), key=lambda kv: -len(kv[1])):
        best = best_of_5(group)
        print(f"  {name:<12} {len(group):5} x {best / len(group) * 1e6:6.1f} us")
