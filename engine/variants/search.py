"""The fast search behind the legal plays of the Tavli games without hitting.

In plakoto, and in fevga once its first checker has passed the opponent's starting point, a
single step's legality depends on the position only through things a turn never changes:

* **landing**: whether the mover may land on each of its points 1..24 — plakoto: not on two
  or more opposing checkers, nor where an opposing checker pins one of the mover's; fevga: not
  where any opposing checker stands. The opponent does not move during the turn and the mover's
  own checkers never close a point to itself, so the table is fixed for the turn;
* **movable checkers**: the mover's counts, less its pinned checkers (plakoto), which stay
  pinned all turn since their pinners do not move;
* **bearing off**: all of the mover's checkers home (points 1..6), counted as the turn goes,
  plus a fixed condition (plakoto: none of them pinned); a die bears off exactly from its
  point, a larger die only from the highest occupied point.

So the search of :mod:`engine.movegen` applies: moves only go down the board and no step makes
another illegal, hence the steps of any legal play sorted by from-point (highest first) are
themselves a legal order, and each multiset of steps is generated once, in that order. Two
steps from one point are taken low die first (either order is legal when one is). Results
are keyed by the mover's board after the play: in these games the rest of the position
follows from it (plakoto's pins: an opposing checker is pinned exactly where the mover ends up
standing on it).

>>> board = [0] * 26; board[24] = 15
>>> best, plays = doubles(board, 15, [True] * 25, True, 6, every_depth=False)
>>> best, list(plays.values())
(4, [((24, 18), (24, 18), (24, 18), (24, 18)), ((24, 18), (24, 18), (24, 18), (18, 12)), ...])
>>> pairs, high, low = two_dice(board, 15, [True] * 25, True, 6, 5)
>>> len(pairs), len(high), len(low)
(2, 1, 1)
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.reference import Move

Board = tuple[int, ...]
Found = dict[Board, tuple[Move, ...]]
"""The mover's board after a play (26 counts) -> its moves (the largest list that reaches it)."""

# STEP_MOVES[d][s]: the (from, to) pair of a step of d pips from s (bearing off lands on 0).
STEP_MOVES: tuple[tuple[Move, ...], ...] = tuple(
    tuple((s, max(s - d, 0)) for s in range(26)) for d in range(7)
)


def doubles(
    board: list[int],
    outside: int,
    landing: Sequence[bool],
    can_bear: bool,
    die: int,
    every_depth: bool,
) -> tuple[int, Found]:
    """The plays of a double: up to four steps of ``die``.

    ``board`` holds the mover's movable checkers (a scratch list, restored on return),
    ``outside`` how many of its checkers stand on points 7..24, ``landing[t]`` whether it may
    land on point t, ``can_bear`` the fixed condition of bearing off. Returns ``(depth,
    found)``: with ``every_depth`` False the deepest plays (as many steps as possible; depth 0
    and nothing found when no step can be made); with ``every_depth`` True every play of every
    length 0..4, keyed by the board (each board is reached at one length only: one die moves
    every checker along a unique path).
    """
    moves_of = STEP_MOVES[die]
    found: Found = {}
    best = 0

    def walk(top: int, depth: int, played: tuple[Move, ...], outside: int) -> None:
        nonlocal best
        if every_depth:
            found[tuple(board)] = played
        extended = False
        if depth < 4:
            for s in range(top, 0, -1):
                if not board[s]:
                    continue
                t = s - die
                if t > 0:
                    if not landing[t]:
                        continue
                elif not can_bear or outside or (t and any(board[s + 1 : 7])):
                    continue
                else:
                    t = 0
                extended = True
                board[s] -= 1
                board[t] += 1
                walk(s, depth + 1, (*played, moves_of[s]), outside - (s > 6 >= t))
                board[s] += 1
                board[t] -= 1
        if not every_depth and not extended and depth >= best:
            if depth > best:
                best = depth
                found.clear()
            found[tuple(board)] = played

    walk(24, 0, (), outside)
    if every_depth:
        best = max(map(len, found.values()))
    return best, found


def two_dice(
    board: list[int],
    outside: int,
    landing: Sequence[bool],
    can_bear: bool,
    hi: int,
    lo: int,
) -> tuple[Found, Found, Found]:
    """The plays of ``hi``-``lo`` (``hi > lo``): ``(pairs, high, low)`` — every play using both
    dice, and every single step of the high and of the low die. Arguments as for
    :func:`doubles`. Each result keeps the largest move list reaching it: the search runs from
    the highest point down, low die first from each point, so the first found is the largest.
    """
    pairs: Found = {}
    singles: dict[int, Found] = {hi: {}, lo: {}}
    for s1 in range(24, 0, -1):
        if not board[s1]:
            continue
        for first, second in ((lo, hi), (hi, lo)):
            t1 = s1 - first
            if t1 > 0:
                if not landing[t1]:
                    continue
            elif not can_bear or outside or (t1 and any(board[s1 + 1 : 7])):
                continue
            else:
                t1 = 0
            m1 = STEP_MOVES[first][s1]
            board[s1] -= 1
            board[t1] += 1
            singles[first].setdefault(tuple(board), (m1,))
            out1 = outside - (s1 > 6 >= t1)
            second_moves = STEP_MOVES[second]
            for s2 in range(s1, 0, -1):
                if not board[s2] or (s2 == s1 and first == hi):
                    continue
                t2 = s2 - second
                if t2 > 0:
                    if not landing[t2]:
                        continue
                elif not can_bear or out1 or (t2 and any(board[s2 + 1 : 7])):
                    continue
                else:
                    t2 = 0
                board[s2] -= 1
                board[t2] += 1
                pairs.setdefault(tuple(board), (m1, second_moves[s2]))
                board[s2] += 1
                board[t2] -= 1
            board[s1] += 1
            board[t1] -= 1
    return pairs, singles[hi], singles[lo]
