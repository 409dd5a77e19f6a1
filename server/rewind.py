"""When the store is behind what clients were shown: writes lost in a failover.

A Redis replica promoted while it was behind its primary (Sentinel, a cluster failover, an
operator's ``REPLICAOF NO ONE``) has lost the primary's last writes: clients may hold events,
and versions, that the store no longer has. Left alone they stall — their next action is built
on a state that does not exist, and the store's new events reuse versions they think they have.

This module notices it and brings those connections back to what the store holds:

* at a handshake or resume: the client's ``last_v`` is ahead of the stored version
  (:func:`note_resume`; the gateway then sends a snapshot, as for any client too far away);
* when a match channel's pub/sub connection comes back after a break (as after any failover)
  and the store is behind what this process's connections of the match were sent
  (:attr:`server.hub.Hub.on_behind`);
* in a commit: the compare-and-set finds a stored version older than the state the
  transition was computed from (versions never go back otherwise);
* on a refused action: this connection was sent versions the store does not have
  (:func:`after_reject`): it gets a snapshot of the stored state, and a control note on the
  match channel tells every process to do the same for its own connections of the match
  (:func:`on_note`).

Each such incident is logged (``store behind clients: writes lost``, with the match, both
versions and where it was seen) and counted in ``fairgammon_lost_writes_total{seen=...}``
(``resume``, ``gap``, ``commit``, ``action``, ``note``).
Play goes on from the stored state; the events that were lost are gone for good.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

import msgpack

from protocol import messages as m
from server import logs, metrics
from server.machine.view import public_view
from server.presence import statuses

if TYPE_CHECKING:
    from server.gateway import Connection, Gateway

log = logs.get("rewind")

OP = "rewind"
"""The control note's ``op``: ``{op: rewind, v: <stored version>}``."""


def incident(match_id: str, client_version: int, stored_version: int, seen: str) -> None:
    """Log and count one connection found ahead of the store."""
    metrics.LOST_WRITES.labels(seen).inc()
    log.error(
        "store behind clients: writes lost",
        extra=logs.fields(
            match=match_id, client_version=client_version, stored_version=stored_version,
            lost=client_version - stored_version, seen=seen,
        ),
    )  # fmt: skip


def note_resume(match_id: str, last_v: int | None, stored_version: int) -> bool:
    """A client resumes from ``last_v``: True (and an incident) when the store is behind it."""
    if last_v is None or last_v <= stored_version:
        return False
    incident(match_id, last_v, stored_version, "resume")
    return True


def sent_version(conn: Connection) -> int | None:
    """The newest version this connection was sent (None before its stream started)."""
    follower = conn.follower
    if follower is None or follower.next_version is None:
        return None
    return follower.next_version - 1


async def after_reject(gateway: Gateway, conn: Connection) -> bool:
    """After refusing ``conn``'s action: if it was shown versions the store does not have,
    bring it (and, through a control note, every connection of the match) back to the
    stored state. True when it was ahead."""
    sent = sent_version(conn)
    if sent is None or sent <= (await gateway.matches.load(conn.match_id)).version:
        return False  # the usual case, without a read: the cached state is never older
    state = await gateway.matches.load(conn.match_id, fresh=True)
    if sent <= state.version:
        return False
    incident(conn.match_id, sent, state.version, "action")
    await _realign(gateway, [conn], state)
    await _tell_others(gateway, conn.match_id, state.version)
    return True


def store_behind(gateway: Gateway, match_id: str, stored: int, seen: str) -> None:
    """The store was found at ``stored``, behind what this process had: on a pub/sub gap
    (``gap``; each process sees its own) or in a commit whose compare-and-set found an older
    version than the state it was computed from (``commit``; other processes are told)."""
    on_note(gateway, match_id, {"v": stored}, seen)
    if seen == "commit":
        gateway._spawn(_tell_others(gateway, match_id, stored))


async def _tell_others(gateway: Gateway, match_id: str, stored: int) -> None:
    note = msgpack.packb({"op": OP, "v": stored})
    await gateway.store.publish(match_id, note, control=True)


def on_note(gateway: Gateway, match_id: str, note: dict[str, Any], seen: str = "note") -> None:
    """A process found the match's store behind its clients: realign this process's
    connections of the match that are ahead of ``note["v"]``."""
    stored = note.get("v")
    if not isinstance(stored, int):
        return
    ahead = [
        c for c in list(gateway.connections)
        if c.match_id == match_id and not c.closing and (sent_version(c) or 0) > stored
    ]  # fmt: skip
    if ahead:
        gateway._spawn(_realign_loaded(gateway, match_id, ahead, seen))


async def _realign_loaded(
    gateway: Gateway, match_id: str, conns: list[Connection], seen: str
) -> None:
    for attempt in range(20):
        try:
            state = await gateway.matches.load(match_id, fresh=True)
            break
        except Exception as exc:  # right after a failover the store may not answer yet
            if attempt == 19:
                log.warning("realign failed", extra=logs.fields(match=match_id, error=repr(exc)))
                return
            await asyncio.sleep(0.25)
    for conn in conns:
        sent = sent_version(conn)
        if sent is not None and sent > state.version:
            incident(match_id, sent, state.version, seen)
    await _realign(gateway, conns, state)


async def _realign(gateway: Gateway, conns: list[Connection], state: Any) -> None:
    """A snapshot of the stored state; the stream goes on from the stored version."""
    presence = await gateway.store.presence(state.match_id)
    snapshot = m.Snapshot(state.version, public_view(state, statuses(presence)))
    for conn in conns:
        sent = sent_version(conn)
        if conn.follower is None or sent is None or sent <= state.version:
            continue
        conn.send_message(snapshot)
        conn.follower.rewind(state.version + 1)
