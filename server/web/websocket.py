"""uvicorn's sans-I/O WebSocket protocol, with fewer system calls per frame and a drain.

``fairgammon serve`` passes :class:`FairWebSocketProtocol` as uvicorn's ``ws`` protocol. It is
uvicorn's ``websockets-sansio`` protocol with six changes, all below the ASGI interface (the
application sees the same messages in the same order):

* **The upgrade request is parsed once.** uvicorn's HTTP protocol (h11) parses the request,
  then writes it out again as bytes for the WebSocket protocol to parse a second time. Here
  the HTTP protocol hands over what h11 parsed (:func:`parsed_upgrade`, called by
  :class:`server.web.guard.GuardedH11Protocol`), turned into the request websockets' parser
  would have made of those bytes; the answer, the scope and everything after are uvicorn's
  and websockets' own. A request that parser could treat otherwise (not ``GET``, a body, more
  headers or longer lines than it takes) takes the old way, byte for byte.
* **Writes are coalesced per loop iteration.** A frame sent by the application is framed at
  once but written to the socket at the end of the event loop's current iteration, together
  with every other frame sent to that socket meanwhile: a resume's welcome, catch-up, probe and
  greeting leave in one ``send`` system call instead of one each, and so do an action's answer
  and its events when they are sent in the same iteration (the events often come back through
  the match's channel an iteration before the store's answer: then they leave in two; holding
  them for the answer saved that write but no measurable CPU, docs/load.md, ninth pass). Order
  is kept (everything goes through the one websockets buffer), and nothing waits longer than
  the iteration that sent it.
* **Reading pauses only when the application falls behind.** uvicorn pauses the socket after
  every received message and resumes it when the application reads it (two ``epoll_ctl`` calls
  per inbound frame); here the socket is paused once ``ws_max_queue`` messages wait unread, and
  resumed when the application has read half of them. The bound on what a client can make the
  server hold is the same.
* **Frames can be written without the ASGI ``send``.** The scope's extension
  :data:`server.match.outbox.SEND_FRAME` is a plain function that frames and buffers one binary
  message at once (written with the rest of the iteration's frames) and answers whether it
  could; when it cannot (the handshake not complete, a close sent, the transport paused for a
  slow reader) the application sends the usual way, which waits. A frame that way skips the
  coroutine chain of Starlette's wrappers and the connection's writer task (the gateway's
  :class:`~server.match.outbox.Outbox` uses it while its queue is empty); order is kept by the
  outbox.
* **A frame can be handled as it arrives.** When the application has set the scope's
  extension :data:`server.match.connections.TAKE_FRAME` (the gateway does, for each match
  socket), each binary message that finds nothing queued before it is offered to that function
  first, and is not queued when it answers True: the answer to the gateway's probe is handled
  there (:meth:`server.match.connections.Connection.take_echo`), without waking the
  connection's task, the way it would have been handled next.
* **A drain instead of closing every socket at once.** On SIGTERM uvicorn stops accepting and
  asks every connection to shut down: its own protocol sends each one ``1012`` at that instant,
  so every client comes back at once (to another process, or to this one restarted). When the
  application has registered a drain (:func:`on_shutdown`; the gateway's
  :meth:`server.match.gateway.Gateway.drain`), the first connection asked to shut down starts
  it and, if it takes them (other server processes are alive to take the clients), the
  connections the application accepted are left to it: it closes them itself, at a pace
  another process can take them at (uvicorn waits for them up to its graceful-shutdown
  timeout). Connections still in their upgrade are refused as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from websockets.datastructures import Headers
from websockets.exceptions import InvalidState
from websockets.http11 import MAX_LINE_LENGTH, MAX_NUM_HEADERS, Request
from websockets.protocol import Protocol

from server.match.connections import TAKE_FRAME
from server.match.outbox import SEND_FRAME


class _Drain:
    """The process's drain, if the application registered one (one per worker process)."""

    def __init__(self) -> None:
        self.hook: Callable[[], bool] | None = None
        self.started: bool | None = None

    def start(self) -> bool:
        """Start the registered drain once; True when it took the connections."""
        if self.hook is None:
            return False
        if self.started is None:
            self.started = self.hook()
        return self.started


_DRAIN = _Drain()


def on_shutdown(drain: Callable[[], bool] | None) -> None:
    """Register the process's drain: called once, at the first connection uvicorn asks to
    shut down, it answers whether it takes the connections (else, or with None registered,
    uvicorn's own shutdown closes them at once)."""
    _DRAIN.hook, _DRAIN.started = drain, None


