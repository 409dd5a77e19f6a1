"""Validation of a submitted play in the Tavli games without hitting (plakoto, fevga).

The same contract as :func:`engine.validate.validate_play`: ``moves`` are single-die checker
moves ``(from, to)`` (0 = off; these games have no bar); they are accepted iff they are a legal
order of single steps that ends in one of the legal plays of the variant's generator, and then
that very :class:`~engine.movegen.Play` is returned. Otherwise
:class:`~engine.validate.IllegalPlay` names the first offending step and a
:class:`~engine.validate.Reason`, checked in this order:

1. ``malformed`` (not a pair of ints, ``from`` outside 1..24, ``to`` outside 0..23, not moving
   forward; or ``moves`` not a list);
2. ``no_legal_move`` when the roll cannot be played; ``too_many_moves`` past the dice that can be
   used;
3. the variant's step refusals (:class:`Steps`): ``no_checker``, ``pinned`` (plakoto),
   ``first_checker`` (fevga), ``not_all_home``, ``bear_off_not_highest``, ``no_such_die``,
   ``blocked``;
4. a step legal by itself after which no legal play can be completed: ``higher_die_required``
   (only one die can be used and this used the smaller), the variant's end-of-play refusals
   (fevga: ``start_quarter``, ``must_open_prime``) when every completion of the right length
   ends in a refused position, else ``must_use_more_dice``.

A sequence that stops while dice remain fails with ``must_use_more_dice`` at
``step == len(moves)``, ``move`` None.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.movegen import Play
from engine.position import OFF
from engine.reference import Move
from engine.validate import IllegalPlay, Reason

Position = Any


class Refusal(Exception):
    """A step refused by a variant's step rules (wrapped into :class:`IllegalPlay`)."""

    def __init__(self, reason: Reason, detail: str) -> None:
        super().__init__(reason, detail)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True, slots=True)
class Steps:
    """A variant's single steps, as validation needs them.

    ``dice_for(position, move, unused)``: the unused dice that can make ``move`` (one, or
    several for a bear-off an exact and a larger die can both make), or raise
    :class:`Refusal`; ``apply(position, move)``: the position after the step;
    ``end_refusal(start, end, plays)``: why a play from ``start`` may not end in ``end``
    (the variant's end-of-play rules; None if it may), ``plays`` being the legal plays.
    """

    dice_for: Callable[[Position, Move, tuple[int, ...]], list[int]]
    apply: Callable[[Position, Move], Position]
    end_refusal: Callable[[Position, Position, tuple[Play, ...]], tuple[Reason, str] | None]


def no_end_rules(start: Position, end: Position, plays: tuple[Play, ...]) -> None:
    """For a variant whose plays are limited by their steps alone."""


def validate(
    steps: Steps,
    legal_plays: Callable[[Position, int, int], tuple[Play, ...]],
    position: Position,
    d1: int,
    d2: int,
    moves: Sequence[Move],
) -> Play:
    """The legal play ``moves`` make in ``position`` with ``d1``-``d2``, or
    :class:`~engine.validate.IllegalPlay` for the first bad step."""
    if not (type(d1) is int and type(d2) is int and 0 < d1 < 7 and 0 < d2 < 7):
        raise ValueError(f"dice must be 1..6, got {d1!r} and {d2!r}")
    if not isinstance(moves, (list, tuple)):
        raise IllegalPlay(Reason.MALFORMED, None, None, "moves must be a list of (from, to)")
    plays = legal_plays(position, d1, d2)
    by_result = {play.position: play for play in plays}
    most = len(plays[0].moves) if plays else 0
    hi, lo = (d1, d2) if d1 >= d2 else (d2, d1)
    double = hi == lo
    higher_required = most == 1 and not double and any(
        len(play.moves) == 1 and _made_by(position, play.moves[0], hi, steps) for play in plays
    )
    options: list[tuple[int, ...]] = [(hi,) * 4 if double else (hi, lo)]
    current = position
    for step, raw in enumerate(moves):
        move = _shape(step, raw)
        if most == 0:
            raise IllegalPlay(Reason.NO_LEGAL_MOVE, step, move, "no die can be played")
        if step >= most:
            raise IllegalPlay(
                Reason.TOO_MANY_MOVES, step, move, f"only {most} of the dice can be played"
            )
        unused = tuple(sorted({die for left in options for die in left}, reverse=True))
        try:
            dice = steps.dice_for(current, move, unused)
        except Refusal as refusal:
            raise IllegalPlay(refusal.reason, step, move, refusal.detail) from None
        after = sorted({_without(left, die) for left in options for die in dice if die in left})
        start, current = current, steps.apply(current, move)
        need = most - step - 1
        viable = [left for left in after if _completes(steps, current, left, need, by_result)]
        if higher_required and viable and hi not in dice:
            viable = []
        if not viable:
            raise _stuck(steps, position, start, current, move, step, after, need, plays,
                         higher_required and hi not in dice, hi)
        options = viable
    if len(moves) < most:
        raise IllegalPlay(
            Reason.MUST_USE_MORE_DICE, len(moves), None, f"{len(moves)} of {most} dice played"
        )
    if most == 0:
        return Play((), position)  # the roll cannot be played: the pass
    return by_result[current]


