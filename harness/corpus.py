"""Seeded test positions and the GNU Backgammon oracle, shared by the tests and bench/engine.py.

Positions come from random play (both sides choose uniformly among gnubg's legal plays) and from
hand-shaped "tricky" families where generators usually go wrong: entering against closed boards,
several checkers on the bar, bear-offs with gaps and hits, one-die-only rolls, the higher-die
rule, partial doubles, nearly finished games. Every family is reproducible from its seed.

gnubg's board is ``[side not on roll, side on roll]``, each 25 counts (points 1..24, then the
bar) from that side's own point of view, exactly our ``Position(mover, opponent)`` without the
borne-off counts. gnubg's move generator does not turn the board: its results are still seen by
the side that moved.

>>> from engine.position import Position
>>> from_gnubg(to_gnubg(Position.start())) == Position.start()
True
>>> len(gnubg_results(Position.start(), 3, 1))
16
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator

import gnubg_nn as gnubg

from engine.position import BAR, CHECKERS, OFF, Position

Roll = tuple[int, int]
Case = tuple[Position, int, int]

ROLLS: tuple[Roll, ...] = tuple((d1, d2) for d1 in range(1, 7) for d2 in range(1, d1 + 1))
"""The 21 distinct rolls (higher die first)."""


def to_gnubg(position: Position) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """gnubg's board of ``position``: (side not on roll, side on roll), points 1..24 then bar."""
    return position.opponent[1:26], position.mover[1:26]


def from_gnubg(board) -> Position:
    """The inverse of :func:`to_gnubg` (borne-off counts restored)."""
    opponent, mover = board
    return Position((CHECKERS - sum(mover), *mover), (CHECKERS - sum(opponent), *opponent))


def gnubg_results(position: Position, d1: int, d2: int) -> set[Position]:
    """Distinct positions (still seen by the mover) that gnubg's generator reaches."""
    keys = gnubg.moves(to_gnubg(position), d1, d2)
    return {from_gnubg(gnubg.board_from_position_key(key)) for key in keys}


def gnubg_dice_used(position: Position, d1: int, d2: int) -> int:
    """How many dice gnubg's plays use (0 when nothing can be played)."""
    plays = gnubg.moves(to_gnubg(position), d1, d2, 1)
    return max((len(steps) for _, steps in plays), default=0)


# -- random play ------------------------------------------------------------------------------


def random_play(rng: random.Random, games: int, max_turns: int = 400) -> list[Position]:
    """Every position on roll in ``games`` games of uniformly random legal play (gnubg moves)."""
    found: list[Position] = []
    for _ in range(games):
        position = Position.start()
        for _ in range(max_turns):
            if position.is_over():
                break
            found.append(position)
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            keys = gnubg.moves(to_gnubg(position), d1, d2)
            if keys:
                position = from_gnubg(gnubg.board_from_position_key(rng.choice(keys)))
            position = position.swapped()
    return found


# -- hand-shaped families ---------------------------------------------------------------------


def _place(rng: random.Random, board: list[int], other: list[int], n: int, points) -> None:
    """Put ``n`` checkers of ``board`` on random ``points`` (its own numbering) not held by
    ``other`` (whose point ``25 - p`` faces our ``p``); the bar and off are always free."""
    points = list(points)
    for _ in range(n):
        for _ in range(100):
            p = rng.choice(points)
            if p in (OFF, BAR) or other[25 - p] == 0:
                board[p] += 1
                break
        else:
            board[OFF] += 1


def _finish(board: list[int], other: list[int], rng: random.Random, points) -> None:
    """Place whatever is left of ``board``'s 15 checkers on ``points``."""
    _place(rng, board, other, CHECKERS - sum(board), points)


def bar_against_closed_board(rng: random.Random) -> Position:
    """1-4 checkers on the bar; the opponent holds 3-6 points of their home board."""
    mover, opp = [0] * 26, [0] * 26
    for p in rng.sample(range(1, 7), rng.randint(3, 6)):
        opp[p] = min(rng.choice((2, 2, 3)), CHECKERS - sum(opp))
    _place(rng, opp, mover, max(0, CHECKERS - sum(opp) - rng.randint(0, 3)), range(1, 25))
    _finish(opp, mover, rng, [OFF, *range(1, 25)])
    mover[BAR] = rng.randint(1, 4)
    _finish(mover, opp, rng, [OFF, *range(1, 25)])
    return Position(tuple(mover), tuple(opp))


def bear_off(rng: random.Random, contact: bool) -> Position:
    """All the mover's checkers home with gaps; with ``contact``, opponent checkers (often blots)
    stand in the mover's home board so bear-off moves can hit and be blocked."""
    mover, opp = [0] * 26, [0] * 26
    mover[OFF] = rng.randint(0, 13)
    home = rng.sample(range(1, 7), rng.randint(1, 5))
    if contact:
        for p in rng.sample(range(1, 7), rng.randint(1, 3)):
            if p not in home:
                opp[25 - p] = rng.choice((1, 1, 1, 2))
        if rng.random() < 0.3:
            opp[BAR] = 1
    _finish(mover, opp, rng, home)
    _finish(opp, mover, rng, [OFF, *range(1, 25)])
    return Position(tuple(mover), tuple(opp))


