"""Every message of the wire protocol as a frozen dataclass, named after its type
(``resign_reply`` -> ``ResignReply``).

Client actions carry ``seq`` as their first field (it travels in the envelope); ``Event`` holds
a version and one of the event data classes of ``protocol.events``.

>>> Move(seq=7, game=1, turn=3, moves=((8, 5), (6, 5)))
Move(seq=7, game=1, turn=3, moves=((8, 5), (6, 5)))
>>> from protocol.events import Clock, Passed
>>> Event(v=12, data=Passed(1, 1, 7), next=Clock("decide", (0,), 1_767_225_600_000)).next.seats
(0,)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from protocol import limits as L
from protocol.errors import ErrorCode
from protocol.events import Clock, EventData, ResignLevel
from protocol.fields import (
    SEAT,
    TOKEN,
    VERSION,
    Game,
    Hash,
    MatchId,
    Message,
    Moves,
    Name,
    RollIndex,
    Seat,
    Seq,
    TimeMs,
    Turn,
    Version,
)
from protocol.registry import Direction, Envelope, message
from protocol.schema import Const, EnumOf, Int, Nullable, Spec, Str, struct_spec
from protocol.state import MatchState

_CLIENT = Direction.CLIENT
_SERVER = Direction.SERVER
_ACTION = Envelope.ACTION

# ---------------------------------------------------------------- client -> server


@message("hello", _CLIENT)
@dataclass(frozen=True, slots=True)
class Hello:
    """Authenticate as a seat (with its token) or as a spectator (token nil). Must be the
    first frame; the server answers welcome, then the missed events or a snapshot."""

    proto: Annotated[
        int,
        Const(L.PROTOCOL_VERSION, ErrorCode.UNSUPPORTED_VERSION, also=L.PROTOCOL_VERSIONS),
        "protocol version (other values: unsupported_version; 3 for any match, sent a "
        "snapshot in place of each clock_credit; 2 for any match but a correspondence match; "
        "1, deprecated, for a match with no time reserve either)",
    ]
    match: MatchId
    token: Annotated[str | None, Nullable(TOKEN), "the seat token, nil to watch as a spectator"]
    last_v: Annotated[
        int | None, Nullable(VERSION), "last event version this client saw, nil for none"
    ]
    name: Name


@message("commit", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Commit:
    """This seat's hash-chain commitment s[0] for a game."""

    seq: Seq
    game: Game
    commitment: Annotated[Hash, "s[0]: the end of this seat's hash chain for this game"]


