"""The match service: load -> apply -> store -> publish, for every command and timeout.

One instance per process. It keeps the states of the matches it touched in memory (a cache
validated by the compare-and-set on the version: a stale cache only costs a retry), serializes
commands to one match inside the process with a lock, and never acknowledges or broadcasts an
event before Redis has stored it.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Protocol

import msgpack

from engine.match import MatchOptions
from protocol.errors import ErrorCode
from protocol.limits import MAX_NAME_CHARS
from server.machine import core, serial
from server.machine.commands import (
    CREATE,
    EXPIRE,
    Command,
    DeclineRematch,
    Join,
    Leave,
    OfferRematch,
    record_kind,
)
from server.machine.state import Config, MatchState, Phase
from server.match.clock import ServerClock
from server.match.hub import Hub
from server.match.store import Conflict, Store, Stored
from server.ops import faults, logs, metrics

log = logs.get("matches")

EncodeEvent = Callable[[core.Event], bytes]


class Finishing(Protocol):
    async def finishing(self, state: MatchState) -> None: ...

    def finished(self, state: MatchState) -> None: ...


def distinct_name(name: str, other: str | None, limit: int = MAX_NAME_CHARS) -> str:
    """``name``, or ``name 2`` when the other seat already plays under it (two nameless
    players are "Guest" and "Guest 2", never two "Guest"s nobody can tell apart)."""
    if other is None or name.casefold() != other.casefold():
        return name
    return f"{name[: limit - 2].rstrip()} 2"


class NotFound(Exception):
    """No such match."""


class Unavailable(Exception):
    """Redis cannot be reached: the caller answers ``retry_later`` and nothing changed."""


@dataclass(frozen=True, slots=True)
class Created:
    match_id: str
    token: str
    invite: str


@dataclass(frozen=True, slots=True)
class Rematched:
    """A player's seat in the rematch of a finished match: ``created`` when this request made
    it; ``offered_by`` is the seat of the finished match that offered it."""

    match_id: str
    seat: int
    token: str
    offered_by: int
    created: bool


def rematch_token(token: str, match_id: str, seat: int) -> str:
    """The seat token of ``seat`` in rematch ``match_id`` for the holder of ``token`` (their
    token of the finished match). Derived, not drawn: asking again yields the same token, so
    a retried request is idempotent; only the holder of the old token can compute it."""
    message = f"fairgammon rematch {match_id} {seat}".encode()
    mac = hmac.new(token.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


def new_match_id() -> str:
    return secrets.token_hex(16)  # 128 random bits: unguessable, so a link is the only way in


def token_hash(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


def seat_of(hashes: Sequence[bytes | None], token: str) -> int | None:
    """The seat whose stored token hash ``token`` matches, or None.

    Both hashes are compared in constant time, so the answer's timing tells nothing.
    """
    digest = token_hash(token)
    found = None
    for seat, stored in enumerate(hashes):
        if stored is not None and hmac.compare_digest(stored, digest):
            found = seat
    return found


def summary(state: MatchState) -> dict[str, object]:
    """What the lobby lists about a match (public)."""
    options = state.config.options
    return {
        "id": state.match_id,
        "mode": options.mode.value,
        "length": options.length,
        "clock": state.config.clock_ms // 1000,
        "reserve": state.config.reserve_ms // 1000,
        "names": list(state.names),
        "score": list(state.match.score),
        "phase": state.phase.value,
        "private": state.config.private,
        "created": state.created,
        "winner": state.match.winner if state.is_over else None,
        "rematch_of": state.config.rematch_of,
        "rematch": state.rematch.match if state.rematch else None,
    }


def command_record(command: Command | Config | None, now: int, name: str = "") -> bytes:
    """The log's record of what caused a transition, ``[kind, body, now]``: a command (its
    stable kind name, :data:`~server.machine.commands.RECORD_KINDS`, and its fields), the
    creation of the match (its config and the creator's name), or None for the clock.
    :mod:`server.match.replay` reads it."""
    if isinstance(command, Config):
        kind, body = CREATE, [serial.dump(command), name]
    elif command is None:
        kind, body = EXPIRE, None
    else:
        kind, body = record_kind(command), serial.dump(command)
    return msgpack.packb([kind, body, now], use_bin_type=True)


class MatchService:
    def __init__(
        self,
        store: Store,
        hub: Hub,
        clock: ServerClock,
        encode_event: EncodeEvent,
        grace_ms: int = 1000,
        cache_size: int = 50_000,
    ) -> None:
        self.store = store
        self.hub = hub
        self.clock = clock
        self.encode_event = encode_event
        self.grace_ms = grace_ms
        self._cache: OrderedDict[str, MatchState] = OrderedDict()
        self._cache_size = cache_size
        self._locks: dict[str, asyncio.Lock] = {}
        # What this process last wrote to the indexes per match: (open, live, deadline).
        self._indexed: dict[str, tuple[int | None, int | None, int | None]] = {}
        self.on_commit: Callable[[MatchState, tuple[core.Event, ...]], None] | None = None
        # Told of the transition that ends a match: before its commit (awaited, may fail the
        # commit) and after it (server.players.results records the match for its players' accounts).
        self.results: Finishing | None = None

    # ------------------------------------------------------------------ lobby

    async def create(
        self,
        options: MatchOptions,
        clock_seconds: int,
        private: bool,
        name: str,
        match_id: str | None = None,
        seat_extra: dict[str, bytes] | None = None,
        reserve_seconds: int = 0,
    ) -> Created:
        """A new match with its creator in seat 0; ``seat_extra`` is stored in the seats hash
        with it (the account of a signed-in creator, ``rated``: see server.players.results)."""
        match_id = match_id or new_match_id()
        token = secrets.token_urlsafe(32)
        invite = secrets.token_urlsafe(16)
        config = Config(
            options,
            clock_ms=clock_seconds * 1000,
            grace_ms=self.grace_ms,
            private=private,
            reserve_ms=reserve_seconds * 1000,
        )
        now = self.now()
        state, events = core.create(match_id, config, name, now)
        fields = {"0": token_hash(token), "invite": token_hash(invite), **(seat_extra or {})}
        await self._store(None, state, events, config, now, seat_fields=fields)
        return Created(match_id, token, invite)

    async def join(
        self,
        match_id: str,
        name: str,
        invite: str | None,
        seat_extra: dict[str, bytes] | None = None,
    ) -> str:
        """Take seat 1; returns its token. A private match needs its invite code.
        ``seat_extra`` is stored in the seats hash with the join (a signed-in player's account).

        Raises :class:`core.Rejected` (``seat_taken``, ``forbidden``) or :class:`NotFound`.
        """
        state = await self.load(match_id)
        if state.config.rematch_of is not None:
            raise core.Rejected(
                ErrorCode.FORBIDDEN,
                "this rematch's seat is kept for the other player of the last match",
            )
        invited = bool(invite) and await self._matches(match_id, "invite", invite or "")
        if state.config.private and not invited:
            raise core.Rejected(ErrorCode.FORBIDDEN, "this private match needs its invite link")
        token = secrets.token_urlsafe(32)
        if "a1" not in (seat_extra or {}):  # an account plays under its own name
            name = distinct_name(name, state.names[0])
        fields = {"1": token_hash(token), **(seat_extra or {})}
        await self.submit(match_id, Join(1, name=name), seat_fields=fields)
        return token

    async def rematch(self, match_id: str, token: str) -> Rematched:
        """Offer a rematch of finished match ``match_id`` as the seat holding ``token``.

        Creates the new match (same options, the asker in seat 0, seat 1 kept for the other
        seat of ``match_id``), then records the offer in ``match_id``'s log (``rematch_offered``)
        through the machine: accepted once per match. Asking again returns the same seat in the
        same rematch; when the other seat already offered one, asking means accepting it.

        Raises :class:`core.Rejected` (``forbidden``: not a seat token of the match;
        ``wrong_phase``: not over), :class:`NotFound` or :class:`Unavailable`.
        """
        seat = await self._seat_by_token(match_id, token)
        for _ in range(4):
            state = await self.load(match_id, fresh=True)
            offered = state.rematch
            if offered is not None:
                if offered.by == seat:
                    mine = rematch_token(token, offered.match, 0)
                    return Rematched(offered.match, 0, mine, seat, created=False)
                joined = await self.join_rematch(offered.match, token)
                return Rematched(offered.match, 1, joined, offered.by, created=False)
            new_id = secrets.token_hex(16)
            now = self.now()
            core.apply(state, OfferRematch(seat, match=new_id), now)  # refused before creating
            config = replace(state.config, rematch_of=match_id, rematch_for=1 - seat)
            new_token = rematch_token(token, new_id, 0)
            name = state.names[seat] or "Guest"
            created, events = core.create(new_id, config, name, now)
            fields = {"0": token_hash(new_token), **await self._account(match_id, seat, 0)}
            await self._store(None, created, events, config, now, seat_fields=fields)
            try:
                await self.submit(match_id, OfferRematch(seat, match=new_id))
            except core.Rejected as exc:
                if exc.code != "rematch_offered":
                    raise
                # Another request won the race: cancel this one's match and follow the offer.
                await self.submit(new_id, Leave(0))
                continue
            return Rematched(new_id, 0, new_token, seat, created=True)
        raise Unavailable("too much contention on this match")

    async def join_rematch(self, match_id: str, token: str) -> str:
        """Take seat 1 of rematch ``match_id`` with ``token``, the player's seat token of the
        finished match; returns the new seat token (the same one again on a retry).

        Only the token of the seat the rematch was offered to will do, private or not.
        Raises :class:`core.Rejected` (``forbidden``, ``seat_taken``, ``match_over``),
        :class:`NotFound` or :class:`Unavailable`.
        """
        state = await self._invited(match_id, token)
        previous, invited = state.config.rematch_of, state.config.rematch_for
        assert previous is not None and invited is not None
        new_token = rematch_token(token, match_id, 1)
        fields = {"1": token_hash(new_token), **await self._account(previous, invited, 1)}
        if state.names[1] is None:
            before = await self.load(previous)
            name = before.names[invited] or "Guest"
            try:
                await self.submit(match_id, Join(1, name=name), seat_fields=fields)
                return new_token
            except core.Rejected as exc:
                if exc.code != "seat_taken":
                    raise
        if await self._matches(match_id, "1", new_token):
            return new_token  # a retry: this player already took the seat
        raise core.Rejected(ErrorCode.SEAT_TAKEN, "this match already has two players")

    async def decline_rematch(self, match_id: str, token: str) -> None:
        """The player rematch ``match_id`` was offered to (``token``: its seat token of the
        finished match) declines it: the rematch ends unplayed (``match_over`` ``declined``),
        which the offerer, waiting on its page, hears at once. Declining again is a no-op.

        Raises :class:`core.Rejected` (``forbidden``; ``wrong_phase``: already accepted),
        :class:`NotFound` or :class:`Unavailable`.
        """
        state = await self._invited(match_id, token)
        if state.is_over and state.names[1] is None:
            return  # declined (or cancelled by the offerer) already
        await self.submit(match_id, DeclineRematch(1))

    async def cancel_unjoined(self, match_id: str, lifetime_ms: int) -> bool:
        """End match ``match_id`` if nobody joined it within ``lifetime_ms`` of its creation
        (``match_over`` ``cancelled``, as when its creator leaves); True if this call ended it.
        A join that wins the race leaves the match alone (compare-and-set on the version)."""
        async with self._lock(match_id):
            for _attempt in range(8):
                try:
                    state = await self.load(match_id, fresh=True)
                except NotFound:
                    return False
                now = self.now()
                if state.phase is not Phase.WAITING or now - state.created < lifetime_ms:
                    return False
                outcome = core.apply(state, Leave(0), now)
                assert isinstance(outcome, core.Accepted)
                try:
                    await self._store(state, outcome.state, outcome.events, Leave(0), now)
                except Conflict:
                    continue
                return True
        return False

    async def _invited(self, match_id: str, token: str) -> MatchState:
        """Rematch ``match_id``, once ``token`` shows its holder is the player it is for."""
        state = await self.load(match_id, fresh=True)
        previous, invited = state.config.rematch_of, state.config.rematch_for
        if previous is None or invited is None:
            raise core.Rejected(ErrorCode.FORBIDDEN, "this match is not a rematch")
        if await self._seat_by_token(previous, token) != invited:
            raise core.Rejected(ErrorCode.FORBIDDEN, "this rematch is offered to the other player")
        return state

    async def _account(self, match_id: str, seat: int, new_seat: int) -> dict[str, bytes]:
        """The account link of ``seat`` of ``match_id`` (server.players.profiles), for ``new_seat``
        of
        its rematch: a rematch goes into both players' histories (it is never rated)."""
        linked = await self.store.seat_hash(match_id, f"a{seat}")
        return {f"a{new_seat}": linked} if linked else {}

    async def _seat_by_token(self, match_id: str, token: str) -> int:
        try:
            hashes = await self.store.seat_hashes(match_id)
        except Exception as exc:
            raise Unavailable(str(exc)) from exc
        if hashes is None:
            raise NotFound(match_id)
        seat = seat_of(hashes, token)
        if seat is None:
            raise core.Rejected(ErrorCode.FORBIDDEN, "not a seat token of this match")
        return seat

    async def _matches(self, match_id: str, field: str, secret: str) -> bool:
        stored = await self.store.seat_hash(match_id, field)
        return stored is not None and hmac.compare_digest(stored, token_hash(secret))

    # ------------------------------------------------------------------ state

    def now(self) -> int:
        return self.clock.now()

    async def load(self, match_id: str, fresh: bool = False) -> MatchState:
        if not fresh and match_id in self._cache:
            self._cache.move_to_end(match_id)
            return self._cache[match_id]
        try:
            stored = await self.store.load(match_id)
        except Exception as exc:
            raise Unavailable(str(exc)) from exc
        return self.adopt(match_id, stored)

    def adopt(self, match_id: str, stored: Stored | None) -> MatchState:
        """The state of a freshly read match (remembered), or :class:`NotFound`."""
        if stored is None:
            raise NotFound(match_id)
        state = serial.loads(MatchState, stored.state)
        self.hub.known.saw(match_id, state.version)
        self._remember(state)
        return state

    def _remember(self, state: MatchState) -> None:
        cached = self._cache.get(state.match_id)
        if cached is not None and cached.version > state.version:
            return  # a read that started before our own last write: keep the newer state
        self._cache[state.match_id] = state
        self._cache.move_to_end(state.match_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def forget(self, match_id: str) -> None:
        self._cache.pop(match_id, None)

    # ------------------------------------------------------------------ transitions

    async def submit(
        self,
        match_id: str,
        command: Command,
        seat_fields: dict[str, bytes] | None = None,
    ) -> core.Accepted | core.Duplicate:
        """Apply a seat's command. Raises :class:`core.Rejected`, :class:`NotFound` or
        :class:`Unavailable`; returns only once the outcome is stored."""
        if not self.clock.redis_ok:
            raise Unavailable("redis is unreachable")
        async with self._lock(match_id):
            for attempt in range(8):
                state = await self.load(match_id, fresh=attempt > 0)
                now = self.now()
                if core.is_due(state, now):
                    # The deadline passed before this command arrived: settle it first, then
                    # the command meets the new state (and is refused: the game is over).
                    expired = core.expire(state, now)
                    if expired is not None:
                        try:
                            await self._store(state, expired.state, expired.events, None, now)
                        except Conflict:
                            continue
                        state = expired.state
                try:
                    outcome = core.apply(state, command, now)
                except core.Rejected:
                    # The cache may be behind (another process moved the match on): refuse
                    # only on the stored state.
                    if attempt == 0 and await self._stale(state):
                        continue
                    raise
                if isinstance(outcome, core.Duplicate):
                    return outcome
                try:
                    await self._store(
                        state, outcome.state, outcome.events, command, now, seat_fields
                    )
                except Conflict:
                    continue  # another process moved the match on: reload and re-apply
                return outcome
        raise Unavailable("too much contention on this match")

    async def _stale(self, state: MatchState) -> bool:
        try:
            version = await self.store.version(state.match_id)
        except Exception as exc:
            raise Unavailable(str(exc)) from exc
        return version is not None and version != state.version

    async def expire(self, match_id: str) -> core.Accepted | None:
        """Settle a passed deadline (called by the sweeper of any process), at this process's
        server time when it holds the match's lock (the sweeper's claim may be a little older)."""
        async with self._lock(match_id):
            for attempt in range(8):
                state = await self.load(match_id, fresh=attempt > 0)
                now = self.now()
                outcome = core.expire(state, now)
                if outcome is None:
                    # Not due (yet): put the real deadline back in the index.
                    await self._index(state, force=True)
                    return None
                try:
                    await self._store(state, outcome.state, outcome.events, None, now)
                except Conflict:
                    continue
                return outcome
        return None

    async def _store(
        self,
        before: MatchState | None,
        after: MatchState,
        events: tuple[core.Event, ...],
        command: Command | Config | None,
        now: int,
        seat_fields: dict[str, bytes] | None = None,
    ) -> None:
        frames = [self.encode_event(e) for e in events]
        faults.check("before_store", command)
        ending = after.is_over and (before is None or not before.is_over)
        started = time.perf_counter()
        try:
            if after.deadline is not None and (before is None or before.deadline is None):
                # A first deadline (the join's) is indexed before it is stored: a crash between
                # the commit and the index update below must not leave a clock that nobody
                # watches. A hint for a transition that is never stored is harmless (the
                # sweeper re-checks the stored state and re-indexes it).
                hint = after.deadline + after.config.grace_ms + 1
                await self.store.hint_deadline(after.match_id, hint)
            if ending and self.results is not None:
                await self.results.finishing(after)
            await self.store.commit(
                after.match_id,
                before.version if before is not None else -1,
                serial.dumps(after),
                msgpack.packb(summary(after), use_bin_type=True),
                frames,
                seat_fields=seat_fields,
                command=command_record(command, now, after.names[0]),
            )
        except Conflict as exc:
            self.forget(after.match_id)
            if before is not None and exc.current < before.version and self.hub.on_behind:
                # Versions never go back: the store lost writes (server.match.rewind).
                self.hub.on_behind(after.match_id, exc.current, "commit")
            raise
        except Exception as exc:
            self.clock.redis_ok = False  # re-validated (and the clock credit) by the heartbeat
            self.forget(after.match_id)
            metrics.REDIS_ERRORS.inc()
            raise Unavailable(str(exc)) from exc
        faults.check("after_store", command)
        if ending:
            faults.check("after_finish", command)
            if self.results is not None:
                self.results.finished(after)
        metrics.APPEND_SECONDS.observe(time.perf_counter() - started)
        metrics.count(command, events)
        self._remember(after)
        for event, frame in zip(events, frames, strict=True):
            self.hub.publish_local(after.match_id, event.v, frame)
        if self.on_commit:
            self.on_commit(after, events)
        try:
            await self._index(after)
        except Exception as exc:  # the indexes are hints; the sweeper reconciles
            log.warning("index update failed", extra=logs.fields(error=repr(exc)))

    async def _index(self, state: MatchState, force: bool = False) -> None:
        """Update the lobby and deadline indexes for ``state``.

        Skipped when this process last indexed the same lobby entries and a deadline no later
        than the new one: every turn moves the deadline on, and rewriting it costs a round trip
        per command. An index deadline earlier than the real one is safe (the sweeper claims
        the match, finds nothing due and puts the real deadline back, ``force``); a later one
        never happens, because the skip needs the indexed deadline to be at most the new one.
        """
        waiting = state.phase is Phase.WAITING
        public = not state.config.private  # a private match is never listed, even when live
        entry = (
            state.created if waiting and public and state.config.rematch_of is None else None,
            state.created if not waiting and not state.is_over and public else None,
            state.deadline + state.config.grace_ms + 1 if state.deadline else None,
        )
        last = self._indexed.get(state.match_id)
        if (
            not force
            and last is not None
            and last[:2] == entry[:2]
            and last[2] is not None
            and entry[2] is not None
            and last[2] <= entry[2]
        ):
            return
        await self.store.index(
            state.match_id, open_since=entry[0], live_since=entry[1], deadline=entry[2]
        )
        if len(self._indexed) >= self._cache_size:
            self._indexed.clear()
        self._indexed[state.match_id] = entry

    def _lock(self, match_id: str) -> asyncio.Lock:
        lock = self._locks.get(match_id)
        if lock is None:
            if len(self._locks) > 10_000:
                for key in [k for k, v in self._locks.items() if not v.locked()]:
                    del self._locks[key]
            lock = self._locks[match_id] = asyncio.Lock()
        return lock
