"""The state of one tournament: its terms, its players, every pairing and its outcome.

All immutable values; :mod:`server.competition.machine` computes the next state. The stored form
(:func:`dumps`, :func:`loads`) is :mod:`server.machine.serial`'s: each value a map from its field
names, enums as their values, so it depends on neither class names nor the order of fields.

>>> from engine.match import MatchOptions
>>> config = Config(Kind.SWISS, MatchOptions.match(3), max_players=12, start_at=60_000, rounds=5)
>>> check_config(config, now=0) is None
True
>>> state = TournamentState("t1", config, "ann", created=0)
>>> loads(dumps(state)) == state
True
>>> check_config(Config(Kind.ARENA, MatchOptions.single_game(), max_players=20), now=0)
Traceback (most recent call last):
...
server.competition.errors.Refused: bad_config: an arena lasts 1..720 minutes (duration_ms)
"""

from __future__ import annotations

import enum
import math
from dataclasses import dataclass
from typing import Any

from engine.match import MatchOptions, Mode
from server.competition.errors import Code, Refused
from server.machine import serial


class Kind(enum.StrEnum):
    KNOCKOUT = "knockout"
    SWISS = "swiss"
    ARENA = "arena"


class Phase(enum.StrEnum):
    """``open`` (players join), ``running`` (matches are paired), ``finished``."""

    OPEN = "open"
    RUNNING = "running"
    FINISHED = "finished"


# ---------------------------------------------------------------- limits

MINUTE = 60_000
PLAYERS: dict[Kind, tuple[int, int]] = {
    Kind.KNOCKOUT: (4, 256),
    Kind.SWISS: (4, 256),
    Kind.ARENA: (2, 1000),
}
"""The fewest players a tournament starts with and the most it takes, by kind."""
ROUNDS = (1, 20)  # a Swiss tournament's rounds
DURATION_MS = (1 * MINUTE, 720 * MINUTE)  # an arena's length
NO_SHOW_MS = (10_000, 30 * MINUTE)  # the time to connect after a pairing
BREAK_MS = (0, 30 * MINUTE)  # between Swiss rounds
REPEAT_WAIT_MS = (0, 10 * MINUTE)  # arena: before two players meet again at once
OPEN_MS = (1 * MINUTE, 30 * 24 * 60 * MINUTE)  # a "when full" tournament's time to fill up
START_WITHIN_MS = 30 * 24 * 60 * MINUTE  # a start time is at most 30 days ahead
MAX_NO_SHOWS = 2
"""A player who fails to connect to this many of their matches is withdrawn (every kind; in a
knockout the first no-show already eliminates)."""
MAX_ID = 64  # characters in a tournament's, a player's or a match's id
MAX_NAME = 40  # characters in a player's display name


@dataclass(frozen=True, slots=True)
class Config:
    """The terms chosen at creation.

    ``options`` are every match's rules (a single game or a match to N: engine's
    :class:`~engine.match.MatchOptions`; money sessions have no winner and are refused),
    ``clock_ms``/``reserve_ms`` each match's decision clock and time reserve (passed to the
    match as they are: the lobby's bounds apply), ``start_at`` the server time it starts at, or
    ``None`` to start as soon as ``max_players`` have joined (cancelled if that takes longer
    than ``open_ms``). ``rounds`` is for Swiss only, ``duration_ms``, ``cutoff_ms`` (no new
    pairing that close to the end) and ``repeat_wait_ms`` for arenas only; ``no_show_ms`` is the
    time a paired player has to connect to the match; ``break_ms`` the pause between Swiss
    rounds."""

    kind: Kind
    options: MatchOptions
    clock_ms: int = 30_000
    reserve_ms: int = 0
    rated: bool = False
    private: bool = False
    max_players: int = 16
    start_at: int | None = None
    rounds: int = 0
    duration_ms: int = 0
    no_show_ms: int = 2 * MINUTE
    break_ms: int = 30_000
    cutoff_ms: int = MINUTE
    repeat_wait_ms: int = 20_000
    open_ms: int = 24 * 60 * MINUTE


