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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from engine.movegen import legal_plays
from engine.position import BAR, Position
from engine.turns import Turn, TurnKind
from protocol.fairdice.stats import chi2_sf, chi_square

ROLLS = tuple((a, b) for a in range(1, 7) for b in range(1, 7))


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


def entry_chance(position: Position) -> float:
    """The chance a roll enters a checker from the bar: ``1 - (k/6)^2``, ``k`` the entry points
    the opponent holds (the mover's point ``25 - d``, the opponent's ``d``)."""
    closed = sum(1 for d in range(1, 7) if position.opponent[d] >= 2)
    return 1.0 - (closed / 6) ** 2


def can_hit(position: Position, d1: int, d2: int) -> bool:
    """Whether some legal play of ``d1``-``d2`` puts an opponent checker on the bar."""
    before = position.opponent[BAR]
    return any(p.position.opponent[BAR] > before for p in legal_plays(position, d1, d2))


def hit_chance(position: Position) -> float:
    """The share of the 36 rolls with which some legal play hits."""
    return sum(can_hit(position, a, b) for a, b in ROLLS) / 36


def audit(rolls: Sequence[Turn]) -> list[Table]:
    """The four tables of ``rolls`` (module docstring)."""
    faces = [0] * 6
    doubles = 0
    entered = 0
    enter_expected = 0.0
    on_bar = 0
    hit = 0
    hit_expected = 0.0
    hit_rolls = 0
    for t in rolls:
        d1, d2 = t.dice  # type: ignore[misc]
        faces[d1 - 1] += 1
        faces[d2 - 1] += 1
        doubles += d1 == d2
        if t.before.mover[BAR]:
            on_bar += 1
            enter_expected += entry_chance(t.before)
            entered += any(m[0] == BAR for m in t.moves)
        if t.before.is_contact():
            chance = hit_chance(t.before)
            if 0.0 < chance < 1.0:
                hit_rolls += 1
                hit_expected += chance
                hit += can_hit(t.before, d1, d2)
    n = len(rolls)
    return [
        Table("faces", ("1", "2", "3", "4", "5", "6"), tuple(faces), (2 * n / 6,) * 6, n),
        Table("doubles", ("doubles", "other"), (doubles, n - doubles), (n / 6, 5 * n / 6), n),
        Table("entering", ("entered", "stayed out"), (entered, on_bar - entered),
              (enter_expected, on_bar - enter_expected), on_bar),
        Table("hits", ("could hit", "could not"), (hit, hit_rolls - hit),
              (hit_expected, hit_rolls - hit_expected), hit_rolls),
    ]
