"""Seeded test positions for the variants (engine.variants), shared by the tests and
bench/variants.py.

Positions come from random play (both sides choose uniformly among the variant's legal plays)
and, for plakoto and fevga, from hand-shaped families where their own rules bite: pinned
checkers on both sides, mothers that can be pinned, bearing off with pins, fevga's opening
with the first checker still on its way, the starting quarter nearly closed, an opponent
waiting behind a prime. Every family is reproducible from its seed; every position passes its
variant's check.

>>> from engine.variants import variant
>>> cases = random_play_cases(variant("fevga"), seed=1, n=5, games=2)
>>> len(cases), all(1 <= d <= 6 for _, d1, d2 in cases for d in (d1, d2))
(5, True)
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any

from engine.variants import Variant
from engine.variants.fevga.limits import trapped_point
from engine.variants.fevga.position import FevgaPosition, their_point
from engine.variants.plakoto.position import PlakotoPosition

Case = tuple[Any, int, int]
ROLLS = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))
"""The 21 distinct rolls (higher die first)."""


def random_play(variant: Variant, rng: random.Random, games: int, max_turns: int = 600) -> list:
    """Every position on roll in ``games`` games of uniformly random legal play."""
    found = []
    for _ in range(games):
        position = variant.start()
        for _ in range(max_turns):
            found.append(position)
            plays = variant.legal_plays(position, rng.randint(1, 6), rng.randint(1, 6))
            if plays:
                position = rng.choice(plays).position
                if variant.ending(position) is not None:
                    break
            position = position.swapped()
    return found


def random_play_cases(variant: Variant, seed: int, n: int, games: int = 40) -> list[Case]:
    """``n`` positions sampled from seeded random games, each with a seeded random roll."""
    rng = random.Random(seed)
    pool = random_play(variant, rng, games)
    return [(p, rng.randint(1, 6), rng.randint(1, 6)) for p in rng.sample(pool, min(n, len(pool)))]


# -- plakoto ----------------------------------------------------------------------------------


def _spread(rng: random.Random, board: list[int], n: int, points: list[int]) -> None:
    """Put ``n`` checkers on a few (2 to 7) of ``points``: boards like those of real games,
    whose doubles the reference can still enumerate."""
    chosen = rng.sample(points, min(len(points), rng.randint(2, 7)))
    for _ in range(n):
        board[rng.choice(chosen)] += 1


def plakoto_board(rng: random.Random, home_only: bool = False, pins: int = 3) -> PlakotoPosition:
    """Random plakoto boards: each side's checkers on a few points (the mover's all home with
    ``home_only``), and up to ``pins`` lone checkers pinned under the other side's (with
    ``home_only``, often one of the mover's in its home board, which forbids bearing off)."""
    while True:
        mover = [0] * 26
        opponent = [0] * 26
        mover_pinned = opponent_pinned = 0
        if home_only and rng.random() < 0.5:
            p = rng.randint(1, 6)  # a mover's checker pinned at home
            mover[p] = 1
            opponent[25 - p] = rng.randint(1, 2)
            mover_pinned |= 1 << p
        for _ in range(rng.randint(0, pins)):
            p = rng.randint(7 if home_only else 1, 24)
            q = 25 - p
            if mover[p] or opponent[q]:
                continue
            if rng.random() < 0.5 and not home_only:
                mover[p] = 1
                opponent[q] = rng.randint(1, 2)
                mover_pinned |= 1 << p
            else:
                opponent[q] = 1
                mover[p] = 0 if home_only else rng.randint(1, 2)
                if mover[p]:
                    opponent_pinned |= 1 << q
        free = [p for p in (range(1, 7) if home_only else range(1, 25)) if not opponent[25 - p]]
        off = rng.randint(0, 6) if home_only else rng.choice([0, 0, 0, 2, 5])
        _spread(rng, mover, max(0, 15 - sum(mover) - off), free)
        spots = [q for q in range(1, 25) if not mover[25 - q]]
        _spread(rng, opponent, max(0, 15 - sum(opponent) - rng.choice([0, 0, 0, 1, 4])), spots)
        for board in (mover, opponent):
            board[0] = 15 - sum(board[1:])
        if mover[0] >= 0 and opponent[0] >= 0:
            try:
                return PlakotoPosition.checked(
                    tuple(mover), tuple(opponent), mover_pinned, opponent_pinned
                )
            except ValueError:
                continue


def plakoto_mothers(rng: random.Random) -> PlakotoPosition:
    """Mothers in reach: the opponent's last checker (or two) on its starting point, the
    mover's checkers a few pips from it, the mover's own mother sometimes pinned."""
    while True:
        mover = [0] * 26
        opponent = [0] * 26
        opponent[24] = rng.choice([1, 1, 2])
        mover_pinned = 0
        if rng.random() < 0.3:
            mover[24] = 1  # the mover's mother, pinned by the opponent's checker on its 1
            opponent[1] = rng.randint(1, 2)
            mover_pinned = 1 << 24
        elif rng.random() < 0.5:
            mover[24] = rng.randint(1, 4)
        _spread(rng, mover, 15 - sum(mover), [p for p in range(2, 13) if not opponent[25 - p]])
        _spread(rng, opponent, 15 - sum(opponent), [q for q in range(2, 24) if not mover[25 - q]])
        for board in (mover, opponent):
            board[0] = 15 - sum(board[1:])
        try:
            return PlakotoPosition.checked(tuple(mover), tuple(opponent), mover_pinned, 0)
        except ValueError:
            continue


