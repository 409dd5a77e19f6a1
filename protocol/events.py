"""Match event kinds: the ``data`` of each versioned ``event`` frame.

Every state change of a match is one event with the next version ``v`` (gap-free). Events are
public: players and spectators receive the same ones (secrets never appear in an event; the
dice reveals do, but only after the reveal barrier). The classes are named after their kind
(``moved`` -> ``Moved``) and hold exactly the kind's fields.

>>> from protocol.registry import EVENT_KINDS
>>> EVENT_KINDS["moved"].cls is Moved
True
>>> Moved(1, 0, 3, ((8, 5), (6, 5)), "4HPwATDgc/ABMA").moves[0]
(8, 5)

Who must act next, and by when, travels in the envelope (``n``: a :class:`Clock`) of the last
event of each transition; the earlier events of a transition carry nil.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from engine.variants import NAMES, VARIANTS
from protocol import limits as L
from protocol.fields import (
    HASH,
    SEAT,
    Die,
    Game,
    Hash,
    MatchId,
    Moves,
    Name,
    PositionId,
    RollIndex,
    Score,
    Seat,
    Turn,
)
from protocol.registry import event, nested
from protocol.schema import Array, Int, Nullable, OneOf

Mode = Literal["single_game", "match", "money"]
DoubledValue = Annotated[int, Int(2, L.MAX_CUBE), "the cube value if the double is taken"]
MatchVariant = Annotated[
    str,
    OneOf(*NAMES),
    "what the match plays (protocol version 5): a variant, or tavli (its games rotate portes, "
    "plakoto, fevga)",
]
GameVariant = Annotated[
    str, OneOf(*VARIANTS), "the variant of this game (protocol version 5; never tavli)"
]


@event("match_created")
@dataclass(frozen=True, slots=True)
class MatchCreated:
    """The match exists, with these settings (always version 1)."""

    mode: Annotated[Mode, "single game (cubeless), match to N points, or money session"]
    length: Annotated[
        int | None,
        Nullable(Int(1, L.MAX_MATCH_LENGTH)),
        "points to win (mode match), nil otherwise",
    ]
    jacoby: Annotated[bool, "Jacoby rule (money sessions)"]
    beavers: Annotated[bool, "beavers allowed (money sessions)"]
    move_time: Annotated[
        int, Int(L.MIN_MOVE_TIME_MS, L.MAX_MOVE_TIME_MS), "milliseconds per decision"
    ]
    reserve: Annotated[
        int,
        Int(0, L.MAX_RESERVE_MS),
        "milliseconds of time reserve per player for the whole match, 0 for none",
    ] = 0
    variant: MatchVariant = "backgammon"


@event("seated")
@dataclass(frozen=True, slots=True)
class Seated:
    """A player claimed a seat."""

    seat: Annotated[Seat, "the seat claimed"]
    name: Name


@event("commit_received")
@dataclass(frozen=True, slots=True)
class CommitReceived:
    """One seat's commitment for a game arrived; its value is published with the other's."""

    game: Game
    seat: Annotated[Seat, "the seat that committed"]


@event("committed")
@dataclass(frozen=True, slots=True)
class Committed:
    """Both seats' hash-chain commitments for a game (published only once both are in)."""

    game: Game
    commitment0: Annotated[bytes, HASH, "seat 0's commitment s[0]"]
    commitment1: Annotated[bytes, HASH, "seat 1's commitment s[0]"]


@event("recommitted")
@dataclass(frozen=True, slots=True)
class Recommitted:
    """A seat replaced its chain (lost secret); the new chain serves rolls from ``k`` on."""

    game: Game
    seat: Annotated[Seat, "the seat with the new chain"]
    commitment: Annotated[Hash, "s'[k - 1] of the new chain, which its reveal for roll k hashes to"]
    k: Annotated[int, Int(1, L.MAX_COUNTER), "first roll index the new chain serves"]


