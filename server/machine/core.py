"""The match state machine: ``apply(state, command, now)`` -> new state + events, or a rejection.

Pure: no I/O, no clock reads (``now`` is server time in ms, passed in), no randomness (dice
come from the seats' reveals). The server loads a state, applies one command, stores the
result atomically and only then acknowledges and broadcasts the events.

>>> from engine.match import MatchOptions
>>> state, events = create("ab" * 16, Config(MatchOptions.single_game()), "ann", now=0)
>>> [e.kind for e in events], state.phase.value
(['created'], 'waiting')
>>> step = apply(state, Join(1, name="bob"), now=10)
>>> [(e.v, e.kind) for e in step.events], step.state.phase.value, step.state.deadline
([(2, 'joined')], 'commit', 30010)
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from engine import events as ev
from engine.errors import GameError
from engine.game import Action
from engine.match import Match, MatchStep
from engine.results import ForfeitReason
from protocol.fairdice import (
    CommitmentRejected,
    GameId,
    check_commitment,
    check_recommitment,
    derive_dice,
    link_ok,
)
from server.machine.commands import (
    Beaver,
    Command,
    Commit,
    Double,
    Drop,
    Join,
    Leave,
    MovePlay,
    Recommit,
    Resign,
    ResignReply,
    Reveal,
    Roll,
    Stop,
    Take,
)
from server.machine.state import Config, Dice, MatchState, Phase, owing

LINK_BYTES = 32


class Rejected(Exception):
    """A command refused with a stable ``code``; the state is unchanged."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


@dataclass(frozen=True, slots=True)
class Event:
    """A versioned, public event: what every player and spectator receives."""

    v: int
    kind: str
    data: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Accepted:
    state: MatchState
    events: tuple[Event, ...]


@dataclass(frozen=True, slots=True)
class Duplicate:
    """The command (same seat and sequence number) was applied before, at ``version``."""

    version: int


def create(
    match_id: str, config: Config, name: str, now: int
) -> tuple[MatchState, tuple[Event, ...]]:
    """A new match with its creator in seat 0, waiting for an opponent."""
    state = MatchState(match_id, config, now, (name, None), Match.new(config.options))
    options = config.options
    tx = _Tx(state, now)
    tx.emit(
        "created",
        mode=options.mode.value,
        length=options.length,
        jacoby=options.jacoby,
        beavers=options.beavers,
        clock_ms=config.clock_ms,
        names=[name, None],
    )
    accepted = tx.finish()
    return accepted.state, accepted.events


def is_due(state: MatchState, now: int) -> bool:
    """True once the current deadline (plus the lag allowance) has passed."""
    return state.deadline is not None and now > state.deadline + state.config.grace_ms


