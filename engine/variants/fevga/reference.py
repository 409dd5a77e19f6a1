"""A deliberately simple fevga generator: the rules read one sentence at a time.

Written from the rules text (docs/rules.md, "Fevga"), not from the fast generator: every
order of the dice, one checker move at a time on immutable positions; then the plays the
whole-play restrictions forbid are dropped (the starting quarter; and, when a prime must be
opened and can be, the plays that leave it closed); then the sequences using the most dice
are kept (the higher die when only one can be used). Slow; the oracle for
:mod:`engine.variants.fevga.movegen`.

>>> from engine.variants.fevga.position import FevgaPosition
>>> start = FevgaPosition.start()
>>> len(reference_plays(start, 6, 6)), len(reference_plays(start, 5, 5))
(1, 2)
"""

from __future__ import annotations

from engine.position import OFF
from engine.reference import Move
from engine.variants.fevga.position import FevgaPosition, their_point

START = 24
OPPONENT_START = 12  # the opponent's starting point, in the mover's numbering


def opposing_checkers(position: FevgaPosition, point: int) -> int:
    return position.opponent[their_point(point)]


def start_is_locked(position: FevgaPosition) -> bool:
    """Exactly one checker has left the starting point and it has not yet passed the
    opponent's starting point: then no other checker may leave."""
    gone = 15 - position.mover[START]
    if gone != 1:
        return False
    runner = max(p for p in range(START) if position.mover[p])
    return runner >= OPPONENT_START


def may_bear_off(position: FevgaPosition) -> bool:
    return position.mover[OFF] + sum(position.mover[1:7]) == 15


def single_moves(position: FevgaPosition, die: int) -> list[Move]:
    """Every legal move of one checker by ``die`` pips, ignoring the other dice."""
    moves: list[Move] = []
    for start in range(24, 0, -1):
        if not position.mover[start]:
            continue
        if start == START and start_is_locked(position):
            continue
        end = start - die
        if end >= 1:
            if opposing_checkers(position, end) == 0:  # one opposing checker holds a point
                moves.append((start, end))
        elif may_bear_off(position):
            highest = max(p for p in range(1, 7) if position.mover[p])
            if end == 0 or start == highest:
                moves.append((start, OFF))
    return moves


def apply_move(position: FevgaPosition, move: Move) -> FevgaPosition:
    start, end = move
    mover = list(position.mover)
    mover[start] -= 1
    mover[end] += 1
    return FevgaPosition(tuple(mover), position.opponent)


def holds_whole_start_quarter(position: FevgaPosition) -> bool:
    return all(position.mover[p] > 0 for p in range(19, 25))


def blocked_behind_prime(position: FevgaPosition) -> int | None:
    """The opponent's point (in its numbering) where all of its checkers stand, if the
    mover holds the six points they must move onto next; else None."""
    points = [q for q in range(1, 25) if position.opponent[q] > 0]
    if len(points) != 1 or points[0] <= 6:
        return None
    x = points[0]
    ahead = [their_point(q) for q in range(x - 1, x - 7, -1)]
    return x if all(position.mover[p] > 0 for p in ahead) else None


def prime_opened(x: int, position: FevgaPosition) -> bool:
    return any(position.mover[their_point(q)] == 0 for q in range(x - 1, x - 7, -1))


def reference_plays(
    position: FevgaPosition, d1: int, d2: int
) -> dict[FevgaPosition, tuple[Move, ...]]:
    """All distinct legal plays: resulting position -> one legal order of checker moves.

    An empty dict means the roll cannot be played (the turn passes).
    """
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    sequences: list[tuple[tuple[Move, ...], tuple[int, ...], FevgaPosition]] = []

    def walk(pos: FevgaPosition, dice: list[int], moves: tuple[Move, ...], used: tuple[int, ...]):
        sequences.append((moves, used, pos))
        if dice:
            for move in single_moves(pos, dice[0]):
                walk(apply_move(pos, move), dice[1:], (*moves, move), (*used, dice[0]))

    for order in orders:
        walk(position, order, (), ())
    candidates = [s for s in sequences if not holds_whole_start_quarter(s[2])]
    x = blocked_behind_prime(position)
    if x is not None:
        opening = [s for s in candidates if prime_opened(x, s[2])]
        if opening:
            candidates = opening
    most = max((len(used) for _, used, _ in candidates), default=0)
    if most == 0:
        return {}
    best = [s for s in candidates if len(s[1]) == most]
    if most == 1 and d1 != d2:
        best = [s for s in best if s[1][0] == max(d1, d2)] or best
    plays: dict[FevgaPosition, tuple[Move, ...]] = {}
    for moves, _, pos in best:
        plays.setdefault(pos, moves)
    return plays
