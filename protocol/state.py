"""The nested schema of ``snapshot.state``: everything a client needs to show the match as it
stands at version ``v``, without the event history.

A snapshot is sent instead of events when a client has nothing to resume from, or when the
events it missed are no longer kept. The server fills it; this module only fixes its shape
(the server may refine it: everything here is as cheap to change as a message).

>>> from protocol.schema import struct_spec
>>> [f.name for f in struct_spec(MatchState).fields]
['match', 'settings', 'seats', 'score', 'game', 'result', 'rematch']
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Literal

from protocol import limits as L
from protocol.events import (
    Clock,
    GameOver,
    GameVariant,
    MatchCreated,
    MatchOver,
    RematchOffered,
    ResignLevel,
)
from protocol.fields import BOARD, DIE, HASH, SEAT, Cube, Game, MatchId, Name, Score, Seat
from protocol.registry import nested
from protocol.schema import Int, Nullable, Tuple, struct_spec

Phase = Literal[
    "waiting", "commit", "rolloff", "decide", "reveal", "move", "take", "resign", "over"
]


@nested
@dataclass(frozen=True, slots=True)
class SeatState:
    """One seat: who sits there and whether they are connected."""

    name: Name
    status: Annotated[
        Literal["empty", "online", "reconnecting", "gone"],
        "empty: nobody claimed the seat yet; reconnecting: not connected now (dropped, or claimed "
        "and not connected yet); gone: away for 20 s or more; online: connected",
    ]


@nested
@dataclass(frozen=True, slots=True)
class CubeState:
    """The doubling cube."""

    value: Cube
    owner: Annotated[int | None, Nullable(SEAT), "the seat that owns it, nil when centred"]


@nested
@dataclass(frozen=True, slots=True)
class DoubleOffer:
    """A double waiting for take, drop or beaver."""

    seat: Annotated[Seat, "the doubling seat"]
    value: Annotated[int, Int(2, L.MAX_CUBE), "the cube value if taken"]


@nested
@dataclass(frozen=True, slots=True)
class ResignOffer:
    """A resignation waiting for the opponent's reply."""

    seat: Annotated[Seat, "the resigning seat"]
    level: ResignLevel


@nested
@dataclass(frozen=True, slots=True)
class GameState:
    """The game in progress (or just finished)."""

    game: Game
    crawford: Annotated[bool, "this is the Crawford game (no cube)"]
    phase: Annotated[
        Phase,
        "commit: waiting for commitments; rolloff: opening roll reveals; decide: on_roll "
        "doubles or rolls; reveal: waiting for the opponent's reveal; move: on_roll plays "
        "dice; take: a double waits for an answer; resign: a resignation waits for an "
        "answer; over: the game ended",
    ]
    turn: Annotated[
        int,
        Int(0, L.MAX_COUNTER),
        "the current turn (the one being decided, rolled or played: move.turn), 0 before the first",
    ]
    on_roll: Annotated[int | None, Nullable(SEAT), "the seat on roll, nil before the roll-off"]
    k: Annotated[int, Int(0, L.MAX_COUNTER), "index of the last roll, 0 before any"]
    dice: Annotated[
        tuple[int, int] | None,
        Nullable(Tuple(DIE, DIE)),
        "the dice to play (phase move), nil otherwise",
    ]
    boards: Annotated[
        tuple[tuple[int, ...], tuple[int, ...]],
        Tuple(BOARD, BOARD),
        "seat 0's and seat 1's checkers, each board from its owner's side",
    ]
    cube: Annotated[CubeState, "the doubling cube"]
    double: Annotated[DoubleOffer | None, Nullable(struct_spec(DoubleOffer)), "pending double"]
    resignation: Annotated[
        ResignOffer | None, Nullable(struct_spec(ResignOffer)), "pending resignation"
    ]
    commitments: Annotated[
        tuple[bytes | None, bytes | None],
        Tuple(Nullable(HASH), Nullable(HASH)),
        "each seat's current commitment, nil until published",
    ]
    recommits: Annotated[
        tuple[int, int],
        Tuple(Int(0, L.MAX_RECOMMITS), Int(0, L.MAX_RECOMMITS)),
        "re-commitments used by each seat this game",
    ]
    clock: Annotated[Clock | None, Nullable(struct_spec(Clock)), "who owes a decision by when"]
    result: Annotated[GameOver | None, Nullable(struct_spec(GameOver)), "set in phase over"]
    heads: Annotated[
        tuple[bytes | None, bytes | None],
        Tuple(Nullable(HASH), Nullable(HASH)),
        "each seat's latest link, at index k: its reveal of roll k + 1 must hash to it (its "
        "commitment, its re-commitment or its last reveal); nil until both seats committed. "
        "A client that joins part way verifies the next roll against it",
    ] = (None, None)
    variant: GameVariant = "backgammon"
    pinned: Annotated[
        tuple[int, int],
        Tuple(Int(0, L.MAX_PINNED), Int(0, L.MAX_PINNED)),
        "seat 0's and seat 1's pinned checkers (plakoto; protocol version 5) as bitmasks of "
        "each owner's own points: bit p set, its checker on its point p is pinned; 0 elsewhere",
    ] = (0, 0)


@nested
@dataclass(frozen=True, slots=True)
class MatchState:
    """The whole match at one version."""

    match: MatchId
    settings: Annotated[MatchCreated, "the match's settings (as in match_created)"]
    seats: Annotated[
        tuple[SeatState, SeatState],
        Tuple(struct_spec(SeatState), struct_spec(SeatState)),
        "seat 0 and seat 1",
    ]
    score: Score
    game: Annotated[GameState | None, Nullable(struct_spec(GameState)), "nil before the first game"]
    result: Annotated[MatchOver | None, Nullable(struct_spec(MatchOver)), "set when it ended"]
    rematch: Annotated[
        RematchOffered | None,
        Nullable(struct_spec(RematchOffered)),
        "the rematch offered after the match (as in rematch_offered), nil if none",
    ]
