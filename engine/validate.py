"""Validation of a submitted play: accept exactly the legal plays, and say why not otherwise.

A play is submitted as checker moves ``(from, to)``, one die each (25 = bar, 0 = off). It is
accepted iff it is a legal order of single-die moves that ends in one of the legal plays of
:func:`engine.movegen.legal_plays` — any legal order, not only the one the generator lists —
and :func:`validate_play` then returns that very :class:`~engine.movegen.Play`. Otherwise it
raises :class:`IllegalPlay` naming the first offending step and a :class:`Reason`.

>>> from engine.position import Position
>>> start = Position.start()
>>> validate_play(start, 3, 1, [(6, 5), (8, 5)]).moves
((8, 5), (6, 5))
>>> validate_play(start, 6, 5, [(24, 18), (18, 13)]).position.pips()
(156, 167)
>>> validate_play(start, 6, 5, [(13, 7), (24, 19)])
Traceback (most recent call last):
...
engine.validate.IllegalPlay: move 2 (24, 19): blocked: the opponent holds point 19
>>> validate_play(start, 6, 5, [(13, 7)])
Traceback (most recent call last):
...
engine.validate.IllegalPlay: move 2: must_use_more_dice: 1 of 2 dice played
>>> err = _catch(lambda: validate_play(start, 6, 5, [(13, 8), (12, 6)]))
>>> err.reason, err.reason.value, err.step, err.move
(<Reason.NO_CHECKER: 'no_checker'>, 'no_checker', 1, (12, 6))

How a step is checked, in this order (the first failure is the reason):

1. ``malformed``: not a pair of ints, ``from`` outside 1..25, ``to`` outside 0..24, or not
   moving forward (``to >= from``);
2. ``no_legal_move`` when no die can be played at all; ``too_many_moves`` when the play
   already used every die that could be used;
3. ``no_checker`` on the from-square; ``bar_first`` while a checker waits on the bar;
4. bearing off (``to == 0``): ``not_all_home``, then a die: the exact one, else a larger one
   only from the highest occupied point (``bear_off_not_highest``), else ``no_such_die``;
   other moves: an unused die equal to the distance (``no_such_die``), then ``blocked``;
5. the step is individually legal but no legal play can be completed after it:
   ``higher_die_required`` (only one die can be used and this is the smaller while the larger
   was playable) or ``must_use_more_dice``.

A sequence that ends while a die could still be used fails with ``must_use_more_dice`` at
``step == len(moves)`` and ``move is None``.
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.movegen import Play, step_target
from engine.position import BAR, OFF, Board, Position
from engine.reference import Move


class Reason(enum.Enum):
    """Why a submitted play was refused. Values are stable: they travel in error replies.

    >>> Reason("blocked") is Reason.BLOCKED
    True
    """

    MALFORMED = "malformed"
    """Not a pair of ints, a square out of range, or not moving towards home."""
    NO_LEGAL_MOVE = "no_legal_move"
    """Moves were sent although no die can be played (the turn passes)."""
    TOO_MANY_MOVES = "too_many_moves"
    """The play had already used every die that can be used."""
    NO_CHECKER = "no_checker"
    """The mover has no checker on the from-square."""
    BAR_FIRST = "bar_first"
    """A checker on the bar must enter before any other checker moves."""
    NOT_ALL_HOME = "not_all_home"
    """Bearing off while a checker is outside the home board (or on the bar)."""
    NO_SUCH_DIE = "no_such_die"
    """No unused die matches the distance."""
    BEAR_OFF_NOT_HIGHEST = "bear_off_not_highest"
    """Bearing off with a larger die from a point below the highest occupied one."""
    BLOCKED = "blocked"
    """The landing point holds two or more opposing checkers."""
    MUST_USE_MORE_DICE = "must_use_more_dice"
    """After this step (or at the end) no play using as many dice as possible can follow."""
    HIGHER_DIE_REQUIRED = "higher_die_required"
    """Only one die can be used, and the larger one could have been."""
    # The variants' own refusals (engine.variants; docs/rules.md, "Variants").
    PINNED = "pinned"
    """Plakoto: the checker is pinned under an opposing checker and cannot move."""
    FIRST_CHECKER = "first_checker"
    """Fevga: no second checker leaves the starting point before the first has passed the
    opponent's starting point."""
    START_QUARTER = "start_quarter"
    """Fevga: the play would hold all six points of the mover's starting quarter."""
    MUST_OPEN_PRIME = "must_open_prime"
    """Fevga: every opposing checker waits on the point behind the mover's six-prime, and a play
    that opens it exists."""


