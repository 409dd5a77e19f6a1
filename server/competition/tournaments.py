"""Tournaments, the shell: the pure machine's states in Redis, its effects carried out, its
results heard on the match-event bus, its time kept.

The machine (:mod:`server.competition.machine`) decides everything; this module stores and
carries out. Its keys are :mod:`server.competition.tournament_store`'s.

**A transition** (:meth:`Tournaments.advance`) loads the state (a cache checked against the
stored version), applies one command at server time ``now`` and stores the result with a
compare-and-set on the version, in one script with the transition's effects (the outbox) and,
for an arena, the pairings it decided (``history.py``: an arena's state keeps only its
undecided pairings). Another process's transition in between makes the store refuse it; it
is computed again on the newer state. So each transition is made once, whichever processes
run the machinery, and none is lost. Before anything at or after a pairing's no-show deadline,
the shell tells the machine which seats connected: a seat *connected* when its match's log
holds a numbered command of that seat (its first dice commitment, sent by the client as soon
as it connects) made by the deadline; ``Connected`` is applied at the deadline's last
millisecond, when it was known to be true (the match itself refuses a first commitment after
``connect_by``, 2 s after the deadline, so the log read then is final for the deadline).

**Effects**, after the commit, by the process that made it, each idempotent, each removed from
the outbox once done; a process that dies first leaves them to the sweep of any process
(after ``FX_LEASE_MS``):

* ``Pair`` — the match is created as any match is (``MatchService.begin`` and seat 1's join),
  *arranged* (never listed open, no ordinary join), its id derived from the tournament, round
  and board, each seat's token an HMAC of the match and seat keyed by the tournament's secret
  (so creating again finds it made, and ``GET /api/tournaments/{id}`` can give a player its
  token), its seats linked to the players' accounts (``rated`` when the tournament is), its
  seats hash labelled ``t`` (tournament), ``tr`` (round), ``tb`` (board), its first dice
  commitments due by the pairing's deadline plus 2 s (``connect_by``). A pairing decided
  before its match was made (a withdrawal) makes none.
* ``Forfeit`` — the match ends: the seat that withdrew, or the one no-show, leaves it (lost);
  when neither seat came, the match's own clock abandons it at ``connect_by`` (no winner,
  nothing rated).
* ``Finish`` — each player's final line is kept for their profile, the creator may create
  again, and the ``placed`` hook (the Top Gamer boards) is told the points.

**Results** (the bus's mark-and-sweep pattern, :mod:`server.match.bus`): before the commit
that ends an arranged tournament match, :meth:`Tournaments.finishing` marks it due in
``fg:idx:tournaments`` with a lease; after it, :meth:`Tournaments.finished` applies
``MatchFinished`` (winner, score and, for an arena, the games from the match's log) and clears
the mark; the sweep of any process counts the marks whose lease ran out. Results of one
tournament that arrive while one of its transitions is being stored are applied together as
the next transition (in their order of arrival), so a round's worth of matches ending at once
costs a few stores, not one each in a queue; each result's mark is cleared only after the
transition holding it was stored. The machine counts a
result once (a second one is ``Unchanged``), so a SIGKILL anywhere loses none and counts none
twice.

**Time**: ``fg:idx:t:due`` holds, per tournament, when it next needs a look — the machine's
``next_due``, or effects waiting in the outbox. Every process's sweep claims the due ones
(with a lease), carries out what the outbox holds and applies a ``Tick``; every 10 s it
puts back any entry the live tournaments need (the index is a hint, like the match indexes).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import random
import secrets
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import msgpack

from protocol import events as pe
from protocol.errors import ErrorCode
from server.competition import history, machine
from server.competition.commands import Command, Connected, Join, MatchFinished, Tick, Withdraw
from server.competition.effects import Effect, Finish, Forfeit, Pair, record, recorded_effect
from server.competition.errors import Code, Refused
from server.competition.scoring import standings
from server.competition.state import Config, Game, Kind, Pairing, Phase, TournamentState, dumps
from server.competition.state import loads as load_state
from server.machine import core, serial
from server.machine.commands import CREATE, EXPIRE, Leave, recorded_command
from server.machine.commands import Join as JoinMatch
from server.machine.state import Config as MatchConfig
from server.machine.state import MatchState
from server.match.history import read_log
from server.match.service import MatchService, NotFound, Unavailable
from server.match.store import Conflict
from server.match.tokens import token_hash
from server.ops import faults, logs
from server.ops.metrics import TOURNAMENT_PAIRING_SECONDS

log = logs.get("tournaments")

ARRANGED = "tournament"
FIELD_TOURNAMENT, FIELD_ROUND, FIELD_BOARD = "t", "tr", "tb"
LEASE_MS = 3_000
"""How long a finished tournament match waits for the process that ended it (wall ms)."""
FX_LEASE_MS = 3_000
"""How long a transition's effects wait for the process that made it (server ms)."""
CONNECT_MARGIN_MS = 2_000
"""A match's first dice commitments are due this long after its pairing's no-show deadline."""
ATTEMPTS = 24
SWEEP_SECONDS = 0.25
RECONCILE_SECONDS = 10.0

