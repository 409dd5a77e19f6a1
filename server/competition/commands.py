"""What the world tells a tournament: a player joined or withdrew, a seat connected to its
match, a match finished, or just that time passed.

Every command is applied at a server time (``now``, in ms) by
:func:`server.competition.machine.apply`, which first settles whatever fell due by then (a
start, a no-show deadline, the end of an arena): :class:`Tick` asks for nothing else.

The shell may log each command under its stable kind name (:data:`RECORD_KINDS`), never its
class name.

>>> recorded_command("Withdraw", {"player": "ann"})
Withdraw(player='ann')
>>> record_kind(Tick())
'Tick'
"""

from __future__ import annotations

from dataclasses import dataclass

from server.competition.state import Game
from server.machine import serial


@dataclass(frozen=True, slots=True)
class Join:
    """``player`` (an account's id) joins as ``name`` with the rating it is seeded and paired
    by (1500 for a player without one)."""

    player: str
    name: str
    rating: float = 1500.0


@dataclass(frozen=True, slots=True)
class Withdraw:
    player: str


@dataclass(frozen=True, slots=True)
class Connected:
    """A seat of a tournament match connected (its first ``hello``): it cannot be a no-show."""

    match: str
    seat: int


@dataclass(frozen=True, slots=True)
class MatchFinished:
    """A tournament match ended (delivered at least once): the winning seat (None when the
    match was abandoned with no winner), the final score and its games."""

    match: str
    winner: int | None
    score: tuple[int, int] = (0, 0)
    games: tuple[Game, ...] = ()


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passed: settle what is due (see :func:`server.competition.machine.next_due`)."""


Command = Join | Withdraw | Connected | MatchFinished | Tick

RECORD_KINDS: dict[str, type] = {
    "Join": Join,
    "Withdraw": Withdraw,
    "Connected": Connected,
    "MatchFinished": MatchFinished,
    "Tick": Tick,
}
"""The stable name of each command's kind in a log (a stored format: a class may be renamed,
its kind may not)."""

_KIND_OF = {command: kind for kind, command in RECORD_KINDS.items()}


def record_kind(command: Command) -> str:
    return _KIND_OF[type(command)]


def recorded_command(kind: str, body: object) -> Command:
    """The command of a log record of ``kind`` from its stored body (:mod:`serial` maps)."""
    command = RECORD_KINDS.get(kind)
    if command is None:
        raise ValueError(f"unknown command record kind {kind!r} (written by a newer version?)")
    loaded: Command = serial.load(command, body)
    return loaded