PLAKOTO_FAMILIES: dict[str, Callable[[random.Random], PlakotoPosition]] = {
    "pins": plakoto_board,
    "bear_off": lambda rng: plakoto_board(rng, home_only=True, pins=2),
    "mothers": plakoto_mothers,
}


# -- fevga ------------------------------------------------------------------------------------


def _fevga(mover: list[int], opponent: list[int], rng: random.Random, spots) -> FevgaPosition:
    """Fill the rest of the opponent's checkers onto ``spots`` (its numbering) that the mover
    does not hold, set the borne-off counts, and build the position."""
    free = [q for q in spots if not mover[their_point(q)]]
    _spread(rng, opponent, 15 - sum(opponent) - rng.choice([0, 0, 0, 2]), free)
    for board in (mover, opponent):
        board[0] = 15 - sum(board[1:25])
    return FevgaPosition.checked(tuple(mover), tuple(opponent))


def fevga_opening(rng: random.Random) -> FevgaPosition:
    """The first checker on its way: fifteen on the starting point, or fourteen and a runner
    not yet past the opponent's starting point (sometimes just past it)."""
    mover = [0] * 26
    opponent = [0] * 26
    opponent[24] = rng.choice([15, 14, 12, 9])
    if opponent[24] == 14:
        opponent[rng.randint(13, 23)] = 1
    if rng.random() < 0.3:
        mover[24] = 15
    else:
        mover[24] = 14
        while True:
            p = rng.randint(9, 23)
            if not opponent[their_point(p)]:
                mover[p] = 1
                break
    return _fevga(mover, opponent, rng, list(range(1, 24)))


def fevga_quarter(rng: random.Random) -> FevgaPosition:
    """Five of the six points 19..24 held, checkers behind and on them to close the sixth."""
    mover = [0] * 26
    opponent = [0] * 26
    gap = rng.randint(19, 24)
    for p in range(19, 25):
        if p != gap:
            mover[p] = rng.randint(1, 3)
    for _ in range(15 - sum(mover) - rng.randint(0, 4)):
        mover[rng.choice([24, 23, 22, 21, 20, 19, 18, 16, 13, 10])] += 1
    mover[gap] = 0
    return _fevga(mover, opponent, rng, [q for q in range(1, 25) if q not in (7, 8, 9, 10, 11, 12)])


def fevga_prime(rng: random.Random) -> FevgaPosition:
    """All the opponent's checkers on one point right behind a six-prime of the mover's (the
    prime must be opened when it can be), or nearly so."""
    while True:
        mover = [0] * 26
        opponent = [0] * 26
        x = rng.randint(7, 24)
        opponent[x] = 15 if rng.random() < 0.8 else 14
        if opponent[x] == 14:
            opponent[rng.randint(1, x - 7) if x > 7 else 1] += 1
        for q in range(x - 6, x):
            mover[their_point(q)] = rng.randint(1, 2)
        free = [p for p in range(1, 25) if not opponent[their_point(p)]]
        _spread(rng, mover, 15 - sum(mover), free)
        mover[0] = 15 - sum(mover[1:25])
        opponent[0] = 15 - sum(opponent[1:25])
        if min(mover) < 0:
            continue
        try:
            position = FevgaPosition.checked(tuple(mover), tuple(opponent))
        except ValueError:
            continue
        if opponent[x] < 15 or trapped_point(position) is not None:
            return position


def fevga_board(rng: random.Random, home_only: bool = False) -> FevgaPosition:
    """Random fevga boards (the mover's checkers all home with ``home_only``)."""
    mover = [0] * 26
    opponent = [0] * 26
    points = list(range(1, 7) if home_only else range(1, 25))
    _spread(rng, mover, 15 - (rng.randint(0, 8) if home_only else rng.choice([0, 0, 3])), points)
    return _fevga(mover, opponent, rng, list(range(1, 25)))


FEVGA_FAMILIES: dict[str, Callable[[random.Random], FevgaPosition]] = {
    "opening": fevga_opening,
    "quarter": fevga_quarter,
    "prime": fevga_prime,
    "bear_off": lambda rng: fevga_board(rng, home_only=True),
    "crowded": fevga_board,
}

FAMILIES: dict[str, dict[str, Callable[[random.Random], Any]]] = {
    "plakoto": PLAKOTO_FAMILIES,
    "fevga": FEVGA_FAMILIES,
}


def family_cases(name: str, seed: int, per_family: int) -> dict[str, list[Case]]:
    """``per_family`` seeded (position, d1, d2) cases for each family of variant ``name``."""
    rng = random.Random(seed)
    return {
        family: [(make(rng), rng.randint(1, 6), rng.randint(1, 6)) for _ in range(per_family)]
        for family, make in FAMILIES[name].items()
    }