def apply(state: MatchState, command: Command, now: int) -> Accepted | Duplicate:
    """Apply ``command`` at server time ``now``; raises :class:`Rejected` when refused."""
    seat = command.seat
    if seat not in (0, 1):
        raise Rejected("not_a_player", "only the two seats can act")
    if command.seq:
        last = state.last_seq[seat]
        if command.seq == last:
            return Duplicate(state.last_version[seat])
        if command.seq < last:
            raise Rejected("stale", f"sequence number {command.seq} is older than {last}")
    if state.is_over:
        raise Rejected("match_over", "the match is over")
    if is_due(state, now):
        raise Rejected("too_late", "the deadline has passed")
    handler = _HANDLERS.get(type(command))
    if handler is None:
        raise Rejected("unknown_type", f"no such command {type(command).__name__}")
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
        tx.state = replace(tx.state, phase=Phase.OVER, abandoned=True)
        score = list(state.match.score)
        tx.emit("match_over", winner=None, score=score, reason="abandoned", by=None)
        return tx.finish()
    if len(seats) == 1:
        if decision == "commit":
            reason = ForfeitReason.ABANDONED
        elif decision == "reveal":
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
        self.pending: list[tuple[str, dict[str, Any]]] = []
        self.game_over: ev.GameOver | None = None
        self.turn = 0

    def emit(self, kind: str, /, **data: Any) -> None:
        self.pending.append((kind, data))

    def engine(self, step: Callable[[Match], MatchStep]) -> None:
        """Run an engine transition, translating its events; rule errors become rejections."""
        game = self.state.match.game
        self.turn = game.turns if game is not None else 0
        try:
            match, events = step(self.state.match)
        except GameError as exc:
            raise Rejected(exc.code.value, str(exc)) from None
        self.state = replace(self.state, match=match)
        for event in events:
            self._translate(event)
        self._after_engine()

    def _translate(self, event: ev.Event) -> None:
        game_no = self.state.dice.game
        if isinstance(event, ev.RolledOff | ev.Rolled):
            return  # announced with their reveals by the dice handlers
        if isinstance(event, ev.Moved):
            game = self.state.match.game
            assert game is not None
            self.emit(
                "moved",
                game=game_no,
                seat=event.seat,
                dice=list(event.dice),
                moves=[list(m) for m in event.moves],
                turn=self.turn,
                boards=[list(game.boards[0]), list(game.boards[1])],
            )
        elif isinstance(event, ev.Passed):
            self.emit("passed", game=game_no, seat=event.seat, dice=list(event.dice))
        elif isinstance(event, ev.Doubled | ev.Beavered | ev.Taken | ev.Dropped):
            self.emit(event.kind, game=game_no, seat=event.seat, value=event.value)
        elif isinstance(event, ev.ResignOffered | ev.ResignAccepted | ev.ResignRejected):
            self.emit(event.kind, game=game_no, seat=event.seat, level=int(event.level))
        elif isinstance(event, ev.Forfeited):
            pass  # announced by _forfeit, which also covers forfeits between games
        elif isinstance(event, ev.GameOver):
            self.game_over = event
        elif isinstance(event, ev.GameScored):
            result = self.game_over.result if self.game_over else None
            self.emit(
                "game_over",
                game=event.number,
                winner=event.winner,
                points=event.points,
                score=list(event.score),
                result=result.kind.name.lower() if result else None,
                multiplier=int(result.counted) if result else None,
                cube=result.cube if result else None,
                reason=result.reason.value if result else None,
                forfeit=result.forfeit.value if result and result.forfeit else None,
                jacoby=bool(result and result.jacoby),
            )
        elif isinstance(event, ev.GameStarted):
            self.emit(
                "game_started",
                game=event.number,
                score=list(event.score),
                crawford=event.crawford,
                cube=event.cube,
            )
        elif isinstance(event, ev.MatchOver):
            self.emit(
                "match_over",
                winner=event.winner,
                score=list(event.score),
                reason=event.reason.value,
                by=event.by,
            )

    def _after_engine(self) -> None:
        """Move the match phase along with the engine: next game, or the end."""
        match = self.state.match
        if match.is_over:
            self.state = replace(self.state, phase=Phase.OVER)
        elif not match.in_game and self.state.phase is not Phase.COMMIT:
            # A game ended: the next one starts with fresh dice commitments.
            self.state = replace(
                self.state, phase=Phase.COMMIT, dice=Dice(game=match.game_number + 1)
            )

    def finish(self, command: Command | None = None) -> Accepted:
        state = self.state
        seats, decision = owing(state)
        before_seats, before_decision = owing(self.before)
        if state.is_over or not seats:
            deadline = None
        elif (
            self.before.deadline is not None
            and decision == before_decision
            and set(seats) <= set(before_seats)
        ):
            deadline = self.before.deadline  # same decision, fewer seats still owing it
        else:
            deadline = self.now + state.config.clock_ms
        nxt = {"phase": decision, "seats": list(seats), "deadline": deadline}
        events = []
        v = state.version
        for kind, data in self.pending:
            v += 1
            events.append(Event(v, kind, {**data, "t": self.now, "next": nxt}))
        state = replace(state, version=v, deadline=deadline)
        if command is not None and command.seq:
            seat = command.seat
            state = replace(
                state,
                last_seq=_put(state.last_seq, seat, command.seq),
                last_version=_put(state.last_version, seat, v),
            )
        return Accepted(state, tuple(events))


