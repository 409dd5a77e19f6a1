"""How well the engine-assist detector (analysis/assist.py) tells engine play from human play,
measured on our own bot levels offline (docs/moderation.md, "Engine-assisted play").

Each *kind* of player plays cubeless money games against the Hard level (the dice of game
``i`` are the same for every kind); each of its non-trivial checker decisions (more than one
legal play) is scored as the analysis scores it: the equity it lost against the best play at
1-ply (the analysis's checker depth). Its games are cut into windows of ``--window`` games,
and the detector's verdict is taken on each window. Printed per kind: the windows flagged,
the mean PR and best-play share of its windows, and their range.

"Cheaters" copy an engine: ``hard`` (the analysis's own choice every time), ``expert`` (a
deeper search: 2-ply, close calls 3-ply), ``hard-10`` (an evasive cheater: the second-best
play one decision in ten). "Humans" are the noisy levels, people's kind of mistakes:
``strong`` and ``good`` (equities seen through Gaussian noise of 0.02 and 0.035: the strongest
honest players we simulate), ``normal`` (the Normal level, 0.07), ``easy`` (0.20), and
``slips`` (the best play, but one decision in six a random legal play instead).

Detection rate: the share of the cheaters' windows flagged; false-positive rate: the share of
the humans' windows flagged.

    .venv/bin/python bench/assist.py [--games 240] [--expert-games 72] [--window 12] [--seed 1]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # this checkout, not an install

from analysis.assist import BEST_EPSILON, GameFigures, verdict, windows
from bots.levels import Level, choose_play
from brain.context import CubeContext
from brain.nets import ScoredPlay, nets
from engine.position import OFF, Position

CUBELESS = CubeContext(cube_in_play=False)
Policy = Callable[[Position, int, int, list[ScoredPlay], random.Random], int]
"""Which of the 1-ply ranked plays (best first) a kind makes: its index."""


def noisy(sigma: float) -> Policy:
    def pick(position: Position, d1: int, d2: int, ranked: list[ScoredPlay],
             rng: random.Random) -> int:  # fmt: skip
        blurred = [s.equity + rng.gauss(0.0, sigma) for s in ranked]
        return max(range(len(ranked)), key=blurred.__getitem__)

    return pick


def best(position: Position, d1: int, d2: int, ranked: list[ScoredPlay], rng: random.Random) -> int:
    return 0


def expert(position: Position, d1: int, d2: int, ranked: list[ScoredPlay],
           rng: random.Random) -> int:  # fmt: skip
    chosen = choose_play(Level.EXPERT, position, d1, d2, CUBELESS, rng)
    assert chosen is not None
    return next(i for i, s in enumerate(ranked) if s.play.position == chosen.position)


def evasive(share: float) -> Policy:
    def pick(position: Position, d1: int, d2: int, ranked: list[ScoredPlay],
             rng: random.Random) -> int:  # fmt: skip
        return 1 if len(ranked) > 1 and rng.random() < share else 0

    return pick


def slips(share: float) -> Policy:
    def pick(position: Position, d1: int, d2: int, ranked: list[ScoredPlay],
             rng: random.Random) -> int:  # fmt: skip
        return rng.randrange(len(ranked)) if rng.random() < share else 0

    return pick


CHEATERS: dict[str, Policy] = {"hard": best, "expert": expert, "hard-10": evasive(0.10)}
HUMANS: dict[str, Policy] = {
    "strong": noisy(0.02),
    "good": noisy(0.035),
    "fair": noisy(0.05),
    "normal": noisy(0.07),
    "easy": noisy(0.20),
    "slips": slips(1 / 6),
}


def game(policy: Policy, seed: int, rng: random.Random) -> GameFigures:
    """One game of ``policy`` (seat 0) against the Hard level: seat 0's figures."""
    dice = random.Random(seed)
    position, seat = Position.start(), dice.randrange(2)
    decisions, error, top = 0, 0.0, 0
    for _ in range(1000):
        d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
        ranked = nets().rank_plays(position, d1, d2, CUBELESS, ply=1)
        if ranked:
            index = policy(position, d1, d2, ranked, rng) if seat == 0 else 0
            if seat == 0 and len(ranked) > 1:
                lost = ranked[0].equity - ranked[index].equity
                decisions += 1
                error += lost
                top += lost < BEST_EPSILON
            position = ranked[index].play.position
            if position.mover[OFF] == 15:
                break
        position = position.swapped()
        seat = 1 - seat
    return GameFigures(f"g{seed}", decisions, error, top)


def run(kinds: dict[str, Policy], games: int, window: int, seed: int,
        expert_games: int) -> tuple[int, int]:  # fmt: skip
    """Print each kind's windows; the windows flagged and the windows, over all kinds."""
    flagged_all = total = 0
    for name, policy in kinds.items():
        n = expert_games if name == "expert" else games
        rng = random.Random(seed)
        t = time.perf_counter()
        played = [game(policy, seed * 100_000 + i, rng) for i in range(n)]
        verdicts = [verdict(w) for w in windows(played, window)]
        flagged = sum(v.flagged for v in verdicts)
        prs = [v.pr for v in verdicts]
        shares = [v.best_share for v in verdicts]
        clean = [v.clean_games for v in verdicts]
        decisions = sum(v.decisions for v in verdicts) / max(1, len(verdicts))
        print(f"  {name:8} {flagged:3}/{len(verdicts):<3} flagged   PR {sum(prs) / len(prs):5.2f} "
              f"({min(prs):.2f}-{max(prs):.2f})   best {100 * sum(shares) / len(shares):3.0f}% "
              f"({100 * min(shares):.0f}-{100 * max(shares):.0f}%)   "
              f"clean {100 * sum(clean) / len(clean):3.0f}%   "
              f"{decisions:.0f} decisions a window   {time.perf_counter() - t:.0f} s")  # fmt: skip
        flagged_all += flagged
        total += len(verdicts)
    return flagged_all, total


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=240, help="games per kind")
    parser.add_argument("--expert-games", type=int, default=72, help="games of the Expert level")
    parser.add_argument("--window", type=int, default=12, help="games in a window (the server's)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    print(f"windows of {args.window} games; engine copiers ('cheaters'):")
    caught, cheats = run(CHEATERS, args.games, args.window, args.seed, args.expert_games)
    print("humans (noisy levels, random slips):")
    false, honest = run(HUMANS, args.games, args.window, args.seed, args.expert_games)
    print(
        f"detection rate {caught}/{cheats} = {100 * caught / cheats:.0f}%   "
        f"false-positive rate {false}/{honest} = {100 * false / honest:.0f}%"
    )


if __name__ == "__main__":
    main()
