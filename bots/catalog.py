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
    """How a level searches: bgsage ply and the standard deviation of its equity errors."""

    ply: int
    noise: float


STYLES: dict[Level, Style] = {
    Level.EASY: Style(ply=1, noise=0.20),
    Level.NORMAL: Style(ply=1, noise=0.07),
    Level.HARD: Style(ply=1, noise=0.0),
    Level.EXPERT: Style(ply=2, noise=0.0),
}

NAMES: dict[Level, str] = {
    Level.EASY: "Computer (Easy)",
    Level.NORMAL: "Computer (Normal)",
    Level.HARD: "Computer (Hard)",
    Level.EXPERT: "Computer (Expert)",
}
"""The display name a bot takes in its seat."""
