"""A bare pub/sub connection to one plain Redis, for :mod:`server.match.fanout` (made by
:func:`server.ops.redis_link.open_pubsub`).

Every event a process stores comes back to it on the match's channel (it follows the channels
of its own connections' matches), so the pub/sub reader reads about as many messages as the
process stores events. redis-py's ``PubSub.get_message`` spends about 21 us of CPU on each (its
timeout, its health check, its parser reading a line at a time with an await each; measured
with 40,000 published messages of 154 bytes), several per cent of a stored action. This
connection reads whatever the socket has in one call and parses every whole message in it at
once (:class:`server.ops.resp.Parser`, sans I/O), then hands them out one by one.

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
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from server.ops.resp import Parser, auth, command, plain

READ_BYTES = 65536


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
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._parser = Parser()
        self._ready: deque[Any] = deque()
        self._heard = 0.0
        self._pinged: float | None = None

    async def _connect(self) -> None:
        if self._writer is not None:
            return
        try:
            self._reader, self._writer = await asyncio.wait_for(
                asyncio.open_connection(self.connection.host, self.connection.port),
                self._connect_timeout,
            )
        except (OSError, TimeoutError) as exc:
            raise RedisConnectionError(f"pub/sub connection failed: {exc!r}") from exc
        self._heard = time.monotonic()
        if self._password is not None:
            self._write(auth(self._username, self._password))
            reply = await self._reply()
            if isinstance(reply, ResponseError):
                raise reply

    def _write(self, data: bytes) -> None:
        if self._writer is None or self._writer.is_closing():
            raise RedisConnectionError("pub/sub connection closed")
        self._writer.write(data)

    async def _reply(self) -> Any:
        """The next reply, read with the socket timeout (the connection's set-up only)."""
        while not self._ready:
            await self._fill(self._socket_timeout)
        return self._ready.popleft()

    async def _fill(self, timeout: float) -> bool:
        """Read what the socket has (waiting at most ``timeout``); False if nothing came."""
        assert self._reader is not None
        try:
            async with asyncio.timeout(timeout):
                data = await self._reader.read(READ_BYTES)
        except TimeoutError:
            return False
        except OSError as exc:
            raise RedisConnectionError(f"pub/sub connection lost: {exc!r}") from exc
        if not data:
            raise RedisConnectionError("pub/sub connection closed by the server")
        self._heard = time.monotonic()
        self._pinged = None
        self._parser.feed(data)
        self._ready.extend(self._parser.take())
        return True

    async def ping(self) -> None:
        await self._connect()
        self._write(command("PING"))

    async def subscribe(self, *channels: str) -> None:
        await self._connect()
        self._write(command("SUBSCRIBE", *channels))

    async def unsubscribe(self, *channels: str) -> None:
        self._write(command("UNSUBSCRIBE", *channels))

    async def get_message(self, timeout: float) -> dict[str, Any] | None:
        """The next message (``message``, ``subscribe``, ``unsubscribe``), or None after
        ``timeout`` seconds without one (pongs are not messages)."""
        if not self._ready:
            now = time.monotonic()
            if self._pinged is not None and now - self._pinged > self._socket_timeout:
                raise RedisConnectionError("pub/sub connection silent: no answer to a PING")
            if self._pinged is None and now - self._heard >= self._health_every:
                self._write(command("PING"))
                self._pinged = now
            if not await self._fill(timeout):
                return None
            if not self._ready:
                return None
        reply = self._ready.popleft()
        if isinstance(reply, ResponseError):
            raise reply
        if isinstance(reply, list) and len(reply) == 3:
            kind = reply[0].decode()
            return {"type": kind, "pattern": None, "channel": reply[1], "data": reply[2]}
        return None  # a pong (+PONG before any subscription, [pong, ""] after)

    async def aclose(self) -> None:
        writer, self._writer = self._writer, None
        self._reader = None
        self._ready.clear()
        if writer is not None:
            writer.close()
            with contextlib.suppress(OSError, TimeoutError):
                await asyncio.wait_for(writer.wait_closed(), 1.0)
