"""What a seat (or the clock) asks the match to do.

The seat always comes from the authenticated connection, never from the frame. ``seq`` is the
client's sequence number (per seat, increasing, kept across reconnects) that makes a resent
command idempotent; 0 means "no sequence number" (lobby actions).

The log records each accepted command under a stable kind name (:data:`RECORD_KINDS`), not
its class name.
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.reference import Move
from server.machine import serial


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


@dataclass(frozen=True, slots=True)
class Vacation(Command):
    """A correspondence seat's clock stands still until ``until`` (server time; 0, or a time
    past, ends a vacation): from the player's account (docs/correspondence.md)."""

    until: int = 0


@dataclass(frozen=True, slots=True)
class CrashCredit(Command):
    """From the server, never a client: the process ``process`` that served ``seat`` died.
    Its last heartbeat was at ``since`` and was still its last at ``seen`` (server times: it
    missed its beats that long); the seat was back, on another process, at ``back``. If the
    seat owes the decision due, its clock stood still from ``since`` (or the match's last
    transition, if later) until ``back``: the deadline moves on by that much, at most
    :data:`protocol.limits.MAX_CRASH_CREDIT_MS`, once per match and dead process
    (:func:`server.machine.core.apply`; the shell is :mod:`server.match.crash_credit`)."""

    process: str = ""
    since: int = 0
    seen: int = 0
    back: int = 0


GameCommand = (
    Commit | Recommit | Roll | Reveal | Double | Take | Drop | Beaver | MovePlay | Resign
    | ResignReply
)


# ---------------------------------------------------------------- the log's record kinds

CREATE = "Create"
"""The record kind of a match's creation (its body: the config and the creator's name)."""
EXPIRE = "Expire"
"""The record kind of a deadline the clock settled (no body)."""

RECORD_KINDS: dict[str, type[Command]] = {
    "Join": Join,
    "Commit": Commit,
    "Recommit": Recommit,
    "Roll": Roll,
    "Reveal": Reveal,
    "Double": Double,
    "Take": Take,
    "Drop": Drop,
    "Beaver": Beaver,
    "MovePlay": MovePlay,
    "Resign": Resign,
    "ResignReply": ResignReply,
    "Stop": Stop,
    "Leave": Leave,
    "OfferRematch": OfferRematch,
    "DeclineRematch": DeclineRematch,
    "Vacation": Vacation,
    "CrashCredit": CrashCredit,
}
"""The stable name of each command's kind in the log's command records, ``[kind, body, server
time]`` (written by :func:`server.match.stored.command_record`, read by
:mod:`server.match.replay`), with
:data:`CREATE` and :data:`EXPIRE`. The names are a stored format, written here as literals: a
class may be renamed, its kind may not (logs in Redis name it). They were the class names when
the log began. A new command needs a new name here."""

_KIND_OF: dict[type[Command], str] = {command: kind for kind, command in RECORD_KINDS.items()}


def record_kind(command: Command) -> str:
    """The stable name of ``command``'s kind in the log (:data:`RECORD_KINDS`).

    >>> record_kind(MovePlay(0, 3, game=1, turn=1))
    'MovePlay'
    """
    return _KIND_OF[type(command)]


def recorded_command(kind: str, body: object) -> Command:
    """The command of a log record of ``kind`` from its stored body (see :mod:`serial`).

    >>> recorded_command("Take", {"seat": 1, "seq": 9, "lag_ms": 0, "game": 2})
    Take(seat=1, seq=9, lag_ms=0, game=2)
    >>> recorded_command("Take", [1, 9, 0, 2]) == Take(1, 9, game=2)  # stored before the map
    True
    """
    command = RECORD_KINDS.get(kind)
    if command is None:
        raise ValueError(f"unknown command record kind {kind!r} (written by a newer version?)")
    return serial.load(command, body)
