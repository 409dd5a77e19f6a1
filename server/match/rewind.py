"""When the store is behind what clients were shown: writes lost in a failover.

A Redis replica promoted while it was behind its primary (Sentinel, a cluster failover, an
operator's ``REPLICAOF NO ONE``), or a Redis restarted from an old snapshot, has lost the last
writes: clients may hold events, and versions, that the store no longer has. Left alone they
stall — their next action is built on a state that does not exist, and the store's new events
reuse versions they think they have.

This module notices it and brings those connections back to what the store holds. A loss is
counted only on the server's own evidence — versions this process sent its connections, or
knew the store held (:mod:`server.match.high_water`) — never on a client's word:

* at a handshake or resume: the client's ``last_v`` is ahead of the stored version
  (:meth:`Rewind.note_resume`). The gateway sends it a snapshot either way (as for any client
  too far away); it is an incident only when this process itself knew a version beyond the
  stored one. Otherwise the claim is unconfirmed: a warning (at most one per
  :data:`QUIET_SECONDS`, with a count of those left out) and
  ``fairgammon_unconfirmed_ahead_total``, since any client, anonymous spectators included, can
  send any ``last_v``;
* after this process found the store again following an outage, or found another Redis
  answering its heartbeat (:attr:`server.match.clock.ServerClock.on_new_instance`: a restart or a
  failover too quick for a beat to fail) (:meth:`Rewind.audit`): every match it saw stored in the
  :data:`AUDIT_LOOKBACK_SECONDS` before is checked against the store, so the process that
  acknowledged the lost writes counts them even when its clients have gone to another
  process;
* when a match channel's pub/sub connection comes back after a break (as after any failover)
  and the store is behind what this process's connections of the match were sent
  (:attr:`server.match.hub.Hub.on_behind`);
* in a commit: the compare-and-set finds a stored version older than the state the
  transition was computed from (versions never go back otherwise);
* on a refused action: this connection was sent versions the store does not have
  (:meth:`Rewind.after_reject`): it gets a snapshot of the stored state, and a control note on the
  match channel tells every process to do the same for its own connections of the match
  (:meth:`Rewind.on_note`).

Each such incident is logged (``store behind clients: writes lost``, with the match, both
versions and where it was seen) and counted in ``fairgammon_lost_writes_total{seen=...}``
(``resume``, ``audit``, ``gap``, ``commit``, ``action``, ``note``); ``resume`` and ``audit``
count a match's loss once per process. Play goes on from the stored state; the events that
were lost are gone for good.

:class:`Rewind` works through the process's connections (:mod:`server.match.connections`): it
finds a match's connections there, sends them their snapshot, spawns its reads of the store and
hears the other processes' notes; the gateway, which owns them, builds it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import msgpack

from protocol import messages as m
from server.machine.view import public_view
from server.match.connections import Connection, Connections
from server.match.presence import statuses
from server.match.service import MatchService
from server.ops import logs, metrics

log = logs.get("rewind")
T = TypeVar("T")

OP = "rewind"
"""The control note's ``op``: ``{op: rewind, v: <stored version>}``."""
QUIET_SECONDS = 10.0
"""At most one warning about unconfirmed claims per this long (per process)."""
AUDIT_LOOKBACK_SECONDS = 600.0
"""How far before an outage :func:`audit` looks: every live match moves within a move clock
(at most 10 minutes), and a failover loses only the writes of the last moments before it."""
AUDIT_BATCH = 500
ATTEMPTS, RETRY_SECONDS = 20, 0.25
"""A read of the store after an outage is tried this often, this far apart (5 s in all)."""


class Quiet:
    """Let one message through per ``every`` seconds; count the others.

    >>> q = Quiet(10.0)
    >>> q.ready(0.0), q.ready(5.0), q.ready(6.0), q.ready(10.0), q.left_out
    (True, False, False, True, 2)
    """

    def __init__(self, every: float) -> None:
        self.every = every
        self.left_out = 0
        self._last: float | None = None
        self._pending = 0

    def ready(self, now: float | None = None) -> bool:
        """True when a message may go out now; :attr:`left_out` then says how many did not
        since the last one."""
        now = time.monotonic() if now is None else now
        if self._last is not None and now - self._last < self.every:
            self._pending += 1
            return False
        self._last, self.left_out, self._pending = now, self._pending, 0
        return True


_unconfirmed = Quiet(QUIET_SECONDS)


def incident(match_id: str, client_version: int, stored_version: int, seen: str) -> None:
    """Log and count one loss found: ``client_version`` is the newest version clients were
    shown (as this process knows it), ``stored_version`` what the store holds now."""
    metrics.LOST_WRITES.labels(seen).inc()
    log.error(
        "store behind clients: writes lost",
        extra=logs.fields(
            match=match_id, client_version=client_version, stored_version=stored_version,
            lost=client_version - stored_version, seen=seen,
        ),
    )  # fmt: skip


