"""Validation of a submitted play: accept exactly the legal plays, and say why not otherwise.

(Interim implementation: complete-play membership only; the step-by-step reasons land with the
fast generator and keep this API.)
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from engine.movegen import Play, legal_plays
from engine.position import Position
from engine.reference import Move


class Reason(enum.Enum):
    """Why a submitted play was refused. Values are stable: they travel in error replies."""

    MALFORMED = "malformed"
    NOT_LEGAL = "not_legal"


@dataclass(frozen=True, slots=True)
class IllegalPlay(Exception):
    """A refused play: the 0-based index of the first offending step (None for the play as a
    whole), the move there, and the reason."""

    reason: Reason
    step: int | None = None
    move: Move | None = None
    detail: str = ""

    def __str__(self) -> str:
        where = f"step {self.step + 1} {self.move}: " if self.step is not None else ""
        return f"{where}{self.reason.value}{': ' + self.detail if self.detail else ''}"


def validate_play(position: Position, d1: int, d2: int, moves: Sequence[Move]) -> Play:
    """The legal play that ``moves`` makes, or :class:`IllegalPlay`.

    The empty sequence is legal exactly when no die can be played.
    """
    plays = legal_plays(position, d1, d2)
    if not plays:
        if moves:
            raise IllegalPlay(Reason.NOT_LEGAL, 0, tuple(moves[0]), "no die can be played")
        return Play((), position)
    wanted = tuple(tuple(m) for m in moves)
    for play in plays:
        if play.moves == wanted:
            return play
    raise IllegalPlay(Reason.NOT_LEGAL)