@event("revealed")
@dataclass(frozen=True, slots=True)
class Revealed:
    """In the roll-off, one seat's reveal for roll ``k`` arrived; it stays secret until the
    other seat's arrives too (the reveal barrier). In a correspondence match also a reveal
    deposited ahead: the next roller's opponent's, for roll ``k``, or a seat's for the roll-off
    of the next game (``game``), held just as secret (docs/fairness.md, section 15)."""

    game: Game
    k: RollIndex
    seat: Annotated[Seat, "the seat whose reveal is held"]


@event("rolling")
@dataclass(frozen=True, slots=True)
class Rolling:
    """The seat on roll rolled (its reveal is held, secret); the opponent's reveal of link
    ``k`` completes the dice."""

    game: Game
    k: RollIndex
    seat: Annotated[Seat, "the rolling seat"]


@event("dice")
@dataclass(frozen=True, slots=True)
class Dice:
    """A roll: both reveals (verifiable against the commitments) and the derived dice. In a
    roll-off d1 is seat 0's die and d2 seat 1's."""

    game: Game
    k: RollIndex
    kind: Annotated[Literal["rolloff", "turn"], "opening roll-off or a turn's roll"]
    roller: Annotated[int | None, Nullable(SEAT), "the seat that rolled, nil in a roll-off"]
    reveal0: Annotated[bytes, HASH, "seat 0's chain link s[k]"]
    reveal1: Annotated[bytes, HASH, "seat 1's chain link s[k]"]
    d1: Die
    d2: Die


@event("moved")
@dataclass(frozen=True, slots=True)
class Moved:
    """A seat played its dice."""

    game: Game
    seat: Annotated[Seat, "the seat that moved"]
    turn: Turn
    moves: Moves
    position_id: Annotated[
        PositionId, "gnubg Position ID after the play, with the seat that moved as mover"
    ]


@event("passed")
@dataclass(frozen=True, slots=True)
class Passed:
    """A seat had no legal play for its dice; the turn passed automatically."""

    game: Game
    seat: Annotated[Seat, "the seat that could not move"]
    turn: Turn


@event("doubled")
@dataclass(frozen=True, slots=True)
class Doubled:
    """A seat offered a double."""

    game: Game
    seat: Annotated[Seat, "the doubling seat"]
    value: DoubledValue


@event("taken")
@dataclass(frozen=True, slots=True)
class Taken:
    """The double was taken: the cube is at ``value`` and owned by ``seat`` — except right
    after ``beavered``, where this is the doubler accepting the beaver and the beaverer keeps
    the cube."""

    game: Game
    seat: Annotated[
        Seat, "the seat that took: it now owns the cube, unless it accepted a beaver"
    ]
    value: Annotated[DoubledValue, "the cube value now"]


@event("beavered")
@dataclass(frozen=True, slots=True)
class Beavered:
    """The double was beavered: the cube is at ``value`` and stays with ``seat``."""

    game: Game
    seat: Annotated[Seat, "the seat that beavered (it keeps the cube)"]
    value: Annotated[DoubledValue, "the cube value after the beaver"]


@event("dropped")
@dataclass(frozen=True, slots=True)
class Dropped:
    """The double was dropped: the game ends at the cube value before the double (a game_over
    follows)."""

    game: Game
    seat: Annotated[Seat, "the seat that dropped"]


ResignLevel = Annotated[Literal[1, 2, 3], "1 single, 2 gammon, 3 backgammon"]


@event("resign_offered")
@dataclass(frozen=True, slots=True)
class ResignOffered:
    """A seat offered to resign at ``level``."""

    game: Game
    seat: Annotated[Seat, "the resigning seat"]
    level: ResignLevel


@event("resign_accepted")
@dataclass(frozen=True, slots=True)
class ResignAccepted:
    """The opponent (``seat``) accepted the resignation (a game_over follows)."""

    game: Game
    seat: Annotated[Seat, "the seat that accepted"]


