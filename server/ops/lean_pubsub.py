"""A bare pub/sub connection to one plain Redis, for :mod:`server.match.fanout` (made by
:func:`server.ops.redis_link.open_pubsub`).

Every event a process stores comes back to it on the match's channel (it follows the channels
of its own connections' matches), so the pub/sub reader reads about as many messages as the
process stores events. redis-py's ``PubSub.get_message`` spends about 21 us of CPU on each (its
timeout, its health check, its parser reading a line at a time with an await each; measured
with 40,000 published messages of 154 bytes), several per cent of a stored action. This
connection is an :class:`asyncio.Protocol`: it parses every whole message in what the socket
gives as it arrives (:class:`server.ops.resp.Parser`, sans I/O) and, when its reader set
:attr:`LeanPubSub.on_message`, hands each message on there and then: no task wakes for it, no
timeout is started. Everything else (confirmations, pongs, errors; the messages too when
nobody set ``on_message``) is read with ``get_message``.

It offers what :class:`server.match.fanout._Node` uses of redis-py's ``PubSub`` (``ping``,
``subscribe``, ``unsubscribe``, ``get_message``, ``aclose``, ``connection``,
``connection_pool``), with the same messages (``{"type", "channel", "data"}``), and only for a
plain ``redis://`` URL: TLS, a Unix socket, Sentinel and Cluster keep redis-py's. It speaks
RESP2 (a subscribed RESP2 connection answers only arrays, ``+PONG`` before the first
subscription, or an error). A password in the URL is sent with ``AUTH``.

Like redis-py's with ``health_check_interval``, it sends a ``PING`` when the connection has
been quiet that long; if nothing at all comes back within ``socket_timeout`` after it, the
connection is taken for dead (:class:`redis.exceptions.ConnectionError`): a node gone without
closing its sockets is noticed. An error Redis answers is raised as
:class:`redis.exceptions.ResponseError`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections import deque
from collections.abc import Callable
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from server.ops import logs
from server.ops.resp import Parser, auth, command, plain

log = logs.get("pubsub")


class _Address:
    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port


class _NoPool:
    async def disconnect(self) -> None:
        return None


def lean_pubsub(
    url: str, socket_connect_timeout: float, socket_timeout: float, health_check_interval: float
) -> LeanPubSub | None:
    """A bare pub/sub connection to the Redis at ``url``, or None where redis-py's must serve
    (TLS, a Unix socket: anything but a plain ``redis://`` host and port). Timeouts in
    seconds, as redis-py's options of the same names."""
    where = plain(url)
    if where is None:
        return None
    return LeanPubSub(
        where.host,
        where.port,
        where.username,
        where.password,
        socket_connect_timeout,
        socket_timeout,
        health_check_interval,
    )


class _Reader(asyncio.Protocol):
    """The socket's side of a :class:`LeanPubSub`: parses what arrives, pushes the messages
    on, keeps the rest for ``get_message``."""

    def __init__(self, owner: LeanPubSub) -> None:
        self.owner = owner
        self.transport: asyncio.Transport | None = None
        self.closed: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        self.owner._received(data)

    def connection_lost(self, exc: Exception | None) -> None:
        if exc is None:
            self.owner._lost(RedisConnectionError("pub/sub connection closed by the server"))
        else:
            self.owner._lost(RedisConnectionError(f"pub/sub connection lost: {exc!r}"))
        if not self.closed.done():
            self.closed.set_result(None)


class LeanPubSub:
    """One pub/sub connection (see the module's docstring)."""

    def __init__(
        self,
        host: str,
        port: int,
        username: str | None,
        password: str | None,
        connect_timeout: float,
        socket_timeout: float,
        health_check_interval: float,
    ) -> None:
        self.connection = _Address(host, port)
        self.connection_pool = _NoPool()
        self._username, self._password = username, password
        self._connect_timeout = connect_timeout
        self._socket_timeout = socket_timeout
        self._health_every = health_check_interval
        self._reader: _Reader | None = None
        self._parser = Parser()
        self._ready: deque[Any] = deque()
        self._waiter: asyncio.Future[None] | None = None
        self._error: Exception | None = None
        self._heard = 0.0
        self._pinged: float | None = None
        self.on_message: Callable[[bytes, bytes], None] | None = None
        """Given each message (its channel and data) as it is read, when set: it must not
        raise or block. Unset, messages come out of :meth:`get_message`."""

    async def _connect(self) -> None:
        if self._reader is not None:
            return
        loop = asyncio.get_running_loop()
        try:
            _, reader = await asyncio.wait_for(
                loop.create_connection(
                    lambda: _Reader(self), self.connection.host, self.connection.port
                ),
                self._connect_timeout,
            )
        except (OSError, TimeoutError) as exc:
            raise RedisConnectionError(f"pub/sub connection failed: {exc!r}") from exc
        self._reader = reader
        self._heard = time.monotonic()
        if self._password is not None:
            self._write(auth(self._username, self._password))
            reply = await self._reply()
            if isinstance(reply, ResponseError):
                raise reply

    def _write(self, data: bytes) -> None:
        reader = self._reader
        if reader is None or reader.transport is None or reader.transport.is_closing():
            raise RedisConnectionError("pub/sub connection closed")
        reader.transport.write(data)

    def _received(self, data: bytes) -> None:
        self._heard = time.monotonic()
        self._pinged = None
        self._parser.feed(data)
        try:
            replies = self._parser.take()
        except RedisConnectionError as exc:
            self._lost(exc)
            if self._reader is not None and self._reader.transport is not None:
                self._reader.transport.abort()
            return
        push = self.on_message
        for reply in replies:
            if (
                push is not None
                and type(reply) is list
                and len(reply) == 3
                and reply[0] == b"message"
            ):
                try:
                    push(reply[1], reply[2])
                except Exception as exc:  # (its own fault: the connection reads on)
                    log.warning("pub/sub message not taken", extra=logs.fields(error=repr(exc)))
            else:
                self._ready.append(reply)
        if self._ready:
            self._wake()

    def _lost(self, error: Exception) -> None:
        if self._error is None:
            self._error = error
        self._wake()

    def _wake(self) -> None:
        waiter, self._waiter = self._waiter, None
        if waiter is not None and not waiter.done():
            waiter.set_result(None)

    async def _reply(self) -> Any:
        """The next reply, read with the socket timeout (the connection's set-up only)."""
        while not self._ready:
            if not await self._fill(self._socket_timeout):
                raise RedisConnectionError("pub/sub connection silent")
        return self._ready.popleft()

    async def _fill(self, timeout: float) -> bool:
        """Wait at most ``timeout`` for a reply to read; False if none came."""
        if not self._ready and self._error is None:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                async with asyncio.timeout(timeout):
                    await waiter
            except TimeoutError:
                return False
            finally:
                if self._waiter is waiter:
                    self._waiter = None
        if self._ready:
            return True
        if self._error is not None:
            raise self._error
        return False

    async def ping(self) -> None:
        await self._connect()
        self._write(command("PING"))

    async def subscribe(self, *channels: str) -> None:
        await self._connect()
        self._write(command("SUBSCRIBE", *channels))

    async def unsubscribe(self, *channels: str) -> None:
        self._write(command("UNSUBSCRIBE", *channels))

    async def get_message(self, timeout: float) -> dict[str, Any] | None:
        """The next message (``message`` unless :attr:`on_message` takes them, ``subscribe``,
        ``unsubscribe``), or None after ``timeout`` seconds without one (pongs are not
        messages)."""
        if not self._ready:
            if self._error is not None:
                raise self._error
            now = time.monotonic()
            if self._pinged is not None and now - self._pinged > self._socket_timeout:
                raise RedisConnectionError("pub/sub connection silent: no answer to a PING")
            if self._pinged is None and now - self._heard >= self._health_every:
                self._write(command("PING"))
                self._pinged = now
            if not await self._fill(timeout):
                return None
        reply = self._ready.popleft()
        if isinstance(reply, ResponseError):
            raise reply
        if isinstance(reply, list) and len(reply) == 3:
            kind = reply[0].decode()
            return {"type": kind, "pattern": None, "channel": reply[1], "data": reply[2]}
        return None  # a pong (+PONG before any subscription, [pong, ""] after)

    async def aclose(self) -> None:
        reader, self._reader = self._reader, None
        self._ready.clear()
        self.on_message = None
        if reader is not None and reader.transport is not None:
            reader.transport.close()
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(asyncio.shield(reader.closed), 1.0)
