"""The levels' names and search settings: plain data, cheap to import (the server's lobby reads
it without loading the nets). The policies are in :mod:`bots.levels`.

:class:`Level` is the one list of levels: the browser's (``web-client/src/generated/catalog.ts``)
is generated from it by ``web-client/tools/make_catalog.py``."""

from __future__ import annotations

import enum
from dataclasses import dataclass


class Level(enum.StrEnum):
    EASY = "easy"
    NORMAL = "normal"
    HARD = "hard"
    EXPERT = "expert"


@dataclass(frozen=True, slots=True)
class Style:
    """How a level searches (bgsage ply numbers: 1-ply is the net's static evaluation)."""

    ply: int
    """Every legal play scored at 1-ply; at 2 or more the best of them re-scored this deep."""
    noise: float
    """Standard deviation of the errors in the plays' equities the level sees (0: none)."""
    cube_noise: float = 0.0
    """The same for the cube equities (bounded: :mod:`bots.levels`)."""
    close_ply: int = 0
    """When set, the close calls of that ranking (the plays within ``close_within`` of the
    best, at most ``close_keep``) are looked at this deep before choosing."""
    close_keep: int = 3
    close_within: float = 0.04
    cube_ply: int = 1
    """Depth of the cube decisions."""


STYLES: dict[Level, Style] = {
    Level.EASY: Style(ply=1, noise=0.20, cube_noise=0.10),
    Level.NORMAL: Style(ply=1, noise=0.07, cube_noise=0.07),
    Level.HARD: Style(ply=1, noise=0.0),
    Level.EXPERT: Style(ply=2, noise=0.0, close_ply=3, cube_ply=2),
}

NAMES: dict[Level, str] = {
    Level.EASY: "Computer (Easy)",
    Level.NORMAL: "Computer (Normal)",
    Level.HARD: "Computer (Hard)",
    Level.EXPERT: "Computer (Expert)",
}
"""The display name a bot takes in its seat."""

ALL = tuple(Level)
HEURISTIC = (Level.EASY,)

HEURISTIC_GAMES: tuple[str, ...] = ("plakoto", "fevga")
"""The games the computer plays by :mod:`bots.heuristic`, not by a trained net: the lobby says
so beside its level (a Tavli match holds two of them)."""

VARIANT_LEVELS: dict[str, tuple[Level, ...]] = {
    "backgammon": ALL,
    "nackgammon": ALL,
    "hypergammon": ALL,
    "portes": ALL,
    "plakoto": HEURISTIC,
    "fevga": HEURISTIC,
    "tavli": HEURISTIC,
}
"""The levels the computer offers in each variant (a match's ``variant``: every name of
:data:`engine.variants.NAMES`), easiest first: the one table the lobby checks a request
against, the API reports (``GET /api/bots``) and docs/bots.md ("Variants") explains.

Backgammon, nackgammon, hypergammon and portes are played by bgsage's nets at every level
(:mod:`bots.levels`; trained on backgammon: their strength in the other three is measured in
docs/bots.md). Plakoto and fevga have no nets: the computer plays them by a hand-written
heuristic (:mod:`bots.heuristic`), offered as the one level ``easy`` — it beats a random
player clearly and is not claimed to be more. A Tavli match (portes, plakoto, fevga in turn)
offers the levels all three games have."""


def levels_for(variant: str) -> tuple[Level, ...]:
    """The levels offered in ``variant`` (none for an unknown name).

    >>> [str(level) for level in levels_for("fevga")], len(levels_for("nackgammon"))
    (['easy'], 4)
    """
    return VARIANT_LEVELS.get(variant, ())


class NoSuchLevel(ValueError):
    """The computer has no such level in that variant."""


def check_level(variant: str, level: Level) -> None:
    """:class:`NoSuchLevel` unless the computer plays ``variant`` at ``level``.

    >>> check_level("plakoto", Level.EXPERT)
    Traceback (most recent call last):
    ...
    bots.catalog.NoSuchLevel: the computer plays plakoto at easy only
    """
    offered = levels_for(variant)
    if level not in offered:
        if not offered:
            raise NoSuchLevel(f"the computer does not play {variant}")
        words = ", ".join(str(x) for x in offered)
        raise NoSuchLevel(f"the computer plays {variant} at {words} only")