@event("resign_rejected")
@dataclass(frozen=True, slots=True)
class ResignRejected:
    """The opponent (``seat``) rejected the resignation; play continues."""

    game: Game
    seat: Annotated[Seat, "the seat that rejected"]


@event("game_started")
@dataclass(frozen=True, slots=True)
class GameStarted:
    """A new game begins: both commitments are in (it follows ``committed``) and the roll-off
    is next — or, in a Greek game after a won one, the winner's roll (the clock says
    ``decide``, the winner's seat). Commitments for a game are due before this event: for game
    1 once both seats are seated, for game n + 1 right after ``game_over`` of game n (each time
    the clock says phase ``commit``); a snapshot names that game (``state.game.game``)."""

    game: Game
    crawford: Annotated[bool, "this is the Crawford game (no cube)"]
    score: Annotated[Score, "match score before this game"]
    variant: GameVariant = "backgammon"


@event("game_over")
@dataclass(frozen=True, slots=True)
class GameOver:
    """A game ended: won, or (plakoto, protocol version 5) drawn, both mothers pinned: then
    ``winner`` and ``result`` are nil and ``points`` 0."""

    game: Game
    winner: Annotated[int | None, Nullable(SEAT), "the winning seat, nil for a drawn game"]
    points: Annotated[
        int, Int(0, L.MAX_POINTS), "points won: result multiplier x cube value, 0 for a draw"
    ]
    result: Annotated[
        str | None,
        Nullable(OneOf("single", "gammon", "backgammon")),
        "result multiplier 1, 2, 3 (the Greek games' double is gammon), nil for a draw",
    ]
    reason: Annotated[
        Literal["bear_off", "drop", "resign", "forfeit", "mother", "mothers"],
        "how the game ended; mother: plakoto, won by pinning the loser's mother checker; "
        "mothers: plakoto, both mothers pinned, a draw",
    ]
    score: Annotated[Score, "match score after this game"]


@event("match_over")
@dataclass(frozen=True, slots=True)
class MatchOver:
    """The match ended."""

    winner: Annotated[int | None, Nullable(SEAT), "the winning seat, nil for a drawn session"]
    score: Annotated[Score, "final score"]
    reason: Annotated[
        Literal["completed", "forfeit", "stopped", "abandoned", "cancelled", "declined"],
        "reached the match length or finished the single game; a forfeit; a money session "
        "the players stopped; both seats silent before a game could start; the creator left "
        "before anyone joined, or nobody joined in time (the lobby's open-match lifetime); "
        "the player a rematch was offered to declined it",
    ]


@event("rematch_offered")
@dataclass(frozen=True, slots=True)
class RematchOffered:
    """After the match, a seat offered a rematch: a new match with the same settings, the
    offering seat seated in it. The other seat of this match (only it) may take the new
    match's open seat, authorized by its token of this match (HTTP lobby); spectators may
    follow it. At most once per match."""

    by: Annotated[Seat, "the seat that offered"]
    match: Annotated[MatchId, "the new match"]


@event("rolloff_ahead")
@dataclass(frozen=True, slots=True)
class RolloffAhead:
    """Correspondence: the roll-off of the next game is rolled during this one. Each seat now
    deposits its reveal for roll ``k`` of game ``game`` (held secret until that game starts):
    ``k`` = 1 once both seats committed to that game, ``k`` + 1 after a tie. Nothing is told
    when it is decided: the rolls are published when the game starts."""

    game: Game
    k: RollIndex


@event("vacation")
@dataclass(frozen=True, slots=True)
class Vacation:
    """Correspondence: ``seat``'s clock stands still until ``until`` (server time; nil: its
    vacation ended). A decision the seat owes is due that much later (the event's clock has the
    new deadline)."""

    seat: Seat
    until: Annotated[
        int | None, Nullable(Int(0, L.MAX_TIME_MS)), "server time the vacation ends, nil: over"
    ]


