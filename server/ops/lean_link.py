"""A bare, pipelined command connection to one plain Redis, for the store's batched work — its
scripts, the handshake's reads, the index updates (:mod:`server.match.batch`; made by
:func:`server.ops.redis_link.open_link`).

Each stored action runs the commit script once: through redis-py a batch of them took a pooled
connection, a health check, a write and a drain, then read each reply a line at a time (an
await, and often a future, per line). This connection is an :class:`asyncio.Protocol`: a
batch is one ``write`` of commands packed by the caller, and the replies are parsed in
:meth:`_Protocol.data_received` as they arrive (:class:`server.ops.resp.Parser`), every whole
one in a single pass, then handed to their batch's future at once.

Batches are pipelined on the one connection: a batch sent while another waits for its replies
is written behind it, and Redis answers in order (it runs one command at a time, whichever
connection sent it, so nothing waits longer than before). What it keeps of the redis-py path:

* each batch gets its own replies, in order, an error Redis answered for a command as that
  command's :class:`redis.exceptions.ResponseError` (``NOSCRIPT`` as
  :class:`~redis.exceptions.NoScriptError`), once Redis answered: acknowledged means stored;
* a connection that breaks (the store restarted, the socket reset) fails every batch waiting
  on it with redis-py's ``ConnectionError`` (the caller retries once, as the client's own
  retry did: :mod:`server.match.batch`), and the next batch connects again; a store that
  closes its side is noticed at once, where a pooled connection waited for its next use;
* a silent store: a batch without its replies within ``socket_timeout`` raises redis-py's
  ``TimeoutError`` (one timer per connection watches its oldest batch, rather than a timeout
  per batch) and the connection is closed (a half-open link is not kept: the next batch
  connects again; the batches behind it fail as broken and are retried on it). A late reply
  is never read as another batch's either way: replies are matched to batches in order;
* a batch whose caller gave up (cancelled) still has its replies read off the connection, and
  dropped: the batches behind it get their own;
* ``AUTH`` with the URL's user and password, ``SELECT`` of its database.

Only for a plain ``redis://`` URL: TLS, a Unix socket, Sentinel (whose connections ask where
the primary is) and Cluster (routed by slot) keep redis-py's.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.ops.resp import Parser, auth, command, plain


class _Batch:
    __slots__ = ("due", "future", "left", "replies")

    def __init__(self, count: int, future: asyncio.Future[list[Any]], due: float) -> None:
        self.left = count
        self.replies: list[Any] = []
        self.future = future
        self.due = due


class _Protocol(asyncio.Protocol):
    """One socket: writes batches, parses replies, gives each batch its own in order.

    One timer watches the oldest batch still waiting (not one per batch): when it fires and
    that batch is past its ``timeout``, the connection is given up (:meth:`_expire`); else it
    is set again for the batch that is now the oldest."""

    def __init__(self, loop: asyncio.AbstractEventLoop, timeout: float) -> None:
        self.loop = loop
        self.timeout = timeout
        self.transport: asyncio.Transport | None = None
        self.parser = Parser()
        self.waiting: deque[_Batch] = deque()
        self.lost = False
        self._timer: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport

    def send(self, packed: bytes, count: int) -> asyncio.Future[list[Any]]:
        future: asyncio.Future[list[Any]] = self.loop.create_future()
        if count == 0:
            future.set_result([])
            return future
        assert self.transport is not None
        due = self.loop.time() + self.timeout
        self.waiting.append(_Batch(count, future, due))
        if self._timer is None:
            self._timer = self.loop.call_at(due, self._expire)
        self.transport.write(packed)
        return future

    def _expire(self) -> None:
        self._timer = None
        if not self.waiting:
            return
        oldest = self.waiting[0].due
        if oldest > self.loop.time():
            self._timer = self.loop.call_at(oldest, self._expire)
            return
        # The store said nothing for ``timeout``: the batches past their time fail as silent,
        # the others as broken (retried on a fresh connection), and nothing more is read here.
        now = self.loop.time()
        silent = RedisTimeoutError("Timeout talking to the store")
        while self.waiting and self.waiting[0].due <= now:
            future = self.waiting.popleft().future
            if not future.done():
                future.set_exception(silent)
        self._fail(RedisConnectionError("the store did not answer in time"))

    def data_received(self, data: bytes) -> None:
        self.parser.feed(data)
        try:
            replies = self.parser.take()
        except RedisConnectionError as exc:
            self._fail(exc)
            return
        waiting = self.waiting
        for reply in replies:
            if not waiting:
                self._fail(RedisConnectionError("a reply from the store nobody asked for"))
                return
            batch = waiting[0]
            batch.replies.append(reply)
            batch.left -= 1
            if batch.left == 0:
                waiting.popleft()
                if not batch.future.done():  # (its caller may have given up)
                    batch.future.set_result(batch.replies)

    def connection_lost(self, exc: Exception | None) -> None:
        self.lost = True
        self._fail(RedisConnectionError(f"connection to the store lost: {exc!r}"))

    def _fail(self, error: Exception) -> None:
        """Take the connection for broken: every batch waiting on it fails with ``error``."""
        self.lost = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self.transport is not None:
            self.transport.abort()
        while self.waiting:
            future = self.waiting.popleft().future
            if not future.done():
                future.set_exception(error)


class LeanLink:
    """One pipelined command connection (see the module's docstring); connects on first use."""

    def __init__(
        self,
        host: str,
        port: int,
        username: str | None = None,
        password: str | None = None,
        db: int = 0,
        connect_timeout: float = 2.0,
        socket_timeout: float = 5.0,
    ) -> None:
        self.host, self.port = host, port
        hello = []
        if password is not None:
            hello.append(auth(username, password))
        if db:
            hello.append(command("SELECT", db))
        self._hello, self._hello_count = b"".join(hello), len(hello)
        self._connect_timeout = connect_timeout
        self.socket_timeout = socket_timeout
        self._protocol: _Protocol | None = None
        self._connecting: asyncio.Lock | None = None

    async def exchange(self, packed: bytes, count: int) -> list[Any]:
        """Write ``packed`` (``count`` commands) and return their ``count`` replies, each its
        value or the :class:`ResponseError` Redis answered. Raises redis-py's
        ``ConnectionError`` (broken, or no connection) or ``TimeoutError`` (silent)."""
        protocol = self.ready() or await self._connect()
        return await protocol.send(packed, count)  # (timed by the protocol's watch)

    def ready(self) -> _Protocol | None:
        """The connection, when it is up (on the running loop) and a batch can be written on
        it at once with :meth:`_Protocol.send` (its future gives the replies, or fails as
        :meth:`exchange` raises); None when :meth:`exchange` must connect first."""
        protocol = self._protocol
        if protocol is None or protocol.lost or protocol.loop is not asyncio.get_running_loop():
            return None
        return protocol

    async def _connect(self) -> _Protocol:
        if self._connecting is None:
            self._connecting = asyncio.Lock()
        async with self._connecting:
            protocol = self._protocol
            loop = asyncio.get_running_loop()
            if protocol is not None and not protocol.lost and protocol.loop is loop:
                return protocol  # another batch connected meanwhile
            if protocol is not None and protocol.transport is not None:
                protocol.transport.abort()
            self._protocol = None
            try:
                async with asyncio.timeout(self._connect_timeout):
                    _, protocol = await loop.create_connection(
                        lambda: _Protocol(loop, self.socket_timeout), self.host, self.port
                    )
            except (OSError, TimeoutError) as exc:
                raise RedisConnectionError(f"cannot reach the store: {exc!r}") from exc
            if self._hello:
                try:
                    replies = await protocol.send(self._hello, self._hello_count)
                except RedisTimeoutError:
                    raise RedisConnectionError("the store did not answer AUTH/SELECT") from None
                error = next((r for r in replies if isinstance(r, ResponseError)), None)
                if error is not None:
                    protocol._fail(RedisConnectionError("refused"))
                    raise RedisConnectionError(f"the store refused the connection: {error}")
            self._protocol = protocol
            return protocol

    async def aclose(self) -> None:
        protocol, self._protocol = self._protocol, None
        if protocol is not None and protocol.transport is not None:
            protocol.transport.close()
            await asyncio.sleep(0)  # (the transport closes on the loop's next turn)


def lean_link(url: str, connect_timeout: float, socket_timeout: float) -> LeanLink | None:
    """A bare command connection to the Redis at ``url``, or None where redis-py's must serve
    (TLS, a Unix socket: anything but a plain ``redis://`` host and port)."""
    where = plain(url)
    if where is None:
        return None
    return LeanLink(*where, connect_timeout=connect_timeout, socket_timeout=socket_timeout)