@message("recommit", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Recommit:
    """Replace this seat's chain with a fresh one (lost secret), between rolls, at most 3
    times per game."""

    seq: Seq
    game: Game
    commitment: Annotated[Hash, "s'[k0 - 1] of the new chain, k0 the next roll (fairness.md 7)"]


@message("roll", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Roll:
    """The player on roll declines to double and rolls, revealing its link s[k]."""

    seq: Seq
    game: Game
    k: RollIndex
    reveal: Annotated[Hash, "this seat's chain link s[k]"]


@message("reveal", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Reveal:
    """Reveal link s[k]: both seats in the roll-off; the roller's opponent after a roll (an
    event's clock says phase reveal with this seat)."""

    seq: Seq
    game: Game
    k: RollIndex
    reveal: Annotated[Hash, "this seat's chain link s[k]"]


@message("double", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Double:
    """Offer a double (player on roll, before rolling)."""

    seq: Seq
    game: Game


@message("take", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Take:
    """Take the pending double."""

    seq: Seq
    game: Game


@message("drop", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Drop:
    """Drop the pending double (lose the game at the current cube value)."""

    seq: Seq
    game: Game


@message("beaver", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Beaver:
    """Take the pending double and redouble at once, keeping the cube (money, beavers on)."""

    seq: Seq
    game: Game


@message("move", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Move:
    """Play the dice: the whole play of one turn."""

    seq: Seq
    game: Game
    turn: Annotated[Turn, "the turn being played (a move for another turn is stale)"]
    moves: Moves


@message("resign", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Resign:
    """Offer to resign at a level."""

    seq: Seq
    game: Game
    level: ResignLevel


@message("resign_reply", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class ResignReply:
    """Accept or reject the opponent's resignation."""

    seq: Seq
    game: Game
    accept: Annotated[bool, "true accepts (the game ends), false rejects (play goes on)"]


@message("leave", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Leave:
    """Abandon the match now: forfeit (or, before anyone joined, cancel it)."""

    seq: Seq


@message("stop", _CLIENT, envelope=_ACTION)
@dataclass(frozen=True, slots=True)
class Stop:
    """End a money session between games (either seat); the leader wins the session."""

    seq: Seq


@message("ping", _CLIENT)
@dataclass(frozen=True, slots=True)
class Ping:
    """Measure the round trip and the server clock; answered by pong."""

    t: Annotated[TimeMs, "the client's clock, echoed back"]


@message("echo", _CLIENT)
@dataclass(frozen=True, slots=True)
class Echo:
    """Answer to the server's probe, at once: the server measures this connection's round trip
    and grants up to that much (at most 1 s) of lag allowance on every deadline."""

    t: Annotated[TimeMs, "the probe's t, unchanged"]


@message("resync", _CLIENT)
@dataclass(frozen=True, slots=True)
class Resync:
    """Ask again for everything after last_v (the client saw a gap); answered by the missing
    events or a snapshot."""

    last_v: Annotated[Version, "last event version this client holds"]


# ---------------------------------------------------------------- chat (client -> server)

ChatRoom = Annotated[
    Literal["players", "spectators"],
    "players: the two seats (spectators never see it); spectators: the watchers (the players "
    "see it once the match is over)",
]
ChatText = Annotated[
    str,
    Str(1, L.MAX_CHAT_CHARS, max_bytes=L.MAX_CHAT_BYTES),
    "plain text (no control or bidi-override characters); shown as text, never as markup",
]


@message("chat_send", _CLIENT)
@dataclass(frozen=True, slots=True)
class ChatSend:
    """Say something in a chat room of this match: a seat in players, a spectator in
    spectators. The sender gets its own line back as chat, like everyone in the room; a
    refusal is a reject with seq nil (rate_limited, not_a_player, forbidden)."""

    room: ChatRoom
    text: ChatText
    name: Annotated[Name, "a guest spectator's name (nil: Spectator); seats and signed-in "
                    "players speak under their own name"]  # fmt: skip


@message("chat_sync", _CLIENT)
@dataclass(frozen=True, slots=True)
class ChatSync:
    """Ask for a room's lines numbered after ``after`` (0: every line kept), answered by chat
    frames in order: on (re)connecting, and when a chat frame skips a number."""

    room: ChatRoom
    after: Annotated[int, Int(0, L.MAX_COUNTER), "the last line number this client holds"]


ClientMessage = (
    Hello
    | Commit
    | Recommit
    | Roll
    | Reveal
    | Double
    | Take
    | Drop
    | Beaver
    | Move
    | Resign
    | ResignReply
    | Leave
    | Stop
    | Ping
    | Echo
    | Resync
    | ChatSend
    | ChatSync
)
"""Any message a client sends."""

Action = (
    Commit | Recommit | Roll | Reveal | Double | Take | Drop | Beaver | Move | Resign | ResignReply
    | Leave | Stop
)
"""The client messages that carry ``seq`` and are answered by ack or reject."""

# ---------------------------------------------------------------- server -> client


@message("welcome", _SERVER)
@dataclass(frozen=True, slots=True)
class Welcome:
    """The handshake succeeded."""

    role: Annotated[
        Literal["seat0", "seat1", "spectator"], "what this connection is: a seat or a spectator"
    ]
    match: MatchId
    v: Annotated[Version, "the match's current version"]
    server_time: Annotated[TimeMs, "the server's clock"]
    seq: Annotated[
        int | None,
        Nullable(Int(1, L.MAX_COUNTER)),
        "highest seq applied for this seat, nil for none or for a spectator",
    ]


@message("ack", _SERVER)
@dataclass(frozen=True, slots=True)
class Ack:
    """An action was applied and stored (durably). May arrive before the events it caused."""

    seq: Annotated[int, Int(1, L.MAX_COUNTER), "the action's seq"]
    v: Annotated[
        Version,
        "the match version once the action is applied: its last event's version, or the "
        "unchanged version when it produced no event yet (a roll waiting for a reveal)",
    ]


@message("reject", _SERVER)
@dataclass(frozen=True, slots=True)
class Reject:
    """An action or frame was refused; nothing changed, the connection stays open."""

    seq: Annotated[
        int | None,
        Nullable(Int(1, L.MAX_COUNTER)),
        "the action's seq, nil when the frame's seq could not be read",
    ]
    code: Annotated[ErrorCode, EnumOf(ErrorCode), "why"]
    message: Message


class _EventData(Spec):
    """Stands for ``Event.data`` in the registry; the codec reads it through EVENT_KINDS."""

    identity = False

    def describe(self) -> str:
        return "see Event kinds"


@message("event", _SERVER, envelope=Envelope.EVENT)
@dataclass(frozen=True, slots=True)
class Event:
    """One versioned state change of the match (kinds and their data: Event kinds). ``next``
    (envelope key ``n``) is set on the last event of each transition: who owes the next
    decision and by when. Earlier events of the same transition carry nil: act only once the
    clock arrives."""

    v: Annotated[int, Int(1, L.MAX_COUNTER), "version: 1, 2, 3, ... with no gaps"]
    data: Annotated[EventData, _EventData(), "the kind's data"]
    next: Annotated[
        Clock | None, Nullable(struct_spec(Clock)), "who owes the next decision, by when"
    ] = None


@message("snapshot", _SERVER)
@dataclass(frozen=True, slots=True)
class Snapshot:
    """The whole match state at version v (instead of the events up to v)."""

    v: Annotated[Version, "the version the state is at; events continue from v+1"]
    state: Annotated[MatchState, "the match (see Snapshot state)"]


@message("presence", _SERVER)
@dataclass(frozen=True, slots=True)
class Presence:
    """A seat's connection changed (not versioned)."""

    seat: Seat
    status: Annotated[
        Literal["online", "reconnecting", "gone"],
        "connected; dropped and may come back; away for 20 s or more",
    ]
    deadline: Annotated[
        int | None,
        Nullable(Int(0, L.MAX_TIME_MS)),
        "when a reconnecting seat that owes a decision loses on time, else nil",
    ]


@message("watchers", _SERVER)
@dataclass(frozen=True, slots=True)
class Watchers:
    """How many spectators watch the match (not versioned): sent on connecting, then when the
    number changes (at most about once a second)."""

    count: Annotated[int, Int(0, L.MAX_COUNTER), "spectator connections to the match now"]


@message("pong", _SERVER)
@dataclass(frozen=True, slots=True)
class Pong:
    """Answer to ping."""

    t: Annotated[TimeMs, "the ping's t"]
    server_time: Annotated[TimeMs, "the server's clock"]


@message("probe", _SERVER)
@dataclass(frozen=True, slots=True)
class Probe:
    """The server checks the link and measures its round trip (every 2 s by default): answer
    with echo{t} at once, or be closed 4010 when nothing arrives within the probe timeout."""

    t: Annotated[TimeMs, "an opaque server timestamp to send back"]


@message("error", _SERVER)
@dataclass(frozen=True, slots=True)
class Error:
    """A connection-level error, usually followed by a close with the matching close code."""

    code: Annotated[ErrorCode, EnumOf(ErrorCode), "why"]
    message: Message


# ---------------------------------------------------------------- chat (server -> client)


@message("chat", _SERVER)
@dataclass(frozen=True, slots=True)
class Chat:
    """One line of a chat room (not versioned: lines are numbered per room, from 1, without
    gaps; a number above last + 1 means lines were missed: send chat_sync)."""

    room: ChatRoom
    n: Annotated[int, Int(1, L.MAX_COUNTER), "the line's number in its room"]
    seat: Annotated[int | None, Nullable(SEAT), "the sender's seat, nil for a spectator"]
    name: Annotated[str, Str(1, L.MAX_NAME_CHARS, max_bytes=L.MAX_NAME_BYTES), "who said it"]
    account: Annotated[bool, "true when the sender is a signed-in player of that name"]
    text: ChatText
    t: TimeMs


# --- the store's health (issue 11: clients are told when the server cannot store anything) ---


@message("degraded", _SERVER)
@dataclass(frozen=True, slots=True)
class Degraded:
    """The server cannot reach its store (not versioned): actions are answered retry_later, and
    while no server can reach it every clock is stopped (the time is credited afterwards). Sent
    to every connection when it happens; if the store is still out of reach after
    FAIRGAMMON_STORE_GRACE_SECONDS, each is closed 1013 (reconnect: another server may reach the
    store), else it gets restored. A hello that arrives meanwhile gets it at once and is held
    (up to 3 s): its welcome says the store is back, or a 1013 refuses it."""

    since: Annotated[TimeMs, "server time when this server lost its store"]


@message("restored", _SERVER)
@dataclass(frozen=True, slots=True)
class Restored:
    """The store is reachable again (not versioned), for a connection still open after a
    degraded (the outage was shorter than FAIRGAMMON_STORE_GRACE_SECONDS): play goes on."""

    since: Annotated[TimeMs, "server time when the store became unreachable"]


ServerMessage = (
    Welcome
    | Ack
    | Reject
    | Event
    | Snapshot
    | Presence
    | Watchers
    | Pong
    | Probe
    | Error
    | Chat
    | Degraded
    | Restored
)
"""Any message the server sends."""

AnyMessage = ClientMessage | ServerMessage