def check_config(config: Config, now: int) -> None:
    """Refuse terms outside the limits (``bad_config``, naming the field), at server time
    ``now`` (a start time must not have passed)."""
    kind = config.kind
    if not isinstance(kind, Kind):
        _bad(f"kind is one of {', '.join(k.value for k in Kind)}")
    if not isinstance(config.options, MatchOptions) or config.options.mode is Mode.MONEY:
        _bad("a tournament's matches are single games or matches to N points (options)")
    for name in ("clock_ms", "reserve_ms", "max_players", "rounds", "duration_ms"):
        if not _is_int(getattr(config, name)):
            _bad(f"{name} is a whole number")
    if config.clock_ms <= 0 or config.reserve_ms < 0:
        _bad("clock_ms is positive and reserve_ms not negative")
    low, high = PLAYERS[kind]
    if not low <= config.max_players <= high:
        _bad(f"a {kind.value} tournament takes {low}..{high} players (max_players)")
    if config.start_at is not None and not (
        _is_int(config.start_at) and now <= config.start_at <= now + START_WITHIN_MS
    ):
        _bad("start_at is a server time from now to 30 days ahead, or none for when full")
    if kind is Kind.SWISS:
        _within(config.rounds, ROUNDS, "a Swiss tournament plays 1..20 rounds (rounds)")
    elif config.rounds:
        _bad("rounds is for Swiss tournaments only")
    if kind is Kind.ARENA:
        _within(config.duration_ms, DURATION_MS, "an arena lasts 1..720 minutes (duration_ms)")
        if not (_is_int(config.cutoff_ms) and 0 <= config.cutoff_ms < config.duration_ms):
            _bad("cutoff_ms is 0 or more and shorter than the arena")
        _within(config.repeat_wait_ms, REPEAT_WAIT_MS, "repeat_wait_ms is 0..10 minutes")
    elif config.duration_ms:
        _bad("duration_ms is for arenas only")
    _within(config.no_show_ms, NO_SHOW_MS, "no_show_ms is 10 seconds..30 minutes")
    _within(config.break_ms, BREAK_MS, "break_ms is 0..30 minutes")
    _within(config.open_ms, OPEN_MS, "open_ms is 1 minute..30 days")
    if not isinstance(config.rated, bool) or not isinstance(config.private, bool):
        _bad("rated and private are true or false")


def check_id(value: Any, what: str) -> str:
    """``value`` if it is an id (1..64 characters, none of them a control or space)."""
    if (
        not isinstance(value, str)
        or not 1 <= len(value) <= MAX_ID
        or any(not ch.isprintable() or ch.isspace() for ch in value)
    ):
        raise Refused(Code.BAD_FIELD, f"{what} is 1..{MAX_ID} printable characters, no spaces")
    return value


def _bad(message: str) -> None:
    raise Refused(Code.BAD_CONFIG, message)


def _is_int(value: Any) -> bool:
    return type(value) is int


def _within(value: Any, bounds: tuple[int, int], message: str) -> None:
    if not (_is_int(value) and bounds[0] <= value <= bounds[1]):
        _bad(message)


def is_rating(value: Any) -> bool:
    """A rating a player may bring: a finite number, 0..10000."""
    return type(value) in (int, float) and math.isfinite(value) and 0 <= value <= 10_000


# ---------------------------------------------------------------- players and pairings


class Absence(enum.StrEnum):
    """Why a player takes no more part: they asked, or missed :data:`MAX_NO_SHOWS` matches."""

    NONE = ""
    ASKED = "asked"
    NO_SHOWS = "no_shows"