@dataclass(frozen=True, slots=True)
class IllegalPlay(Exception):
    """A refused play: the reason, the 0-based index of the first offending step and the move
    there (``move`` is None when the play stopped short, or when ``moves`` was not a sequence
    at all: then ``step`` is None too), and a human-readable detail."""

    reason: Reason
    step: int | None = None
    move: Move | None = None
    detail: str = ""

    def __str__(self) -> str:
        where = ""
        if self.step is not None:
            where = f"move {self.step + 1}" + (f" {self.move}" if self.move is not None else "")
            where += ": "
        return f"{where}{self.reason.value}{': ' + self.detail if self.detail else ''}"


def _catch(action: Callable[[], object]) -> IllegalPlay:
    """Run ``action`` and return the :class:`IllegalPlay` it raises (for doctests)."""
    try:
        action()
    except IllegalPlay as exc:
        return exc
    raise AssertionError("no IllegalPlay raised")


def validate_play(position: Position, d1: int, d2: int, moves: Sequence[Move]) -> Play:
    """The legal play that ``moves`` makes, or :class:`IllegalPlay` for the first bad step.

    The empty sequence is legal exactly when no die can be played (it returns the pass,
    ``Play((), position)``).

    >>> from engine.position import Position
    >>> closed = Position.from_points({25: 1}, {p: 2 for p in range(1, 7)})
    >>> validate_play(closed, 6, 6, []).moves
    ()
    >>> validate_play(closed, 6, 6, [(25, 19)]).moves
    Traceback (most recent call last):
    ...
    engine.validate.IllegalPlay: move 1 (25, 19): no_legal_move: no die can be played
    """
    if not (0 < d1 < 7 and 0 < d2 < 7):
        raise ValueError(f"dice must be 1..6, got {d1} and {d2}")
    if not isinstance(moves, (list, tuple)):
        raise IllegalPlay(Reason.MALFORMED, None, None, "moves must be a list of (from, to)")
    board = list(position.mover)
    opp_on = position.opponent[25:0:-1]
    hi, lo = (d1, d2) if d1 >= d2 else (d2, d1)
    double = hi == lo
    most = _most_dice(board, opp_on, hi, lo)
    # The higher-die rule only matters when a single die of a non-double can be played.
    higher_playable = most == 1 and not double and _has_step(board, opp_on, hi)
    # Unused dice. A bear-off with a larger die can sometimes be made by either die: then
    # both continuations are followed (at most two for a non-double).
    options: list[tuple[int, ...]] = [(hi,) * 4 if double else (hi, lo)]
    played: list[Move] = []
    hits: list[int] = []
    for step, raw in enumerate(moves):
        move = _shape(step, raw)
        frm, to = move
        if most == 0:
            raise IllegalPlay(Reason.NO_LEGAL_MOVE, step, move, "no die can be played")
        if step >= most:
            raise IllegalPlay(
                Reason.TOO_MANY_MOVES, step, move, f"only {most} of the dice can be played"
            )
        if not board[frm]:
            raise IllegalPlay(Reason.NO_CHECKER, step, move, f"no checker on {_square(frm)}")
        if board[BAR] and frm != BAR:
            raise IllegalPlay(Reason.BAR_FIRST, step, move, "a checker on the bar must enter")
        # `options` share the board; only the dice left differ, and only after a bear-off.
        unused = tuple(sorted({die for left in options for die in left}, reverse=True))
        dice = _dice_for(board, opp_on, step, move, unused)
        after = sorted({_without(left, die) for left in options for die in dice if die in left})
        board[frm] -= 1
        board[to] += 1
        if to != OFF and opp_on[to] == 1 and to not in hits:  # a second landing hits nothing
            hits.append(to)
        played.append(move)
        need = most - step - 1
        viable = [left for left in after if _can_continue(board, opp_on, left, need)]
        if higher_playable:
            viable = [left for left in viable if left == (lo,)]  # the higher die was used
            if not viable:
                raise IllegalPlay(
                    Reason.HIGHER_DIE_REQUIRED,
                    step,
                    move,
                    f"only one die can be played and the {hi} can: play the {hi}",
                )
        if not viable:
            raise IllegalPlay(
                Reason.MUST_USE_MORE_DICE,
                step,
                move,
                f"after this move the play cannot use {most} dice",
            )
        options = viable
    if len(played) < most:
        raise IllegalPlay(
            Reason.MUST_USE_MORE_DICE, len(played), None, f"{len(played)} of {most} dice played"
        )
    opponent = list(position.opponent)
    for point in hits:
        opponent[25 - point] -= 1
        opponent[BAR] += 1
    result = Position.unchecked(tuple(board), tuple(opponent))
    return Play(_representative(position, opp_on, played, hi, lo), result)


