"""Validation of a plakoto play: the generic checks of :mod:`engine.variants.checking` with
plakoto's single steps.

A step ``(from, to)`` is refused, in this order: ``no_checker`` on ``from``; ``pinned`` when the
mover's only checker there is pinned; bearing off (``to == 0``) ``not_all_home`` unless all
fifteen are home and none pinned, then the die (exact, or larger from the highest point:
``bear_off_not_highest``, ``no_such_die``); otherwise ``no_such_die`` for the distance, then
``blocked`` when the opponent holds ``to`` (two or more checkers there, or one pinning the
mover's).

>>> from engine.variants.plakoto.position import PlakotoPosition
>>> start = PlakotoPosition.start()
>>> validate_play(start, 6, 5, [(24, 18), (18, 13)]).moves  # listed by the other route
((24, 19), (19, 13))
>>> p = PlakotoPosition.from_points({24: 14, 20: 1}, {24: 13, 5: 2}, mover_pinned=[20])
>>> validate_play(p, 6, 1, [(20, 14)])
Traceback (most recent call last):
...
engine.validate.IllegalPlay: move 1 (20, 14): pinned: the checker on point 20 is pinned
>>> validate_play(start, 6, 5, [(24, 18)])
Traceback (most recent call last):
...
engine.validate.IllegalPlay: move 2: must_use_more_dice: 1 of 2 dice played
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.movegen import Play
from engine.position import OFF
from engine.reference import Move
from engine.validate import Reason
from engine.variants.checking import Refusal, Steps, bear_off_dice, no_end_rules, step_die, validate
from engine.variants.plakoto.movegen import legal_plays
from engine.variants.plakoto.position import PlakotoPosition


def validate_play(position: PlakotoPosition, d1: int, d2: int, moves: Sequence[Move]) -> Play:
    """The legal play ``moves`` make, or :class:`~engine.validate.IllegalPlay`."""
    return validate(STEPS, legal_plays, position, d1, d2, moves)


def can_play(position: PlakotoPosition, d1: int, d2: int) -> bool:
    """Whether any die of ``d1``-``d2`` can be played (if not, the turn passes)."""
    return bool(legal_plays(position, d1, d2))


def _dice_for(position: PlakotoPosition, move: Move, unused: tuple[int, ...]) -> list[int]:
    frm, to = move
    board = position.mover
    if not board[frm]:
        raise Refusal(Reason.NO_CHECKER, f"no checker on point {frm}")
    if position.mover_pinned >> frm & 1:
        raise Refusal(Reason.PINNED, f"the checker on point {frm} is pinned")
    if to == OFF:
        if any(board[7:25]) or position.mover_pinned:
            raise Refusal(
                Reason.NOT_ALL_HOME, "bearing off needs all fifteen home and none of them pinned"
            )
        return bear_off_dice(board, frm, unused)
    die = step_die(move, unused)
    q = 25 - to
    held = position.mover_pinned >> to & 1 or (
        position.opponent[q] > 1 and not position.opponent_pinned >> q & 1
    )
    if held:
        raise Refusal(Reason.BLOCKED, f"the opponent holds point {to}")
    return [die]


def _apply(position: PlakotoPosition, move: Move) -> PlakotoPosition:
    frm, to = move
    board = list(position.mover)
    board[frm] -= 1
    board[to] += 1
    pinning = position.opponent_pinned
    if not board[frm]:
        pinning &= ~(1 << (25 - frm))  # the last checker on frm frees what it pinned
    if to != OFF and position.opponent[25 - to]:
        pinning |= 1 << (25 - to)  # a lone opposing checker there (only then may it land)
    return PlakotoPosition(tuple(board), position.opponent, position.mover_pinned, pinning)


STEPS = Steps(dice_for=_dice_for, apply=_apply, end_refusal=no_end_rules)
