"""The WebSocket gateway: one connection = one seat or one spectator of one match.

    upgrade  -> Origin checked against the allowlist (HTTP 403 before accept)
    hello    -> the first frame, within the handshake timeout: seat token or spectator
    welcome  -> then the missed events (resume from last_v) or a snapshot
    actions  -> decoded strictly, rate limited, turned into commands with the seat taken from
                the connection, applied by the match service; ack or reject with a stable code

Everything sent goes through the connection's bounded outbox, so a slow reader is dropped
(close 4009) instead of slowing the match; catch-ups flow through it at the reader's pace. Every
connection is probed every few seconds and closed (4010) when it answers nothing in time, so a
dead link is shown ``reconnecting`` to the opponent within seconds, well inside the move clock.
A new connection for a seat replaces the old one (on any server process: the takeover is
announced on the match channel).
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from typing import Any

from redis.exceptions import RedisError
from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol import codec
from protocol import messages as m
from protocol.close_codes import CloseCode
from protocol.errors import DecodeError, ErrorCode
from protocol.limits import (
    CORRESPONDENCE_VERSION,
    CREDIT_VERSION,
    MAX_BAD_FRAMES,
    PROTOCOL_VERSION,
    RESERVE_VERSION,
    VARIANT_VERSION,
)
from protocol.versions import for_version
from server.machine import commands as c
from server.machine import core
from server.machine.state import MatchState
from server.machine.view import public_view
from server.match.clock import wall_ms
from server.match.connections import TAKE_FRAME, Connection, Connections, monotonic_ms
from server.match.crash_credit import CrashCredits, SnapshotInstead, connection_id
from server.match.hub import Follower, Sink
from server.match.outbox import SEND_FRAME, Outbox
from server.match.presence import PresenceBook, RawPresence, greeting, statuses, waiting_gone
from server.match.rewind import Rewind
from server.match.seat_entry import SeatEntry
from server.match.service import CORRESPONDENCE_FIELD, MatchService, NotFound, Unavailable
from server.match.store import PEERS_WITHIN_MS, Store
from server.match.tokens import seat_of
from server.ops import logs, metrics
from server.ops.allowance import TokenBucket
from server.ops.settings import Settings

log = logs.get("gateway")

CLOSE_TIMEOUT = 2.0
"""Seconds a close frame may wait for a socket that takes nothing (then it is abandoned)."""
STALL_MS = 500
"""A probe tick later than this past its time finds the process stalled, not its clients."""
PROBE_TICK_MS = 100
"""Probes go out in slices, one this often (``probe_seconds`` of 2 s: 20 slices)."""
HOLD_HELLO_SECONDS = 3.0
"""How long a hello waits for an unreachable store before it is refused (1013)."""
SLOW_CLOSE_TIMEOUT = 10.0
"""The same for a reader too slow for its queue: it may still read up to its close code (it
is shown away meanwhile)."""
DRAIN_AWAY = 100
"""Most seats a draining process keeps away at once (closed, not yet back elsewhere)."""
DRAIN_BACK_SECONDS = 2.0
"""How long a drained seat counts as away at most (a client that does not come back)."""
DRAIN_MAX_SECONDS = 10.0
"""The longest a drain is paced (uvicorn waits 15 s for the connections to end before it
cancels them): the connections still here then are closed at once. The pace is at most
``Settings.drain_per_second`` (200 a second by default: what a process serving 1,000 matches
of its own welcomes without keeping a seat away for more than a second, at 2 ms of CPU a
resume; docs/load.md) and slower while :data:`DRAIN_AWAY` seats are away."""


class Gateway:
    """This process's WebSocket connections (one instance per process). Features reach them
    through :attr:`connections` (:mod:`server.match.connections`), never through the gateway."""

    def __init__(self, settings: Settings, matches: MatchService) -> None:
        self.settings = settings
        self.matches = matches
        self.store: Store = matches.store
        self.origins = settings.origins()
        self.seats: dict[tuple[str, int], Connection] = {}
        self.connections = Connections(matches.hub)
        spawn = self.connections.spawn
        self.presence = PresenceBook(self.store, matches, spawn, settings.gone_after_seconds)
        self.connections.on_note("seat", self._seat_taken)
        self.rewind = Rewind(matches, self.connections)
        self.crashes = CrashCredits(matches, spawn)
        self.degraded_since: int | None = None
        """Server time since when this process cannot reach the store (None: it can)."""
        self.draining: asyncio.Task[None] | None = None
        """The drain, once the process is stopping (:meth:`drain`)."""
        self._lost_at = 0.0
        """When (monotonic) this process last lost the store."""
        matches.clock.on_change = self._store_changed
        matches.clock.on_new_instance = self._new_store_instance

    # ---------------------------------------------------------------- lifecycle

    async def handle(self, ws: WebSocket) -> None:
        origin = ws.headers.get("origin")
        if origin is not None and origin not in self.origins:
            # Closing before accept makes the server answer the upgrade with HTTP 403.
            await ws.close(code=CloseCode.POLICY_VIOLATION)
            return
        await ws.accept()
        conn = Connection(
            ws,
            Outbox(
                ws.send_bytes,
                self.settings.send_queue_frames,
                direct=ws.scope.get("extensions", {}).get(SEND_FRAME),
            ),
            id=connection_id(self.matches.clock.process, secrets.token_hex(6)),
        )
        conn.task = asyncio.current_task()
        conn.outbox.on_overflow = lambda: self.connections.spawn(self._too_slow(conn))
        self.connections.add(conn)
        extensions = ws.scope.get("extensions")
        if extensions is not None:
            extensions[TAKE_FRAME] = conn.take_echo
        try:
            if await self._handshake(conn):
                await self._serve(conn)
        except (WebSocketDisconnect, ConnectionError):
            pass
        except asyncio.CancelledError:
            if not conn.aborted:
                raise
            # The socket took nothing more, not even the close frame: the connection is over.
            asyncio.current_task().uncancel()  # type: ignore[union-attr]
        except Exception:
            log.exception("connection failed", extra=logs.fields(match=conn.match_id))
            await self._close(conn, CloseCode.INTERNAL_ERROR, ErrorCode.INTERNAL, "server fault")
        finally:
            if extensions is not None:
                extensions.pop(TAKE_FRAME, None)  # (no cycle through the socket's scope)
            if conn.closing:
                # Another task may be closing this connection (a takeover): let it finish the
                # close handshake before the handler ends, or the client sees an abnormal close
                # without the error that explains it.
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(conn.closed.wait(), 3.0)
            await self._disconnected(conn)

    async def probe_forever(self) -> None:
        """Probe every connection every ``probe_seconds``: the echo measures its round trip
        (the lag allowance), and a connection from which nothing arrived within
        ``probe_timeout_seconds`` of a probe is dead (a half-open link): closed 4010.

        The connections are probed in slices, one every :data:`PROBE_TICK_MS`, each
        connection in its own (``Connection.probe_slot``): still every ``probe_seconds`` each,
        but a process holding thousands no longer writes them all their probes, then reads
        all their echoes, in one burst that every action arriving meanwhile waits behind.
        The ticks keep to a fixed schedule, so a loaded loop does not stretch the interval."""
        timeout_ms = int(self.settings.probe_timeout_seconds * 1000)
        every_ms = int(self.settings.probe_seconds * 1000)
        slices = max(1, every_ms // PROBE_TICK_MS)
        tick_ms = every_ms / slices
        due = float(monotonic_ms())
        judge_from = 0
        part = 0
        while True:
            due += tick_ms
            await asyncio.sleep(max(0.0, due - monotonic_ms()) / 1000)
            now = monotonic_ms()
            if now - due >= STALL_MS:
                # A process that was stalled itself (no CPU, a long pause) has not read what
                # its clients sent meanwhile: it judges nobody for a whole interval (each
                # slice one round), and its schedule starts again from now.
                judge_from = now + every_ms
                due = float(now)
            self.probe_round(now, timeout_ms, now >= judge_from, part, slices)
            part = (part + 1) % slices

    def probe_round(self, now: int, timeout_ms: int, judge: bool, index: int, slices: int) -> None:
        """Probe the connections of slice ``index`` of ``slices``, and judge (if ``judge``)
        those whose last probe went unanswered."""
        frame = codec.encode(m.Probe(now))
        echo = codec.encode(m.Echo(now))  # its answer, byte for byte (Connection.take_echo)
        for conn in self.connections.probe_slice(index, slices):
            if conn.closing or not conn.counted:
                continue  # not welcomed yet (the handshake has its own timeout), or leaving
            if conn.probe_ms is not None and conn.heard_ms < conn.probe_ms:
                waited = now - conn.probe_ms
                # (a process lagging all the time still judges, at twice the timeout)
                if (judge and waited >= timeout_ms) or waited >= 2 * timeout_ms:
                    self.connections.spawn(self._unresponsive(conn))
                continue
            conn.probed(now, echo)
            conn.send(frame)

    async def _unresponsive(self, conn: Connection) -> None:
        log.info("no answer to probes", extra=logs.fields(match=conn.match_id, conn=conn.id))
        metrics.DROPPED.labels("unresponsive").inc()
        await self._close(
            conn, CloseCode.UNRESPONSIVE, ErrorCode.UNRESPONSIVE, "no answer to the probes"
        )

    async def _too_slow(self, conn: Connection) -> None:
        log.info("send queue full", extra=logs.fields(match=conn.match_id, conn=conn.id))
        metrics.DROPPED.labels("too_slow").inc()
        # No error frame: the queue it would wait in is full. The close code says it all.
        await self._close(
            conn, CloseCode.TOO_SLOW, None, "send queue full: reconnect", SLOW_CLOSE_TIMEOUT
        )

    # ---------------------------------------------------------------- the store's health

    def _store_changed(self, ok: bool) -> None:
        """This process lost the store (or found it again): tell every connection, and shed
        them all if it stays lost for ``store_grace_seconds``."""
        if not ok:
            if self.degraded_since is not None:
                return
            self.degraded_since = self.matches.now()
            self._lost_at = time.monotonic()
            log.warning(
                "store unreachable: clients told", extra=logs.fields(conns=len(self.connections))
            )
            frame = codec.encode(m.Degraded(self.degraded_since))
            for conn in self.connections:
                if conn.counted and not conn.closing:
                    conn.told_degraded = True
                    conn.send(frame)
                    if conn.acting is not None:
                        # Its action waits on a store that may not answer for seconds: answer
                        # it now. If it was stored after all, its retry (same seq) is acked.
                        conn.send_message(
                            m.Reject(conn.acting, ErrorCode.RETRY_LATER, "storage unavailable")
                        )
                        conn.acting = None
            self.connections.spawn(self._shed_if_still_degraded(self.degraded_since))
        elif self.degraded_since is not None:
            log.warning("store reachable again", extra=logs.fields(conns=len(self.connections)))
            # Did the store come back without writes this process stored? (server.match.rewind)
            self.connections.spawn(self.rewind.audit(self._lost_at))
            frame = codec.encode(m.Restored(self.degraded_since))
            self.degraded_since = None
            for conn in self.connections:
                if conn.counted and conn.told_degraded and not conn.closing:
                    conn.told_degraded = False  # (a held hello learns it from its welcome)
                    conn.send(frame)

    def _new_store_instance(self) -> None:
        """Another Redis answers (restarted, or a replica took over), maybe too fast for any
        beat to fail: did it come back without writes this process stored? After a lost
        store, finding it again audits (from before the loss): one audit, not two."""
        if self.degraded_since is None:
            self.connections.spawn(self.rewind.audit(time.monotonic()))

    async def _shed_if_still_degraded(self, since: int) -> None:
        """Close every connection (1013) when the store is still lost after the grace: their
        clients reconnect, through the load balancer or their list of servers, to a process
        that reaches the store, while this one keeps no seat it cannot serve."""
        await asyncio.sleep(self.settings.store_grace_seconds)
        if self.degraded_since != since:
            return  # back in time (a later outage has its own countdown)
        shed = [conn for conn in self.connections if conn.counted and not conn.closing]
        log.warning("store still unreachable: connections shed", extra=logs.fields(conns=len(shed)))
        metrics.DROPPED.labels("store_unreachable").inc(len(shed))
        for conn in shed:
            self.connections.spawn(
                self._close(
                    conn,
                    CloseCode.TRY_AGAIN_LATER,
                    ErrorCode.RETRY_LATER,
                    "this server cannot reach its store: reconnect",
                )
            )

    async def shutdown(self) -> None:
        """Tell every client to reconnect (1012: service restart) and let outboxes drain."""
        if self.draining is not None:
            with contextlib.suppress(Exception):
                await self.draining  # (uvicorn has waited for its connections to end)
        for conn in self.connections:
            await self._restarting(conn)

    async def _restarting(self, conn: Connection) -> None:
        conn.closing = True
        try:
            with contextlib.suppress(Exception):
                await conn.outbox.drain(1.0)
                await asyncio.wait_for(
                    conn.ws.close(code=CloseCode.SERVICE_RESTART, reason="server restarting"),
                    CLOSE_TIMEOUT,
                )
        finally:
            conn.closed.set()  # (its handler waits for the close frame to be sent)

    # ---------------------------------------------------------------- the drain

    def drain(self) -> bool:
        """The process is stopping (SIGTERM; :mod:`server.web.websocket` calls this once it
        has stopped accepting): move its clients to the other server processes at a pace they
        can take them (:meth:`_drain`); False when the last heartbeat saw no other process
        alive (then uvicorn closes every socket at once: the clients can only wait for this
        one to come back)."""
        if not self.store.peers:
            return False
        self.draining = self.connections.spawn(self._drain())
        return True

    async def _drain(self) -> None:
        """Close every connection with 1012 (its client reconnects at once, through the load
        balancer or its list of servers, to a process still accepting), both seats of a match
        together, none in the middle of an action, at most ``drain_per_second`` a second and
        with at most :data:`DRAIN_AWAY` seats away at once (closed here, not yet back on
        another process): the pace follows what the other processes can take. Past
        :data:`DRAIN_MAX_SECONDS` the rest are closed at once. With no other process alive
        they are all closed at once: they can only wait for this one to come back."""
        try:
            others = await self.store.other_processes(wall_ms(), PEERS_WITHIN_MS)
        except Exception:
            others = []
        conns = sorted(
            (c for c in self.connections if not c.closing), key=lambda c: (c.match_id, c.id)
        )
        log.info(
            "draining" if others else "stopping: no other process to move clients to",
            extra=logs.fields(conns=len(conns), processes=len(others)),
        )
        rate = self.settings.drain_per_second
        loop = asyncio.get_running_loop()
        start = loop.time()
        deadline = start + DRAIN_MAX_SECONDS
        away: set[Connection] = set()
        closing = []
        for i, conn in enumerate(conns):
            if others:
                if (delay := start + i / rate - loop.time()) > 0:
                    await asyncio.sleep(min(delay, max(0.0, deadline - loop.time())))
                while len(away) >= DRAIN_AWAY and loop.time() < deadline:
                    await asyncio.sleep(0.01)
            if not conn.closing:
                away.add(conn)
                closing.append(self.connections.spawn(self._move(conn, away if others else None)))
        if closing:
            await asyncio.wait(closing)

    async def _move(self, conn: Connection, away: set[Connection] | None) -> None:
        """Close ``conn`` with 1012 once its action in progress (if any) is answered; it stays
        in ``away`` until its seat is online on another connection (or for
        :data:`DRAIN_BACK_SECONDS`; a spectator not at all)."""
        try:
            waited = 0.0
            while conn.acting is not None and not conn.closing and waited < 1.0:
                await asyncio.sleep(0.01)
                waited += 0.01
            if conn.closing:
                return
            metrics.DROPPED.labels("drained").inc()
            await self._restarting(conn)
            if away is not None and conn.seat is not None:
                self.connections.spawn(self._until_back(conn, away))
                away = None  # (it leaves the set once back)
        finally:
            if away is not None:
                away.discard(conn)

    async def _until_back(self, conn: Connection, away: set[Connection]) -> None:
        assert conn.seat is not None
        loop = asyncio.get_running_loop()
        until = loop.time() + DRAIN_BACK_SECONDS
        try:
            while loop.time() < until:
                await asyncio.sleep(0.05)
                with contextlib.suppress(Exception):
                    entry = SeatEntry.read(await self.store.seat_presence(conn.match_id, conn.seat))
                    if entry and entry.status == "online" and entry.conn != conn.id:
                        return  # taken on another connection: back
        finally:
            away.discard(conn)

    # ---------------------------------------------------------------- handshake

    async def _handshake(self, conn: Connection) -> bool:
        timeout = self.settings.auth_timeout_seconds
        try:
            async with asyncio.timeout(timeout):  # (no task of its own, as wait_for starts)
                frame = await self._receive(conn)
        except TimeoutError:
            await self._close(conn, CloseCode.AUTH_TIMEOUT, ErrorCode.AUTH_TIMEOUT, "no hello")
            return False
        if frame is None:
            return False
        try:
            hello = codec.decode_from_client(frame, max_frame_size=self.settings.max_frame_bytes)
        except DecodeError as exc:
            close = (
                CloseCode.UNSUPPORTED_VERSION
                if exc.code is ErrorCode.UNSUPPORTED_VERSION
                else CloseCode.PROTOCOL_VIOLATION
            )
            await self._close(conn, close, exc.code, exc.message)
            return False
        if not isinstance(hello, m.Hello):
            await self._close(
                conn,
                CloseCode.PROTOCOL_VIOLATION,
                ErrorCode.NOT_AUTHENTICATED,
                "the first frame must be hello",
            )
            return False
        # Without the store a hello is told so at once and held a little: if the store comes
        # back meanwhile it is welcomed at once, else it is refused 1013 (it may find another
        # server that reaches the store).
        held_until = time.monotonic() + HOLD_HELLO_SECONDS
        while True:
            try:
                return await self._join(conn, hello)
            except NotFound:
                await self._close(
                    conn, CloseCode.MATCH_NOT_FOUND, ErrorCode.NOT_FOUND, "no such match"
                )
                return False
            except (Unavailable, RedisError, OSError):
                await self._unjoin(conn)
            if not conn.told_degraded:
                conn.told_degraded = True
                conn.send_message(m.Degraded(self.degraded_since or self.matches.now()))
            if time.monotonic() >= held_until:
                await self._close(
                    conn, CloseCode.TRY_AGAIN_LATER, ErrorCode.RETRY_LATER, "storage unavailable"
                )
                return False
            await asyncio.sleep(0.25)

    async def _unjoin(self, conn: Connection) -> None:
        """Undo what a failed :meth:`_join` did in this process."""
        if conn.follower is not None:
            with contextlib.suppress(Exception):
                await self.matches.hub.unfollow(conn.match_id, conn.follower)
            conn.follower = None
        if conn.seat is not None and self.seats.get((conn.match_id, conn.seat)) is conn:
            del self.seats[(conn.match_id, conn.seat)]

    async def _join(self, conn: Connection, hello: m.Hello) -> bool:
        """Seat (or seat as a spectator) an authenticated connection in three Redis round
        trips, because a restart brings every client back at once."""
        match_id = hello.match
        hashes = await self.store.seat_hashes(match_id)
        if hashes is None:
            raise NotFound(match_id)
        if hello.proto < CORRESPONDENCE_VERSION and await self.store.seat_fields(
            match_id, [CORRESPONDENCE_FIELD]
        ) != [None]:
            # A client of an older version could neither read the match's clock nor deposit
            # its reveals (docs/protocol.md, "Correspondence"): refused before it takes a seat.
            await self._close(
                conn,
                CloseCode.UNSUPPORTED_VERSION,
                ErrorCode.UNSUPPORTED_VERSION,
                f"a correspondence match needs protocol version {CORRESPONDENCE_VERSION}",
            )
            return False
        config = None
        if hello.proto < VARIANT_VERSION:
            config = (await self.matches.load(match_id)).config
        if config is not None and config.reserve_ms and hello.proto < RESERVE_VERSION:
            # A version-1 client knows no time reserve: its deadlines would be wrong (docs/
            # protocol.md, "Versions and deprecation"): refused before it takes a seat.
            await self._close(
                conn,
                CloseCode.UNSUPPORTED_VERSION,
                ErrorCode.UNSUPPORTED_VERSION,
                f"a match with a time reserve needs protocol version {RESERVE_VERSION}",
            )
            return False
        if config is not None and config.options.variant.name != "backgammon":
            # A client older than version 5 knows backgammon only (docs/protocol.md,
            # "Variants"): refused before it takes a seat.
            await self._close(
                conn,
                CloseCode.UNSUPPORTED_VERSION,
                ErrorCode.UNSUPPORTED_VERSION,
                f"a {config.options.variant.name} match needs protocol version {VARIANT_VERSION}",
            )
            return False
        if hello.proto < PROTOCOL_VERSION:
            conn.outbox.transform = lambda frame, proto=hello.proto: for_version(frame, proto)
        seat = None
        if hello.token is not None:
            seat = seat_of(hashes, hello.token)
            if seat is None:
                await self._close(
                    conn, CloseCode.AUTH_FAILED, ErrorCode.AUTH_FAILED, "unknown seat token"
                )
                return False
        conn.match_id, conn.seat = match_id, seat
        before = b""
        if seat is not None:
            online = codec.encode(m.Presence(seat, "online", None))
            entry = SeatEntry("online", conn.id)
            conn.generation, before = await self.store.take_seat(match_id, seat, entry, online)
            self._take_seat(conn)
        sink: Sink = conn.outbox
        if hello.proto < CREDIT_VERSION:
            # An event of a kind its version lacks reaches it as a snapshot instead.
            legacy = SnapshotInstead(conn.outbox, hello.proto, lambda: self.connections.spawn(
                self._snapshot_instead(conn, legacy)))  # fmt: skip
            sink = legacy
        conn.follower = Follower(self.store, match_id, sink)
        await self.matches.hub.follow(match_id, conn.follower)
        # Read again after subscribing: every event after this state reaches the follower.
        joining = await self.store.joining(match_id, seat, waiting_gone(before))
        if seat is not None and joining.newest_generation > conn.generation:
            # A newer connection took the seat before this one could hear its notice.
            await self._close(conn, CloseCode.REPLACED, ErrorCode.REPLACED, "a newer connection")
            return False
        state = self.matches.adopt(match_id, joining.stored)
        last_seq = state.last_seq[seat] if seat is not None else 0
        conn.send_message(
            m.Welcome(conn.role, match_id, state.version, self.matches.now(), last_seq or None)
        )
        conn.told_degraded = False  # a welcome means the store is reachable
        if seat is not None:
            self.crashes.seat_back(match_id, seat, before)  # its old process died?
        self._resume(conn, state, hello.last_v, joining.presence)
        now = monotonic_ms()
        conn.probed(now, codec.encode(m.Echo(now)))
        conn.send_message(m.Probe(now))
        metrics.CONNECTIONS.labels(conn.role if seat is None else "player").inc()
        conn.counted = True
        watchers = joining.watchers
        if seat is None:
            # Nothing after the welcome may fail the handshake (it would be welcomed twice).
            with contextlib.suppress(Exception):
                await self.presence.watching(match_id, conn.id, True)
            watchers += 1  # counted just now
        for message in greeting(state, seat, joining.presence, watchers):
            conn.send_message(message)
        conn.follower.release_notices()
        log.info("connected", extra=logs.fields(match=match_id, role=conn.role, conn=conn.id))
        return True

    def _resume(
        self, conn: Connection, state: MatchState, last_v: int | None, presence: RawPresence
    ) -> None:
        """The events after ``last_v`` (fetched by the follower), or a snapshot when the
        client has none or is too far behind."""
        assert conn.follower is not None
        self.rewind.note_resume(conn, last_v, state.version)  # then a snapshot, below
        gap = state.version - last_v if last_v is not None else None
        if gap is not None and 0 <= gap <= self.settings.resume_max_events:
            conn.follower.start(last_v + 1, state.version)  # type: ignore[operator]
            return
        conn.send_message(m.Snapshot(state.version, public_view(state, statuses(presence))))
        conn.follower.start(state.version + 1, state.version)

    async def _snapshot_instead(self, conn: Connection, sink: SnapshotInstead) -> None:
        """A snapshot in place of an event the connection's protocol version lacks (and of
        the events held back meanwhile), as if it had asked ``resync``."""
        try:
            state = await self.matches.load(conn.match_id, fresh=True)
            presence = await self.store.presence(conn.match_id)
        except Exception:  # (the store is lost: the client resumes once it is back)
            await self._close(
                conn, CloseCode.TRY_AGAIN_LATER, ErrorCode.RETRY_LATER, "storage unavailable"
            )
            return
        if conn.closing or conn.follower is None:
            return
        held = sink.taken()
        conn.send_message(m.Snapshot(state.version, public_view(state, statuses(presence))))
        conn.follower.start(state.version + 1, max(state.version, held))

    def _take_seat(self, conn: Connection) -> None:
        assert conn.seat is not None
        key = (conn.match_id, conn.seat)
        old = self.seats.get(key)
        if old is not None and old.generation > conn.generation:
            return  # a newer connection holds the seat: this one is closed by the handshake
        self.seats[key] = conn
        if old is not None and old is not conn:
            self.connections.spawn(self._replace(old))
        # Other processes close theirs on the control note published by Store.take_seat.

    def _seat_taken(self, match_id: str, note: dict[str, Any]) -> None:
        """The control note ``{op: seat, seat, conn, gen}`` of a takeover (Store.take_seat)."""
        old = self.seats.get((match_id, note.get("seat")))
        # A notice can arrive after the seat was taken again (by this process or another):
        # only a newer takeover replaces a connection.
        if old is not None and old.id != note.get("conn") and old.generation < note.get("gen", 0):
            self.connections.spawn(self._replace(old))

    async def _replace(self, old: Connection) -> None:
        if old.seat is not None and self.seats.get((old.match_id, old.seat)) is old:
            del self.seats[(old.match_id, old.seat)]
        await self._close(old, CloseCode.REPLACED, ErrorCode.REPLACED, "a new connection took over")

    # ---------------------------------------------------------------- the session

    async def _serve(self, conn: Connection) -> None:
        # (The allowance and the counts live on the connection: the probe's answer may be
        # taken as it arrives, by Connection.take_echo, which keeps them as this loop does.)
        bucket = conn.bucket = TokenBucket(self.settings.rate_burst, self.settings.rate_per_second)
        while not conn.closing:
            frame = await self._receive(conn)
            if frame is None:
                return
            try:
                message = codec.decode_from_client(
                    frame, max_frame_size=self.settings.max_frame_bytes
                )
            except DecodeError as exc:
                message = None
                error = exc
            # Bad frames count against the rate too; a refused action names its seq so the
            # client can send it again (same seq) a little later.
            if not bucket.take():
                conn.strikes += 1
                if conn.strikes > self.settings.rate_burst:
                    await self._close(
                        conn, CloseCode.RATE_LIMITED, ErrorCode.RATE_LIMITED, "too many frames"
                    )
                    return
                seq = getattr(message, "seq", None) if message else error.seq
                conn.send_message(m.Reject(seq, ErrorCode.RATE_LIMITED, "slow down"))
                continue
            conn.strikes = 0
            if message is None:
                conn.bad_frames += 1
                if conn.bad_frames >= MAX_BAD_FRAMES:
                    detail = f"{conn.bad_frames} undecodable frames in a row: {error.message}"
                    await self._close(conn, CloseCode.PROTOCOL_VIOLATION, error.code, detail)
                    return
                conn.send_message(m.Reject(error.seq, error.code, error.message))
                continue
            conn.bad_frames = 0
            await self._handle(conn, message)

    async def _handle(self, conn: Connection, message: m.ClientMessage) -> None:
        if isinstance(message, m.Ping):
            conn.send_message(m.Pong(message.t, self.matches.now()))
            return
        if isinstance(message, m.Echo):
            conn.heard_echo(message.t, monotonic_ms())
            return
        if isinstance(message, m.Resync):
            state = await self.matches.load(conn.match_id, fresh=True)
            presence = await self.store.presence(conn.match_id)
            self._resume(conn, state, message.last_v, presence)
            return
        if isinstance(message, m.Hello):
            # Well formed, but the connection is past its handshake: refused, like an action
            # in the wrong phase, and the connection stays as it was.
            conn.send_message(
                m.Reject(None, ErrorCode.WRONG_PHASE, "already authenticated: hello comes once")
            )
            return
        handler = self.connections.handler_for(message)
        if handler is not None:  # a feature's (chat's)
            await handler(conn, message)
            return
        seq = message.seq
        if conn.seat is None:
            conn.send_message(m.Reject(seq, ErrorCode.NOT_A_PLAYER, "spectators cannot act"))
            return
        command = to_command(conn.seat, message, conn.rtt_ms)
        conn.acting = seq
        try:
            reply, by_the_rules = await self._submit(conn, command)
        finally:
            unanswered, conn.acting = conn.acting is not None, None
        if not unanswered:
            return  # answered retry_later when the store was lost; its retry gets the answer
        conn.send_message(reply)
        if by_the_rules:
            with contextlib.suppress(Unavailable, RedisError, OSError):
                await self.rewind.after_reject(conn)  # built on versions the store lost?

    async def _submit(self, conn: Connection, command: c.Command) -> tuple[m.Ack | m.Reject, bool]:
        """The answer to a seat's action (applied and stored: ack; or refused), and whether
        the match's rules refused it."""
        seq = command.seq
        try:
            outcome = await self.matches.submit(conn.match_id, command)
        except core.Rejected as exc:
            return m.Reject(seq, ErrorCode(exc.code), exc.message[:200]), True
        except Unavailable:
            return m.Reject(seq, ErrorCode.RETRY_LATER, "storage unavailable"), False
        except NotFound:
            return m.Reject(seq, ErrorCode.NOT_FOUND, "no such match"), False
        version = outcome.version if isinstance(outcome, core.Duplicate) else outcome.state.version
        return m.Ack(seq, version), False

    async def _receive(self, conn: Connection) -> bytes | None:
        """The next binary frame, or None once the connection is closed."""
        conn.receiving = True
        try:
            message = await conn.ws.receive()
        finally:
            conn.receiving = False
        if message["type"] == "websocket.disconnect":
            return None
        conn.heard_ms = monotonic_ms()
        data = message.get("bytes")
        if data is None:
            await self._close(
                conn, CloseCode.UNSUPPORTED_DATA, ErrorCode.UNSUPPORTED, "frames are binary"
            )
            return None
        return data

    async def _close(
        self,
        conn: Connection,
        close: CloseCode,
        code: ErrorCode | None,
        message: str,
        patience: float = CLOSE_TIMEOUT,
    ) -> None:
        """Send ``error{code}`` (unless None) and close with ``close``. A socket that takes
        nothing more (a full buffer, a dead link) is given up on after :data:`CLOSE_TIMEOUT`:
        the connection ends here whether or not the client ever hears of it."""
        if conn.closing:
            return
        conn.closing = True
        try:
            if code is None:
                await self._disconnected(conn)  # nothing more will reach it: away from now on
            else:
                with contextlib.suppress(Exception):
                    conn.send_message(m.Error(code, message))
                    conn.outbox.seal()  # the error is the last frame this connection gets
                    await conn.outbox.drain(1.0)
            try:
                await asyncio.wait_for(
                    conn.ws.close(code=int(close), reason=message[:120]), patience
                )
            except TimeoutError:
                if conn.receiving and conn.task is not None and not conn.task.done():
                    conn.aborted = True
                    conn.task.cancel()
            except Exception:
                pass
        finally:
            conn.closed.set()

    async def _disconnected(self, conn: Connection) -> None:
        if conn.detached:
            return
        conn.detached = True
        self.connections.discard(conn)
        if conn.counted:
            metrics.CONNECTIONS.labels("spectator" if conn.seat is None else "player").dec()
        await conn.outbox.stop()
        if conn.follower is not None:
            await self.matches.hub.unfollow(conn.match_id, conn.follower)
            self.matches.unwatched(conn.match_id)
        if conn.seat is None:
            if conn.follower is not None:
                with contextlib.suppress(Exception):
                    await self.presence.watching(conn.match_id, conn.id, False)
            return
        key = (conn.match_id, conn.seat)
        if self.seats.get(key) is not conn:
            return  # replaced: the new connection speaks for the seat
        del self.seats[key]
        with contextlib.suppress(Exception):
            await self.presence.left(conn.match_id, conn.seat, conn.id)