Link = Callable[[int, str | None, bool], dict[str, bytes]]
Claimed = Callable[[str, int], Awaitable[None]]
Placed = Callable[[str, int, list[tuple[str, str | None, int]]], Awaitable[None]]
"""Told when a tournament finishes: its id, the time, and each player's (id, account link,
tournament points)."""
Step = machine.Accepted | machine.Unchanged | Refused
"""What one command came to in a transition: its step, or the refusal it met."""

RoundStarting = Callable[[str, str, Pair, list[str | None]], Awaitable[None]]
"""Told when a pairing's match is made (the hook for notifications, "a tournament round
starting"): the tournament's id, its name, the pairing and each seat's account link. At least
once: a process that dies after making the match and before removing the effect from the
outbox tells it again from the sweep."""


class NotATournament(Exception):
    """No such tournament."""


class TooMany(Exception):
    """The account has as many unfinished tournaments as it may create."""


def seat_token(secret: bytes, match_id: str, seat: int) -> str:
    """Seat ``seat``'s token in tournament match ``match_id``: derived from the tournament's
    secret (so the tournament can tell its player again, and creating the match twice gives
    the same tokens).

    >>> seat_token(b"k", "a" * 32, 0) != seat_token(b"k", "a" * 32, 1)
    True
    """
    message = f"fairgammon tournament {match_id} {seat}".encode()
    mac = hmac.new(secret, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


@dataclass(frozen=True, slots=True)
class Current:
    """A tournament as stored: its version, its state, its name and its secret."""

    version: int
    state: TournamentState
    name: str
    secret: bytes


def summary(state: TournamentState, name: str) -> dict[str, Any]:
    """What the lists show of a tournament (a msgpack map, field ``m`` of its state hash)."""
    config = state.config
    active = sum(p.active for p in state.players)
    winner = state.player(state.winner) if state.winner else None
    return {
        "id": state.id,
        "name": name,
        "kind": config.kind.value,
        "mode": config.options.mode.value,
        "length": config.options.length,
        "clock": config.clock_ms // 1000,
        "max_players": config.max_players,
        "players": active,
        "rounds": config.rounds,
        "minutes": config.duration_ms // 60_000,
        "rated": config.rated,
        "private": config.private,
        "phase": state.phase.value,
        "created": state.created,
        "start_at": config.start_at,
        "started": state.started_at,
        "finished": state.finished_at,
        "end": state.end,
        "winner": winner.name if winner else None,
        "round": state.round,
    }


class Tournaments:
    def __init__(
        self,
        store: Any,
        matches: MatchService,
        link: Link,
        claimed: Claimed | None = None,
        placed: Placed | None = None,
        per_account: int = 3,
        round_starting: RoundStarting | None = None,
    ) -> None:
        self.store = store
        self.matches = matches
        self.link = link
        self.claimed = claimed
        self.placed = placed
        self.per_account = per_account
        self.round_starting = round_starting
        self._cache: dict[str, Current] = {}
        self._refs: dict[str, dict[str, str]] = {}
        self._locks: dict[str, asyncio.Lock] = {}
        self._queued: dict[str, list[tuple[Command, int, asyncio.Future[Step]]]] = {}
        self.transitions = 0
        """Transitions this process stored (the bench reads it)."""
        self.conflicts = 0
        """Transitions another process's beat to the store (computed again)."""

    def now(self) -> int:
        return self.matches.now()

    # ---------------------------------------------------------------- loading

    async def load(self, tid: str, fresh: bool = False) -> Current:
        cached = self._cache.get(tid)
        if cached is not None and not fresh:
            version = await self.store.version(tid)
            if version == cached.version:
                return cached
        loaded = await self.store.load(tid)
        if loaded is None:
            raise NotATournament(tid)
        current = Current(loaded.version, load_state(loaded.snapshot), loaded.name, loaded.secret)
        self._remember(tid, current)
        return current

    def _remember(self, tid: str, current: Current) -> None:
        if len(self._cache) > 2_000:
            self._cache.clear()
        self._cache[tid] = current

    def _lock(self, tid: str) -> asyncio.Lock:
        lock = self._locks.get(tid)
        if lock is None:
            if len(self._locks) > 2_000:
                for key in [k for k, v in self._locks.items() if not v.locked()]:
                    del self._locks[key]
            lock = self._locks[tid] = asyncio.Lock()
        return lock

    async def refs(self, tid: str, *players: str) -> dict[str, str]:
        """Each player's account link (read again when one of ``players`` is not known)."""
        refs = self._refs.get(tid)
        if refs is None or any(p not in refs for p in players):
            refs = self._refs[tid] = await self.store.refs(tid)
        return refs

    # ---------------------------------------------------------------- requests

    async def create(self, config: Config, creator: str, name: str) -> TournamentState:
        """A new tournament by account ``creator`` (refused: :class:`Refused`, or
        :class:`TooMany` past the account's limit of unfinished tournaments)."""
        tid = secrets.token_hex(16)
        now = self.now()
        state = machine.create(tid, config, creator, now)
        if not await self.store.count_in(creator, tid, now, self.per_account):
            raise TooMany(creator)
        secret = secrets.token_bytes(32)
        made = await self.store.create(
            tid, dumps(state), _pack(summary(state, name)), secret, name
        )
        assert made, "a fresh id is free"
        self._remember(tid, Current(0, state, name, secret))
        await self._index(tid, state, now)
        return state

    async def join(
        self, tid: str, player: str, name: str, rating: float, ref: str | None
    ) -> machine.Accepted | machine.Unchanged:
        if ref is not None:
            await self.store.put_ref(tid, player, ref)  # before any pairing can need it
            self._refs.pop(tid, None)
        step = await self.advance(tid, Join(player, name, rating))
        await self.store.joined(player, tid, self.now())
        return step

    async def withdraw(self, tid: str, player: str) -> machine.Accepted | machine.Unchanged:
        return await self.advance(tid, Withdraw(player))

    # ---------------------------------------------------------------- transitions

    async def advance(
        self, tid: str, command: Command, board: int = 0
    ) -> machine.Accepted | machine.Unchanged:
        """Apply ``command`` now and store it (see the module docstring); raises
        :class:`Refused`, :class:`NotATournament` or :class:`Unavailable`. ``board``: the
        board of the match a ``MatchFinished`` is about (an arena's decided pairings are in
        its history, found by their board)."""
        async with self._lock(tid):
            (result,) = await self._advance_locked(tid, [(command, board)])
        if isinstance(result, Refused):
            raise result
        return result

    async def _advance_together(
        self, tid: str, command: Command, board: int = 0
    ) -> machine.Accepted | machine.Unchanged:
        """:meth:`advance`, but commands of one tournament that arrive while a transition of it
        is being stored wait for it and are then applied together, in their order of arrival,
        and stored as one transition: when the 128 matches of a knockout's first round end
        within seconds, each result waits for one store, not for the 127 before it."""
        future: asyncio.Future[Step] = asyncio.get_running_loop().create_future()
        self._queued.setdefault(tid, []).append((command, board, future))
        async with self._lock(tid):
            batch = self._queued.pop(tid, [])
            if batch:
                try:
                    results = await self._advance_locked(tid, [(c, b) for c, b, _ in batch])
                except Exception as exc:
                    for _, _, waiting in batch:
                        waiting.set_exception(exc)
                else:
                    for (_, _, waiting), result in zip(batch, results, strict=True):
                        waiting.set_result(result)
        result = await future
        if isinstance(result, Refused):
            raise result
        return result

    async def _advance_locked(self, tid: str, commands: list[tuple[Command, int]]) -> list[Step]:
        """Apply ``commands`` in order (with the lock held) and store the result as one
        transition; each command's step, or the :class:`Refused` it met."""
        for attempt in range(ATTEMPTS):
            current = await self.load(tid, fresh=attempt > 0)
            now = self.now()
            state, effects = await self._connections(current.state, now)
            results: list[Step] = []
            for command, board in commands:
                try:
                    step = self._apply(state, command, now, board)
                except Refused as exc:
                    results.append(exc)
                    continue
                if isinstance(step, machine.Accepted):
                    state, effects = step.state, effects + list(step.effects)
                results.append(step)
            if state is current.state:
                return results
            stored = await self._commit(tid, current, state, effects, now, commands[-1][0])
            if not stored:
                self.conflicts += 1
                await asyncio.sleep(random.uniform(0, 0.005 * (attempt + 1)))
                continue
            return results
        raise Unavailable("too much contention on this tournament")

    def _apply(
        self, state: TournamentState, command: Command, now: int, board: int
    ) -> machine.Accepted | machine.Unchanged:
        try:
            return machine.apply(state, command, now)
        except Refused as exc:
            match = getattr(command, "match", None)
            moved = match and history.decided_elsewhere(state, match, board)
            if exc.code is Code.UNKNOWN_MATCH and moved:
                # A decided arena pairing, in the history: counted; settle what is due.
                return machine.apply(state, Tick(), now)
            raise

    async def _connections(
        self, state: TournamentState, now: int
    ) -> tuple[TournamentState, list[Effect]]:
        """The seats that connected by their pairing's deadline, for each undecided pairing
        whose deadline has come, told to the machine at that deadline's last millisecond."""
        waiting = sorted(
            (
                p
                for p in state.pairings
                if p.outcome is None
                and p.match is not None
                and p.deadline is not None
                and p.deadline <= now
                and not all(p.connected)
            ),
            key=lambda p: p.deadline or 0,
        )
        effects: list[Effect] = []
        for pairing in waiting:
            assert pairing.match is not None and pairing.deadline is not None
            for seat in sorted(await self._connected_by(pairing.match, pairing.deadline)):
                if pairing.connected[seat]:
                    continue
                step = machine.apply(state, Connected(pairing.match, seat), pairing.deadline - 1)
                if isinstance(step, machine.Accepted):
                    state = step.state
                    effects += step.effects
        return state, effects

    async def _connected_by(self, match_id: str, deadline: int) -> set[int]:
        """The seats of ``match_id`` with a numbered command (a client's) made by ``deadline``."""
        seats: set[int] = set()
        for raw in await self.matches.store.commands(match_id):
            kind, body, at = msgpack.unpackb(raw, raw=False)
            if kind in (CREATE, EXPIRE) or at > deadline:
                continue
            try:
                command = recorded_command(kind, body)
            except ValueError:
                continue
            if command.seq and command.seat in (0, 1):
                seats.add(command.seat)
        return seats

    async def _commit(
        self,
        tid: str,
        current: Current,
        state: TournamentState,
        effects: list[Effect],
        now: int,
        command: Command,
    ) -> bool:
        kept, moved = history.split(state)
        records = [_pack([now, *record(e)]) for e in effects]
        decided = [_pack(serial.dump(p)) for p in moved]
        if effects:
            await self.store.hint(tid, now + FX_LEASE_MS)  # if this process dies, a sweep will
        first = await self.store.commit(
            tid,
            current.version,
            kept.version,
            dumps(kept),
            _pack(summary(kept, current.name)),
            records,
            decided,
        )
        if first is None:
            self._cache.pop(tid, None)
            return False
        self.transitions += 1
        after = replace(current, version=kept.version, state=kept)
        self._remember(tid, after)
        pairs = [e for e in effects if isinstance(e, Pair)]
        faults.check("after_tournament_store", pairs[0] if pairs else command)
        numbered = [(first + i, effect) for i, effect in enumerate(effects)]
        await self._carry_out(tid, after, numbered, now)
        return True

    # ---------------------------------------------------------------- effects

    async def _carry_out(
        self, tid: str, current: Current, numbered: list[tuple[int, Effect]], now: int
    ) -> None:
        done = []
        for number, effect in numbered:
            try:
                await self._effect(tid, current, effect)
                done.append(number)
            except Exception as exc:  # the sweep tries again after FX_LEASE_MS
                what = logs.fields(tournament=tid, effect=type(effect).__name__, error=repr(exc))
                log.warning("tournament effect not carried out yet", extra=what)
        await self.store.carried_out(tid, done)
        # Pending counts the whole outbox, not only this transition's effects: a process that
        # died after its commit left its effects there, and a transition that finishes the
        # tournament must not take it out of the due index (and the live set) while they wait.
        await self._index(tid, current.state, now, pending=await self.store.pending(tid) > 0)

    async def _effect(self, tid: str, current: Current, effect: Effect) -> None:
        if isinstance(effect, Pair):
            if await self._pair(tid, current, effect) and self.round_starting is not None:
                refs = await self.refs(tid, *effect.players)
                links = [refs.get(p) for p in effect.players]
                try:
                    await self.round_starting(tid, current.name, effect, links)
                except Exception as exc:  # a hook never holds the tournament up
                    what = logs.fields(tournament=tid, error=repr(exc))
                    log.warning("round_starting hook failed", extra=what)
        elif isinstance(effect, Forfeit):
            await self._forfeit(effect)
        elif isinstance(effect, Finish):
            await self._finish(tid, current, effect)

    async def _pair(self, tid: str, current: Current, pair: Pair) -> bool:
        """Make the pairing's match (idempotent); False when there is nothing to play."""
        state = current.state
        pairing = next((p for p in state.pairings if p.match == pair.match), None)
        if pairing is None or pairing.outcome is not None:
            return False  # decided before its match was made (a withdrawal): nothing to play
        terms = state.config
        config = MatchConfig(
            terms.options,
            clock_ms=terms.clock_ms,
            grace_ms=self.matches.grace_ms,
            private=terms.private,
            reserve_ms=terms.reserve_ms,
            arranged=ARRANGED,
            connect_by=pair.deadline + CONNECT_MARGIN_MS,
        )
        refs = await self.refs(tid, *pair.players)
        names = [state.player(p).name for p in pair.players]  # type: ignore[union-attr]
        tokens = [seat_token(current.secret, pair.match, seat) for seat in (0, 1)]
        labels = {
            FIELD_TOURNAMENT: tid.encode(),
            FIELD_ROUND: str(pair.round).encode(),
            FIELD_BOARD: str(pair.board).encode(),
        }
        made = [False, False]
        link0 = self.link(0, refs.get(pair.players[0]), terms.rated)
        fields0 = {"0": token_hash(tokens[0]), **link0, **labels}
        try:
            await self.matches.begin(pair.match, config, names[0], fields0)
            made[0] = True
        except Conflict:
            pass  # made already
        link1 = self.link(1, refs.get(pair.players[1]), terms.rated)
        fields1 = {"1": token_hash(tokens[1]), **link1}
        try:
            await self.matches.submit(pair.match, JoinMatch(1, name=names[1]), seat_fields=fields1)
            made[1] = True
        except core.Rejected as exc:
            # Made already: seat 1 taken with this pairing's token, or the match even played
            # out (an effect carried out again by the sweep after its lease ran out).
            taken = exc.code in (ErrorCode.SEAT_TAKEN, ErrorCode.MATCH_OVER)
            if not taken or not await self.matches.holds(pair.match, "1", tokens[1]):
                raise
        if self.claimed is not None:
            for seat in (0, 1):
                if made[seat]:
                    with contextlib.suppress(Exception):
                        await self.claimed(pair.match, seat)
        return True

    async def _forfeit(self, forfeit: Forfeit) -> None:
        if forfeit.why == "no_show" and len(forfeit.seats) == 2:
            return  # the match's own clock abandons it at connect_by: no winner
        for seat in forfeit.seats:
            try:
                await self.matches.submit(forfeit.match, Leave(seat))
            except NotFound:
                return  # never made: nothing to end
            except core.Rejected as exc:
                if exc.code != ErrorCode.MATCH_OVER:
                    raise

    async def _finish(self, tid: str, current: Current, finish: Finish) -> None:
        state = current.state
        at = state.finished_at or self.now()
        refs = await self.refs(tid)
        out = len(finish.standings)
        for line in finish.standings:
            entry = {
                "tournament": tid,
                "name": current.name,
                "kind": state.config.kind.value,
                "rank": line.rank,
                "players": out,
                "points": line.points,
                "won": line.won,
                "played": line.played,
                "winner": line.player == finish.winner,
                "end": finish.end,
                "private": state.config.private,
                "at": at,
            }
            await self.store.put_result(line.player, tid, _pack(entry), at)
        await self.store.count_out(state.creator, tid)
        if self.placed is not None and finish.end != "cancelled":
            lines = [(line.player, refs.get(line.player), line.points) for line in finish.standings]
            await self.placed(tid, at, lines)

    async def _index(
        self, tid: str, state: TournamentState, now: int, pending: bool = False
    ) -> None:
        """The due index (``next_due``, or soon when effects wait in the outbox, this process's
        or a dead one's) and the public lists."""
        due = machine.next_due(state)
        if pending:
            due = now + FX_LEASE_MS if due is None else min(due, now + FX_LEASE_MS)
        listed = None
        if not state.config.private:
            since = {
                Phase.OPEN: state.created,
                Phase.RUNNING: state.started_at,
                Phase.FINISHED: state.finished_at,
            }[state.phase]
            listed = (state.phase.value, since or now)
        finished = state.phase is Phase.FINISHED and due is None
        await self.store.due_at(tid, due, finished, listed)

    # ---------------------------------------------------------------- the match-event bus

    async def finishing(self, event: Any) -> None:
        """Before the commit that ends a tournament match: mark it due (``MatchFinishing``)."""
        if event.state.config.arranged == ARRANGED:
            await self.store.mark(event.match_id, _wall() + LEASE_MS)

    async def finished(self, event: Any) -> None:
        """After that commit (``MatchFinished``, a task of the bus): count it now; the sweep
        counts it if this fails or the process dies."""
        if event.state.config.arranged != ARRANGED:
            return
        try:
            await self.count(event.match_id, event.state)
        except Exception as exc:
            log.warning(
                "tournament result not counted yet",
                extra=logs.fields(match=event.match_id, error=repr(exc)),
            )

    async def count(self, match_id: str, state: MatchState | None = None) -> bool:
        """Count a finished tournament match (idempotent: the machine counts it once)."""
        if state is None:
            try:
                state = await self.matches.load(match_id, fresh=True)
            except NotFound:
                await self.store.unmark(match_id)
                return False
        if not state.is_over:
            await self.store.unmark(match_id)  # the ending commit never happened
            return False
        raw = await self.matches.store.seat_fields(match_id, [FIELD_TOURNAMENT, FIELD_BOARD])
        if not raw[0]:
            await self.store.unmark(match_id)
            return False
        tid, board = raw[0].decode(), int(raw[1] or 0)
        current = await self.load(tid)
        games: tuple[Game, ...] = ()
        if current.state.config.kind is Kind.ARENA:
            games = tuple(
                Game(e.data.winner, e.data.result, e.data.reason)
                for e in await read_log(self.matches.store, match_id)
                if isinstance(e.data, pe.GameOver)
            )
        winner = state.match.winner if not state.abandoned else None
        score = (int(state.match.score[0]), int(state.match.score[1]))
        started = time.monotonic()
        try:
            finished = MatchFinished(match_id, winner, score, games)
            step = await self._advance_together(tid, finished, board)
            paired = isinstance(step, machine.Accepted) and any(
                isinstance(e, Pair) for e in step.effects
            )
            if paired:
                TOURNAMENT_PAIRING_SECONDS.observe(time.monotonic() - started)
        except Refused as exc:
            log.warning(
                "tournament result refused",
                extra=logs.fields(tournament=tid, match=match_id, error=exc.message),
            )
        await self.store.unmark(match_id)
        return True

    # ---------------------------------------------------------------- the sweep

    async def tend(self, tid: str) -> None:
        """Carry out what the outbox holds from processes that died, then what time asks."""
        current = await self.load(tid, fresh=True)
        now = self.now()
        stale = [
            (number, recorded_effect(kind, body))
            for number, (at, kind, body) in await self.store.outbox(tid)
            if at <= now - FX_LEASE_MS
        ]
        if stale:
            await self._carry_out(tid, current, stale, now)
        due = machine.next_due(current.state)
        step = await self.advance(tid, Tick()) if due is not None and due <= now else None
        if not isinstance(step, machine.Accepted):
            current = await self.load(tid)
            await self._index(tid, current.state, self.now(), await self.store.pending(tid) > 0)

    async def sweep_once(self) -> None:
        for match_id in await self.store.claim_marks(_wall(), LEASE_MS):
            try:
                await self.count(match_id)
            except Exception as exc:
                log.warning(
                    "tournament result sweep failed",
                    extra=logs.fields(match=match_id, error=repr(exc)),
                )
        for tid in await self.store.claim_due(self.now(), FX_LEASE_MS):
            try:
                await self.tend(tid)
            except NotATournament:
                await self.store.due_at(tid, None, True)
            except Exception as exc:
                log.warning(
                    "tournament sweep failed", extra=logs.fields(tournament=tid, error=repr(exc))
                )

    async def reconcile(self) -> None:
        """Put back in the due index whatever a live tournament needs (an earlier look stays)."""
        now = self.now()
        for tid in await self.store.live():
            try:
                current = await self.load(tid)
                due = machine.next_due(current.state)
                if await self.store.pending(tid):
                    due = now if due is None else min(due, now)
                if due is not None:
                    await self.store.hint(tid, due)
                elif current.state.phase is Phase.FINISHED:
                    await self.store.due_at(tid, None, True)
            except NotATournament:
                await self.store.due_at(tid, None, True)
            except Exception as exc:
                what = logs.fields(tournament=tid, error=repr(exc))
                log.warning("tournament reconcile failed", extra=what)

    async def sweep_forever(self, every: float = SWEEP_SECONDS) -> None:
        last = 0.0
        while True:
            try:
                await self.sweep_once()
                if time.monotonic() - last >= RECONCILE_SECONDS:
                    last = time.monotonic()
                    await self.reconcile()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("tournament sweep failed", extra=logs.fields(error=repr(exc)))
            await asyncio.sleep(every)

    # ---------------------------------------------------------------- reading

    async def me(self, current: Current, player: str) -> dict[str, Any] | None:
        """The player's match now, ``{match, seat, token, round, board}``, or None. Its match
        is made first if it is not yet, or not whole (its ``Pair`` is still in the outbox of a
        process that died, or being carried out): whoever asks for it can play it at once."""
        for pairing in current.state.pairings:
            if pairing.outcome is None and pairing.match and player in pairing.players:
                if await self.matches.store.seat_hash(pairing.match, "1") is None:
                    a, b = pairing.players
                    assert a is not None and b is not None and pairing.deadline is not None
                    pair = Pair(pairing.match, pairing.round, pairing.board, (a, b),
                                pairing.deadline)  # fmt: skip
                    await self._pair(current.state.id, current, pair)
                seat = pairing.players.index(player)
                token = seat_token(current.secret, pairing.match, seat)
                return {"match": pairing.match, "seat": seat, "token": token,
                        "round": pairing.round, "board": pairing.board}  # fmt: skip
        return None

    async def decided(self, tid: str, last: int = 50) -> list[Pairing]:
        """An arena's last decided pairings (from its history), oldest first."""
        return [serial.load(Pairing, msgpack.unpackb(raw, raw=False))
                for raw in await self.store.history(tid, last)]  # fmt: skip

    async def listing(self, phase: str, count: int) -> list[dict[str, Any]]:
        tids = await self.store.listing(phase, count, newest=phase != "open")
        rows = await self.store.summaries(tids)
        return [msgpack.unpackb(row, raw=False) for row in rows if row]

    async def mine(self, player: str, count: int) -> list[dict[str, Any]]:
        """The summaries of the tournaments ``player`` joined, the newest first."""
        tids = [t for t, _ in await self.store.results(player, count)]
        rows = await self.store.summaries(tids)
        return [msgpack.unpackb(row, raw=False) for row in rows if row]

    async def results_of(self, player: str, count: int) -> list[dict[str, Any]]:
        """The final lines of the finished tournaments ``player`` played, the newest first."""
        return [
            msgpack.unpackb(line, raw=False)
            for _, line in await self.store.results(player, count)
            if line
        ]

    def standings(self, state: TournamentState) -> list[Any]:
        return list(standings(state))


def _pack(value: Any) -> bytes:
    return msgpack.packb(value, use_bin_type=True)


def _wall() -> int:
    return int(time.time() * 1000)