# ---------------------------------------------------------------- handlers


def _join(tx: _Tx, cmd: Join) -> None:
    state = tx.state
    if state.phase is not Phase.WAITING or cmd.seat != 1:
        raise Rejected("seat_taken", "this match already has two players")
    tx.state = replace(
        state, names=(state.names[0], cmd.name), phase=Phase.COMMIT, dice=Dice(game=1)
    )
    tx.emit("joined", seat=1, name=cmd.name)


def _commit(tx: _Tx, cmd: Commit) -> None:
    _require_phase(tx, Phase.COMMIT, cmd.game)
    dice = tx.state.dice
    seat = cmd.seat
    try:
        value = check_commitment(
            cmd.commitment, existing=dice.commitments[seat], other=dice.commitments[1 - seat]
        )
    except CommitmentRejected as exc:
        raise Rejected("bad_commitment", str(exc)) from None
    commitments = _put(dice.commitments, seat, value)
    dice = replace(dice, commitments=commitments, heads=_put(dice.heads, seat, value))
    tx.state = replace(tx.state, dice=dice)
    if None in commitments:
        tx.emit("committed", game=dice.game, seat=seat)
        return
    # Both are in: only now is either published (fairness.md, step 2).
    tx.emit("commitments", game=dice.game, values=list(commitments))
    tx.engine(lambda m: m.start_game())
    tx.state = replace(tx.state, phase=Phase.ROLLOFF)


def _recommit(tx: _Tx, cmd: Recommit) -> None:
    if tx.state.phase is not Phase.PLAY:
        raise Rejected("wrong_phase", "re-commit between rolls")
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
        raise Rejected("bad_commitment", str(exc)) from None
    tx.state = replace(
        tx.state,
        dice=replace(
            dice,
            heads=_put(dice.heads, seat, value),
            recommits=_put(dice.recommits, seat, dice.recommits[seat] + 1),
        ),
    )
    tx.emit("recommitted", game=dice.game, seat=seat, value=value, from_k=dice.k)


def _roll(tx: _Tx, cmd: Roll) -> None:
    _require_phase(tx, Phase.PLAY, cmd.game)
    _require_action(tx, cmd.seat, Action.ROLL)
    if not _hold_reveal(tx, cmd.seat, cmd.k, cmd.reveal):
        return
    tx.state = replace(tx.state, phase=Phase.REVEAL)
    tx.emit("rolling", game=cmd.game, k=cmd.k, seat=cmd.seat)


def _reveal(tx: _Tx, cmd: Reveal) -> None:
    phase = tx.state.phase
    if phase is Phase.ROLLOFF:
        _check_game(tx, cmd.game)
        if tx.state.dice.pending[cmd.seat] is not None:
            raise Rejected("duplicate", "you already revealed for this roll")
        if not _hold_reveal(tx, cmd.seat, cmd.k, cmd.reveal):
            return
        if None in tx.state.dice.pending:
            tx.emit("revealed", game=cmd.game, k=cmd.k, seat=cmd.seat)
            return
        _rolloff_dice(tx)
    elif phase is Phase.REVEAL:
        _check_game(tx, cmd.game)
        game = tx.state.match.game
        assert game is not None and game.on_roll is not None
        roller = game.on_roll
        if cmd.seat == roller:
            raise Rejected("not_your_turn", "your opponent's reveal completes this roll")
        if not _hold_reveal(tx, cmd.seat, cmd.k, cmd.reveal):
            return
        r0, r1, k = _take_reveals(tx)
        d1, d2 = derive_dice(_game_id(tx.state), k, r0, r1)
        tx.emit(
            "dice", game=cmd.game, k=k, seat=roller, reveals=[r0, r1], dice=[d1, d2]
        )
        tx.state = replace(tx.state, phase=Phase.PLAY)
        tx.engine(lambda m: m.roll(roller, d1, d2))
    else:
        raise Rejected("wrong_phase", "no reveal is wanted now")


