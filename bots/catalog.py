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