class Rewind:
    """Rewind for this process's connections (module docstring). From its construction it
    hears the hub's gaps (:attr:`server.match.hub.Hub.on_behind`) and the other processes'
    notes (``op`` :data:`OP`, through :meth:`Connections.on_note`); the gateway calls
    :meth:`note_resume`, :meth:`audit` and :meth:`after_reject`."""

    def __init__(self, matches: MatchService, connections: Connections) -> None:
        self.matches = matches
        self.store = matches.store
        self.known = matches.hub.known
        self.connections = connections
        matches.hub.on_behind = self.store_behind
        connections.on_note(OP, self.on_note)

    def note_resume(self, conn: Connection, last_v: int | None, stored: int) -> None:
        """A client resumes from ``last_v``, maybe ahead of the store at ``stored`` (the
        gateway then sends a snapshot, as to any client too far away). That is an incident
        only when this process knew a version beyond ``stored`` itself; else the claim is
        logged (quietly) and counted as unconfirmed."""
        if last_v is None or last_v <= stored:
            return
        match_id = conn.match_id
        version = self.known.behind(match_id, stored)
        if version is not None:
            self.lost(match_id, version, stored, "resume")
            return
        fields = logs.fields(
            match=match_id, role=conn.role, claimed=last_v, stored_version=stored,
            client=conn.address,
        )  # fmt: skip
        if self.known.settled(match_id):
            log.info("client ahead of the store: this loss is counted already", extra=fields)
            return
        metrics.UNCONFIRMED_AHEAD.labels("spectator" if conn.seat is None else "seat").inc()
        if _unconfirmed.ready():
            fields["fields"]["left_out"] = _unconfirmed.left_out
            log.warning(
                "client claims a version beyond the store: unconfirmed, not counted", extra=fields
            )

    def lost(self, match_id: str, known: int, stored: int, seen: str) -> None:
        """This process knew ``known`` of a match the store now has at ``stored``: one
        incident. The match's cached state (as new as what was lost) is dropped, so the next
        command meets the stored state instead of failing its compare-and-set."""
        self.known.settle(match_id, stored)
        self.matches.forget(match_id)
        incident(match_id, known, stored, seen)

    async def audit(self, since: float) -> None:
        """The store is reachable again after an outage that began at ``since`` (monotonic):
        count every match this process saw stored at a version the store no longer has."""
        raised = self.known.raised_since(since - AUDIT_LOOKBACK_SECONDS)
        for start in range(0, len(raised), AUDIT_BATCH):
            batch = raised[start : start + AUDIT_BATCH]
            stored = await _read(lambda b=batch: self.store.versions(b), "audit failed")
            if stored is None:
                return
            for match_id, version in zip(batch, stored, strict=True):
                if version is None:
                    continue
                behind = self.known.behind(match_id, version)
                if behind is not None:
                    self.lost(match_id, behind, version, "audit")

    async def after_reject(self, conn: Connection) -> bool:
        """After refusing ``conn``'s action: if it was shown versions the store does not have,
        bring it (and, through a control note, every connection of the match) back to the
        stored state. True when it was ahead."""
        sent = sent_version(conn)
        if sent is None or sent <= (await self.matches.load(conn.match_id)).version:
            return False  # the usual case, without a read: the cached state is never older
        state = await self.matches.load(conn.match_id, fresh=True)
        if sent <= state.version:
            return False
        incident(conn.match_id, sent, state.version, "action")
        await self._realign([conn], state)
        await self._tell_others(conn.match_id, state.version)
        return True

    def store_behind(self, match_id: str, stored: int, seen: str) -> None:
        """The store was found at ``stored``, behind what this process had: on a pub/sub gap
        (``gap``; each process sees its own) or in a commit whose compare-and-set found an
        older version than the state it was computed from (``commit``; other processes are
        told)."""
        self.on_note(match_id, {"v": stored}, seen)
        if seen == "commit":
            self.connections.spawn(self._tell_others(match_id, stored))

    async def _tell_others(self, match_id: str, stored: int) -> None:
        note = msgpack.packb({"op": OP, "v": stored})
        await self.store.publish(match_id, note, control=True)

    def on_note(self, match_id: str, note: dict[str, Any], seen: str = "note") -> None:
        """A process found the match's store behind its clients: realign this process's
        connections of the match that are ahead of ``note["v"]``."""
        stored = note.get("v")
        if not isinstance(stored, int):
            return
        conns = self.connections.of_match(match_id)
        ahead = [c for c in conns if (sent_version(c) or 0) > stored]
        if ahead:
            self.connections.spawn(self._realign_loaded(match_id, ahead, seen))

    async def _realign_loaded(self, match_id: str, conns: list[Connection], seen: str) -> None:
        state = await _read(
            lambda: self.matches.load(match_id, fresh=True), "realign failed", match=match_id
        )
        if state is None:
            return
        for conn in conns:
            sent = sent_version(conn)
            if sent is not None and sent > state.version:
                incident(match_id, sent, state.version, seen)
        await self._realign(conns, state)

    async def _realign(self, conns: list[Connection], state: Any) -> None:
        """A snapshot of the stored state; the stream goes on from the stored version."""
        presence = await self.store.presence(state.match_id)
        snapshot = m.Snapshot(state.version, public_view(state, statuses(presence)))
        for conn in conns:
            sent = sent_version(conn)
            if conn.follower is None or sent is None or sent <= state.version:
                continue
            conn.send_message(snapshot)
            conn.follower.rewind(state.version + 1)


def sent_version(conn: Connection) -> int | None:
    """The newest version this connection was sent (None before its stream started)."""
    follower = conn.follower
    if follower is None or follower.next_version is None:
        return None
    return follower.next_version - 1


async def _read(read: Callable[[], Awaitable[T]], failed: str, **fields: Any) -> T | None:
    """``read()``, tried again every :data:`RETRY_SECONDS` while it fails (right after an
    outage or a failover the store may not answer yet, or flap) up to :data:`ATTEMPTS` times;
    None (and a warning ``failed``) when it never answered."""
    for attempt in range(ATTEMPTS):
        try:
            return await read()
        except Exception as exc:
            if attempt == ATTEMPTS - 1:
                log.warning(failed, extra=logs.fields(**fields, error=repr(exc)))
                return None
            await asyncio.sleep(RETRY_SECONDS)
    return None