def can_play(position: Position, d1: int, d2: int) -> bool:
    """Whether the mover can play any of ``d1``-``d2`` (if not, the turn passes).

    Cheaper than generating the plays: a play exists exactly when one die has one step.

    >>> from engine.position import Position
    >>> closed = Position.from_points({25: 1}, {p: 2 for p in range(1, 7)})
    >>> can_play(closed, 6, 5), can_play(Position.start(), 6, 5)
    (False, True)
    """
    if not (0 < d1 < 7 and 0 < d2 < 7):
        raise ValueError(f"dice must be 1..6, got {d1} and {d2}")
    board = list(position.mover)
    opp_on = position.opponent[25:0:-1]
    return _has_step(board, opp_on, d1) or (d2 != d1 and _has_step(board, opp_on, d2))


def check_prefix(position: Position, d1: int, d2: int, moves: Sequence[Move]) -> Play | None:
    """Move-by-move checking: the play if ``moves`` is complete, None if it is a legal start
    that more moves must complete, :class:`IllegalPlay` if a move is already wrong.

    >>> from engine.position import Position
    >>> check_prefix(Position.start(), 6, 5, [(24, 18)]) is None
    True
    >>> check_prefix(Position.start(), 6, 5, [(24, 18), (18, 13)]).moves
    ((24, 18), (18, 13))
    >>> check_prefix(Position.start(), 6, 5, [(24, 19)])
    Traceback (most recent call last):
    ...
    engine.validate.IllegalPlay: move 1 (24, 19): blocked: the opponent holds point 19
    """
    try:
        return validate_play(position, d1, d2, moves)
    except IllegalPlay as exc:
        if exc.reason is Reason.MUST_USE_MORE_DICE and exc.move is None:
            return None  # every move so far is fine; the play is just not finished
        raise


def _shape(step: int, raw: object) -> Move:
    """``raw`` as a ``(from, to)`` move that moves forward between real squares."""
    if not isinstance(raw, (list, tuple)) or len(raw) != 2 or not all(type(x) is int for x in raw):
        raise IllegalPlay(Reason.MALFORMED, step, None, f"not a pair of ints: {raw!r}")
    frm, to = raw
    move = (frm, to)
    if not (1 <= frm <= BAR and 0 <= to <= 24):
        raise IllegalPlay(Reason.MALFORMED, step, move, "squares are 25 (bar), 1-24, 0 (off)")
    if to >= frm:
        raise IllegalPlay(Reason.MALFORMED, step, move, "checkers move towards home")
    return move


def _square(square: int) -> str:
    return {BAR: "the bar", OFF: "off"}.get(square, f"point {square}")


def _dice_for(
    board: list[int], opp_on: Board, step: int, move: Move, left: tuple[int, ...]
) -> list[int]:
    """The dice among ``left`` (the unused ones) that can make ``move``: one, or several for a
    bear-off that an exact and a larger die can both make. Raises the reason if none can."""
    frm, to = move
    if to == OFF:
        if any(board[7:26]):
            raise IllegalPlay(
                Reason.NOT_ALL_HOME, step, move, "bearing off needs every checker home"
            )
        dice = [frm] if frm in left else []
        larger = sorted({d for d in left if d > frm}, reverse=True)
        if larger and not any(board[frm + 1 : 7]):
            dice += larger
        if dice:
            return dice
        if larger:
            raise IllegalPlay(
                Reason.BEAR_OFF_NOT_HIGHEST,
                step,
                move,
                f"a larger die bears off only from the highest point, and {frm} is not",
            )
        raise IllegalPlay(Reason.NO_SUCH_DIE, step, move, f"no unused die bears off from {frm}")
    die = frm - to
    if die not in left:
        raise IllegalPlay(
            Reason.NO_SUCH_DIE, step, move, f"no unused die of {die} (unused: {_dice(left)})"
        )
    if opp_on[to] > 1:
        raise IllegalPlay(Reason.BLOCKED, step, move, f"the opponent holds point {to}")
    return [die]


