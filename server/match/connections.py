"""This process's WebSocket connections, as the features around a match use them.

The gateway (:mod:`server.match.gateway`) runs each connection — handshake, frames, probes,
close — and owns the process's one :class:`Connections`: it adds a connection when it accepts
its socket and drops it once the connection has ended. A feature that works on live
connections (:mod:`server.match.rewind`, :mod:`server.players.chat`; notifications or
tournaments later) is given that :class:`Connections` and uses only this, never the gateway:

* :meth:`Connections.of_match` — the connections of a match in this process that follow its
  events and are not closing. Each takes frames through its bounded outbox:
  :meth:`Connection.send` (an encoded frame) or :meth:`Connection.send_message`;
* :meth:`Connections.spawn` — run a coroutine in the background (a reference is kept until it
  ends), for work a pub/sub callback or a client's frame must not wait for;
* :meth:`Connections.on_note` — hear the control notes ``{op: <op>, ...}`` that any server
  process publishes on a match's channel (``Store.publish(..., control=True)``, or a script):
  the gateway hears ``seat`` (a takeover), rewind ``rewind``, chat ``chat``. One handler per
  ``op``; a note with another ``op``, or not a map, is ignored;
* :meth:`Connections.on_message` — answer the client messages of some kinds (chat:
  ``chat_send`` and ``chat_sync``): the gateway hands each such message of a welcomed
  connection to the handler, in the connection's order.

Of a :class:`Connection` a feature reads ``match_id``, ``seat``, ``role``, ``address``,
``cookies``, ``follower`` (how far its stream got) and ``closing``; the other fields are the
gateway's bookkeeping.
"""

from __future__ import annotations

import asyncio
import itertools
import secrets
import time
from collections.abc import Awaitable, Callable, Coroutine, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import msgpack
from starlette.websockets import WebSocket

from protocol import codec
from protocol import messages as m
from server.match.hub import Follower, Hub
from server.match.outbox import Outbox
from server.ops import metrics
from server.ops.allowance import TokenBucket

Spawn = Callable[[Coroutine[Any, Any, None]], "asyncio.Task[None]"]
NoteHandler = Callable[[str, dict[str, Any]], None]
"""Called with ``(match id, note)`` for a control note of its ``op``, on the hub's task: it
must not block (it spawns what takes time)."""
MessageHandler = Callable[["Connection", Any], Awaitable[None]]
"""Called with ``(connection, message)`` for a client message of its kinds."""
_PROBE_SLOTS = itertools.count()


def monotonic_ms() -> int:
    """The clock of a connection's bookkeeping (``heard_ms``, ``probe_ms``): monotonic ms."""
    return time.monotonic_ns() // 1_000_000


TAKE_FRAME = "fairgammon.take_frame"
"""The ASGI scope extension (``scope["extensions"][TAKE_FRAME]``) the gateway sets on a
connection's socket: a function ``(frame) -> bool`` that the server's WebSocket protocol
(:mod:`server.web.websocket`) offers each binary frame before it queues it for the
application, while nothing else is queued; True when the frame was handled then and there
(:meth:`Connection.take_echo`)."""


@dataclass(eq=False)
class Connection:
    """One WebSocket: one seat (``seat`` 0 or 1) or one spectator (``seat`` None) of one match."""

    ws: WebSocket
    outbox: Outbox
    id: str = field(default_factory=lambda: secrets.token_hex(8))
    match_id: str = ""
    seat: int | None = None
    follower: Follower | None = None
    """The match's events to this connection (None until it joins); ``next_version - 1`` is
    the newest version it was sent."""
    closing: bool = False
    counted: bool = False
    rtt_ms: int = 0
    """Measured round trip (probe -> echo), smoothed: the lag allowance of this connection."""
    closed: asyncio.Event = field(default_factory=asyncio.Event)
    """Set once the gateway has sent the error and the close frame."""
    # The seat's takeover count when this connection took it: of two connections for a seat,
    # the one with the higher generation is the newer, whatever order notices arrive in.
    generation: int = 0
    heard_ms: int = 0
    """When the last frame arrived from the client (monotonic ms)."""
    probe_slot: int = field(default_factory=lambda: next(_PROBE_SLOTS))
    """Which slice of the connections this one is probed with (modulo their number): the
    connections in turn, so the slices stay even."""
    probe_ms: int | None = None
    """When the probe now awaiting an answer was sent (monotonic ms); answered once a frame
    arrives after it."""
    task: asyncio.Task[Any] | None = None
    """The task serving the connection (aborted when its socket takes nothing more)."""
    receiving: bool = False
    aborted: bool = False
    detached: bool = False
    told_degraded: bool = False
    """Told ``degraded`` and not yet ``restored``."""
    acting: int | None = None
    """The seq of the action now waiting for the store, until it is answered (None: none, or
    it was answered ``retry_later`` when the store was lost meanwhile)."""
    bucket: TokenBucket | None = None
    """The client's frame allowance (every frame takes one), from its welcome on."""
    strikes: int = 0
    """Frames in a row refused for the rate (the gateway closes the connection past a burst)."""
    bad_frames: int = 0
    """Undecodable frames in a row."""
    echo: bytes | None = None
    """The outstanding probe's answer as the reference clients encode it (``echo{t}``), while
    it is awaited: :meth:`take_echo` knows it by its bytes alone."""

    def probed(self, at: int, echo: bytes) -> None:
        """A probe ``{t: at}`` goes out now; ``echo`` is its answer as encoded (``echo{at}``)."""
        self.probe_ms = at
        self.echo = echo

    def heard_echo(self, t: int, now: int) -> None:
        """The answer to the probe sent at ``t`` arrived at ``now`` (monotonic ms): the
        round trip, smoothed so one slow answer does not swing it (the lag allowance, capped
        by the match's); the outstanding probe's answer is no longer awaited if it is this."""
        sample = max(0, now - t)
        self.rtt_ms = sample if not self.rtt_ms else (self.rtt_ms * 3 + sample) // 4
        if t == self.probe_ms:
            self.echo = None

    def take_echo(self, frame: bytes) -> bool:
        """The outstanding probe's answer, handled as it arrives (the :data:`TAKE_FRAME`
        extension): True when ``frame`` is that answer byte for byte and the connection's task
        waits for its next frame with none queued before this one (then the task would only
        do this, and nothing it does can come in between); else False, and the frame goes the
        usual way. It counts as a frame, as there: against the allowance (when none is left
        the usual way refuses it), as a frame heard, and as a good frame."""
        if (
            frame != self.echo
            or not self.receiving
            or self.bad_frames
            or self.bucket is None
            or not self.bucket.take()
        ):
            return False
        now = monotonic_ms()
        self.heard_ms = now
        self.strikes = 0
        assert self.probe_ms is not None  # (an answer is awaited only for a probe sent)
        self.heard_echo(self.probe_ms, now)
        return True

    def send(self, frame: bytes) -> bool:
        return self.outbox.send(frame)

    def send_message(self, message: m.ServerMessage) -> bool:
        if isinstance(message, m.Reject | m.Error):
            metrics.REJECTIONS.labels(message.code.value).inc()
        return self.outbox.send(codec.encode(message))

    @property
    def role(self) -> str:
        return "spectator" if self.seat is None else f"seat{self.seat}"

    @property
    def address(self) -> str | None:
        """The client's address (behind a trusted proxy, the one it forwarded), if known."""
        client = self.ws.client
        return client.host if client else None

    @property
    def cookies(self) -> Mapping[str, str]:
        """The cookies of the upgrade request."""
        return self.ws.cookies