def _rolloff_dice(tx: _Tx) -> None:
    r0, r1, k = _take_reveals(tx)
    d0, d1 = derive_dice(_game_id(tx.state), k, r0, r1)
    first = None if d0 == d1 else (0 if d0 > d1 else 1)
    tx.emit(
        "rolloff", game=tx.state.dice.game, k=k, reveals=[r0, r1], dice=[d0, d1], first=first
    )
    tx.engine(lambda m: m.roll_off(d0, d1))
    if first is not None and tx.state.phase is Phase.ROLLOFF:
        tx.state = replace(tx.state, phase=Phase.PLAY)


def _hold_reveal(tx: _Tx, seat: int, k: int, reveal: bytes) -> bool:
    """Check a reveal against the seat's previous link and hold it (barrier). A reveal that
    does not verify forfeits the game on the spot (returns False)."""
    dice = tx.state.dice
    if k != dice.k:
        raise Rejected("stale", f"the next roll is {dice.k}, not {k}")
    if len(reveal) != LINK_BYTES:
        raise Rejected("bad_reveal", f"a reveal is {LINK_BYTES} bytes")
    head = dice.heads[seat]
    assert head is not None
    if not link_ok(_game_id(tx.state), seat, k, reveal, head):
        tx.emit("bad_reveal", game=dice.game, k=k, seat=seat, reveal=reveal)
        _forfeit(tx, seat, ForfeitReason.INVALID_REVEAL)
        return False
    tx.state = replace(tx.state, dice=replace(dice, pending=_put(dice.pending, seat, reveal)))
    return True


def _take_reveals(tx: _Tx) -> tuple[bytes, bytes, int]:
    dice = tx.state.dice
    r0, r1 = dice.pending
    assert r0 is not None and r1 is not None
    tx.state = replace(
        tx.state, dice=replace(dice, heads=(r0, r1), pending=(None, None), k=dice.k + 1)
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
    if cmd.turn != game.turns:
        raise Rejected("stale", f"this is turn {game.turns}, not {cmd.turn}")
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
        raise Rejected("wrong_phase", "a money session stops between games")
    tx.engine(lambda m: m.stop(cmd.seat))


def _leave(tx: _Tx, cmd: Leave) -> None:
    if tx.state.phase is Phase.WAITING:
        tx.state = replace(tx.state, phase=Phase.OVER, abandoned=True)
        tx.emit("match_over", winner=None, score=[0, 0], reason="cancelled", by=cmd.seat)
        return
    _forfeit(tx, cmd.seat, ForfeitReason.ABANDONED)


def _forfeit(tx: _Tx, seat: int, reason: ForfeitReason) -> None:
    tx.emit("forfeited", game=tx.state.dice.game, seat=seat, reason=reason.value)
    tx.state = replace(tx.state, dice=replace(tx.state.dice, pending=(None, None)))
    if tx.state.phase is Phase.REVEAL:
        tx.state = replace(tx.state, phase=Phase.PLAY)
    tx.engine(lambda m: m.forfeit(seat, reason))
    # Every forfeit ends the match (rules.md): in match play the match is lost, in a single
    # game or money session the game is lost and the session ends.
    tx.state = replace(tx.state, phase=Phase.OVER)


# ---------------------------------------------------------------- checks


def _require_phase(tx: _Tx, phase: Phase, game: int) -> None:
    if tx.state.phase is not phase:
        raise Rejected("wrong_phase", f"the match waits for {owing(tx.state)[1]}")
    _check_game(tx, game)


def _check_game(tx: _Tx, game: int) -> None:
    if game != tx.state.dice.game:
        raise Rejected("stale", f"this is game {tx.state.dice.game}, not {game}")


def _require_action(tx: _Tx, seat: int, action: Action) -> None:
    expected = tx.state.match.expected()
    if expected is None or expected.seat != seat:
        raise Rejected("not_your_turn", "it is not your turn")
    if action not in expected.actions:
        raise Rejected("wrong_phase", f"the game waits for {expected.phase.value}")


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
}

__all__ = [
    "Accepted",
    "Config",
    "Duplicate",
    "Event",
    "Rejected",
    "apply",
    "create",
    "expire",
    "is_due",
]
