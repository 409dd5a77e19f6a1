"""What happened: the events returned by every game and match transition.

Events are small immutable values, in the order they happened. Each class has a stable ``kind``
name for the wire and for transcripts. The sequence of events of a match is all a match record
(and a ``.mat`` export) needs: see :mod:`engine.record`.

>>> Moved(0, (3, 1), ((8, 5), (6, 5))).kind
'moved'
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import ClassVar

from engine.reference import Move
from engine.results import ForfeitReason, Result, ResultKind

Dice = tuple[int, int]


class EndOfMatch(enum.StrEnum):
    """Why a match or money session ended."""

    COMPLETED = "completed"  # a player reached the match length, or the single game ended
    FORFEIT = "forfeit"  # a player forfeited (in match play: the match)
    STOPPED = "stopped"  # a money session was ended between games


@dataclass(frozen=True, slots=True)
class RolledOff:
    """One opening roll-off: ``dice`` = (seat 0's die, seat 1's die); ``first`` is the seat
    that moves first (None on a tie: the roll-off repeats)."""

    kind: ClassVar[str] = "rolled_off"
    dice: Dice
    first: int | None


@dataclass(frozen=True, slots=True)
class Rolled:
    """``seat`` rolled ``dice`` (in the order they came)."""

    kind: ClassVar[str] = "rolled"
    seat: int
    dice: Dice


@dataclass(frozen=True, slots=True)
class Moved:
    """``seat`` played ``moves`` (single-die checker moves, in order) with ``dice``."""

    kind: ClassVar[str] = "moved"
    seat: int
    dice: Dice
    moves: tuple[Move, ...]


@dataclass(frozen=True, slots=True)
class Passed:
    """``seat`` could play no die of ``dice``: the turn passed automatically."""

    kind: ClassVar[str] = "passed"
    seat: int
    dice: Dice


@dataclass(frozen=True, slots=True)
class Doubled:
    """``seat`` offered to double the cube to ``value``."""

    kind: ClassVar[str] = "doubled"
    seat: int
    value: int


@dataclass(frozen=True, slots=True)
class Beavered:
    """``seat`` took the double and redoubled to ``value``, keeping the cube."""

    kind: ClassVar[str] = "beavered"
    seat: int
    value: int


@dataclass(frozen=True, slots=True)
class Taken:
    """``seat`` took the pending offer; the cube is now at ``value``."""

    kind: ClassVar[str] = "taken"
    seat: int
    value: int


@dataclass(frozen=True, slots=True)
class Dropped:
    """``seat`` dropped the pending offer and lost the game at ``value`` (the pre-double cube)."""

    kind: ClassVar[str] = "dropped"
    seat: int
    value: int


@dataclass(frozen=True, slots=True)
class ResignOffered:
    """``seat`` offered to resign at ``level``."""

    kind: ClassVar[str] = "resign_offered"
    seat: int
    level: ResultKind


@dataclass(frozen=True, slots=True)
class ResignAccepted:
    """``seat`` accepted the opponent's resignation at ``level``."""

    kind: ClassVar[str] = "resign_accepted"
    seat: int
    level: ResultKind


@dataclass(frozen=True, slots=True)
class ResignRejected:
    """``seat`` rejected the opponent's resignation at ``level``; play continues."""

    kind: ClassVar[str] = "resign_rejected"
    seat: int
    level: ResultKind


@dataclass(frozen=True, slots=True)
class Forfeited:
    """``seat`` forfeited (``reason``)."""

    kind: ClassVar[str] = "forfeited"
    seat: int
    reason: ForfeitReason


@dataclass(frozen=True, slots=True)
class GameOver:
    """The game ended with ``result``."""

    kind: ClassVar[str] = "game_over"
    result: Result


@dataclass(frozen=True, slots=True)
class GameStarted:
    """Game ``number`` (1-based) of a match started at ``score``; ``crawford`` marks the
    Crawford game and ``cube`` tells whether the cube is in play; ``variant`` names the rules
    of this game (never ``tavli``: the game of the rotation) and ``opener`` the seat that
    opens it without a roll-off (a Tavli game after a won one), if any."""

    kind: ClassVar[str] = "game_started"
    number: int
    score: tuple[int, int]
    crawford: bool
    cube: bool
    variant: str = "backgammon"
    opener: int | None = None


@dataclass(frozen=True, slots=True)
class GameScored:
    """Game ``number`` added ``points`` to ``winner``'s score, giving ``score``.

    ``points`` equals the result's points except after a match forfeit, where the winner is
    brought up to the match length. A drawn game (plakoto) has no winner and adds 0."""

    kind: ClassVar[str] = "game_scored"
    number: int
    winner: int | None
    points: int
    score: tuple[int, int]


@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match (or money session) ended: ``winner`` (None for a tied money session), the
    final ``score``, why, and the seat that forfeited or stopped the session (``by``), if any."""

    kind: ClassVar[str] = "match_over"
    winner: int | None
    score: tuple[int, int]
    reason: EndOfMatch
    by: int | None = None


GameEvent = (
    RolledOff | Rolled | Moved | Passed | Doubled | Beavered | Taken | Dropped
    | ResignOffered | ResignAccepted | ResignRejected | Forfeited | GameOver
)
"""Events of a single game."""

Event = GameEvent | GameStarted | GameScored | MatchOver
"""Any event of a match."""
