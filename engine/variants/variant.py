"""The one interface every variant has: a :class:`Variant` value naming its rules.

The server, the hot-seat page and the bots dispatch on a variant by name
(:func:`engine.variants.variant`) and then only call what the value holds: the starting
position, the legal plays of a roll, the validation of a submitted play, whether a play ended
the game and what it scored, whether the cube is in play and how the first turn is rolled.

Every variant's position has the same outer shape as :class:`engine.position.Position`: two
``Board`` tuples of 26 counts, ``mover`` and ``opponent``, each counted from its owner's side
(``[0]`` borne off, ``[1..24]`` the owner's points, 24 where its back checkers start and 1..6
its home board, ``[25]`` its bar, always 0 in the Tavli games without hitting), and
``swapped()`` to hand the turn over. What differs is how the two boards face each other and
what else a position holds (plakoto's pinned checkers); each variant's module says.

A play is an :class:`engine.movegen.Play`: the checker moves ``(from, to)`` of the mover's
numbering (25 the bar, 0 off) and the position reached, still seen by the mover.

>>> from engine.variants import variant
>>> portes = variant("portes")
>>> portes.cube, portes.opening.value, portes.largest.word
(False, 'reroll', 'gammon')
>>> end = Ending(Side.MOVER, ResultKind.GAMMON, Finish.BEAR_OFF)
>>> end.points, end.is_draw
(2, False)
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.movegen import Play
from engine.reference import Move
from engine.results import ResultKind


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


Position = Any
"""A variant's position (see each variant's module); typed loosely so one interface fits all."""


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
    positions that come from outside, say a stored or submitted one).
    """

    name: str
    checkers: int
    cube: bool
    opening: Opening
    largest: ResultKind
    start: Callable[[], Position]
    legal_plays: Callable[[Position, int, int], tuple[Play, ...]]
    validate: Callable[[Position, int, int, Sequence[Move]], Play]
    can_play: Callable[[Position, int, int], bool]
    ending: Callable[[Position], Ending | None]
    worst_possible: Callable[[Position], ResultKind]
    reference: Callable[[Position, int, int], dict[Position, tuple[Move, ...]]]
    check: Callable[[Position], None]

    def __repr__(self) -> str:
        return f"Variant({self.name!r})"
