"""The match state machine: ``apply(state, command, now)`` -> new state + events, or a rejection.

Pure: no I/O, no clock reads (``now`` is server time in ms, passed in), no randomness (dice
come from the seats' reveals). The server loads a state, applies one command, stores the
result atomically and only then acknowledges and broadcasts the events.

>>> from engine.match import MatchOptions
>>> state, events = create("ab" * 16, Config(MatchOptions.single_game()), "ann", now=0)
>>> [type(e.data).__name__ for e in events], state.phase.value
(['MatchCreated', 'Seated'], 'waiting')
>>> step = apply(state, Join(1, name="bob"), now=10)
>>> [(e.v, e.data) for e in step.events]
[(3, Seated(seat=1, name='bob'))]
>>> step.events[-1].next
Clock(phase='commit', seats=(0, 1), deadline=30010, reserves=(0, 0))

Events are the wire's :class:`protocol.messages.Event` values. The last event of each
transition carries ``next``: who owes the next decision and by when; the events before it in
the same transition carry none, so that nobody acts on a half-told transition.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from engine import events as ev
from engine.errors import GameError
from engine.frozen import evolve
from engine.game import Action, Game
from engine.game import Phase as GamePhase
from engine.match import Match, MatchStep
from engine.position import Position
from engine.position_id import encode as position_id
from engine.results import ForfeitReason
from engine.rules import Opening
from protocol import events as pe
from protocol.errors import ErrorCode
from protocol.fairdice import (
    CommitmentRejected,
    GameId,
    check_commitment,
    check_recommitment,
    derive_dice,
    link_ok,
)
from protocol.limits import MAX_CRASH_CREDIT_MS
from protocol.messages import Event
from server.machine import serial
from server.machine.commands import (
    Beaver,
    Command,
    Commit,
    CrashCredit,
    DeclineRematch,
    Double,
    Drop,
    Join,
    Leave,
    MovePlay,
    OfferRematch,
    Recommit,
    Resign,
    ResignReply,
    Reveal,
    Roll,
    Stop,
    Take,
    Vacation,
)
from server.machine.state import (
    CREDITED_KEPT,
    Config,
    Dice,
    HeldRoll,
    MatchState,
    Phase,
    Rematch,
    owing,
    reserve_in,
)
from server.machine.view import settings

LINK_BYTES = 32
DEAD_AFTER_MS = 1_000
"""A server process whose heartbeat (every 250 ms) is this old has died (or froze): what a
:class:`CrashCredit` must show (as the clock's ``outage_ms`` for all processes at once)."""


class Rejected(Exception):
    """A command refused with a stable ``code``; the state is unchanged.

    The codes are the wire's (:class:`protocol.errors.ErrorCode`, a ``str`` enum): the
    gateway sends ``code`` as ``reject.code`` and the HTTP lobby as its ``error`` code, so the
    machine names no code of its own and every raise names a member, never a string
    (``tests/unit/test_machine.py`` reads every ``Rejected(...)`` of the server to check).
    """

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Accepted:
    """The next state and the transition's wire events; ``engine`` is what the engine's match
    said meanwhile, in order (its events are what :class:`engine.record.MatchRecord` is made
    of). The server stores only the wire events; :mod:`server.match.replay` rebuilds the
    engine's to check :mod:`server.match.history`, which derives them from the wire's."""

    state: MatchState
    events: tuple[Event, ...]
    engine: tuple[ev.Event, ...] = ()


@dataclass(frozen=True, slots=True)
class Duplicate:
    """The command (same seat and sequence number) was applied before, at ``version``."""

    version: int


def create(
    match_id: str, config: Config, name: str, now: int
) -> tuple[MatchState, tuple[Event, ...]]:
    """A new match with its creator in seat 0, waiting for an opponent."""
    reserves = (config.reserve_ms, config.reserve_ms)
    state = MatchState(
        match_id, config, now, (name, None), Match.new(config.options), reserves=reserves
    )
    tx = _Tx(state, now)
    tx.emit(settings(config))
    tx.emit(pe.Seated(0, name))
    accepted = tx.finish()
    return accepted.state, accepted.events


def digest(command: Command) -> bytes:
    """A short fingerprint of what a command asks (not of when or how fast it came): tells a
    resent action from a different one that reuses its sequence number."""
    return hashlib.sha256(serial.dumps(evolve(command, lag_ms=0))).digest()[:8]


def is_due(state: MatchState, now: int) -> bool:
    """True once the current deadline plus the whole lag allowance has passed: the clock may
    settle it. (A command is in time up to its own measured lag after the deadline.)"""
    return state.deadline is not None and now > state.deadline + state.config.grace_ms


def apply(state: MatchState, command: Command, now: int) -> Accepted | Duplicate:
    """Apply ``command`` at server time ``now``; raises :class:`Rejected` when refused."""
    seat = command.seat
    if seat not in (0, 1):
        raise Rejected(ErrorCode.NOT_A_PLAYER, "only the two seats can act")
    if command.seq:
        last = state.last_seq[seat]
        if command.seq == last:
            if digest(command) != state.last_digest[seat]:
                raise Rejected(
                    ErrorCode.DUPLICATE, f"sequence number {last} was used for another action"
                )
            return Duplicate(state.last_version[seat])
        if command.seq < last:
            raise Rejected(ErrorCode.STALE, f"sequence number {command.seq} is older than {last}")
    if isinstance(command, OfferRematch):
        return _offer_rematch(state, command, now)
    if state.is_over:
        raise Rejected(ErrorCode.MATCH_OVER, "the match is over")
    # The lag allowance: the command's measured round trip, at most the match's allowance. (A
    # crash credit is in time as long as the deadline it credits is: _crash_credit.)
    allowance = min(max(command.lag_ms, 0), state.config.grace_ms)
    late = not isinstance(command, CrashCredit)
    if late and state.deadline is not None and now > state.deadline + allowance:
        raise Rejected(ErrorCode.TOO_LATE, "the deadline has passed")
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise Rejected(ErrorCode.UNKNOWN_TYPE, f"no such command {type(command).__name__}")
    tx = _Tx(state, now)
    handler(tx, command)
    return tx.finish(command)


def expire(state: MatchState, now: int) -> Accepted | None:
    """Settle a passed deadline: whoever owes the decision forfeits (None if nothing is due).

    Before a game can start (commitments, roll-off), if both seats are silent nobody can be
    blamed and the match is abandoned without a winner.
    """
    if state.is_over or not is_due(state, now):
        return None
    seats, decision = owing(state)
    tx = _Tx(state, now)
    if len(seats) == 2:
        tx.state = evolve(tx.state, phase=Phase.OVER, abandoned=True)
        tx.emit(pe.MatchOver(None, state.match.score, "abandoned"))
        return tx.finish()
    if len(seats) == 1:
        if decision == "commit":
            reason = ForfeitReason.ABANDONED
        elif decision in ("reveal", "rolloff"):
            reason = ForfeitReason.NO_REVEAL
        else:
            reason = ForfeitReason.TIMEOUT
        _forfeit(tx, seats[0], reason)
        return tx.finish()
    return None


# ---------------------------------------------------------------- the transaction


class _Tx:
    """One transition in the making: the evolving state and the events so far."""

    def __init__(self, state: MatchState, now: int) -> None:
        self.before = state
        self.state = state
        self.now = now
        self.pending: list[pe.EventData] = []
        self.engine_events: list[ev.Event] = []
        self.game_over: ev.GameOver | None = None
        self.turn = 0
        self.shift = 0  # a vacation moves the deadline of the decision due (correspondence)

    def emit(self, data: pe.EventData) -> None:
        self.pending.append(data)

    def engine(self, step: Callable[[Match], MatchStep]) -> None:
        """Run an engine transition, translating its events; rule errors become rejections."""
        game = self.state.match.game
        self.turn = game.turns + 1 if game is not None else 0  # the turn being played, from 1
        try:
            match, events = step(self.state.match)
        except GameError as exc:
            raise Rejected(ErrorCode(exc.code.value), str(exc)) from None
        self.state = evolve(self.state, match=match)
        self.engine_events += events
        for event in events:
            self._translate(event)
        self._after_engine()

    def _translate(self, event: ev.Event) -> None:
        game_no = self.state.dice.game
        if isinstance(event, ev.Moved):
            game = self.state.match.game
            assert game is not None
            seat = event.seat
            after = Position.unchecked(game.boards[seat], game.boards[1 - seat])
            self.emit(pe.Moved(game_no, seat, self.turn, event.moves, position_id(after)))
        elif isinstance(event, ev.Passed):
            self.emit(pe.Passed(game_no, event.seat, self.turn))
        elif isinstance(event, ev.Doubled):
            self.emit(pe.Doubled(game_no, event.seat, event.value))
        elif isinstance(event, ev.Taken):
            self.emit(pe.Taken(game_no, event.seat, event.value))
        elif isinstance(event, ev.Beavered):
            self.emit(pe.Beavered(game_no, event.seat, event.value))
        elif isinstance(event, ev.Dropped):
            self.emit(pe.Dropped(game_no, event.seat))
        elif isinstance(event, ev.ResignOffered):
            self.emit(pe.ResignOffered(game_no, event.seat, int(event.level)))
        elif isinstance(event, ev.ResignAccepted):
            self.emit(pe.ResignAccepted(game_no, event.seat))
        elif isinstance(event, ev.ResignRejected):
            self.emit(pe.ResignRejected(game_no, event.seat))
        elif isinstance(event, ev.GameOver):
            self.game_over = event
        elif isinstance(event, ev.GameScored):
            assert self.game_over is not None
            result = self.game_over.result
            counted = result.counted
            self.emit(
                pe.GameOver(
                    event.number,
                    event.winner,
                    event.points,
                    None if counted is None else counted.word,
                    result.reason.value,
                    event.score,
                )
            )
        elif isinstance(event, ev.GameStarted):
            self.emit(pe.GameStarted(event.number, event.crawford, event.score, event.variant))
        elif isinstance(event, ev.MatchOver):
            self.emit(pe.MatchOver(event.winner, event.score, event.reason.value))
        # RolledOff and Rolled are announced with their reveals (pe.Dice) by the dice
        # handlers; Forfeited by _forfeit, which also covers forfeits between games.

    def _after_engine(self) -> None:
        """Move the match phase along with the engine: next game, or the end."""
        match = self.state.match
        if match.is_over:
            self.state = evolve(self.state, phase=Phase.OVER, ahead=None)
        elif not match.in_game and self.state.phase is not Phase.COMMIT:
            # A game ended: the next one starts with fresh dice commitments, or with those
            # made (and the roll-off rolled) ahead, during the game that ended.
            number = match.game_number + 1
            ahead = self.state.ahead
            if ahead is not None and ahead.game == number:
                _start_ahead(self, ahead)
            else:
                self.state = evolve(
                    self.state, phase=Phase.COMMIT, dice=Dice(game=number), ahead=None
                )

    def finish(self, command: Command | None = None) -> Accepted:
        state = self.state
        seats, decision = owing(state)
        before_seats, before_decision = owing(self.before)
        reserves = state.reserves
        if (
            not state.is_over
            and seats
            and self.before.deadline is not None
            and decision == before_decision
            and set(seats) <= set(before_seats)
        ):
            # Same decision, fewer seats still owing it (or a vacation moved it on).
            deadline = self.before.deadline + self.shift
        else:
            # The decision before this one ended: its seat pays what it used of its reserve.
            reserves = self._charged(before_seats, before_decision)
            deadline = None
            if not state.is_over and seats:
                _, reserve = reserve_in(seats, decision, reserves)
                # A seat on vacation: its clock starts when the vacation ends.
                start = paused_until(state, seats, self.now)
                deadline = start + state.config.clock_ms + reserve
                if decision == "commit" and state.dice.game == 1 and state.config.connect_by:
                    deadline = state.config.connect_by  # the first commitments: connect by then
        nxt = pe.Clock(decision, seats, deadline, reserves)
        events = []
        v = state.version
        for i, data in enumerate(self.pending, 1):
            v += 1
            events.append(Event(v, data, nxt if i == len(self.pending) else None))
        # One copy of the state for all that the transition's end changes.
        changes: dict[str, Any] = {
            "reserves": reserves,
            "version": v,
            "deadline": deadline,
            "updated": max(self.now, state.updated),
        }
        if command is not None and command.seq:
            seat = command.seat
            changes["last_seq"] = _put(state.last_seq, seat, command.seq)
            changes["last_version"] = _put(state.last_version, seat, v)
            changes["last_digest"] = _put(state.last_digest, seat, digest(command))
        return Accepted(evolve(state, **changes), tuple(events), tuple(self.engine_events))

    def _charged(self, seats: tuple[int, ...], decision: str) -> tuple[int, int]:
        """The reserves once the decision that was due before this transition (``decision``,
        owed by ``seats``) is charged: the time its seat took past the plain clock (which ended
        ``reserve`` before the deadline) comes off its reserve, never below 0 (a move in the
        lag allowance empties it)."""
        before = self.before
        seat, reserve = reserve_in(seats, decision, before.reserves)
        if seat is None or before.deadline is None or not reserve:
            return before.reserves
        used = max(0, self.now - (before.deadline - reserve))
        return _put(before.reserves, seat, max(0, reserve - used))


# ---------------------------------------------------------------- handlers


def _join(tx: _Tx, cmd: Join) -> None:
    state = tx.state
    if state.phase is not Phase.WAITING or cmd.seat != 1:
        raise Rejected(ErrorCode.SEAT_TAKEN, "this match already has two players")
    tx.state = evolve(
        state, names=(state.names[0], cmd.name), phase=Phase.COMMIT, dice=Dice(game=1)
    )
    tx.emit(pe.Seated(1, cmd.name))


def _commit(tx: _Tx, cmd: Commit) -> None:
    if _is_ahead(tx.state, cmd.game):
        _commit_ahead(tx, cmd)
        return
    _require_phase(tx, Phase.COMMIT, cmd.game)
    dice = tx.state.dice
    seat = cmd.seat
    try:
        value = check_commitment(
            cmd.commitment, existing=dice.commitments[seat], other=dice.commitments[1 - seat]
        )
    except CommitmentRejected as exc:
        raise Rejected(ErrorCode.BAD_COMMITMENT, str(exc)) from None
    commitments = _put(dice.commitments, seat, value)
    dice = evolve(dice, commitments=commitments, heads=_put(dice.heads, seat, value))
    tx.state = evolve(tx.state, dice=dice)
    if None in commitments:
        tx.emit(pe.CommitReceived(dice.game, seat))
        return
    # Both are in: only now is either published (fairness.md, step 2).
    c0, c1 = commitments
    assert c0 is not None and c1 is not None
    tx.emit(pe.Committed(dice.game, c0, c1))
    tx.engine(lambda m: m.start_game())
    tx.state = evolve(tx.state, phase=_opening_phase(tx.state.match))


def _opening_phase(match: Match) -> Phase:
    """What a game that just started waits for: its roll-off, or (a Greek game opened by the
    previous game's winner) the opener's roll."""
    game = match.game
    assert game is not None
    return Phase.ROLLOFF if game.phase is GamePhase.ROLLOFF else Phase.PLAY


def _recommit(tx: _Tx, cmd: Recommit) -> None:
    if tx.state.phase is not Phase.PLAY:
        raise Rejected(ErrorCode.WRONG_PHASE, "re-commit between rolls")
    _check_game(tx, cmd.game)
    dice = tx.state.dice
    seat = cmd.seat
    try:
        value = check_recommitment(
            cmd.commitment,
            committed=dice.commitments[seat] is not None,
            recommitments_so_far=dice.recommits[seat],
            other_head=dice.heads[1 - seat],
            roll_in_progress=dice.pending != (None, None),
        )
    except CommitmentRejected as exc:
        raise Rejected(ErrorCode.BAD_COMMITMENT, str(exc)) from None
    tx.state = evolve(
        tx.state,
        dice=evolve(
            dice,
            heads=_put(dice.heads, seat, value),
            recommits=_put(dice.recommits, seat, dice.recommits[seat] + 1),
        ),
    )
    tx.emit(pe.Recommitted(dice.game, seat, value, dice.k))


def _roll(tx: _Tx, cmd: Roll) -> None:
    _require_phase(tx, Phase.PLAY, cmd.game)
    _require_action(tx, cmd.seat, Action.ROLL)
    if not _hold_reveal(tx, cmd.seat, cmd.k, cmd.reveal):
        return
    tx.state = evolve(tx.state, phase=Phase.REVEAL)
    tx.emit(pe.Rolling(cmd.game, cmd.k, cmd.seat))
    if tx.state.dice.pending[1 - cmd.seat] is not None:
        # Correspondence: the opponent's reveal was deposited ahead; the roll completes now.
        _turn_dice(tx, cmd.game)


def _turn_dice(tx: _Tx, game_no: int) -> None:
    game = tx.state.match.game
    assert game is not None and game.on_roll is not None
    roller = game.on_roll
    r0, r1, k = _take_reveals(tx)
    d1, d2 = derive_dice(_game_id(tx.state), k, r0, r1)
    tx.emit(pe.Dice(game_no, k, "turn", roller, r0, r1, d1, d2))
    tx.state = evolve(tx.state, phase=Phase.PLAY)
    tx.engine(lambda m: m.roll(roller, d1, d2))


def _reveal(tx: _Tx, cmd: Reveal) -> None:
    phase = tx.state.phase
    if _is_ahead(tx.state, cmd.game):
        _deposit_ahead(tx, cmd)
    elif phase is Phase.PLAY and tx.state.config.correspondence:
        _deposit(tx, cmd)
    elif phase is Phase.ROLLOFF:
        _check_game(tx, cmd.game)
        if tx.state.dice.pending[cmd.seat] is not None:
            raise Rejected(ErrorCode.DUPLICATE, "you already revealed for this roll")
        if not _hold_reveal(tx, cmd.seat, cmd.k, cmd.reveal):
            return
        if None in tx.state.dice.pending:
            tx.emit(pe.Revealed(cmd.game, cmd.k, cmd.seat))
            return
        _rolloff_dice(tx)
    elif phase is Phase.REVEAL:
        _check_game(tx, cmd.game)
        game = tx.state.match.game
        assert game is not None and game.on_roll is not None
        roller = game.on_roll
        if cmd.seat == roller:
            raise Rejected(ErrorCode.NOT_YOUR_TURN, "your opponent's reveal completes this roll")
        if not _hold_reveal(tx, cmd.seat, cmd.k, cmd.reveal):
            return
        _turn_dice(tx, cmd.game)
    else:
        raise Rejected(ErrorCode.WRONG_PHASE, "no reveal is wanted now")


# ---------------------------------------------------------------- correspondence: ahead
#
# In a correspondence match a seat need not be there when its reveal is wanted: it deposits
# the reveal ahead, and the server holds it under the barrier like any held reveal, never
# showing it to anyone before the roll it completes (docs/fairness.md, section 15). A deposit
# is accepted only once the other seat's link for the same roll is fixed by a commitment, and
# a re-commitment is refused while a deposit is held (``roll_in_progress``), so no seat ever
# picks its link knowing the other's.


def next_roller(game: Game | None) -> int | None:
    """The seat that rolls the next roll of ``game`` (None before its roll-off is decided or
    once it is over): the seat on roll, unless its play is still to come."""
    if game is None or game.on_roll is None or game.is_over:
        return None
    phase = game.phase
    if phase is GamePhase.MOVE or (
        phase is GamePhase.RESIGN
        and game.resignation is not None
        and game.resignation.resumes is GamePhase.MOVE
    ):
        return 1 - game.on_roll
    return game.on_roll


def _deposit(tx: _Tx, cmd: Reveal) -> None:
    """The next roller's opponent deposits its reveal of the next roll (phase play)."""
    _check_game(tx, cmd.game)
    roller = next_roller(tx.state.match.game)
    if roller is None:
        raise Rejected(ErrorCode.WRONG_PHASE, "no roll is coming in this game")
    if cmd.seat == roller:
        raise Rejected(ErrorCode.NOT_YOUR_TURN, "you roll next: your reveal comes with your roll")
    if cmd.k != tx.state.dice.k:
        raise Rejected(ErrorCode.STALE, f"the next roll is {tx.state.dice.k}, not {cmd.k}")
    if tx.state.dice.pending[cmd.seat] is not None:
        raise Rejected(ErrorCode.DUPLICATE, "your reveal for this roll is held already")
    if _hold_reveal(tx, cmd.seat, cmd.k, cmd.reveal):
        tx.emit(pe.Revealed(cmd.game, cmd.k, cmd.seat))


def _is_ahead(state: MatchState, game: int) -> bool:
    """Whether a commitment or reveal for ``game`` is one for the next game, made ahead: in a
    correspondence match to N points, while the game before it is under way."""
    return (
        state.config.correspondence
        and game == state.dice.game + 1
        and state.phase in (Phase.ROLLOFF, Phase.PLAY, Phase.REVEAL)
        and state.match.options.mode.value == "match"
    )


def rolls_off_ahead(state: MatchState) -> bool:
    """Whether the next game's roll-off is rolled ahead (correspondence): in the backgammon
    family. A Greek game is opened by the previous game's winner, known only when that game
    ends (a roll-off only after a draw, then rolled when that game starts, as game 1's), so
    only its commitments are made ahead."""
    return all(v.opening is Opening.ROLLOFF for v in state.match.options.variant.rotation)


def _commit_ahead(tx: _Tx, cmd: Commit) -> None:
    ahead = tx.state.ahead or Dice(game=cmd.game)
    seat = cmd.seat
    try:
        value = check_commitment(
            cmd.commitment, existing=ahead.commitments[seat], other=ahead.commitments[1 - seat]
        )
    except CommitmentRejected as exc:
        raise Rejected(ErrorCode.BAD_COMMITMENT, str(exc)) from None
    commitments = _put(ahead.commitments, seat, value)
    ahead = evolve(ahead, commitments=commitments, heads=_put(ahead.heads, seat, value))
    tx.state = evolve(tx.state, ahead=ahead)
    tx.emit(pe.CommitReceived(cmd.game, seat))
    if None not in commitments and rolls_off_ahead(tx.state):
        tx.emit(pe.RolloffAhead(cmd.game, ahead.k))


def _deposit_ahead(tx: _Tx, cmd: Reveal) -> None:
    """A reveal for the next game's roll-off, deposited during this game: held, and once both
    seats' are in, rolled (and held) until that game starts. A reveal that does not verify is
    refused (the game it belongs to has not started: it forfeits nothing)."""
    ahead = tx.state.ahead
    seat = cmd.seat
    if ahead is None or None in ahead.commitments:
        raise Rejected(
            ErrorCode.WRONG_PHASE, f"both seats commit to game {cmd.game} before its roll-off"
        )
    if not rolls_off_ahead(tx.state):
        raise Rejected(
            ErrorCode.WRONG_PHASE, f"the opening of game {cmd.game} is not rolled ahead"
        )
    if ahead.rolled_off:
        raise Rejected(ErrorCode.WRONG_PHASE, f"the roll-off of game {cmd.game} is decided")
    if cmd.k != ahead.k:
        raise Rejected(ErrorCode.STALE, f"the roll-off of game {cmd.game} wants roll {ahead.k}")
    if ahead.pending[seat] is not None:
        raise Rejected(ErrorCode.DUPLICATE, "you already revealed for this roll")
    if len(cmd.reveal) != LINK_BYTES:
        raise Rejected(ErrorCode.BAD_REVEAL, f"a reveal is {LINK_BYTES} bytes")
    game_id = GameId(bytes.fromhex(tx.state.match_id), cmd.game)
    head = ahead.heads[seat]
    assert head is not None
    if not link_ok(game_id, seat, cmd.k, cmd.reveal, head):
        raise Rejected(ErrorCode.BAD_REVEAL, f"this reveal does not follow your link {cmd.k - 1}")
    ahead = evolve(ahead, pending=_put(ahead.pending, seat, cmd.reveal))
    tx.emit(pe.Revealed(cmd.game, cmd.k, seat))
    r0, r1 = ahead.pending
    if r0 is not None and r1 is not None:
        d0, d1 = derive_dice(game_id, cmd.k, r0, r1)
        ahead = evolve(
            ahead,
            heads=(r0, r1),
            pending=(None, None),
            k=cmd.k + 1,
            held=(*ahead.held, HeldRoll(cmd.k, r0, r1, d0, d1)),
        )
        if d0 == d1:
            tx.emit(pe.RolloffAhead(cmd.game, ahead.k))
    tx.state = evolve(tx.state, ahead=ahead)


def _start_ahead(tx: _Tx, ahead: Dice) -> None:
    """The game prepared ahead starts: its commitments are published with ``committed`` (once
    both are in), then its roll-off rolls held so far, in order; the roll-off continues (or
    the commitments are awaited) as usual from there."""
    if None in ahead.commitments:
        tx.state = evolve(tx.state, phase=Phase.COMMIT, dice=evolve(ahead, held=()), ahead=None)
        return
    c0, c1 = ahead.commitments
    assert c0 is not None and c1 is not None
    tx.state = evolve(tx.state, dice=evolve(ahead, held=()), ahead=None, phase=Phase.COMMIT)
    tx.emit(pe.Committed(ahead.game, c0, c1))
    tx.engine(lambda m: m.start_game())
    tx.state = evolve(tx.state, phase=_opening_phase(tx.state.match))
    for roll in ahead.held:
        tx.emit(pe.Dice(ahead.game, roll.k, "rolloff", None, roll.reveal0, roll.reveal1,
                        roll.d0, roll.d1))  # fmt: skip
        tx.engine(lambda m, r=roll: m.roll_off(r.d0, r.d1))
    if ahead.rolled_off:
        tx.state = evolve(tx.state, phase=Phase.PLAY)


def _rolloff_dice(tx: _Tx) -> None:
    r0, r1, k = _take_reveals(tx)
    d0, d1 = derive_dice(_game_id(tx.state), k, r0, r1)
    tx.emit(pe.Dice(tx.state.dice.game, k, "rolloff", None, r0, r1, d0, d1))
    tx.engine(lambda m: m.roll_off(d0, d1))
    if d0 != d1:  # decided: the higher die plays both numbers now
        tx.state = evolve(tx.state, phase=Phase.PLAY)


def _hold_reveal(tx: _Tx, seat: int, k: int, reveal: bytes) -> bool:
    """Check a reveal against the seat's previous link and hold it (barrier). A reveal that
    does not verify forfeits the game on the spot (returns False)."""
    dice = tx.state.dice
    if k != dice.k:
        raise Rejected(ErrorCode.STALE, f"the next roll is {dice.k}, not {k}")
    if len(reveal) != LINK_BYTES:
        raise Rejected(ErrorCode.BAD_REVEAL, f"a reveal is {LINK_BYTES} bytes")
    head = dice.heads[seat]
    assert head is not None
    if not link_ok(_game_id(tx.state), seat, k, reveal, head):
        _forfeit(tx, seat, ForfeitReason.INVALID_REVEAL, evidence=reveal)
        return False
    tx.state = evolve(tx.state, dice=evolve(dice, pending=_put(dice.pending, seat, reveal)))
    return True


def _take_reveals(tx: _Tx) -> tuple[bytes, bytes, int]:
    dice = tx.state.dice
    r0, r1 = dice.pending
    assert r0 is not None and r1 is not None
    tx.state = evolve(
        tx.state, dice=evolve(dice, heads=(r0, r1), pending=(None, None), k=dice.k + 1)
    )
    return r0, r1, dice.k


def _double(tx: _Tx, cmd: Double) -> None:
    _require_phase(tx, Phase.PLAY, cmd.game)
    tx.engine(lambda m: m.double(cmd.seat))


def _take(tx: _Tx, cmd: Take) -> None:
    _require_phase(tx, Phase.PLAY, cmd.game)
    tx.engine(lambda m: m.take(cmd.seat))


def _drop(tx: _Tx, cmd: Drop) -> None:
    _require_phase(tx, Phase.PLAY, cmd.game)
    tx.engine(lambda m: m.drop(cmd.seat))


def _beaver(tx: _Tx, cmd: Beaver) -> None:
    _require_phase(tx, Phase.PLAY, cmd.game)
    tx.engine(lambda m: m.beaver(cmd.seat))


def _move(tx: _Tx, cmd: MovePlay) -> None:
    _require_phase(tx, Phase.PLAY, cmd.game)
    game = tx.state.match.game
    assert game is not None
    if cmd.turn != game.turns + 1:
        raise Rejected(ErrorCode.STALE, f"this is turn {game.turns + 1}, not {cmd.turn}")
    tx.engine(lambda m: m.move(cmd.seat, cmd.moves))


def _resign(tx: _Tx, cmd: Resign) -> None:
    _require_phase(tx, Phase.PLAY, cmd.game)
    tx.engine(lambda m: m.resign(cmd.seat, cmd.level))


def _resign_reply(tx: _Tx, cmd: ResignReply) -> None:
    _require_phase(tx, Phase.PLAY, cmd.game)
    if cmd.accept:
        tx.engine(lambda m: m.accept_resignation(cmd.seat))
    else:
        tx.engine(lambda m: m.reject_resignation(cmd.seat))


def _stop(tx: _Tx, cmd: Stop) -> None:
    if tx.state.phase is not Phase.COMMIT:
        raise Rejected(ErrorCode.WRONG_PHASE, "a money session stops between games")
    tx.engine(lambda m: m.stop(cmd.seat))


def _leave(tx: _Tx, cmd: Leave) -> None:
    if tx.state.phase is Phase.WAITING:
        tx.state = evolve(tx.state, phase=Phase.OVER, abandoned=True)
        tx.emit(pe.MatchOver(None, (0, 0), "cancelled"))
        return
    _forfeit(tx, cmd.seat, ForfeitReason.ABANDONED)


def paused_until(state: MatchState, seats: tuple[int, ...], now: int) -> int:
    """When the clock of a decision owed by ``seats`` starts: now, or the latest end of their
    vacations (a correspondence seat on vacation: its clock stands still)."""
    return max([now, *(state.vacation[s] for s in seats)])


def _vacation(tx: _Tx, cmd: Vacation) -> None:
    state = tx.state
    if not state.config.correspondence:
        raise Rejected(ErrorCode.WRONG_PHASE, "a vacation pauses the clocks of correspondence")
    if cmd.until < 0:
        raise Rejected(ErrorCode.BAD_FIELD, "a vacation ends at a time")
    seat, now = cmd.seat, tx.now
    if state.vacation[seat] == cmd.until:
        raise Rejected(ErrorCode.DUPLICATE, "this seat's vacation is set so already")
    after = evolve(state, vacation=_put(state.vacation, seat, cmd.until))
    seats, _ = owing(state)
    if seat in seats and state.deadline is not None:
        # The decision due moves on by how much longer its clock now stands still.
        tx.shift = paused_until(after, seats, now) - paused_until(state, seats, now)
    tx.state = after
    tx.emit(pe.Vacation(seat, cmd.until if cmd.until > now else None))


def _crash_credit(tx: _Tx, cmd: CrashCredit) -> None:
    """The process that served ``cmd.seat`` died: if the seat owes the decision due, that
    decision is due later by the time its clock ran while the seat could not act, from the
    dead process's last heartbeat (or the match's last transition, if later) until the seat
    was back, at most :data:`MAX_CRASH_CREDIT_MS`. Once per match and dead process. It may
    come after the deadline (the sweeper holds a deadline whose seat's process died:
    :mod:`server.match.crash_credit`), not after the credited one and its lag allowance."""
    state = tx.state
    if not cmd.process:
        raise Rejected(ErrorCode.BAD_FIELD, "a crash credit names the process that died")
    if cmd.process in state.credited:
        raise Rejected(ErrorCode.DUPLICATE, f"the crash of process {cmd.process} was credited")
    if cmd.seen - cmd.since < DEAD_AFTER_MS:
        raise Rejected(
            ErrorCode.FORBIDDEN,
            f"process {cmd.process} beat {cmd.seen - cmd.since} ms before: it did not die",
        )
    seats, _ = owing(state)
    if cmd.seat not in seats or state.deadline is None:
        raise Rejected(ErrorCode.NO_DECISION, "this seat owes no decision: no clock to credit")
    gap = min(cmd.back, tx.now) - max(cmd.since, state.updated)
    if gap <= 0:
        raise Rejected(ErrorCode.NO_DECISION, "the decision began after the seat was back")
    credit = min(gap, MAX_CRASH_CREDIT_MS)
    if tx.now > state.deadline + credit + state.config.grace_ms:
        raise Rejected(ErrorCode.TOO_LATE, "the deadline had passed even with the credit")
    tx.shift = credit
    tx.state = evolve(state, credited=(*state.credited, cmd.process)[-CREDITED_KEPT:])
    tx.emit(pe.ClockCredit(cmd.seat, credit))


def _decline_rematch(tx: _Tx, cmd: DeclineRematch) -> None:
    if tx.state.config.rematch_of is None:
        raise Rejected(ErrorCode.WRONG_PHASE, "this match is not a rematch")
    if cmd.seat != 1:
        raise Rejected(
            ErrorCode.NOT_A_PLAYER, "only the player it was offered to declines a rematch"
        )
    if tx.state.phase is not Phase.WAITING:
        raise Rejected(ErrorCode.WRONG_PHASE, "the rematch was already accepted")
    tx.state = evolve(tx.state, phase=Phase.OVER, abandoned=True)
    tx.emit(pe.MatchOver(None, (0, 0), "declined"))


def _offer_rematch(state: MatchState, cmd: OfferRematch, now: int) -> Accepted:
    """The one command of a finished match: offer a rematch (once per match)."""
    if not state.is_over:
        raise Rejected(ErrorCode.WRONG_PHASE, "a rematch is offered once the match is over")
    if state.names[1] is None:
        raise Rejected(ErrorCode.WRONG_PHASE, "nobody else played this match")
    if state.rematch is not None:
        raise Rejected(
            ErrorCode.REMATCH_OFFERED,
            f"seat {state.rematch.by} already offered a rematch: match {state.rematch.match}",
        )
    if len(cmd.match) != 32 or cmd.match.strip("0123456789abcdef") or cmd.match == state.match_id:
        raise Rejected(ErrorCode.BAD_FIELD, "the rematch must be another match's id")
    tx = _Tx(state, now)
    tx.state = evolve(state, rematch=Rematch(cmd.seat, cmd.match))
    tx.emit(pe.RematchOffered(cmd.seat, cmd.match))
    return tx.finish(cmd)


def _forfeit(tx: _Tx, seat: int, reason: ForfeitReason, evidence: bytes | None = None) -> None:
    tx.emit(pe.Forfeit(tx.state.dice.game, seat, reason.value, evidence))
    tx.state = evolve(tx.state, dice=evolve(tx.state.dice, pending=(None, None)))
    if tx.state.phase is Phase.REVEAL:
        tx.state = evolve(tx.state, phase=Phase.PLAY)
    tx.engine(lambda m: m.forfeit(seat, reason))
    # Every forfeit ends the match (rules.md): in match play the match is lost, in a single
    # game or money session the game is lost and the session ends.
    tx.state = evolve(tx.state, phase=Phase.OVER)


# ---------------------------------------------------------------- checks


def _require_phase(tx: _Tx, phase: Phase, game: int) -> None:
    if tx.state.phase is not phase:
        raise Rejected(ErrorCode.WRONG_PHASE, f"the match waits for {owing(tx.state)[1]}")
    _check_game(tx, game)


def _check_game(tx: _Tx, game: int) -> None:
    if game != tx.state.dice.game:
        raise Rejected(ErrorCode.STALE, f"this is game {tx.state.dice.game}, not {game}")


def _require_action(tx: _Tx, seat: int, action: Action) -> None:
    expected = tx.state.match.expected()
    if expected is None or expected.seat != seat:
        raise Rejected(ErrorCode.NOT_YOUR_TURN, "it is not your turn")
    if action not in expected.actions:
        raise Rejected(ErrorCode.WRONG_PHASE, f"the game waits for {expected.phase.value}")


def _game_id(state: MatchState) -> GameId:
    return GameId(bytes.fromhex(state.match_id), state.dice.game)


def _put(pair: tuple[Any, Any], seat: int, value: Any) -> tuple[Any, Any]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)


_HANDLERS: dict[type, Callable[[_Tx, Any], None]] = {
    Join: _join,
    Commit: _commit,
    Recommit: _recommit,
    Roll: _roll,
    Reveal: _reveal,
    Double: _double,
    Take: _take,
    Drop: _drop,
    Beaver: _beaver,
    MovePlay: _move,
    Resign: _resign,
    ResignReply: _resign_reply,
    Stop: _stop,
    Leave: _leave,
    DeclineRematch: _decline_rematch,
    Vacation: _vacation,
    CrashCredit: _crash_credit,
}

__all__ = [
    "Accepted",
    "Config",
    "Duplicate",
    "Rejected",
    "apply",
    "create",
    "expire",
    "is_due",
]