class Connections:
    """This process's connections and what features may do with them (module docstring).
    Built by the gateway, which takes the hub's control notes (``Hub.on_control``) for it."""

    def __init__(self, hub: Hub) -> None:
        self._all: set[Connection] = set()
        self._slices: list[set[Connection]] = []
        """The connections by probe slice (``probe_slot`` modulo their number), once the
        gateway asked for a slice: each probe tick walks its own slice, not every connection."""
        self._tasks: set[asyncio.Task[None]] = set()
        self._notes: dict[str, NoteHandler] = {}
        self._messages: dict[type, MessageHandler] = {}
        hub.on_control = self._heard

    # ---------------------------------------------------------------- kept by the gateway

    def add(self, conn: Connection) -> None:
        self._all.add(conn)
        if self._slices:
            self._slices[conn.probe_slot % len(self._slices)].add(conn)

    def discard(self, conn: Connection) -> None:
        self._all.discard(conn)
        if self._slices:
            self._slices[conn.probe_slot % len(self._slices)].discard(conn)

    def probe_slice(self, index: int, slices: int) -> list[Connection]:
        """The connections of slice ``index`` of ``slices`` (those whose ``probe_slot`` modulo
        ``slices`` is ``index``), welcomed or not, closing or not (a copy).

        >>> conns = Connections(Hub(None, "redis://127.0.0.1:1"))
        >>> for _ in range(5): conns.add(Connection(ws=None, outbox=None))
        >>> sorted(len(conns.probe_slice(i, 2)) for i in range(2))
        [2, 3]
        """
        if len(self._slices) != slices:
            self._slices = [set() for _ in range(slices)]
            for conn in self._all:
                self._slices[conn.probe_slot % slices].add(conn)
        return list(self._slices[index])

    def __iter__(self) -> Iterator[Connection]:
        """Every connection, welcomed or not, closing or not (a copy: safe to change meanwhile)."""
        return iter(list(self._all))

    def __len__(self) -> int:
        return len(self._all)

    def handler_for(self, message: m.ClientMessage) -> MessageHandler | None:
        """The feature that answers ``message`` (:meth:`on_message`), if any."""
        return self._messages.get(type(message))

    # ---------------------------------------------------------------- for features

    def of_match(self, match_id: str) -> list[Connection]:
        """The connections of ``match_id`` here that follow its events and are not closing."""
        return [
            conn for conn in self._all
            if conn.match_id == match_id and not conn.closing and conn.follower is not None
        ]  # fmt: skip

    def spawn(self, work: Coroutine[Any, Any, None]) -> asyncio.Task[None]:
        """Run ``work`` in the background, keeping a reference until it is done."""
        task = asyncio.create_task(work)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return task

    def on_note(self, op: str, handler: NoteHandler) -> None:
        """Hear the control notes ``{op: op, ...}`` of every match followed here."""
        if op in self._notes:
            raise ValueError(f"the control notes {op!r} have a handler already")
        self._notes[op] = handler

    def on_message(self, kinds: tuple[type, ...], handler: MessageHandler) -> None:
        """Answer the client messages of these ``kinds`` (the gateway's own kinds excepted:
        hello, ping, echo, resync and the actions stay the gateway's)."""
        for kind in kinds:
            if kind in self._messages:
                raise ValueError(f"{kind.__name__} messages have a handler already")
            self._messages[kind] = handler

    def _heard(self, match_id: str, payload: bytes) -> None:
        try:
            note = msgpack.unpackb(payload, raw=False)
        except Exception:
            return
        op = note.get("op") if isinstance(note, dict) else None
        handler = self._notes.get(op) if isinstance(op, str) else None
        if handler is not None:
            handler(match_id, note)
