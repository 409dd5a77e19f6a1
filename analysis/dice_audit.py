"""The dice audit of a player: their rolls, counted against what fair dice give, with a
chi-square per table. Pure. "Are my dice rigged?" in numbers.

The rolls are a player's rolls in the games given (:func:`engine.turns.game_turns`: the turns
with dice, played or passed), but the opening roll of each game (made of one die per player,
doubles rolled again: not a roll of fair dice for either of them). Four tables:

* ``faces`` — each die's face, 1 to 6: expected a sixth of the dice each (5 degrees of freedom);
* ``doubles`` — doubles or not: expected a sixth of the rolls (1 degree of freedom);
* ``entering`` — rolls made with a checker on the bar: entered (at least one checker came in)
  or not; a roll enters unless both dice show points the opponent holds, so with ``k`` of the
  six entry points closed the chance is ``1 - (k/6)^2``, summed over those rolls (1 df);
* ``hits`` — rolls in contact where some roll could hit and some could not: whether the roll
  that came let the player hit (some legal play of it puts an opponent checker on the bar, not
  whether they chose to); the chance is the share of the 36 rolls that could hit (1 df).

Each table has its ``observed`` and ``expected`` counts, ``chi2`` (Pearson's statistic,
:func:`protocol.fairdice.stats.chi_square`), ``df`` and ``p`` (the chance fair dice give a
statistic at least that large); ``rolls`` the rolls it counts.

The audit is made in two steps so that a lifetime of rolls costs no more than its last match:
:func:`tally` counts rolls into a :class:`Tally` (whole numbers only, the expectations kept in
36ths), which adds up match by match (``tally(a + b) == tally(a) + tally(b)``), and
:func:`tables` makes the four tables of a tally. ``audit(rolls)`` is ``tables(tally(rolls))``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.movegen import legal_plays
from engine.position import BAR, Position
from engine.turns import Turn, TurnKind
from protocol.fairdice.stats import chi2_sf, chi_square


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    cells: tuple[str, ...]
    observed: tuple[int, ...]
    expected: tuple[float, ...]
    rolls: int

    @property
    def df(self) -> int:
        return len(self.cells) - 1

    @property
    def chi2(self) -> float:
        if not self.rolls or any(e <= 0 for e in self.expected):
            return 0.0
        return chi_square(self.observed, self.expected)

    @property
    def p(self) -> float:
        return chi2_sf(self.chi2, self.df)

    def as_dict(self) -> dict[str, Any]:
        return {"name": self.name, "cells": list(self.cells), "observed": list(self.observed),
                "expected": [round(e, 3) for e in self.expected], "rolls": self.rolls,
                "chi2": round(self.chi2, 4), "df": self.df, "p": round(self.p, 4)}


def player_rolls(games: Iterable[Sequence[Turn]], seat: int) -> list[Turn]:
    """``seat``'s rolls in ``games`` (each a game's turns), the opening roll of each left out."""
    out = []
    for turns in games:
        rolled = [t for t in turns if t.dice is not None and t.action in (TurnKind.MOVE,
                                                                          TurnKind.PASS)]
        out += [t for t in rolled[1:] if t.seat == seat]
    return out


def entry_odds(position: Position) -> int:
    """Of the 36 rolls, how many enter a checker from the bar: ``36 - k^2``, ``k`` the entry
    points the opponent holds (the mover's point ``25 - d``, the opponent's ``d``)."""
    closed = sum(1 for d in range(1, 7) if position.opponent[d] >= 2)
    return 36 - closed * closed


def entry_chance(position: Position) -> float:
    """The chance a roll enters a checker from the bar: ``1 - (k/6)^2``."""
    return entry_odds(position) / 36


def can_hit(position: Position, d1: int, d2: int) -> bool:
    """Whether some legal play of ``d1``-``d2`` puts an opponent checker on the bar."""
    before = position.opponent[BAR]
    return any(p.position.opponent[BAR] > before for p in legal_plays(position, d1, d2))


def hit_odds(position: Position) -> int:
    """Of the 36 rolls, how many have a legal play that hits (each of the 21 distinct rolls
    tried once: 3-1 and 1-3 are the same roll)."""
    return sum((1 if a == b else 2) * can_hit(position, a, b)
               for a in range(1, 7) for b in range(a, 7))


def hit_chance(position: Position) -> float:
    """The share of the 36 rolls with which some legal play hits."""
    return hit_odds(position) / 36


FIELDS = ("rolls", "face1", "face2", "face3", "face4", "face5", "face6", "doubles",
          "bar", "entered", "enter36", "contact", "hit", "hit36")
"""The counters of a :class:`Tally`, by the names they are stored under."""


@dataclass(frozen=True, slots=True)
class Tally:
    """The counts the four tables are made of, for some rolls: whole numbers only (the
    expectations in 36ths), so that the tally of two sets of rolls is the sum of theirs.

    ``rolls``; ``faces`` (dice showing 1 to 6); ``doubles``; ``bar`` (rolls made with a
    checker on the bar), ``entered`` (of those, the ones that entered one) and ``enter36``
    (their entering rolls among the 36, summed: 36 x the expected entries); ``contact`` (rolls
    in contact where some rolls hit and some do not), ``hit`` (of those, the ones that could
    hit) and ``hit36`` (their hitting rolls among the 36, summed).

    >>> a = Tally(rolls=2, faces=(1, 0, 0, 0, 2, 1), doubles=1)
    >>> b = Tally(rolls=1, faces=(0, 1, 0, 0, 0, 1), bar=1, entered=1, enter36=27)
    >>> (a + b).fields()["face6"], (a + b).bar, Tally.of(a.fields()) == a
    (2, 1, True)
    """

    rolls: int = 0
    faces: tuple[int, ...] = (0, 0, 0, 0, 0, 0)
    doubles: int = 0
    bar: int = 0
    entered: int = 0
    enter36: int = 0
    contact: int = 0
    hit: int = 0
    hit36: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally.of({k: v + other.fields()[k] for k, v in self.fields().items()})

    def fields(self) -> dict[str, int]:
        """The counters by name (:data:`FIELDS`): the stored form."""
        out = {"rolls": self.rolls}
        out.update({f"face{i + 1}": n for i, n in enumerate(self.faces)})
        out.update(doubles=self.doubles, bar=self.bar, entered=self.entered,
                   enter36=self.enter36, contact=self.contact, hit=self.hit, hit36=self.hit36)
        return out

    @classmethod
    def of(cls, fields: Mapping[str, int]) -> Tally:
        """A tally from its counters by name (one missing counts 0; other names are not
        counters and are left aside)."""
        n = {k: int(fields.get(k, 0)) for k in FIELDS}
        return cls(n["rolls"], tuple(n[f"face{i}"] for i in range(1, 7)), n["doubles"],
                   n["bar"], n["entered"], n["enter36"], n["contact"], n["hit"], n["hit36"])


def tally(rolls: Iterable[Turn]) -> Tally:
    """The counts of ``rolls`` (each a turn with dice, as :func:`player_rolls` gives)."""
    faces = [0] * 6
    n = doubles = bar = entered = enter36 = contact = hit = hit36 = 0
    for t in rolls:
        d1, d2 = t.dice  # type: ignore[misc]
        n += 1
        faces[d1 - 1] += 1
        faces[d2 - 1] += 1
        doubles += d1 == d2
        if t.before.mover[BAR]:
            bar += 1
            enter36 += entry_odds(t.before)
            entered += any(m[0] == BAR for m in t.moves)
        if t.before.is_contact():
            odds = hit_odds(t.before)
            if 0 < odds < 36:
                contact += 1
                hit36 += odds
                hit += can_hit(t.before, d1, d2)
    return Tally(n, tuple(faces), doubles, bar, entered, enter36, contact, hit, hit36)


def tables(t: Tally) -> list[Table]:
    """The four tables of a tally (module docstring)."""
    n = t.rolls
    return [
        Table("faces", ("1", "2", "3", "4", "5", "6"), t.faces, (2 * n / 6,) * 6, n),
        Table("doubles", ("doubles", "other"), (t.doubles, n - t.doubles), (n / 6, 5 * n / 6), n),
        Table("entering", ("entered", "stayed out"), (t.entered, t.bar - t.entered),
              (t.enter36 / 36, t.bar - t.enter36 / 36), t.bar),
        Table("hits", ("could hit", "could not"), (t.hit, t.contact - t.hit),
              (t.hit36 / 36, t.contact - t.hit36 / 36), t.contact),
    ]


def audit(rolls: Sequence[Turn]) -> list[Table]:
    """The four tables of ``rolls``: ``tables(tally(rolls))``."""
    return tables(tally(rolls))
