"""A lean WebSocket client connection: an asyncio ``Protocol`` around websockets' sans-I/O
``ClientProtocol``, with no task per connection.

The load generator holds tens of thousands of sockets in one process; the asyncio client of
``websockets`` (what :class:`protocol.client.MatchClient` uses) runs a reader task and a
keepalive task per connection and wakes a coroutine for every frame. Here a frame is one
callback: ``on_frame(bytes)``; the owner sends with :meth:`WsConn.send`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

from websockets.client import ClientProtocol
from websockets.frames import Opcode
from websockets.http11 import Response
from websockets.protocol import State
from websockets.uri import parse_uri


class WsConn(asyncio.Protocol):
    """One WebSocket connection. Callbacks: ``on_open(conn)``, ``on_frame(data)``,
    ``on_close(conn, code)`` (``code`` None when the TCP connection was lost without a close frame,
    or when the upgrade failed)."""

    def __init__(
        self,
        url: str,
        on_open: Callable[[WsConn], None],
        on_frame: Callable[[bytes], None],
        on_close: Callable[[WsConn, int | None], None],
    ) -> None:
        self.ws = ClientProtocol(parse_uri(url), max_size=1 << 20)
        self.on_open = on_open
        self.on_frame = on_frame
        self.on_close = on_close
        self.transport: asyncio.Transport | None = None
        self.open = False
        self._closed = False

    # ---------------------------------------------------------------- asyncio.Protocol

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport  # type: ignore[assignment]
        self.ws.send_request(self.ws.connect())
        self._flush()

    def data_received(self, data: bytes) -> None:
        ws = self.ws
        ws.receive_data(data)
        for event in ws.events_received():
            if isinstance(event, Response):
                if ws.handshake_exc is not None:
                    self.abort()
                    return
                self.open = True
                self.on_open(self)
            elif event.opcode is Opcode.BINARY:
                self.on_frame(event.data)
        self._flush()
        if ws.close_expected() and self.transport is not None:
            self.transport.close()

    def eof_received(self) -> bool | None:
        self.ws.receive_eof()
        self._flush()
        return None

    def connection_lost(self, exc: Exception | None) -> None:
        self.open = False
        if not self._closed:
            self._closed = True
            rcvd = self.ws.close_rcvd
            self.on_close(self, rcvd.code if rcvd is not None else None)

    # ---------------------------------------------------------------- sending

    def send(self, frame: bytes) -> bool:
        if self.ws.state is not State.OPEN or self.transport is None:
            return False
        if self.transport.is_closing():
            return False
        self.ws.send_binary(frame)
        self._flush()
        return True

    def close(self) -> None:
        if self.open:
            self.ws.send_close(1000)
            self._flush()
        elif self.transport is not None:
            self.transport.close()

    def abort(self) -> None:
        """Cut the TCP connection with no close frame (what a network failure looks like)."""
        self.open = False
        if self.transport is not None:
            self.transport.abort()

    def _flush(self) -> None:
        transport = self.transport
        if transport is None:
            return
        for data in self.ws.data_to_send():
            if data:
                transport.write(data)
            elif transport.can_write_eof():
                transport.write_eof()