@dataclass(frozen=True, slots=True)
class Player:
    """One entrant. ``entry`` numbers players in the order they joined (1 first, never
    reused); ``seed`` is their place by rating when the tournament started (1 best).

    ``points`` are their tournament points: a Swiss score (1 per match won or bye), a knockout's
    rounds won (byes and walkovers included), an arena's points (docs/tournaments.md);
    ``won``/``played`` count decided pairings with an opponent (byes not). Arena only:
    ``streak`` is their run of match wins, ``free_since`` when they last became free to be
    paired (None while in a match or withdrawn), ``last`` their last opponent."""

    id: str
    name: str
    rating: float
    entry: int
    joined_at: int
    seed: int = 0
    withdrawn: Absence = Absence.NONE
    no_shows: int = 0
    points: int = 0
    won: int = 0
    played: int = 0
    byes: int = 0
    streak: int = 0
    free_since: int | None = None
    last: str | None = None

    @property
    def active(self) -> bool:
        return self.withdrawn is Absence.NONE


class How(enum.StrEnum):
    """How a pairing was decided."""

    PLAYED = "played"  # the match finished (its winner, or none if it was abandoned)
    NO_SHOW = "no_show"  # a seat (or both) did not connect in time
    WITHDREW = "withdrew"  # a seat withdrew from the tournament during the match
    BYE = "bye"  # nobody to play: a point (Swiss) or a place in the next round (knockout)
    WALKOVER = "walkover"  # knockout: the opponent withdrew or never came, nothing to play
    EMPTY = "empty"  # knockout: neither side has anyone: nobody goes through


@dataclass(frozen=True, slots=True)
class Game:
    """One game of a finished match, as its ``game_over`` event told it: the winning seat, the
    size of the win (``single``, ``gammon``, ``backgammon``) and how it ended (``bear_off``,
    ``drop``, ``resign``, ``forfeit``)."""

    winner: int
    result: str
    reason: str


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a pairing ended: the winning seat (None: neither), how, when, the match score, its
    games (played matches) and the tournament points it gave each seat."""

    winner: int | None
    how: How
    at: int
    score: tuple[int, int] = (0, 0)
    games: tuple[Game, ...] = ()
    awarded: tuple[int, int] = (0, 0)


@dataclass(frozen=True, slots=True)
class Pairing:
    """Seat 0 and seat 1 of round ``round``, board ``board`` (an arena's pairings are round 0,
    board = their number). ``match`` is the match to play (None when there is nothing to play:
    a bye, a walkover, an empty knockout slot, whose outcome is set at once); ``deadline`` the
    time by which each seat must have connected (``connected``)."""

    round: int
    board: int
    players: tuple[str | None, str | None]
    match: str | None = None
    paired_at: int = 0
    deadline: int | None = None
    connected: tuple[bool, bool] = (False, False)
    outcome: Outcome | None = None

    @property
    def decided(self) -> bool:
        return self.outcome is not None


@dataclass(frozen=True, slots=True)
class TournamentState:
    """One tournament. ``version`` counts accepted transitions (compare-and-set on it);
    ``round`` is the current Swiss round, or the highest knockout round begun;
    ``next_round_at`` when the next Swiss round is paired (None while a round is on);
    ``boards`` the arena's pairings so far; ``end`` why it finished: ``completed``,
    ``cancelled`` (too few players), ``exhausted`` (a Swiss with nobody left to pair without a
    repeat)."""

    id: str
    config: Config
    creator: str
    created: int
    phase: Phase = Phase.OPEN
    players: tuple[Player, ...] = ()
    pairings: tuple[Pairing, ...] = ()
    entries: int = 0
    started_at: int | None = None
    round: int = 0
    next_round_at: int | None = None
    boards: int = 0
    finished_at: int | None = None
    winner: str | None = None
    end: str = ""
    version: int = 0

    def player(self, player_id: str) -> Player | None:
        for p in self.players:
            if p.id == player_id:
                return p
        return None

    @property
    def arena_end(self) -> int | None:
        if self.config.kind is not Kind.ARENA or self.started_at is None:
            return None
        return self.started_at + self.config.duration_ms


def dumps(state: TournamentState) -> bytes:
    """The stored form of a state (msgpack maps of field names)."""
    return serial.dumps(state)


def loads(blob: bytes) -> TournamentState:
    state: TournamentState = serial.loads(TournamentState, blob)
    return state