def bear_off_dice(board: Sequence[int], frm: int, unused: tuple[int, ...]) -> list[int]:
    """The unused dice that bear a checker off from ``frm`` once all are home: the exact die,
    and larger dice when no checker stands above ``frm``; else :class:`Refusal`."""
    dice = [frm] if frm in unused else []
    larger = sorted({d for d in unused if d > frm}, reverse=True)
    if larger and not any(board[frm + 1 : 7]):
        dice += larger
    if dice:
        return dice
    if larger:
        raise Refusal(
            Reason.BEAR_OFF_NOT_HIGHEST,
            f"a larger die bears off only from the highest point, and {frm} is not",
        )
    raise Refusal(Reason.NO_SUCH_DIE, f"no unused die bears off from {frm}")


def step_die(move: Move, unused: tuple[int, ...]) -> int:
    """The die of a move that does not bear off, or :class:`Refusal` if none is unused."""
    frm, to = move
    die = frm - to
    if die not in unused:
        shown = "-".join(map(str, unused))
        raise Refusal(Reason.NO_SUCH_DIE, f"no unused die of {die} (unused: {shown})")
    return die


def single_moves(steps: Steps, position: Position, die: int) -> list[Move]:
    """Every legal single step of ``die`` by the variant's step rules."""
    found = []
    for frm in range(24, 0, -1):
        if position.mover[frm]:
            move = (frm, max(frm - die, 0))
            try:
                if die in steps.dice_for(position, move, (die,)):
                    found.append(move)
            except Refusal:
                pass
    return found


def _made_by(position: Position, move: Move, die: int, steps: Steps) -> bool:
    try:
        return die in steps.dice_for(position, move, (die,))
    except Refusal:
        return False


def _ends(steps: Steps, position: Position, left: tuple[int, ...], need: int) -> list[Position]:
    """Every position ``need`` more steps with dice from ``left`` can reach."""
    if need == 0:
        return [position]
    found = []
    for die in set(left):
        rest = _without(left, die)
        for move in single_moves(steps, position, die):
            found += _ends(steps, steps.apply(position, move), rest, need - 1)
    return found


def _completes(
    steps: Steps, position: Position, left: tuple[int, ...], need: int, results: dict
) -> bool:
    if need == 0:
        return position in results
    for die in set(left):
        rest = _without(left, die)
        for move in single_moves(steps, position, die):
            if _completes(steps, steps.apply(position, move), rest, need - 1, results):
                return True
    return False


def _stuck(
    steps: Steps,
    origin: Position,
    start: Position,
    current: Position,
    move: Move,
    step: int,
    after: list[tuple[int, ...]],
    need: int,
    plays: tuple[Play, ...],
    smaller_used: bool,
    hi: int,
) -> IllegalPlay:
    """Why no legal play can be completed after ``move``."""
    if smaller_used:
        return IllegalPlay(
            Reason.HIGHER_DIE_REQUIRED, step, move,
            f"only one die can be played and the {hi} can: play the {hi}",
        )
    ends = [end for left in after for end in _ends(steps, current, left, need)]
    for end in ends:
        refused = steps.end_refusal(origin, end, plays)
        if refused is not None:
            return IllegalPlay(refused[0], step, move, refused[1])
    most = step + 1 + need
    return IllegalPlay(
        Reason.MUST_USE_MORE_DICE, step, move, f"after this move the play cannot use {most} dice"
    )


def _shape(step: int, raw: object) -> Move:
    """``raw`` as a forward ``(from, to)`` move between real squares (no bar here)."""
    if not isinstance(raw, (list, tuple)) or len(raw) != 2 or not all(type(x) is int for x in raw):
        raise IllegalPlay(Reason.MALFORMED, step, None, f"not a pair of ints: {raw!r}")
    frm, to = raw
    move = (frm, to)
    if not (1 <= frm <= 24 and OFF <= to <= 23):
        raise IllegalPlay(Reason.MALFORMED, step, move, "squares are 1-24 and 0 (off); no bar")
    if to >= frm:
        raise IllegalPlay(Reason.MALFORMED, step, move, "checkers move towards home")
    return move


def _without(left: tuple[int, ...], die: int) -> tuple[int, ...]:
    i = left.index(die)
    return left[:i] + left[i + 1 :]