@event("clock_credit")
@dataclass(frozen=True, slots=True)
class ClockCredit:
    """A server process that served ``seat`` died (or froze) while ``seat`` owed the decision
    due: the clock stood still from that process's last heartbeat until the seat was back on
    another process, ``ms`` in all. The decision is due that much later (the event's clock has
    the new deadline). At most once per match and dead process (protocol version 4)."""

    seat: Annotated[Seat, "the seat whose server process died"]
    ms: Annotated[int, Int(1, L.MAX_CRASH_CREDIT_MS), "how much later the decision is due (ms)"]


Decision = Literal[
    "waiting", "commit", "rolloff", "decide", "reveal", "move", "take", "resign", "over"
]

PLAYER_DECISIONS: frozenset[Decision] = frozenset({"decide", "move", "take", "resign"})
"""The decisions a player takes by hand, all between two rolls: the engine game's phases but
the roll-off and the end. Their deadline includes the seat's time reserve, a seat may re-commit
its dice chain during them, and a bot or a test waits for them; commitments and reveals are
automatic and run on the plain clock. The one spelling of this set: Python imports it, the web
client's ``RESERVE_PHASES`` (``web-client/src/net/protocol.ts``) is checked against it."""


@nested
@dataclass(frozen=True, slots=True)
class Clock:
    """Who owes the next decision, which one, and the deadline (server time)."""

    phase: Annotated[
        Decision,
        "waiting: for a second player; commit: dice commitments; rolloff: roll-off reveals; "
        "decide: double or roll; reveal: the roller's opponent reveals; move: play the dice; "
        "take: answer a double; resign: answer a resignation; over: the match ended",
    ]
    seats: Annotated[tuple[int, ...], Array(SEAT, 0, 2), "the seats that owe it"]
    deadline: Annotated[
        int | None,
        Nullable(Int(0, L.MAX_TIME_MS)),
        "server time, nil if none; a decide, move, take or resign decision's deadline includes "
        "the time reserve its seat has left",
    ]
    reserves: Annotated[
        tuple[int, int],
        Array(Int(0, L.MAX_RESERVE_MS), 2, 2),
        "each seat's time reserve left (ms) as this decision began",
    ] = (0, 0)


@event("forfeit")
@dataclass(frozen=True, slots=True)
class Forfeit:
    """A seat forfeited: game_over and match_over follow; a single game forfeited before it
    started (in its commitments) has its game_started between the forfeit and the game_over;
    before or between the games of a match or session only match_over follows (no game was
    lost)."""

    game: Game
    seat: Annotated[Seat, "the forfeiting seat"]
    reason: Annotated[
        Literal["timeout", "no_reveal", "invalid_reveal", "abandoned"], "why the seat forfeited"
    ]
    evidence: Annotated[
        bytes | None, Nullable(HASH), "the reveal that failed verification (invalid_reveal)"
    ]


EventData = (
    MatchCreated
    | Seated
    | CommitReceived
    | Committed
    | Recommitted
    | Revealed
    | Rolling
    | Dice
    | Moved
    | Passed
    | Doubled
    | Taken
    | Beavered
    | Dropped
    | ResignOffered
    | ResignAccepted
    | ResignRejected
    | GameStarted
    | GameOver
    | MatchOver
    | Forfeit
    | RematchOffered
    | RolloffAhead
    | Vacation
    | ClockCredit
)
"""The data of any event."""

__all__ = [
    "PLAYER_DECISIONS",
    "Beavered",
    "Clock",
    "ClockCredit",
    "CommitReceived",
    "Committed",
    "Dice",
    "Doubled",
    "Dropped",
    "EventData",
    "Forfeit",
    "GameOver",
    "GameStarted",
    "MatchCreated",
    "MatchOver",
    "Moved",
    "Passed",
    "Recommitted",
    "RematchOffered",
    "ResignAccepted",
    "ResignOffered",
    "ResignRejected",
    "Revealed",
    "Rolling",
    "RolloffAhead",
    "Seated",
    "Taken",
    "Vacation",
]
