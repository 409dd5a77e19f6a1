"""The FIBS rating formula (pure): what a match to N points does to both players' ratings.

Everyone starts at 1500.00 with experience 0. For a match to N points between A and B::

    P_A = 1 / (10 ** ((R_B - R_A) * sqrt(N) / 2000) + 1)
    winner A gains   4 * sqrt(N) * (1 - P_A) * K_A
    loser  A drops   4 * sqrt(N) * P_A * K_A
    K = max(1, 5 - experience / 100)       (each player's own experience before the match)

then each player's experience grows by N. The two changes are not equal and opposite when the
players' K differ: a newcomer's rating moves faster than an experienced player's.

>>> new = Standing(1500.0, 0)
>>> change = rate(new, new, winner=0, length=1)
>>> round(new.rating + change.deltas[0], 2), round(new.rating + change.deltas[1], 2)
(1510.0, 1490.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

START_RATING = 1500.0
START_EXPERIENCE = 0


def fields(variant: str) -> tuple[str, str]:
    """The account's fields (rating, experience) of a variant's rating: backgammon's are
    ``rating`` and ``exp``, as they always were; every other variant (a Tavli match included)
    has its own, ``rating:<variant>`` and ``exp:<variant>``, from :data:`START_RATING`.

    >>> fields("backgammon"), fields("tavli")
    (('rating', 'exp'), ('rating:tavli', 'exp:tavli'))
    """
    if variant == "backgammon":
        return ("rating", "exp")
    return (f"rating:{variant}", f"exp:{variant}")


def standing(row: dict[str, str], variant: str) -> Standing:
    """An account's standing (its stored row) in ``variant``'s rating.

    >>> standing({"rating": "1612.5", "exp": "7"}, "backgammon")
    Standing(rating=1612.5, experience=7)
    >>> standing({"rating": "1612.5", "exp": "7"}, "plakoto")
    Standing(rating=1500.0, experience=0)
    """
    rating, exp = fields(variant)
    return Standing(float(row.get(rating, START_RATING)), int(row.get(exp, START_EXPERIENCE)))


def variant_standings(row: dict[str, str]) -> dict[str, Standing]:
    """The standings of an account in the variants it played rated, but backgammon's (the
    account's ``rating`` and ``experience``), by variant name."""
    out = {}
    for key in row:
        if key.startswith("exp:"):
            out[key[4:]] = standing(row, key[4:])
    return dict(sorted(out.items()))


@dataclass(frozen=True, slots=True)
class Standing:
    """A player's rating and experience (the sum of the lengths of their rated matches)."""

    rating: float = START_RATING
    experience: int = START_EXPERIENCE


@dataclass(frozen=True, slots=True)
class Change:
    """What one rated match does: the rating change of seat 0 and seat 1 (the winner's is
    positive), and the experience each gains (the match length)."""

    deltas: tuple[float, float]
    experience: int


def k_factor(experience: int) -> float:
    """``max(1, 5 - experience / 100)``: 5 for a newcomer, 1 from 400 points of experience."""
    return max(1.0, 5.0 - experience / 100.0)


def win_probability(rating: float, opponent: float, length: int) -> float:
    """``P_A``: the chance the formula gives a player rated ``rating`` to win a match to
    ``length`` points against one rated ``opponent``."""
    return 1.0 / (10.0 ** ((opponent - rating) * math.sqrt(length) / 2000.0) + 1.0)


def rate(a: Standing, b: Standing, winner: int, length: int) -> Change:
    """The changes for seat 0 (``a``) and seat 1 (``b``) after a match to ``length`` points
    that seat ``winner`` won (a match lost on time, by forfeit or by leaving is a loss)."""
    if winner not in (0, 1):
        raise ValueError("winner is seat 0 or 1")
    if length < 1:
        raise ValueError("a rated match is a match to at least 1 point")
    root = math.sqrt(length)
    p_a = win_probability(a.rating, b.rating, length)
    p_b = 1.0 - p_a
    k_a, k_b = k_factor(a.experience), k_factor(b.experience)
    if winner == 0:
        deltas = (4 * root * (1 - p_a) * k_a, -4 * root * p_b * k_b)
    else:
        deltas = (-4 * root * p_a * k_a, 4 * root * (1 - p_b) * k_b)
    return Change(deltas, length)
