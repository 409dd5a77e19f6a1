"""The one interface every variant has: a :class:`Variant` value naming the rules of one game,
and :class:`Rules`, what a match plays (the variants its games rotate through).

The engine's game and match (:mod:`engine.game`, :mod:`engine.match`) take these values and
only call what they hold, so they play any variant without knowing its name; the variants
themselves (their positions, generators and validators) live in ``engine/variants/``, which
dispatches by name (:func:`engine.variants.variant`, :func:`engine.variants.rules`) and sits
above the rest of the engine. Backgammon's own rules, :data:`BACKGAMMON` (the engine's
generator, validator and results, unchanged), are here: they are what a game plays when it is
given nothing else.

Every variant's position has the same outer shape as :class:`engine.position.Position`: two
``Board`` tuples of 26 counts, ``mover`` and ``opponent``, each counted from its owner's side
(``[0]`` borne off, ``[1..24]`` the owner's points, 24 where its back checkers start and 1..6
its home board, ``[25]`` its bar, always 0 in the Tavli games without hitting), and
``swapped()`` to hand the turn over. What differs is how the two boards face each other and
what else a position holds (plakoto's pinned checkers): :attr:`Variant.seen` builds a position
from the two boards and the pins, :attr:`Variant.pins` reads the pins back.

A play is an :class:`engine.movegen.Play`: the checker moves ``(from, to)`` of the mover's
numbering (25 the bar, 0 off) and the position reached, still seen by the mover.

Stored values (a game, a match's options) name a variant by its ``name`` only.

>>> BACKGAMMON.cube, BACKGAMMON.opening.value, BACKGAMMON.largest.word
(True, 'rolloff', 'backgammon')
>>> end = Ending(Side.MOVER, ResultKind.GAMMON, Finish.BEAR_OFF)
>>> end.points, end.is_draw
(2, False)
>>> done = Position.from_points({}, {24: 15})  # the loser's 15 in the winner's home board
>>> BACKGAMMON.ending(done).kind, BACKGAMMON.ending(Position.start()) is None
(<ResultKind.BACKGAMMON: 3>, True)
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine import results
from engine.movegen import Play, legal_plays
from engine.position import Board, Position
from engine.reference import Move, reference_plays
from engine.results import ResultKind
from engine.validate import can_play, validate_play


class Opening(enum.StrEnum):
    """How the first turn of a game gets its dice.

    ``rolloff``: each player throws one die and the higher plays those two numbers
    (backgammon). ``reroll``: the higher throws both dice again for the first play, so it can
    be a double (the Greek way, every Tavli game).
    """

    ROLLOFF = "rolloff"
    REROLL = "reroll"


class Side(enum.StrEnum):
    """A side relative to the position it is read from."""

    MOVER = "mover"
    OPPONENT = "opponent"


class Finish(enum.StrEnum):
    """How a game ended on the board (resignations and forfeits belong to the game machine)."""

    BEAR_OFF = "bear_off"
    """The winner bore off its last checker."""
    MOTHER = "mother"
    """Plakoto: the loser's mother checker is pinned on its starting point and the winner has
    left its own."""
    MOTHERS = "mothers"
    """Plakoto: both mother checkers are pinned: a draw."""


@dataclass(frozen=True, slots=True)
class Ending:
    """The end of a game: who won (``None`` for a draw), how big the win is, and how."""

    winner: Side | None
    kind: ResultKind | None
    finish: Finish

    def __post_init__(self) -> None:
        if (self.winner is None) != (self.kind is None):
            raise ValueError("a draw has neither winner nor kind; a win has both")
        if (self.finish is Finish.MOTHERS) != (self.winner is None):
            raise ValueError("only both mothers pinned is a draw")

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    @property
    def points(self) -> int:
        """What the game scores for the winner (no cube: the kind's multiplier; 0 for a draw)."""
        return 0 if self.kind is None else int(self.kind)


VariantPosition = Any
"""A variant's position (see each variant's module); typed loosely so one interface fits all."""


def plain_position(
    mover: Board, opponent: Board, mover_pinned: int = 0, opponent_pinned: int = 0
) -> Position:
    """The position of two boards where nothing is pinned (every variant but plakoto)."""
    return Position.unchecked(mover, opponent)


def no_pins(position: VariantPosition) -> tuple[int, int]:
    """The pins of a position of a variant without pinning: none."""
    return (0, 0)


@dataclass(frozen=True, slots=True)
class Variant:
    """The rules of one game, by value.

    ``checkers`` a side; ``cube``: whether the doubling cube is in play; ``largest``: the
    biggest win (backgammon ×3, or gammon ×2 where there is no triple); ``start()``: the
    starting position (the same seen from either side); ``legal_plays(position, d1, d2)``:
    every distinct legal play (empty: the roll passes); ``validate(position, d1, d2, moves)``:
    the play ``moves`` make, or :class:`engine.validate.IllegalPlay` with a typed reason;
    ``can_play``: whether any die can be played; ``ending(position)``: after a play (the
    position still seen by the mover), how the game ended or None; ``worst_possible(position)``:
    the largest loss still possible for the mover (the resignation and forfeit ceiling);
    ``reference(position, d1, d2)``: the slow, readable generator kept as a test oracle
    (result -> one legal order of moves); ``check(position)``: raise
    :class:`~engine.position.PositionError` naming what is impossible about a position (for
    positions that come from outside, say a stored or submitted one); ``seen(mover, opponent,
    mover_pinned, opponent_pinned)``: the position of two boards (each from its owner's side)
    and their pins, seen by ``mover``; ``pins(position)``: the mover's and the opponent's pins.
    """

    name: str
    checkers: int
    cube: bool
    opening: Opening
    largest: ResultKind
    start: Callable[[], VariantPosition]
    legal_plays: Callable[[VariantPosition, int, int], tuple[Play, ...]]
    validate: Callable[[VariantPosition, int, int, Sequence[Move]], Play]
    can_play: Callable[[VariantPosition, int, int], bool]
    ending: Callable[[VariantPosition], Ending | None]
    worst_possible: Callable[[VariantPosition], ResultKind]
    reference: Callable[[VariantPosition, int, int], dict[VariantPosition, tuple[Move, ...]]]
    check: Callable[[VariantPosition], None]
    seen: Callable[[Board, Board, int, int], VariantPosition] = plain_position
    pins: Callable[[VariantPosition], tuple[int, int]] = no_pins

    def __repr__(self) -> str:
        return f"Variant({self.name!r})"


@dataclass(frozen=True, slots=True)
class Rules:
    """What a match under ``name`` plays: its games go through ``rotation`` in turn.

    >>> STANDARD.game(3).name, STANDARD.cube
    ('backgammon', True)
    """

    name: str
    rotation: tuple[Variant, ...]

    def game(self, number: int) -> Variant:
        """The variant of game ``number`` (1, 2, ...) of the match."""
        if type(number) is not int or number < 1:
            raise ValueError(f"games are numbered from 1, got {number!r}")
        return self.rotation[(number - 1) % len(self.rotation)]

    @property
    def cube(self) -> bool:
        """Whether the doubling cube is in play (in every game of the rotation)."""
        return all(v.cube for v in self.rotation)

    def __repr__(self) -> str:
        return f"Rules({self.name!r})"


# ------------------------------------------------------------------ backgammon


def backgammon_ending(position: Position) -> Ending | None:
    """After the mover's play: a win when its board is empty, as big as
    :func:`engine.results.result_kind` says (single, gammon or backgammon)."""
    if any(position.mover[1:]):
        return None
    kind = results.result_kind(position.opponent, position.mover)
    return Ending(Side.MOVER, kind, Finish.BEAR_OFF)


def backgammon_check(position: Position) -> None:
    """Raise :class:`~engine.position.PositionError` unless ``position`` is a possible
    backgammon position (what ``Position(...)`` checks)."""
    Position(position.mover, position.opponent)


def backgammon_worst_possible(position: Position) -> ResultKind:
    """The largest loss still possible for the mover (:func:`engine.results.worst_possible`)."""
    return results.worst_possible(position.mover, position.opponent)


BACKGAMMON = Variant(
    name="backgammon",
    checkers=15,
    cube=True,
    opening=Opening.ROLLOFF,
    largest=ResultKind.BACKGAMMON,
    start=Position.start,
    legal_plays=legal_plays,
    validate=validate_play,
    can_play=can_play,
    ending=backgammon_ending,
    worst_possible=backgammon_worst_possible,
    reference=reference_plays,
    check=backgammon_check,
)
"""Backgammon: the engine's own rules."""

STANDARD = Rules("backgammon", (BACKGAMMON,))
"""A match of backgammon games (what a match plays when given no other rules)."""
