"""The match service: load -> apply -> store -> publish, for every command and timeout.

One instance per process. It keeps the states of the matches it touched in memory (a cache
validated by the compare-and-set on the version: a stale cache only costs a retry), serializes
commands to one match inside the process with a lock, and never acknowledges or broadcasts an
event before Redis has stored it.

Each commit, in order: the listeners of the match-event bus that must see a match end before
it is stored (``server.match.bus``: they may refuse the commit), the commit script (the state,
its summary and command record: ``server.match.stored``), the events to this process's own
connections, the bus's listeners of what was stored, the global indexes
(``server.match.indexes``). What a match's secrets are and how they are checked is
``server.match.tokens``; the rematch, a process across two matches, is ``server.match.rematch``.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from engine.match import MatchOptions
from protocol.errors import ErrorCode
from protocol.limits import DAY_MS, MAX_NAME_CHARS
from protocol.messages import Event
from server.machine import core, serial
from server.machine.commands import Command, CrashCredit, Join, Leave
from server.machine.state import Config, MatchState, Phase
from server.match.bus import Bus
from server.match.clock import ServerClock
from server.match.hub import Hub
from server.match.indexes import Indexes
from server.match.store import Conflict, Store, Stored
from server.match.stored import blobs
from server.match.tokens import (
    SEAT_KEY,
    account_token,
    holds,
    new_invite,
    new_match_id,
    new_seat_token,
    seat_of,
    token_hash,
)
from server.ops import faults, logs, metrics

log = logs.get("matches")

EncodeEvent = Callable[[Event], bytes]

CORRESPONDENCE_FIELD = "days"
"""In the seats hash of a correspondence match: its days per decision. The gateway reads it
(only for a ``hello`` of a protocol version before correspondence) before the seat is taken."""


def distinct_name(name: str, other: str | None, limit: int = MAX_NAME_CHARS) -> str:
    """``name``, or ``name 2`` when the other seat already plays under it (two nameless
    players are "Guest" and "Guest 2", never two "Guest"s nobody can tell apart)."""
    if other is None or name.casefold() != other.casefold():
        return name
    return f"{name[: limit - 2].rstrip()} 2"


HOLD_MS = 250
"""How long a held deadline waits before the sweeper looks at it again."""


class NotFound(Exception):
    """No such match."""


class Unavailable(Exception):
    """Redis cannot be reached: the caller answers ``retry_later`` and nothing changed."""


@dataclass(frozen=True, slots=True)
class Created:
    match_id: str
    token: str
    invite: str


class MatchService:
    def __init__(
        self,
        store: Store,
        hub: Hub,
        clock: ServerClock,
        encode_event: EncodeEvent,
        grace_ms: int = 1000,
        cache_size: int = 50_000,
        bus: Bus | None = None,
    ) -> None:
        self.store = store
        self.hub = hub
        self.clock = clock
        self.encode_event = encode_event
        self.grace_ms = grace_ms
        # Told of every stored transition, and before the commit of each that ends a match
        # (server.match.bus: its listeners are registered in server/app.py).
        self.bus = bus or Bus()
        self.indexes = Indexes(store, cache_size)
        self._cache: OrderedDict[str, MatchState] = OrderedDict()
        self._cache_size = cache_size
        self._locks: dict[str, asyncio.Lock] = {}
        self._seat_key: bytes | None = None
        self.hold: Callable[[MatchState], Awaitable[bool]] | None = None
        """Asked before a passed deadline is settled: True holds it a moment longer (a seat
        owing it lost its server process and is coming back: server.match.crash_credit)."""

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
        days: int = 0,
        day_ms: int = DAY_MS,
        token: str | None = None,
    ) -> Created:
        """A new match with its creator in seat 0; ``seat_extra`` is stored in the seats hash
        with it (the account of a signed-in creator, ``rated``: see server.players.results).
        ``days`` > 0 makes it a correspondence match, ``days`` × ``day_ms`` per decision
        (``clock_seconds`` is then not used); ``token`` is seat 0's token when it is derived
        (an account's: :func:`server.match.tokens.account_token`), else one is drawn."""
        match_id = match_id or new_match_id()
        token, invite = token or new_seat_token(), new_invite()
        config = Config(
            options,
            clock_ms=days * day_ms if days else clock_seconds * 1000,
            grace_ms=self.grace_ms,
            private=private,
            reserve_ms=reserve_seconds * 1000,
            days=days,
        )
        fields = {"0": token_hash(token), "invite": token_hash(invite), **(seat_extra or {})}
        await self.begin(match_id, config, name, fields)
        return Created(match_id, token, invite)

    async def begin(
        self,
        match_id: str,
        config: Config,
        name: str,
        seat_fields: dict[str, bytes],
        now: int | None = None,
    ) -> MatchState:
        """Store new match ``match_id`` (its first transition: ``name`` in seat 0), with
        ``seat_fields`` in its seats hash (seat 0's token hash and whatever goes with it)."""
        now = self.now() if now is None else now
        if config.correspondence:
            seat_fields = {**seat_fields, CORRESPONDENCE_FIELD: str(config.days).encode()}
        state, events = core.create(match_id, config, name, now)
        await self._store(None, state, events, config, now, seat_fields=seat_fields)
        return state

    async def join(
        self,
        match_id: str,
        name: str,
        invite: str | None,
        seat_extra: dict[str, bytes] | None = None,
        token: str | None = None,
    ) -> str:
        """Take seat 1; returns its token (``token`` when given: an account's derived one). A
        private match needs its invite code. ``seat_extra`` is stored in the seats hash with the
        join (a signed-in player's account).

        Raises :class:`core.Rejected` (``seat_taken``, ``forbidden``) or :class:`NotFound`.
        """
        state = await self.load(match_id)
        if state.config.rematch_of is not None:  # (server.match.rematch)
            raise core.Rejected(
                ErrorCode.FORBIDDEN,
                "this rematch's seat is kept for the other player of the last match",
            )
        if state.config.arranged is not None:  # (quick pairing, tournaments)
            raise core.Rejected(ErrorCode.FORBIDDEN, "this match's players were chosen for it")
        invited = bool(invite) and await self.holds(match_id, "invite", invite or "")
        if state.config.private and not invited:
            raise core.Rejected(ErrorCode.FORBIDDEN, "this private match needs its invite link")
        token = token or new_seat_token()
        if "a1" not in (seat_extra or {}):  # an account plays under its own name
            name = distinct_name(name, state.names[0])
        fields = {"1": token_hash(token), **(seat_extra or {})}
        await self.submit(match_id, Join(1, name=name), seat_fields=fields)
        return token

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
                now = self.time_of(state)
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

    # ------------------------------------------------------------------ seats

    async def seat_key(self) -> bytes:
        """The server's key for accounts' seat tokens (:func:`server.match.tokens.account_token`):
        drawn once by the first process that needs it (``SET NX``), read by the others."""
        if self._seat_key is None:
            redis = self.store.redis
            try:
                await redis.set(SEAT_KEY, secrets.token_bytes(32), nx=True)
                key = await redis.get(SEAT_KEY)
            except Exception as exc:
                raise Unavailable(str(exc)) from exc
            assert isinstance(key, bytes) and len(key) == 32
            self._seat_key = key
        return self._seat_key

    async def account_token(self, match_id: str, seat: int, account_ref: str) -> str:
        """The seat token ``account_ref`` (``<name> <id>``) holds in ``seat`` of ``match_id``."""
        return account_token(await self.seat_key(), match_id, seat, account_ref)

    async def seat_by_token(self, match_id: str, token: str) -> int:
        """The seat of ``match_id`` that ``token`` holds. Raises :class:`core.Rejected`
        (``forbidden``: none), :class:`NotFound` or :class:`Unavailable`."""
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

    async def holds(self, match_id: str, field: str, secret: str) -> bool:
        """Whether ``secret`` is the one stored (hashed) under ``field`` of the seats hash."""
        return holds(await self.store.seat_hash(match_id, field), secret)

    # ------------------------------------------------------------------ state

    def now(self) -> int:
        return self.clock.now()

    def time_of(self, state: MatchState) -> int:
        """The time of ``state``'s next transition: now, but never before its last one."""
        return max(self.clock.now(), state.updated)

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
        if state.config.correspondence and not self.hub.followers(state.match_id):
            # A correspondence match nobody here looks at keeps no memory in this process: it
            # is read from the store when someone acts (docs/correspondence.md).
            self._cache.pop(state.match_id, None)
            return
        cached = self._cache.get(state.match_id)
        if cached is not None and cached.version > state.version:
            return  # a read that started before our own last write: keep the newer state
        self._cache[state.match_id] = state
        self._cache.move_to_end(state.match_id)
        while len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)

    def forget(self, match_id: str) -> None:
        self._cache.pop(match_id, None)

    def unwatched(self, match_id: str) -> None:
        """The last connection here to ``match_id`` may have gone: a correspondence match then
        leaves this process's memory (its state, its lock)."""
        cached = self._cache.get(match_id)
        if cached is not None and cached.config.correspondence and not self.hub.followers(match_id):
            self._cache.pop(match_id, None)
            lock = self._locks.get(match_id)
            if lock is not None and not lock.locked():
                del self._locks[match_id]

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
                now = self.time_of(state)
                if core.is_due(state, now) and not isinstance(command, CrashCredit):
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
                now = self.time_of(state)
                outcome = core.expire(state, now)
                if outcome is None:
                    # Not due (yet): put the real deadline back in the index.
                    await self.indexes.update(state, force=True)
                    return None
                if self.hold is not None and await self.hold(state):
                    await self.store.hold_deadline(match_id, now + HOLD_MS)  # looked at again
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
        events: tuple[Event, ...],
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
            if ending:
                await self.bus.finishing(after)  # may refuse the commit (server.match.bus)
            snapshot, summarized, record = blobs(after, command, now)
            await self.store.commit(
                after.match_id,
                before.version if before is not None else -1,
                snapshot,
                summarized,
                frames,
                seat_fields=seat_fields,
                command=record,
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
        faults.check("after_store", command, after.match_id)
        if ending:
            faults.check("after_finish", command, after.match_id)
        metrics.APPEND_SECONDS.observe(time.perf_counter() - started)
        self._remember(after)
        for event, frame in zip(events, frames, strict=True):
            self.hub.publish_local(after.match_id, event.v, frame)
        self.bus.committed(after, events, command, ending)
        try:
            await self.indexes.update(after)
        except Exception as exc:  # the indexes are hints; the sweeper reconciles
            log.warning("index update failed", extra=logs.fields(error=repr(exc)))

    def _lock(self, match_id: str) -> asyncio.Lock:
        lock = self._locks.get(match_id)
        if lock is None:
            if len(self._locks) > 10_000:
                for key in [k for k, v in self._locks.items() if not v.locked()]:
                    del self._locks[key]
            lock = self._locks[match_id] = asyncio.Lock()
        return lock
