"""What a parser reads from a file, before the rules are applied: the neutral form both the
``.mat`` and the SGF parser produce and :mod:`engine.importer.build` replays through the engine.

A :class:`Parsed` file holds the match-level facts (names, length, rules from the header) and one
:class:`GameSteps` per game: the actions in the order written, each with its :class:`Where`.
Seats are the engine's: seat 0 is the first player of the file (the left column of a ``.mat``,
SGF's White), seat 1 the second. Points in a :class:`Roll`'s segments are counted from the
mover's side, 25 the bar and 0 off, as in :mod:`engine.position`.

Nothing here is checked against the rules: a segment may span several dice (``24/13``), hits
may be marked or not. That is the builder's work.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.importer.errors import Where

Segment = tuple[int, int]
"""One checker's way as written, ``(from, to)``: one die or several (``24/13``)."""


@dataclass(frozen=True, slots=True)
class Roll:
    """``seat`` rolled ``dice`` (in the order written) and played ``segments``.

    ``segments`` is empty when nothing follows the dice (a dance, or a roll answered by a
    resignation). ``hits`` are the points marked as hits (``*``), or None when the format does
    not mark hits (SGF), so that any hit where a checker stopped is as written.
    """

    where: Where
    seat: int
    dice: tuple[int, int]
    segments: tuple[Segment, ...] = ()
    hits: frozenset[int] | None = None
    text: str = ""


@dataclass(frozen=True, slots=True)
class Double:
    """``seat`` doubles (``value``: the cube offered, when written). In SGF a double by the
    doubled player is a beaver."""

    where: Where
    seat: int
    value: int | None = None


@dataclass(frozen=True, slots=True)
class Beaver:
    """``seat`` beavers the double it was offered (``value``: the cube offered back)."""

    where: Where
    seat: int
    value: int | None = None


@dataclass(frozen=True, slots=True)
class Take:
    where: Where
    seat: int


@dataclass(frozen=True, slots=True)
class Drop:
    where: Where
    seat: int


@dataclass(frozen=True, slots=True)
class Win:
    """``seat`` wins ``points``. ``resigned``: True when the file says the loser resigned, False
    when it says the game ended on the board (SGF), None when it does not say (``.mat``)."""

    where: Where
    seat: int
    points: int
    resigned: bool | None = None


Step = Roll | Double | Beaver | Take | Drop | Win


@dataclass(frozen=True, slots=True)
class GameSteps:
    """One game as written: its number (1-based), the score before it (when written), whether
    the file calls it the Crawford game (None when it does not say) and its steps."""

    where: Where
    number: int
    score: tuple[int, int] | None
    steps: tuple[Step, ...]
    crawford: bool | None = None


@dataclass(frozen=True, slots=True)
class Parsed:
    """A whole file as written.

    ``length`` is the match length (0: money or a single game). ``jacoby`` and ``beavers`` are
    the money rules the file states (None: it does not say); ``cube_limit`` the highest cube it
    allows (None: not said). ``tags`` are the header's named fields (``Site``, ``EventDate``,
    ...); ``comments`` its other comment lines, each with its place.
    """

    format: str
    names: tuple[str, str]
    length: int
    games: tuple[GameSteps, ...]
    where_length: Where | None = None
    crawford_rule: bool = True
    jacoby: bool | None = None
    beavers: bool | None = None
    cube_limit: int | None = None
    tags: dict[str, str] = field(default_factory=dict)
    comments: tuple[tuple[Where, str], ...] = ()
    notes: tuple[str, ...] = ()