def nearly_finished(rng: random.Random) -> Position:
    """One to three checkers left, anywhere on the board or the bar."""
    mover, opp = [0] * 26, [0] * 26
    mover[OFF] = CHECKERS - rng.randint(1, 3)
    _finish(opp, mover, rng, [OFF, *range(1, 25)])
    _finish(mover, opp, rng, [BAR, *range(1, 25)] if rng.random() < 0.3 else range(1, 12))
    return Position(tuple(mover), tuple(opp))


def blocked(rng: random.Random) -> Position:
    """Few mover checkers against many opponent points: one-die-only rolls, the higher-die rule
    and partial doubles happen here."""
    mover, opp = [0] * 26, [0] * 26
    for p in rng.sample(range(1, 25), rng.randint(4, 7)):
        opp[p] = 2
    _finish(opp, mover, rng, [OFF, *range(1, 25)])
    n = rng.randint(1, 4)
    mover[OFF] = CHECKERS - n
    _finish(mover, opp, rng, [BAR, *range(1, 25)] if rng.random() < 0.2 else range(1, 25))
    return Position(tuple(mover), tuple(opp))


def crowded(rng: random.Random) -> Position:
    """Random legal boards with checkers everywhere, some on both bars."""
    mover, opp = [0] * 26, [0] * 26
    points = [BAR, *range(1, 25), OFF]
    _finish(mover, opp, rng, points)
    _finish(opp, mover, rng, points)
    return Position(tuple(mover), tuple(opp))


def _roll(rng: random.Random) -> Roll:
    return rng.randint(1, 6), rng.randint(1, 6)


def _filtered(
    rng: random.Random, make: Callable[[random.Random], Position], keep: Callable[[Case], bool]
) -> Iterator[Case]:
    while True:
        position = make(rng)
        d1, d2 = _roll(rng)
        if keep((position, d1, d2)):
            yield position, d1, d2


def _one_die_only(case: Case) -> bool:
    position, d1, d2 = case
    return d1 != d2 and gnubg_dice_used(position, d1, d2) == 1


def _partial_double(case: Case) -> bool:
    position, d1, d2 = case
    return d1 == d2 and 0 < gnubg_dice_used(position, d1, d2) < 4


def _take(cases: Iterator[Case], n: int) -> list[Case]:
    return [next(cases) for _ in range(n)]


FAMILIES = (
    "bar_closed_board",
    "bear_off_gaps",
    "bear_off_hits",
    "nearly_finished",
    "blocked",
    "crowded",
    "one_die_only",
    "partial_doubles",
    "bear_off_doubles",
)


def tricky_cases(seed: int, per_family: int) -> dict[str, list[Case]]:
    """``per_family`` seeded (position, d1, d2) cases for each tricky family, by family name."""
    rng = random.Random(seed)
    plain: dict[str, Callable[[random.Random], Position]] = {
        "bar_closed_board": bar_against_closed_board,
        "bear_off_gaps": lambda r: bear_off(r, contact=False),
        "bear_off_hits": lambda r: bear_off(r, contact=True),
        "nearly_finished": nearly_finished,
        "blocked": blocked,
        "crowded": crowded,
    }
    cases = {
        name: [(make(rng), *_roll(rng)) for _ in range(per_family)] for name, make in plain.items()
    }
    cases["one_die_only"] = _take(_filtered(rng, blocked, _one_die_only), per_family)
    cases["partial_doubles"] = _take(_filtered(rng, blocked, _partial_double), per_family)
    # Doubles in the bear-off: the moves inside the home board and the oversize rule interleave.
    cases["bear_off_doubles"] = [
        (bear_off(rng, contact=rng.random() < 0.5), *(2 * (rng.randint(1, 6),)))
        for _ in range(per_family)
    ]
    assert tuple(cases) == FAMILIES
    return cases


def random_play_cases(seed: int, n: int, games: int = 40) -> list[Case]:
    """``n`` positions sampled from seeded random games, each with a seeded random roll."""
    rng = random.Random(seed)
    pool = random_play(rng, games)
    return [(position, *_roll(rng)) for position in rng.sample(pool, min(n, len(pool)))]


def mixed_cases(seed: int, n: int) -> list[Case]:
    """The benchmark mix: two thirds random play, one third spread over the tricky families."""
    tricky_n = n // 3
    families = tricky_cases(seed + 1, max(1, tricky_n // 9 + 1))
    tricky = [case for family in families.values() for case in family][:tricky_n]
    cases = random_play_cases(seed, n - len(tricky), games=max(10, n // 40)) + tricky
    random.Random(seed + 2).shuffle(cases)
    return cases