def parsed_upgrade(
    method: bytes, target: bytes, headers: list[tuple[bytes, bytes]]
) -> Request | None:
    r"""The request websockets' parser makes of the upgrade uvicorn's h11 protocol parsed
    (``headers`` as uvicorn keeps them: names lower-cased, values stripped), or None when
    that parser could see it otherwise (then the request goes the old way, as bytes).

    >>> r = parsed_upgrade(b"GET", b"/ws?x=1", [(b"host", b"h"), (b"x-name", b"caf\xe9")])
    >>> r.path, r.method, r.protocol, list(r.headers.raw_items())
    ('/ws?x=1', 'GET', 'HTTP/1.1', [('host', 'h'), ('x-name', 'café')])
    >>> parsed_upgrade(b"POST", b"/ws", []) is None, parsed_upgrade(b"GET", b"/\xff", []) is None
    (True, True)
    >>> parsed_upgrade(b"GET", b"/ws", [(b"content-length", b"0")]) is None
    True
    """
    # (uvicorn writes "<method> <target> HTTP/1.1"; each header "<name>: <value>")
    if method != b"GET" or len(target) + 16 > MAX_LINE_LENGTH or len(headers) >= MAX_NUM_HEADERS:
        return None
    try:
        path = target.decode("ascii")
    except UnicodeDecodeError:
        return None
    parsed = Headers()
    for name, value in headers:
        if len(name) + len(value) + 8 > MAX_LINE_LENGTH or name in _BODY_HEADERS:
            return None
        # h11 admits only tokens as names and visible characters as values: a subset of
        # what websockets admits, decoded as it decodes them.
        parsed.set_insecure(name.decode("ascii"), value.decode("iso-8859-1"))
    return Request(path, parsed)


_BODY_HEADERS = frozenset({b"content-length", b"transfer-encoding"})
"""Headers websockets' parser checks (a body it refuses): such requests go the old way."""


class FairWebSocketProtocol(WebSocketsSansIOProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._flush_due = False
        self._max_queue = max(1, self.config.ws_max_queue)
        self._extensions: dict[str, Any] = {}

    # ---------------------------------------------------------------- the upgrade

    def upgraded(self, request: Request) -> None:
        """The upgrade request, parsed once (:func:`parsed_upgrade`): what
        :meth:`data_received` does with its bytes, without parsing them again."""
        # websockets' server parser goes on to the frames once it has the request.
        self.conn.parser = Protocol.parse(self.conn)
        next(self.conn.parser)
        self.handle_connect(request)

    def handle_connect(self, event: Request) -> None:
        super().handle_connect(event)
        scope = getattr(self, "scope", None)
        if scope is not None:
            scope["extensions"][SEND_FRAME] = self.send_frame
            self._extensions = scope["extensions"]

    # ---------------------------------------------------------------- writes

    def _open(self) -> bool:
        return (
            self.handshake_complete
            and not self.close_sent
            and self.initial_response is None
            and not self.disconnected
            and self.writable.is_set()
        )

    def _flush_soon(self) -> None:
        if not self._flush_due:
            self._flush_due = True
            self.loop.call_soon(self._flush)

    def send_frame(self, data: bytes) -> bool:
        """Frame and buffer one binary message now (the :data:`SEND_FRAME` extension); False
        when it must go through :meth:`send` instead (which waits, or raises)."""
        if not self._open():
            return False
        try:
            self.conn.send_binary(data)
        except InvalidState:
            return False
        self._flush_soon()
        return True

    async def send(self, message: Any) -> None:
        if message["type"] == "websocket.send" and self._open():
            data = message.get("bytes")
            try:
                if data is not None:
                    self.conn.send_binary(data)
                elif (text := message.get("text")) is not None:
                    self.conn.send_text(text.encode())
                else:
                    return await super().send(message)
            except InvalidState:
                raise ClientDisconnected() from None
            self._flush_soon()
            return None
        # Anything else (accept, close, a paused transport) writes what is buffered first:
        # uvicorn's own send takes the websockets buffer whole, in order.
        return await super().send(message)

    def _flush(self) -> None:
        self._flush_due = False
        data = self.conn.data_to_send()
        if data and not self.transport.is_closing():
            self.transport.write(b"".join(data))

    # ---------------------------------------------------------------- reads

    def send_receive_event_to_app(self) -> None:
        data = self.frames[0] if len(self.frames) == 1 else b"".join(self.frames)
        self.frames = []
        if self.close_sent:
            return  # past websocket.close: reads stay active until the peer's close reply
        if self.curr_msg_data_type == "text":
            try:
                self.queue.put_nowait({"type": "websocket.receive", "text": data.decode()})
            except UnicodeDecodeError:
                self.conn.send_close(1007)
                self.handle_parser_exception()
                return
        else:
            if self.queue.empty() and (take := self._extensions.get(TAKE_FRAME)) and take(data):
                return  # handled as it arrived (the TAKE_FRAME extension)
            self.queue.put_nowait({"type": "websocket.receive", "bytes": data})
        if not self.read_paused and self.queue.qsize() >= self._max_queue:
            self.read_paused = True
            self.transport.pause_reading()

    async def receive(self) -> Any:
        message = await self.queue.get()
        if self.read_paused and self.queue.qsize() <= self._max_queue // 2 and not self.close_sent:
            self.read_paused = False
            self.transport.resume_reading()
        return message

    # ---------------------------------------------------------------- shutdown

    def shutdown(self) -> None:
        if (
            self.handshake_complete
            and self.initial_response is None
            and not self.close_sent
            and not self.disconnected
            and _DRAIN.start()
        ):
            self.stop_keepalive()
            return  # the application closes it, paced (module docstring)
        super().shutdown()
