"""A bound on the time a client may take to send a whole HTTP request.

uvicorn has no such timeout: a client that sends its request (a WebSocket upgrade included) one
byte at a time holds a connection for as long as it likes, and an ASGI application only ever
sees complete request heads, so it cannot help. This is uvicorn's own h11 protocol with one
timer more: from the first byte of a request (or the opening of the connection) until the
request is complete (head and body; for a WebSocket upgrade, the head), at most
``FAIRGAMMON_REQUEST_TIMEOUT_SECONDS`` (10 s by default). A client that is slower gets
``408 Request Timeout`` and the connection is closed, as nginx does with
``client_header_timeout``. Idle keep-alive connections are uvicorn's business (5 s).

And one rule more: a connection whose request was answered before its body was read to the end
(a body over the limit of :mod:`server.web.http_input`, or a refusal that never looked at the body)
reads nothing more. Once the answer is written the server half-closes it (the client sees the
whole answer, then the end of the stream) and closes it :data:`LINGER_SECONDS` later, still
without reading: a client that goes on sending fills the kernel's buffers, then gets a reset.
uvicorn alone would go on reading the rest of the body, to throw it away, for as long as the
client sends it. (Closing at once would reset the connection while the answer may still be on
its way: the client could lose it.)

``fairgammon serve`` passes this class as uvicorn's ``http`` protocol.
"""

from __future__ import annotations

import asyncio
import os

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol

from server.ops import logs
from server.web.websocket import parsed_upgrade

log = logs.get("http")

DEFAULT_TIMEOUT = 10.0
TIMEOUT_VARIABLE = "FAIRGAMMON_REQUEST_TIMEOUT_SECONDS"
LINGER_SECONDS = 1.0
_BODY = b"the request took too long to arrive\n"
_RESPONSE = (
    b"HTTP/1.1 408 Request Timeout\r\ncontent-type: text/plain; charset=utf-8\r\n"
    b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(_BODY)
) + _BODY


def request_timeout() -> float:
    """The bound in seconds (each worker reads it from its environment, like the settings)."""
    raw = os.environ.get(TIMEOUT_VARIABLE, "")
    return float(raw) if raw else DEFAULT_TIMEOUT


class GuardedH11Protocol(H11Protocol):
    """uvicorn's h11 protocol, closing requests that take longer than the bound to arrive."""

    def __init__(self, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self._request_timeout = request_timeout()
        self._request_timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.transport.is_closing() or self.transport.get_protocol() is not self:
            self._disarm()  # closed, or handed over to the WebSocket protocol
        elif self.conn.their_state in (h11.IDLE, h11.SEND_BODY):
            self._arm()  # a request has begun and is not complete yet
        else:
            self._disarm()

    def on_response_complete(self) -> None:
        if self.conn.their_state is not h11.SEND_BODY or self.transport.is_closing():
            super().on_response_complete()
            return
        # Answered before the body was read to its end: the rest is never read.
        self.server_state.total_requests += 1
        self._disarm()
        self.flow.pause_reading()
        if self.transport.can_write_eof():  # (plain TCP can; the server speaks no TLS)
            self.transport.write_eof()  # after what is buffered: the whole answer
        self.loop.call_later(LINGER_SECONDS, self.transport.close)

    def handle_websocket_upgrade(self, event: h11.Request) -> None:
        self._disarm()  # the head is complete; the WebSocket has its own handshake timeout
        upgraded = getattr(self.ws_protocol_class, "upgraded", None)
        request = parsed_upgrade(event.method, event.target, self.headers) if upgraded else None
        if request is None:
            super().handle_websocket_upgrade(event)
            return
        # What uvicorn does, handing over the parsed request instead of its bytes to parse
        # again (server.web.websocket).
        self.connections.discard(self)
        protocol = self.ws_protocol_class(  # type: ignore[call-arg, misc]
            config=self.config, server_state=self.server_state, app_state=self.app_state
        )
        protocol.connection_made(self.transport)
        self.transport.set_protocol(protocol)
        protocol.upgraded(request)

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def _arm(self) -> None:
        if self._request_timer is None:
            self._request_timer = self.loop.call_later(self._request_timeout, self._expired)

    def _disarm(self) -> None:
        if self._request_timer is not None:
            self._request_timer.cancel()
            self._request_timer = None

    def _expired(self) -> None:
        self._request_timer = None
        if self.transport.is_closing() or self.conn.their_state not in (h11.IDLE, h11.SEND_BODY):
            return
        if self.cycle is not None and not self.cycle.response_complete:
            # The application is reading a body that does not come: it gets a disconnect.
            self.cycle.disconnected = True
            self.cycle.message_event.set()
        log.info(
            "request too slow: closed",
            extra=logs.fields(client=self.client[0] if self.client else None),
        )
        if self.cycle is None or not self.cycle.response_started:
            self.transport.write(_RESPONSE)
        self.transport.close()
