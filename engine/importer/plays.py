"""Which legal play a written play is: the bridge between what files write and the engine.

Files write plays in many ways: one die per move in any order (``13/8 8/5``), a checker's whole
way at once (``24/13``), several checkers on one path (``8/5(2)``), hits marked or not. A
written play is accepted when it *is* one of the legal plays of :func:`engine.movegen.legal_plays`:

1. as a legal order of single-die moves, checked by :func:`engine.validate.validate_play`;
2. otherwise by where the checkers end: the legal plays whose mover's board is the one the
   written paths reach. When several reach it (a checker stopping on one or the other
   intermediate point, hitting there or not), the one whose hits are the marked ones wins; a
   hit where no written path stops is never chosen, and with nothing else to go on the play
   with the fewest hits.

Either way the result is the engine's own :class:`engine.movegen.Play` (its representative
move order), so an imported play is stored exactly as the same play made here.

>>> from engine.position import Position
>>> resolve(Position.start(), (6, 5), ((24, 13),), frozenset()).moves
((24, 18), (18, 13))
>>> resolve(Position.start(), (6, 5), ((24, 12),), frozenset())
Traceback (most recent call last):
...
engine.importer.plays.NotLegal: no legal play of 65 moves the checkers this way
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.movegen import Play, legal_plays
from engine.position import BAR, OFF, Position
from engine.validate import IllegalPlay, validate_play


class NotLegal(ValueError):
    """The written play is none of the legal plays (the message says why)."""


def resolve(position: Position, dice: tuple[int, int], segments: Sequence[tuple[int, int]],
            hits: frozenset[int] | None, literal: IllegalPlay | None = None) -> Play:
    """The legal play of ``dice`` that ``segments`` write, from ``position`` (seen by the
    mover), or :class:`NotLegal`. ``literal`` is the refusal of the segments as written, when
    the caller has already checked them (they are not checked again)."""
    d1, d2 = dice
    literal_error = literal
    if literal is None and all(single_die(frm, to) for frm, to in segments):
        try:
            return validate_play(position, d1, d2, list(segments))
        except IllegalPlay as exc:
            literal_error = exc
    target = _target(position, segments)
    candidates = [p for p in legal_plays(position, d1, d2) if p.position.mover == target]
    if not candidates:
        roll = f"{max(dice)}{min(dice)}"
        if literal_error is not None:
            raise NotLegal(f"not a legal play of {roll}: {literal_error}")
        raise NotLegal(f"no legal play of {roll} moves the checkers this way")
    if len(candidates) == 1:
        return candidates[0]
    stops = {to for _, to in segments if to != OFF}
    return min(candidates, key=lambda p: _rank(position, p, stops, hits))


def single_die(frm: int, to: int) -> bool:
    """Whether a written segment can be one die's move (so that it may be checked as written)."""
    return 0 < frm - to <= 6 or (to == OFF and 0 < frm <= 6)


def _target(position: Position, segments: Sequence[tuple[int, int]]) -> tuple[int, ...]:
    board = list(position.mover)
    # Paths in any order: take every checker off its start, then put it on its end; a path
    # starting where another ends may use the arriving checker.
    for frm, to in segments:
        if not (0 < frm <= BAR and 0 <= to < BAR and to < frm):
            raise NotLegal(f"a checker cannot move from {_square(frm)} to {_square(to)}")
        board[frm] -= 1
        board[to] += 1
    if any(n < 0 for n in board):
        point = next(p for p, n in enumerate(board) if n < 0)
        raise NotLegal(f"the play moves more checkers from {_square(point)} than stand there")
    return tuple(board)


def _hits(position: Position, play: Play) -> frozenset[int]:
    hit = set()
    opponent = list(position.opponent)
    for _, to in play.moves:
        if to != OFF and opponent[25 - to] == 1:
            hit.add(to)
            opponent[25 - to] = 0
    return frozenset(hit)


def _rank(position: Position, play: Play, stops: set[int],
          marked: frozenset[int] | None) -> tuple:
    hit = _hits(position, play)
    return (
        not hit <= stops,  # a hit where no written path stops is not what was written
        marked is not None and hit != marked,
        len(hit),
        play.moves,
    )


def _square(point: int) -> str:
    return "bar" if point == BAR else "off" if point == OFF else str(point)