def _dice(left: tuple[int, ...]) -> str:
    return "-".join(map(str, left))


def _without(left: tuple[int, ...], die: int) -> tuple[int, ...]:
    i = left.index(die)
    return left[:i] + left[i + 1 :]


# -- how many dice can still be played -------------------------------------------------------


def _has_step(board: list[int], opp_on: Board, die: int) -> bool:
    """True if some checker can move ``die`` pips on ``board``."""
    if board[BAR]:
        return opp_on[BAR - die] < 2
    return any(board[s] and step_target(board, opp_on, s, die) >= 0 for s in range(24, 0, -1))


def _steps_possible(board: list[int], opp_on: Board, die: int, need: int, top: int = BAR) -> int:
    """How many steps of ``die`` (up to ``need``) can be played in a row on ``board``.

    Searches in canonical order (sources never increase), which reaches every multiset of
    steps that any order reaches; stops as soon as ``need`` is met.
    """
    if need == 0:
        return 0
    best = 0
    for s in range(top, 0, -1):
        if not board[s]:
            continue
        t = step_target(board, opp_on, s, die)
        if t < 0:
            if board[BAR]:
                break
            continue
        board[s] -= 1
        board[t] += 1
        got = 1 + _steps_possible(board, opp_on, die, need - 1, s)
        board[s] += 1
        board[t] -= 1
        if got > best:
            best = got
            if best == need:
                break
    return best


def _most_dice(board: list[int], opp_on: Board, hi: int, lo: int) -> int:
    """How many dice the roll can use: 0-4 for a double, 0-2 otherwise."""
    if hi == lo:
        return _steps_possible(board, opp_on, hi, 4)
    best = 0
    for s in range(BAR, 0, -1):
        if not board[s]:
            continue
        for first, second in ((hi, lo), (lo, hi)):
            t = step_target(board, opp_on, s, first)
            if t < 0:
                continue
            best = 1
            board[s] -= 1
            board[t] += 1
            both = _has_step(board, opp_on, second)
            board[s] += 1
            board[t] -= 1
            if both:
                return 2
        if board[BAR]:
            break
    return best


def _can_continue(board: list[int], opp_on: Board, left: tuple[int, ...], need: int) -> bool:
    """True if ``need`` more steps can be played with the unused dice ``left``."""
    if need == 0:
        return True
    if need == 1 and len(set(left)) > 1:
        return any(_has_step(board, opp_on, die) for die in set(left))
    return _steps_possible(board, opp_on, left[0], need) >= need


# -- the generator's representative of a play ------------------------------------------------


def _representative(
    position: Position, opp_on: Board, played: list[Move], hi: int, lo: int
) -> tuple[Move, ...]:
    """The move list :func:`~engine.movegen.legal_plays` shows for the play just validated.

    It lists moves from the highest from-point down and, among the move lists reaching the
    same position, keeps the largest. For a double, or two checkers each moving one die, all
    lists reaching a position are the same moves. The only other list is one checker moving
    both dice by the other intermediate point, which reaches the same position unless one of
    the two intermediate points holds an opponent blot.
    """
    moves = tuple(sorted(played, reverse=True))
    if hi == lo or len(moves) != 2:
        return moves
    (x, mid), (mid2, end) = moves
    if mid2 != mid or mid == OFF:
        return moves
    # The other route: the second die first. Same landing square (or off), other stopover.
    first = x - mid
    other = hi if first == lo else lo
    alt_mid = x - other
    if alt_mid < 1 or opp_on[mid] == 1 or opp_on[alt_mid] == 1:
        return moves
    board = list(position.mover)
    if step_target(board, opp_on, x, other) != alt_mid:
        return moves
    board[x] -= 1
    board[alt_mid] += 1
    if step_target(board, opp_on, alt_mid, first) != end:
        return moves
    return max(moves, ((x, alt_mid), (alt_mid, end)))
