"""A deliberately simple legal-play generator: the readable statement of the rules.

It tries every order of the dice, one checker move at a time, exactly as ``rules.md`` words
them, and then applies maximal dice use and the higher-die rule to the complete sequences.
It is slow and is kept as the second oracle (beside GNU Backgammon) for the fast generator
in :mod:`engine.movegen`; nothing on a hot path uses it.

>>> from engine.position import Position
>>> start = Position.start()
>>> len(reference_plays(start, 2, 1)), len(reference_plays(start, 6, 6))
(15, 11)
"""

from __future__ import annotations

from engine.position import BAR, OFF, Position

Move = tuple[int, int]
"""One checker move ``(from, to)`` from the mover's side: 25 = bar, 0 = off."""


def single_moves(position: Position, die: int) -> list[Move]:
    """Every legal single-checker move of ``die`` pips in ``position``, ignoring the other dice.

    >>> single_moves(Position.from_points({25: 1, 8: 1}, {1: 2}), 3)
    [(25, 22)]
    """
    mover, opponent = position.mover, position.opponent

    def open_point(to: int) -> bool:
        return opponent[25 - to] < 2

    if mover[BAR]:
        to = BAR - die
        return [(BAR, to)] if open_point(to) else []
    all_home = not any(mover[7:26])
    highest = max((p for p in range(1, 7) if mover[p]), default=0)
    moves: list[Move] = []
    for frm in range(24, 0, -1):
        if not mover[frm]:
            continue
        to = frm - die
        if to >= 1:
            if open_point(to):
                moves.append((frm, to))
        elif all_home and (to == 0 or frm == highest):
            moves.append((frm, OFF))
    return moves


def apply_move(position: Position, move: Move) -> Position:
    """The position after one checker move (hitting a lone opponent checker on landing)."""
    frm, to = move
    mover = list(position.mover)
    opponent = list(position.opponent)
    mover[frm] -= 1
    mover[to] += 1
    if to != OFF and opponent[25 - to] == 1:
        opponent[25 - to] = 0
        opponent[BAR] += 1
    return Position.unchecked(tuple(mover), tuple(opponent))


def reference_plays(position: Position, d1: int, d2: int) -> dict[Position, tuple[Move, ...]]:
    """All distinct legal plays: resulting position -> one legal order of checker moves.

    An empty dict means no die can be played (the turn passes); a play with fewer moves
    than dice is a legal partial turn.
    """
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    sequences: list[tuple[tuple[Move, ...], tuple[int, ...], Position]] = []

    def walk(pos: Position, dice: list[int], moves: tuple[Move, ...], used: tuple[int, ...]):
        sequences.append((moves, used, pos))
        if not dice:
            return
        die = dice[0]
        for move in single_moves(pos, die):
            walk(apply_move(pos, move), dice[1:], (*moves, move), (*used, die))

    for order in orders:
        walk(position, order, (), ())

    most = max(len(used) for _, used, _ in sequences)
    if most == 0:
        return {}
    best = [s for s in sequences if len(s[1]) == most]
    if most == 1 and d1 != d2:
        higher = max(d1, d2)
        with_higher = [s for s in best if s[1][0] == higher]
        best = with_higher or best
    plays: dict[Position, tuple[Move, ...]] = {}
    for moves, _, pos in best:
        plays.setdefault(pos, moves)
    return plays