def to_command(seat: int, msg: m.ClientMessage, lag_ms: int = 0) -> c.Command:
    """The machine command for a decoded action, with the seat from the connection (and its
    measured round trip, ``lag_ms``)."""
    if isinstance(msg, m.Commit):
        return c.Commit(seat, msg.seq, lag_ms=lag_ms, game=msg.game, commitment=msg.commitment)
    if isinstance(msg, m.Recommit):
        return c.Recommit(seat, msg.seq, lag_ms=lag_ms, game=msg.game, commitment=msg.commitment)
    if isinstance(msg, m.Roll):
        return c.Roll(seat, msg.seq, lag_ms=lag_ms, game=msg.game, k=msg.k, reveal=msg.reveal)
    if isinstance(msg, m.Reveal):
        return c.Reveal(seat, msg.seq, lag_ms=lag_ms, game=msg.game, k=msg.k, reveal=msg.reveal)
    if isinstance(msg, m.Double):
        return c.Double(seat, msg.seq, lag_ms=lag_ms, game=msg.game)
    if isinstance(msg, m.Take):
        return c.Take(seat, msg.seq, lag_ms=lag_ms, game=msg.game)
    if isinstance(msg, m.Drop):
        return c.Drop(seat, msg.seq, lag_ms=lag_ms, game=msg.game)
    if isinstance(msg, m.Beaver):
        return c.Beaver(seat, msg.seq, lag_ms=lag_ms, game=msg.game)
    if isinstance(msg, m.Move):
        return c.MovePlay(
            seat, msg.seq, lag_ms=lag_ms, game=msg.game, turn=msg.turn, moves=tuple(msg.moves)
        )
    if isinstance(msg, m.Resign):
        return c.Resign(seat, msg.seq, lag_ms=lag_ms, game=msg.game, level=msg.level)
    if isinstance(msg, m.ResignReply):
        return c.ResignReply(seat, msg.seq, lag_ms=lag_ms, game=msg.game, accept=msg.accept)
    if isinstance(msg, m.Leave):
        return c.Leave(seat, msg.seq, lag_ms=lag_ms)
    if isinstance(msg, m.Stop):
        return c.Stop(seat, msg.seq, lag_ms=lag_ms)
    raise TypeError(f"not an action: {type(msg).__name__}")
