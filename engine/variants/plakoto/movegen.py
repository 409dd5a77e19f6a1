"""Plakoto's legal plays, fast: one :class:`~engine.movegen.Play` per distinct result.

The rules (docs/rules.md, "Plakoto"): a checker moves to a point that is not held by the
opponent — held means two or more opposing checkers, or an opposing checker pinning one of
the mover's there; landing on a lone opposing checker pins it; a pinned checker cannot move;
bearing off needs all fifteen checkers home and none of them pinned, then goes as in
backgammon; both dice (all four of a double) whenever possible, else the higher die when
either alone can be played. No bar, no hitting.

Each play's ``moves`` are listed from the highest from-point down (always a legal order here,
see :mod:`engine.variants.search`), the largest such list when several reach one position;
plays come sorted by their moves, largest first.

>>> from engine.variants.plakoto.position import PlakotoPosition
>>> start = PlakotoPosition.start()
>>> [len(legal_plays(start, d1, d2)) for d1, d2 in ((2, 1), (6, 5), (6, 6), (1, 1))]
[2, 2, 4, 5]
>>> lone = PlakotoPosition.from_points({24: 14, 11: 1}, {24: 14, 20: 1})  # theirs on our 5
>>> for play in legal_plays(lone, 6, 1)[2:]:
...     print(play.moves, play.position.pinned_points())
((24, 23), (11, 5)) ((), (20,))
((24, 18), (11, 10)) ((), ())
((11, 10), (10, 4)) ((), ())
"""

from __future__ import annotations

from operator import itemgetter

from engine.movegen import Play
from engine.variants.plakoto.position import PlakotoPosition
from engine.variants.search import Found, doubles, two_dice


def legal_plays(position: PlakotoPosition, d1: int, d2: int) -> tuple[Play, ...]:
    """All distinct legal plays of ``d1``-``d2``; empty when no die can be played."""
    if not (0 < d1 < 7 and 0 < d2 < 7):
        raise ValueError(f"dice must be 1..6, got {d1} and {d2}")
    mover, opponent = position.mover, position.opponent
    mover_pinned, opponent_pinned = position.mover_pinned, position.opponent_pinned
    # landing[t]: the mover may stop on its point t (the opponent's 25 - t).
    landing = [False] * 25
    for t in range(1, 25):
        q = 25 - t
        if mover_pinned >> t & 1:
            continue  # the opponent's checker on top holds it
        landing[t] = opponent[q] < 2 or bool(opponent_pinned >> q & 1)
    board = list(mover)
    for p in range(1, 25):
        if mover_pinned >> p & 1:
            board[p] -= 1  # a pinned checker never moves this turn
    outside = sum(mover[7:25])
    can_bear = not mover_pinned
    if d1 == d2:
        best, found = doubles(board, outside, landing, can_bear, d1, every_depth=False)
        if not best:
            return ()
    else:
        hi, lo = (d1, d2) if d1 > d2 else (d2, d1)
        pairs, high, low = two_dice(board, outside, landing, can_bear, hi, lo)
        found = pairs or high or low
        if not found:
            return ()
    return _plays(position, found)


def _plays(position: PlakotoPosition, found: Found) -> tuple[Play, ...]:
    """The plays of ``found`` (movable boards after each play), sorted by their moves.

    An opposing checker is pinned exactly where the mover ends up on it; the mover's pinned
    checkers are put back. Results are built without re-validation (see engine.movegen).
    """
    mover_pinned = position.mover_pinned
    opponent = position.opponent
    # The mover's points where an opposing checker stands and the mover is not pinned: standing
    # there after the play pins it.
    contested = [
        (p, 1 << (25 - p))
        for p in range(1, 25)
        if opponent[25 - p] and not mover_pinned >> p & 1
    ]
    held = [p for p in range(1, 25) if mover_pinned >> p & 1]
    plays = []
    for movable, moves in sorted(found.items(), key=_BY_MOVES, reverse=True):
        if held:
            board = list(movable)
            for p in held:
                board[p] += 1
            movable = tuple(board)
        pinning = 0
        for p, bit in contested:
            if movable[p]:
                pinning |= bit
        result = _new(PlakotoPosition)
        _set_mover(result, movable)
        _set_opponent(result, opponent)
        _set_mover_pinned(result, mover_pinned)
        _set_opponent_pinned(result, pinning)
        play = _new(Play)
        _set_moves(play, moves)
        _set_position(play, result)
        plays.append(play)
    return tuple(plays)


_BY_MOVES = itemgetter(1)  # sort found items by their moves
_new = object.__new__
_set_mover = PlakotoPosition.mover.__set__  # type: ignore[attr-defined]
_set_opponent = PlakotoPosition.opponent.__set__  # type: ignore[attr-defined]
_set_mover_pinned = PlakotoPosition.mover_pinned.__set__  # type: ignore[attr-defined]
_set_opponent_pinned = PlakotoPosition.opponent_pinned.__set__  # type: ignore[attr-defined]
_set_moves = Play.moves.__set__  # type: ignore[attr-defined]
_set_position = Play.position.__set__  # type: ignore[attr-defined]
