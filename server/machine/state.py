"""The state of one match on the server: seats, fair dice, the engine match, the clock.

Everything here is an immutable value; :mod:`server.machine.core` computes the next one.
The engine's :class:`~engine.match.Match` knows the rules of play; this layer adds what the
network needs: who sits where, the commit-reveal dice of the current game (with the reveal
barrier), absolute deadlines, and idempotent client sequence numbers.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine.match import Match, MatchOptions
from protocol.events import PLAYER_DECISIONS


class Phase(enum.StrEnum):
    """What the match waits for. Every value but ``play`` is also the protocol's name of that
    decision (``Clock.phase``): ``rolloff`` is the seats' reveals for the engine game's
    ``rolloff`` dice, ``over`` the end of the match (not just of a game).

    ``play`` means: whatever the engine's game expects. That decision is the engine's
    :class:`engine.game.Phase` (``decide``, ``move``, ``take`` or ``resign``), whose values are
    the protocol's names too: :func:`owing` reports them as they are.
    """

    WAITING = "waiting"  # for the second player
    COMMIT = "commit"  # both seats' dice commitments for the next game
    ROLLOFF = "rolloff"  # both seats' reveals for the opening roll-off
    PLAY = "play"  # the engine's game: decide (double or roll), move, take, resign (answer)
    REVEAL = "reveal"  # the roller has rolled; its opponent's reveal completes the dice
    OVER = "over"


@dataclass(frozen=True, slots=True)
class Config:
    """Chosen at creation: the engine's options, the decision clock, visibility, the lag
    allowance (grace) the server grants on every deadline, and each player's time reserve.

    The reserve (``reserve_ms``, 0 for none) is a time bank per player for the whole match: a
    player's decisions (:data:`protocol.events.PLAYER_DECISIONS`) may run past ``clock_ms``
    into it, and what they use is gone for the rest of the match; the automatic ones (dice
    commitments and reveals) always run on the plain clock."""

    options: MatchOptions
    clock_ms: int = 30_000
    grace_ms: int = 1_000
    private: bool = False
    # A rematch: the finished match it follows, and the seat of that match whose player alone
    # may take this match's seat 1 (the lobby checks that seat's token of ``rematch_of``).
    rematch_of: str | None = None
    rematch_for: int | None = None
    reserve_ms: int = 0
    # Both players were chosen by a process, not the lobby: ``pairing`` (quick pairing) or
    # ``tournament``. Such a match is never listed as open and takes no ordinary join (its
    # seat 1 is taken by that process). Docs: docs/tournaments.md.
    arranged: str | None = None
    # The server time by which both seats' first dice commitments are due, instead of
    # ``clock_ms`` after the join: a tournament's no-show deadline (a seat connects and commits
    # by it, or forfeits; both silent: abandoned). None: the plain clock.
    connect_by: int | None = None
    # Correspondence (docs/correspondence.md): days per decision, 0 for a match played in real
    # time. ``clock_ms`` is then those days on this server's clock (a day is shorter only in
    # tests); reveals may be deposited ahead (docs/fairness.md, section 15).
    days: int = 0

    @property
    def correspondence(self) -> bool:
        return self.days > 0


@dataclass(frozen=True, slots=True)
class Rematch:
    """A rematch offered after a match: by which seat, and the new match."""

    by: int
    match: str


@dataclass(frozen=True, slots=True)
class HeldRoll:
    """A roll-off roll of the next game rolled ahead (correspondence): its reveals and dice
    (``d0`` seat 0's die, ``d1`` seat 1's), published when that game starts."""

    k: int
    reveal0: bytes
    reveal1: bytes
    d0: int
    d1: int


@dataclass(frozen=True, slots=True)
class Dice:
    """The fair dice of the current game (scheme v1, docs/fairness.md).

    ``heads[s]`` is what seat ``s``'s next reveal must hash to; ``pending[s]`` is a reveal of
    roll ``k`` that is held back (never shown to anyone) until both are in: in the roll-off,
    the roller's (with its roll), or one deposited ahead in a correspondence match (the next
    roller's opponent's). ``held`` are the roll-off rolls of a game rolled ahead, during the
    game before it (:attr:`MatchState.ahead`).
    """

    game: int = 0
    commitments: tuple[bytes | None, bytes | None] = (None, None)
    heads: tuple[bytes | None, bytes | None] = (None, None)
    pending: tuple[bytes | None, bytes | None] = (None, None)
    k: int = 1
    recommits: tuple[int, int] = (0, 0)
    held: tuple[HeldRoll, ...] = ()

    @property
    def rolled_off(self) -> bool:
        """Whether the held roll-off rolls decided it (the last one is no tie)."""
        return bool(self.held) and self.held[-1].d0 != self.held[-1].d1


CREDITED_KEPT = 8
"""How many credited crashes a match remembers (:attr:`MatchState.credited`)."""


@dataclass(frozen=True, slots=True)
class MatchState:
    """One match. ``version`` is the number of events so far (the last event's version).

    ``deadline`` is the absolute server time (ms) by which the seats in :func:`owing` must act;
    ``last_seq``/``last_version``/``last_digest`` remember each seat's last applied command, a
    fingerprint of it and the version it produced, so a resent command is acknowledged again
    instead of applied twice, and a reused sequence number for another action is refused.
    ``reserves`` is each seat's time reserve left when the current decision began (a decision
    that uses the reserve is charged when it ends: :func:`server.machine.core.apply`).
    """

    match_id: str
    config: Config
    created: int
    names: tuple[str, str | None]
    match: Match
    phase: Phase = Phase.WAITING
    dice: Dice = Dice()
    version: int = 0
    deadline: int | None = None
    last_seq: tuple[int, int] = (0, 0)
    last_version: tuple[int, int] = (0, 0)
    last_digest: tuple[bytes, bytes] = (b"", b"")
    # Set when nobody could be blamed (both seats silent before a game could start).
    abandoned: bool = False
    # The rematch offered once the match is over (at most one per match).
    rematch: Rematch | None = None
    reserves: tuple[int, int] = (0, 0)
    # Correspondence: the next game's dice, committed and rolled off during this game.
    ahead: Dice | None = None
    # The server time of the last transition: the next one is never timed before it (a process
    # restarted after a crash resumes the clock from its last heartbeat, which may be a little
    # earlier than the last transition it stored: server.match.service takes the later).
    updated: int = 0
    # Correspondence: when each seat's vacation ends (server time, 0 for none). While it lasts
    # the seat's clock stands still: a decision it owes is due that much later.
    vacation: tuple[int, int] = (0, 0)
    # The server processes whose crash this match was credited for (``CrashCredit``), newest
    # last, at most :data:`CREDITED_KEPT`: a crash is credited once however often it is told.
    credited: tuple[str, ...] = ()

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER


def owing(state: MatchState) -> tuple[tuple[int, ...], str]:
    """The seats that owe the current decision, and what it is (for clocks and clients).

    >>> from engine.match import MatchOptions
    >>> s = MatchState("0" * 32, Config(MatchOptions.single_game()), 0, ("a", None), None)
    >>> owing(s)
    ((), 'waiting')
    """
    phase = state.phase
    if phase is Phase.COMMIT:
        return tuple(s for s in (0, 1) if state.dice.commitments[s] is None), "commit"
    if phase is Phase.ROLLOFF:
        return tuple(s for s in (0, 1) if state.dice.pending[s] is None), "rolloff"
    if phase is Phase.REVEAL:
        game = state.match.game
        assert game is not None and game.on_roll is not None
        return (1 - game.on_roll,), "reveal"
    if phase is Phase.PLAY:
        # What ``state.match.expected()`` says of who acts and when, without working out
        # what they may do (the actions): this runs twice a transition.
        match = state.match
        game = match.game if match.in_game else None
        seat = None if game is None else game.to_act
        if game is None or seat is None:
            return (), "over"
        return (seat,), game.phase.value
    return (), phase.value


def reserve_owed(state: MatchState) -> tuple[int | None, int]:
    """The seat whose current decision may use its time reserve, and that reserve (ms); (None,
    0) when the decision runs on the plain clock."""
    return reserve_in(*owing(state), state.reserves)


def reserve_in(
    seats: tuple[int, ...], decision: str, reserves: tuple[int, int]
) -> tuple[int | None, int]:
    """:func:`reserve_owed` from what :func:`owing` returned (the machine has it at hand)."""
    if len(seats) == 1 and decision in PLAYER_DECISIONS:
        return seats[0], reserves[seats[0]]
    return None, 0
