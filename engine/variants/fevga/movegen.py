"""Fevga's legal plays, fast: one :class:`~engine.movegen.Play` per distinct result.

The rules (docs/rules.md, "Fevga"): a checker moves to a point where the opponent has no
checker (one checker holds a point; there is no hitting), bears off as in backgammon once all
fifteen are home, and the restrictions of :mod:`engine.variants.fevga.limits` apply (the first
checker away, the starting quarter, opening a prime); of the plays they allow, those using the
most dice are legal, and the higher die when only one die can be used.

Once the first checker has passed the opponent's starting point, a step's legality is fixed
for the turn and the canonical search of :mod:`engine.variants.search` finds the plays, their
moves listed from the highest point down. Before that, which checker may move depends on the
order of the steps, so a small search tries every order; its plays list their moves in an
order that is legal (the largest such list).

>>> from engine.variants.fevga.position import FevgaPosition
>>> start = FevgaPosition.start()
>>> [play.moves for play in legal_plays(start, 6, 6)]
[((24, 18),)]
>>> [play.moves for play in legal_plays(start, 5, 5)]
[((24, 19), (19, 14), (14, 9), (24, 19)), ((24, 19), (19, 14), (14, 9), (9, 4))]
>>> [play.moves for play in legal_plays(start, 6, 5)]
[((24, 19), (19, 13))]
"""

from __future__ import annotations

from collections.abc import Callable
from operator import itemgetter

from engine.movegen import Play
from engine.variants.fevga.limits import holds_start_quarter, opens, runner_waiting, trapped_point
from engine.variants.fevga.position import START_POINT, FevgaPosition, their_point
from engine.variants.search import STEP_MOVES, Board, Found, doubles, two_dice


def legal_plays(position: FevgaPosition, d1: int, d2: int) -> tuple[Play, ...]:
    """All distinct legal plays of ``d1``-``d2``; empty when the roll cannot be played."""
    if not (0 < d1 < 7 and 0 < d2 < 7):
        raise ValueError(f"dice must be 1..6, got {d1} and {d2}")
    mover, opponent = position.mover, position.opponent
    landing = [False] + [not opponent[their_point(t)] for t in range(1, 25)]
    trapped = trapped_point(position)
    hi, lo = (d1, d2) if d1 >= d2 else (d2, d1)
    board = list(mover)
    outside = sum(mover[7:25])
    # The starting quarter can only end up closed with six checkers already on 19..24 (none
    # can arrive from below) and one new point per step at most; otherwise nothing to filter.
    steps = 4 if hi == lo else 2
    quarter = sum(mover[19:25]) >= 6 and sum(map(bool, mover[19:25])) + steps >= 6
    allowed = _open_quarter if quarter else None

    if mover[START_POINT] == 15 or runner_waiting(mover):
        levels = _every_order(board, landing, hi, lo)
    elif hi != lo:
        levels = list(two_dice(board, outside, landing, True, hi, lo))
    else:
        if trapped is None:  # the common case: the deepest plays, unless all are refused
            best, found = doubles(board, outside, landing, True, hi, every_depth=False)
            if not best:
                return ()
            if allowed is None or any(map(allowed, found)):
                return _plays(position, found, allowed)
        _, found = doubles(board, outside, landing, True, hi, every_depth=True)
        levels = [{b: m for b, m in found.items() if len(m) == k} for k in (4, 3, 2, 1)]
    keep = allowed
    if trapped is not None:

        def opening_play(result: Board) -> bool:
            return (allowed is None or allowed(result)) and opens(trapped, result)

        if any(opening_play(b) for found in levels for b in found):
            keep = opening_play
    for found in levels:
        if found and (keep is None or any(map(keep, found))):
            return _plays(position, found, keep)
    return ()


def _open_quarter(result: Board) -> bool:
    return not holds_start_quarter(result)


def _plays(
    position: FevgaPosition, found: Found, allowed: Callable[[Board], bool] | None
) -> tuple[Play, ...]:
    """The allowed plays of ``found`` (all when ``allowed`` is None), sorted by their moves;
    built without re-validation."""
    opponent = position.opponent
    plays = []
    for board, moves in sorted(found.items(), key=_BY_MOVES, reverse=True):
        if allowed is None or allowed(board):
            result = _new(FevgaPosition)
            _set_mover(result, board)
            _set_opponent(result, opponent)
            play = _new(Play)
            _set_moves(play, moves)
            _set_position(play, result)
            plays.append(play)
    return tuple(plays)


_BY_MOVES = itemgetter(1)  # sort found items by their moves
_new = object.__new__
_set_mover = FevgaPosition.mover.__set__  # type: ignore[attr-defined]
_set_opponent = FevgaPosition.opponent.__set__  # type: ignore[attr-defined]
_set_moves = Play.moves.__set__  # type: ignore[attr-defined]
_set_position = Play.position.__set__  # type: ignore[attr-defined]


def _every_order(board: list[int], landing: list[bool], hi: int, lo: int) -> list[Found]:
    """Every play in the opening, by any order of steps (the first-checker rule makes the
    order matter): ``[4, 3, 2, 1 steps]`` for a double, ``[both dice, high, low]`` otherwise.
    No checker can bear off yet (fourteen or more are still on the starting point)."""
    double = hi == lo
    levels: list[Found] = [{}, {}, {}, {}] if double else [{}, {}, {}]

    def record(found: Found, played: tuple) -> None:
        key = tuple(board)
        if key not in found or played > found[key]:
            found[key] = played

    def walk(left: tuple[int, ...], played: tuple) -> None:
        for i, die in enumerate(left):
            if i and die == left[i - 1]:
                continue  # the same die again: the same steps
            rest = left[:i] + left[i + 1 :]
            for s in range(START_POINT, 0, -1):
                if not board[s] or (s == START_POINT and runner_waiting(board)):
                    continue
                t = s - die
                if t < 1 or not landing[t]:
                    continue
                board[s] -= 1
                board[t] += 1
                now = (*played, STEP_MOVES[die][s])
                if double:
                    record(levels[4 - len(now)], now)
                elif rest:
                    record(levels[1 if die == hi else 2], now)
                else:
                    record(levels[0], now)
                walk(rest, now)
                board[s] += 1
                board[t] -= 1

    walk((hi,) * 4 if double else (hi, lo), ())
    return levels
