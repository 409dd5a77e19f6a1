"""What a seat (or the clock) asks the match to do.

The seat always comes from the authenticated connection, never from the frame. ``seq`` is the
client's sequence number (per seat, increasing, kept across reconnects) that makes a resent
command idempotent; 0 means "no sequence number" (lobby actions).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.reference import Move


@dataclass(frozen=True, slots=True)
class Command:
    """``lag_ms`` is the connection's measured round trip (set by the gateway): the command is
    still in time that long after its deadline, up to the match's lag allowance."""

    seat: int
    seq: int = 0
    lag_ms: int = 0


@dataclass(frozen=True, slots=True)
class Join(Command):
    """The second player takes seat 1 (from the lobby)."""

    name: str = ""


@dataclass(frozen=True, slots=True)
class Commit(Command):
    game: int = 0
    commitment: bytes = b""


@dataclass(frozen=True, slots=True)
class Recommit(Command):
    game: int = 0
    commitment: bytes = b""


@dataclass(frozen=True, slots=True)
class Roll(Command):
    """The seat on roll declines to double and rolls, revealing its link ``k``."""

    game: int = 0
    k: int = 0
    reveal: bytes = b""


@dataclass(frozen=True, slots=True)
class Reveal(Command):
    """A seat's link ``k``: both seats' in the roll-off, the roller's opponent's otherwise."""

    game: int = 0
    k: int = 0
    reveal: bytes = b""


@dataclass(frozen=True, slots=True)
class Double(Command):
    game: int = 0


@dataclass(frozen=True, slots=True)
class Take(Command):
    game: int = 0


@dataclass(frozen=True, slots=True)
class Drop(Command):
    game: int = 0


@dataclass(frozen=True, slots=True)
class Beaver(Command):
    game: int = 0


@dataclass(frozen=True, slots=True)
class MovePlay(Command):
    """Play the dice: ``turn`` is the game's turn counter the client saw (stale plays fail)."""

    game: int = 0
    turn: int = 0
    moves: tuple[Move, ...] = ()


@dataclass(frozen=True, slots=True)
class Resign(Command):
    game: int = 0
    level: int = 1


@dataclass(frozen=True, slots=True)
class ResignReply(Command):
    game: int = 0
    accept: bool = False


@dataclass(frozen=True, slots=True)
class Stop(Command):
    """End a money session between games."""


@dataclass(frozen=True, slots=True)
class Leave(Command):
    """Abandon the match: forfeit now rather than let the clock run out."""


@dataclass(frozen=True, slots=True)
class OfferRematch(Command):
    """A seat of a finished match offers a rematch: ``match`` is the new match, already created
    with the same options (from the lobby, which checked the seat's token)."""

    match: str = ""


@dataclass(frozen=True, slots=True)
class DeclineRematch(Command):
    """The player a rematch was offered to declines it (from the lobby, which checked its
    token of the finished match): the rematch, still waiting, ends unplayed."""


GameCommand = (
    Commit | Recommit | Roll | Reveal | Double | Take | Drop | Beaver | MovePlay | Resign
    | ResignReply
)
