"""A deliberately simple plakoto generator: the rules read one sentence at a time.

Written from the rules text (docs/rules.md, "Plakoto"), not from the fast generator: it
tries every order of the dice, one checker move at a time on immutable positions, and then
keeps the sequences that use as many dice as possible (the higher die when only one can be
used). Slow; kept as the oracle the fast :mod:`engine.variants.plakoto.movegen` is tested
against.

>>> from engine.variants.plakoto.position import PlakotoPosition
>>> start = PlakotoPosition.start()
>>> len(reference_plays(start, 6, 5)), len(reference_plays(start, 3, 3))
(2, 5)
"""

from __future__ import annotations

from engine.position import OFF
from engine.reference import Move
from engine.variants.plakoto.position import PlakotoPosition


def their_point(point: int) -> int:
    """The opponent's number for the mover's point (the sides move in opposite directions)."""
    return 25 - point


def is_pinned(mask: int, point: int) -> bool:
    return bool(mask >> point & 1)


def may_stop_on(position: PlakotoPosition, point: int) -> bool:
    """A checker may stop on a point unless the opponent holds it: with two or more checkers,
    or with a checker sitting on a pinned checker of the mover's. A lone opposing checker does
    not hold it (it gets pinned), nor does one the mover already pins."""
    if is_pinned(position.mover_pinned, point):
        return False
    if is_pinned(position.opponent_pinned, their_point(point)):
        return True
    return position.opponent[their_point(point)] <= 1


def free_checkers(position: PlakotoPosition, point: int) -> int:
    """The mover's checkers on ``point`` that may move (a pinned checker may not)."""
    return position.mover[point] - (1 if is_pinned(position.mover_pinned, point) else 0)


def may_bear_off(position: PlakotoPosition) -> bool:
    """All fifteen home (on points 1-6 or already off) and none of them pinned."""
    at_home = position.mover[OFF] + sum(position.mover[1:7])
    return at_home == 15 and position.mover_pinned == 0


def single_moves(position: PlakotoPosition, die: int) -> list[Move]:
    """Every legal move of one checker by ``die`` pips, ignoring the other dice.

    >>> p = PlakotoPosition.from_points({24: 14, 5: 1}, {24: 14, 20: 1}, opponent_pinned=[20])
    >>> single_moves(p, 4)  # 5/1 is blocked: the opponent's fourteen on our 1-point
    [(24, 20)]
    """
    moves: list[Move] = []
    for start in range(24, 0, -1):
        if free_checkers(position, start) == 0:
            continue
        end = start - die
        if end >= 1:
            if may_stop_on(position, end):
                moves.append((start, end))
        elif may_bear_off(position):
            highest = max(p for p in range(1, 7) if position.mover[p])
            if end == 0 or start == highest:  # exact, or a larger die from the highest point
                moves.append((start, OFF))
    return moves


def apply_move(position: PlakotoPosition, move: Move) -> PlakotoPosition:
    """The position after one checker move: a lone opposing checker where it lands is pinned,
    and one it pinned where it left is freed when no checker of the mover's stays there."""
    start, end = move
    mover = list(position.mover)
    mover[start] -= 1
    mover[end] += 1
    opponent_pinned = position.opponent_pinned
    if mover[start] == 0:
        opponent_pinned &= ~(1 << their_point(start))
    if end != OFF and position.opponent[their_point(end)] == 1:
        opponent_pinned |= 1 << their_point(end)
    return PlakotoPosition(
        tuple(mover), position.opponent, position.mover_pinned, opponent_pinned
    )


def reference_plays(
    position: PlakotoPosition, d1: int, d2: int
) -> dict[PlakotoPosition, tuple[Move, ...]]:
    """All distinct legal plays: resulting position -> one legal order of checker moves.

    An empty dict means no die can be played (the turn passes).
    """
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    sequences: list[tuple[tuple[Move, ...], tuple[int, ...], PlakotoPosition]] = []

    def walk(pos: PlakotoPosition, dice: list[int], moves: tuple[Move, ...], used: tuple[int, ...]):
        sequences.append((moves, used, pos))
        if dice:
            for move in single_moves(pos, dice[0]):
                walk(apply_move(pos, move), dice[1:], (*moves, move), (*used, dice[0]))

    for order in orders:
        walk(position, order, (), ())
    most = max(len(used) for _, used, _ in sequences)
    if most == 0:
        return {}
    best = [s for s in sequences if len(s[1]) == most]
    if most == 1 and d1 != d2:
        best = [s for s in best if s[1][0] == max(d1, d2)] or best
    plays: dict[PlakotoPosition, tuple[Move, ...]] = {}
    for moves, _, pos in best:
        plays.setdefault(pos, moves)
    return plays
