"""Validation of a fevga play: the generic checks of :mod:`engine.variants.checking` with
fevga's single steps and end-of-play rules.

A step ``(from, to)`` is refused, in this order: ``no_checker``; ``first_checker`` when it would
take a second checker off the starting point before the first has passed the opponent's
starting point; bearing off (``to == 0``) ``not_all_home``, then the die
(``bear_off_not_highest``, ``no_such_die``); otherwise ``no_such_die``, then ``blocked`` when any
opposing checker stands on ``to``. A step after which only refused plays can follow fails with
``start_quarter`` (all six points 19..24 held at the end) or ``must_open_prime``.

>>> from engine.variants.fevga.position import FevgaPosition
>>> start = FevgaPosition.start()
>>> validate_play(start, 5, 5, [(24, 19), (19, 14), (14, 9), (24, 19)]).moves
((24, 19), (19, 14), (14, 9), (24, 19))
>>> validate_play(start, 6, 5, [(24, 18), (24, 19)])  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
engine.validate.IllegalPlay: move 2 (24, 19): first_checker: the first checker must pass ...
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.movegen import Play
from engine.position import OFF
from engine.reference import Move
from engine.validate import Reason
from engine.variants.checking import Refusal, Steps, bear_off_dice, step_die, validate
from engine.variants.fevga.limits import holds_start_quarter, opens, runner_waiting, trapped_point
from engine.variants.fevga.movegen import legal_plays
from engine.variants.fevga.position import START_POINT, FevgaPosition, their_point


def validate_play(position: FevgaPosition, d1: int, d2: int, moves: Sequence[Move]) -> Play:
    """The legal play ``moves`` make, or :class:`~engine.validate.IllegalPlay`."""
    return validate(STEPS, legal_plays, position, d1, d2, moves)


def can_play(position: FevgaPosition, d1: int, d2: int) -> bool:
    """Whether the roll can be played (if not, the turn passes)."""
    return bool(legal_plays(position, d1, d2))


def _dice_for(position: FevgaPosition, move: Move, unused: tuple[int, ...]) -> list[int]:
    frm, to = move
    board = position.mover
    if not board[frm]:
        raise Refusal(Reason.NO_CHECKER, f"no checker on point {frm}")
    if frm == START_POINT and runner_waiting(board):
        raise Refusal(
            Reason.FIRST_CHECKER,
            "the first checker must pass the opponent's starting point (your 12-point) first",
        )
    if to == OFF:
        if any(board[7:25]):
            raise Refusal(Reason.NOT_ALL_HOME, "bearing off needs all fifteen home")
        return bear_off_dice(board, frm, unused)
    die = step_die(move, unused)
    if position.opponent[their_point(to)]:
        raise Refusal(Reason.BLOCKED, f"the opponent holds point {to}")
    return [die]


def _apply(position: FevgaPosition, move: Move) -> FevgaPosition:
    frm, to = move
    board = list(position.mover)
    board[frm] -= 1
    board[to] += 1
    return FevgaPosition(tuple(board), position.opponent)


def _end_refusal(
    start: FevgaPosition, end: FevgaPosition, plays: tuple[Play, ...]
) -> tuple[Reason, str] | None:
    if holds_start_quarter(end.mover):
        return Reason.START_QUARTER, "a play may not end holding all six points 19-24"
    trapped = trapped_point(start)
    if (
        trapped is not None
        and not opens(trapped, end.mover)
        and plays
        and opens(trapped, plays[0].position.mover)
    ):
        return Reason.MUST_OPEN_PRIME, "every opposing checker waits behind your prime: open it"
    return None


STEPS = Steps(dice_for=_dice_for, apply=_apply, end_refusal=_end_refusal)
