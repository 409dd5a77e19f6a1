"""The pure tournament machine alone: CPU per transition and the size of the stored state, for
a 256-player knockout, a 500-player 30-minute arena and Swiss fields of 9-64 players over 7
rounds (how long a round's pairing takes, and how often no pairing without repeats was left).

No Redis, no server: these are the machine's own costs, the floor under what the shell of
#21 adds (``bench/tournament.py`` measures the whole). Every state's stored form is
written (``dumps``) as the shell would, and timed with the transition.

    .venv/bin/python bench/tournament_machine.py [--swiss 200] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from harness.tournament_driver import config, entrants  # noqa: E402
from server.competition import machine, swiss  # noqa: E402
from server.competition.commands import Connected, MatchFinished, Tick  # noqa: E402
from server.competition.state import Game, Kind, TournamentState, dumps  # noqa: E402

MIN = 60_000


class Timed:
    """Applies commands as the shell would (apply, then dumps), timing each transition."""

    def __init__(self, state: TournamentState) -> None:
        self.state = state
        self.times: list[float] = []
        self.sizes: list[int] = []

    def do(self, command: object, now: int) -> None:
        t0 = time.process_time()
        step = machine.apply(self.state, command, now)  # type: ignore[arg-type]
        if isinstance(step, machine.Accepted):
            blob = dumps(step.state)
            self.times.append(time.process_time() - t0)
            self.sizes.append(len(blob))
            self.state = step.state

    def running(self) -> list:
        return [p for p in self.state.pairings if p.outcome is None and p.match]

    def report(self, label: str) -> None:
        ms = sorted(t * 1000 for t in self.times)
        p99 = ms[int(len(ms) * 0.99)]
        print(
            f"{label}: {len(ms)} transitions, CPU per transition (apply + dumps) "
            f"p50 {statistics.median(ms):.2f} ms, p99 {p99:.2f} ms, max {ms[-1]:.2f} ms; "
            f"stored state {self.sizes[-1] / 1024:.0f} KiB at the end "
            f"(largest {max(self.sizes) / 1024:.0f} KiB)"
        )


def knockout(rng: random.Random) -> None:
    run = Timed(machine.create("bench-ko", config(Kind.KNOCKOUT, max_players=256), "c", 0))
    now = 0
    for join in entrants(256, rng.randrange(1 << 30)):
        run.do(join, now)
    while run.state.phase.value == "running":
        for pairing in run.running():
            for seat in (0, 1):
                run.do(Connected(pairing.match, seat), now)
        pairing = run.running()[0]
        now += 1_000
        winner = rng.randrange(2)
        run.do(MatchFinished(pairing.match, winner, (3, 1), (Game(winner, "single", "drop"),)), now)
    run.report("knockout, 256 players")


def arena(rng: random.Random) -> None:
    """500 players for 30 minutes; each match lasts 2-6 minutes, both seats connect at once."""
    terms = config(Kind.ARENA, max_players=500, duration_ms=30 * MIN, cutoff_ms=MIN)
    run = Timed(machine.create("bench-arena", terms, "c", 0))
    for join in entrants(500, rng.randrange(1 << 30)):
        run.do(join, 0)
    ends: dict[str, int] = {}
    now = 0
    while run.state.phase.value == "running":
        for pairing in run.running():
            if pairing.match not in ends:
                for seat in (0, 1):
                    run.do(Connected(pairing.match, seat), now)
                ends[pairing.match] = now + rng.randrange(2 * MIN, 6 * MIN)
        due = [(t, m) for m, t in ends.items() if m in {p.match for p in run.running()}]
        if not due:
            run.do(Tick(), now + 1_000)
            now += 1_000
            continue
        now, match = min(due)
        del ends[match]
        winner = rng.randrange(2)
        result = rng.choice(["single", "single", "gammon", "backgammon"])
        run.do(MatchFinished(match, winner, (1, 0), (Game(winner, result, "bear_off"),)), now)
    run.report(f"arena, 500 players, 30 min ({run.state.boards} matches)")


def swiss_rounds(count: int, rng: random.Random) -> None:
    """Swiss pairing alone (:func:`server.competition.swiss.pair_round`), 7 rounds of random
    results for fields of 9-64: its time per round and how often no round was left."""
    times = []
    exhausted = 0
    for _ in range(count):
        n = rng.randint(9, 64)
        players = {j.player: [0, j.rating] for j in entrants(n, rng.randrange(1 << 30))}
        met: set[frozenset[str]] = set()
        had_bye: set[str] = set()
        for _r in range(7):
            ranked = sorted(players, key=lambda p: (-players[p][0], -players[p][1], p))
            t0 = time.process_time()
            found = swiss.pair_round(ranked, {p: v[0] for p, v in players.items()}, met, had_bye)
            times.append(time.process_time() - t0)
            if found is None:
                exhausted += 1
                break
            pairs, bye = found
            if bye:
                had_bye.add(bye)
                players[bye][0] += 1
            for a, b in pairs:
                met.add(frozenset((a, b)))
                players[rng.choice((a, b))][0] += 1
    ms = sorted(t * 1000 for t in times)
    print(
        f"Swiss pairing, {count} tournaments of 9-64 players x 7 rounds: {len(ms)} rounds, "
        f"p50 {statistics.median(ms):.2f} ms, p99 {ms[int(len(ms) * 0.99)]:.2f} ms, "
        f"max {ms[-1]:.2f} ms; ended early for want of a pairing: {exhausted}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--swiss", type=int, default=200, help="Swiss tournaments to pair")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    knockout(rng)
    arena(rng)
    swiss_rounds(args.swiss, rng)


if __name__ == "__main__":
    main()
