"""Send the Lua script calls made in one event-loop iteration to Redis together.

Every stored transition is one ``EVALSHA`` of the commit script. Under load many matches
commit at once; sending each call on its own costs a pooled connection, a write and a read
per call in the Redis client, which showed up as the largest single cost of a stored move.
:class:`ScriptBatcher` queues the calls made while the loop runs and sends them together,
non-transactionally. Each script still runs atomically on its own in Redis; only the network
trip is shared, and each caller gets its own result or exception (its reply, or the error
Redis answered for it), once Redis has answered it.

On one plain ``redis://`` Redis the batches go through one bare pipelined connection
(:mod:`server.ops.lean_link`), packed here. On Sentinel's primary the batcher packs the calls
itself into one buffer and writes it on a pooled connection it keeps between batches, under one
timeout for the write and all the replies: redis-py's pipeline took a pooled connection,
started a task for the write and a timeout per reply, and encoded every argument again
(``bench/commit.py``: about 60 us of CPU less per lone commit, 25 us per commit in batches of
three). A broken connection is retried once on a fresh one, as the client's own retry does
(``server.ops.redis_link``). On a Redis Cluster, where each call goes to the node of its slot
(and follows MOVED and ASK), the calls go through redis-py's cluster pipeline.

>>> import asyncio
>>> class FakePipe:
...     def __init__(self): self.calls = []
...     async def __aenter__(self): return self
...     async def __aexit__(self, *exc): pass
...     def execute_command(self, name, sha, n, *keys_and_args): self.calls.append(keys_and_args)
...     async def execute(self, raise_on_error): return [a[-1] * 2 for a in self.calls]
>>> class FakeRedis:
...     def pipeline(self, transaction): return FakePipe()
>>> async def demo():
...     batch = ScriptBatcher(FakeRedis(), "return 1")
...     return await asyncio.gather(batch.call(["k"], [1]), batch.call(["k"], [2]))
>>> asyncio.run(demo())
[2, 4]
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Sequence
from hashlib import sha1
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.ops.lean_link import LeanLink
from server.ops.resp import command, encode

_Script = tuple[Sequence[Any], Sequence[Any]]
"""One script call: its keys and its arguments."""
_Commands = tuple[tuple[Any, ...], ...]
_Sent = asyncio.Future[list[Any]]
"""The replies of a batch written on the bare link (:meth:`_PerIteration._send_at_once`)."""


class _PerIteration:
    """Calls queued during one loop iteration and sent together on the next: each caller
    waits for its own outcome (:meth:`_send_all` gives one per call, a result or an
    exception), and a failure of the whole send reaches every caller.

    Where the bare link is connected (nearly always), a batch costs no task: a callback on the
    next iteration writes it (:meth:`_send_at_once`) and the replies' arrival hands each caller
    its own (:meth:`_outcomes_at_once`). Anything else — no link, a link to connect, a broken
    or silent one, a script Redis lost — is finished by :meth:`_flush` in a task, which does
    what the whole send always did, from the replies already had if there are any (so a
    broken connection is still retried once, not twice)."""

    def __init__(self, link: LeanLink | None, window: float = 0.0) -> None:
        """``link``: the bare connection to the one Redis the calls go through
        (:func:`server.ops.redis_link.open_link`), or None for redis-py's. ``window``: how
        long (seconds) a batch waits after its first call for others to join it; 0, the
        default, sends it on the next loop iteration (``commit_window_ms``: docs/load.md,
        "eleventh pass")."""
        self._link = link
        self._window = window
        self._queue: list[tuple[Any, asyncio.Future[Any]]] = []
        self._tasks: set[asyncio.Task[None]] = set()

    async def _queued(self, call: Any) -> Any:
        loop = asyncio.get_running_loop()
        future: asyncio.Future[Any] = loop.create_future()
        self._queue.append((call, future))
        if len(self._queue) == 1:
            # The first call of this iteration starts the flush; it runs on the loop's next
            # iteration, after every callback ready now has queued its call (or once the
            # window is over: the calls of those iterations share its round trip).
            if self._window > 0:
                loop.call_later(self._window, self._flush_now)
            else:
                loop.call_soon(self._flush_now)
        return await future

    def _flush_now(self) -> None:
        batch, self._queue = self._queue, []
        calls = [call for call, _ in batch]
        try:
            sent = self._send_at_once(calls)
        except Exception as exc:  # (an argument Redis cannot take: every caller hears it)
            _settle(batch, [exc] * len(batch))
            return
        if sent is None:
            self._finish(batch, calls, None)
        else:
            sent.add_done_callback(lambda sent: self._replied(batch, calls, sent))

    def _replied(
        self, batch: list[tuple[Any, asyncio.Future[Any]]], calls: list[Any], sent: _Sent
    ) -> None:
        outcomes = None
        if not sent.cancelled() and sent.exception() is None:
            try:
                outcomes = self._outcomes_at_once(calls, sent.result())
            except Exception as exc:
                outcomes = [exc] * len(batch)
        if outcomes is None:
            self._finish(batch, calls, sent)
        else:
            _settle(batch, outcomes)

    def _finish(
        self, batch: list[tuple[Any, asyncio.Future[Any]]], calls: list[Any], sent: _Sent | None
    ) -> None:
        task = asyncio.get_running_loop().create_task(self._flush(batch, calls, sent))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def _send_at_once(self, calls: list[Any]) -> _Sent | None:
        """The calls written on the connected bare link: the future of their replies; or None
        (no link, or not connected: :meth:`_flush` sends them)."""
        ready = self._link.ready() if self._link is not None else None
        return ready.send(*self._packed(calls)) if ready is not None else None

    def _packed(self, calls: list[Any]) -> tuple[bytes, int]:
        """The calls as Redis commands in one buffer, and how many commands that is."""
        raise NotImplementedError

    def _outcomes_at_once(self, calls: list[Any], replies: list[Any]) -> list[Any] | None:
        """Each caller's outcome from the link's ``replies``, or None when :meth:`_flush` must
        finish the send."""
        return None

    async def _send_all(self, calls: list[Any], sent: _Sent | None = None) -> list[Any]:
        """One outcome per call; ``sent``: the future of the replies of a first write on the
        link (done), when there was one."""
        raise NotImplementedError

    async def _flush(
        self, batch: list[tuple[Any, asyncio.Future[Any]]], calls: list[Any], sent: _Sent | None
    ) -> None:
        try:
            outcomes = await self._send_all(calls, sent)
        except BaseException as exc:
            for _, future in batch:
                if not future.done():
                    future.set_exception(exc)
            if not isinstance(exc, Exception):
                raise
            return
        _settle(batch, outcomes)


def _settle(batch: list[tuple[Any, asyncio.Future[Any]]], outcomes: list[Any]) -> None:
    """Each caller its own outcome (a caller that gave up is skipped)."""
    for (_, future), outcome in zip(batch, outcomes, strict=True):
        if future.done():
            continue
        if isinstance(outcome, Exception):
            future.set_exception(outcome)
        else:
            future.set_result(outcome)


class ScriptBatcher(_PerIteration):
    """Runs one Lua script for many callers, batching the calls of each loop iteration."""

    def __init__(
        self, redis: Any, script: str, link: LeanLink | None = None, window: float = 0.0
    ) -> None:
        super().__init__(link, window)
        self.redis = redis
        self.script = script
        self.sha = sha1(script.encode()).hexdigest()
        # One Redis (or Sentinel's primary): its pool; None on a cluster, where redis-py
        # routes each call to its slot's node.
        self._pool: Any = getattr(redis, "connection_pool", None)
        self._spare: Any = None  # a pooled connection kept between batches (one Redis)
        self._head = b"$7\r\nEVALSHA\r\n$40\r\n%s\r\n" % self.sha.encode()

    async def call(self, keys: Sequence[Any], args: Sequence[Any]) -> Any:
        return await self._queued((keys, args))

    def _packed(self, calls: list[_Script]) -> tuple[bytes, int]:
        return self._pack(calls), len(calls)

    def _outcomes_at_once(self, calls: list[_Script], replies: list[Any]) -> list[Any] | None:
        return None if any(isinstance(r, NoScriptError) for r in replies) else replies

    async def _send_all(self, calls: list[_Script], sent: _Sent | None = None) -> list[Any]:
        results = await self._send(calls, sent)
        if any(isinstance(r, NoScriptError) for r in results):
            # Redis lost its script cache (a restart): load the script and send again the
            # calls that did not run.
            await self.redis.script_load(self.script)
            again = [c for c, r in zip(calls, results, strict=True)
                     if isinstance(r, NoScriptError)]  # fmt: skip
            retried = iter(await self._send(again))
            results = [next(retried) if isinstance(r, NoScriptError) else r for r in results]
        return results

    async def _send(self, calls: list[_Script], sent: _Sent | None = None) -> list[Any]:
        if self._link is not None:  # one plain Redis: the bare pipelined connection
            return await _on_link(self._link, *self._packed(calls), sent)
        pool = self._pool
        if pool is None:  # a cluster
            return await self._send_routed(calls)
        # One Redis (or Sentinel's primary): the calls packed once into one buffer, one
        # connection for the batch, one write, one reply read per call. The connection is
        # kept for the next batch (taking one from the pool and giving it back cost more
        # than the write); a batch sent while another waits for its replies takes another.
        packed = self._pack(calls)
        connection, self._spare = self._spare, None
        if connection is None:
            # (Taken before the wait: a batch ending meanwhile keeps its connection as the
            # spare, which this one must not overwrite — a connection lost to the pool.)
            connection = await pool.get_connection()
        try:
            try:
                return await _exchange(connection, packed, len(calls))
            except RedisConnectionError:
                # As the client's own retry (server.ops.redis_link): once, on a fresh
                # connection. A call that did run before the connection broke fails the
                # retry's compare-and-set.
                await connection.disconnect()
                return await _exchange(connection, packed, len(calls))
        finally:
            if self._spare is None:
                self._spare = connection
            else:
                await pool.release(connection)

    def _pack(self, calls: list[_Script]) -> bytes:
        """The calls as Redis protocol (RESP) commands, in one buffer (what
        :func:`server.ops.resp.command` makes of each, with the script's head made once);
        each argument as :func:`server.ops.resp.encode` makes it."""
        parts: list[bytes] = []
        add = parts.append
        for keys, args in calls:
            add(b"*%d\r\n%s$%d\r\n%d\r\n" % (3 + len(keys) + len(args), self._head,
                                               len(str(len(keys))), len(keys)))  # fmt: skip
            for item in (*keys, *args):
                value = encode(item)
                add(b"$%d\r\n" % len(value))
                add(value)
                add(b"\r\n")
        return b"".join(parts)

    async def _send_routed(self, calls: list[_Script]) -> list[Any]:
        async with self.redis.pipeline(transaction=False) as pipe:
            for keys, args in calls:
                # Not pipe.evalsha: redis-py refuses that name in a cluster pipeline, while
                # the command itself is routed by its keys like any other.
                pipe.execute_command("EVALSHA", self.sha, len(keys), *keys, *args)
            return await pipe.execute(raise_on_error=False)


async def _on_link(
    link: LeanLink, packed: bytes, count: int, sent: _Sent | None = None
) -> list[Any]:
    """``packed`` (``count`` commands) through the bare connection, its replies in order; a
    broken connection is retried once on a fresh one, as the client's own retry does (a commit
    that did run before the break fails the retry's compare-and-set). ``sent``: the done
    future of a first write already made (:meth:`_PerIteration._send_at_once`), if any."""
    try:
        if sent is not None:
            return sent.result()  # type: ignore[no-any-return]
        return await link.exchange(packed, count)
    except RedisConnectionError:
        return await link.exchange(packed, count)


async def _exchange(connection: Any, packed: bytes, replies: int) -> list[Any]:
    """Write ``packed`` on ``connection`` and read ``replies`` replies: each its value, or the
    error Redis answered (a :class:`ResponseError`, as a pipeline gives with
    ``raise_on_error=False``).

    One timeout (the connection's socket timeout) covers the write and every reply, where
    redis-py's own calls start one per write (a task) and per reply. A broken connection raises
    redis-py's ``ConnectionError``, a silent one its ``TimeoutError``; either way the connection
    is closed (its next use connects again)."""
    if not connection.is_connected:
        # connect() itself, as the pool does: a Sentinel's connection asks the Sentinels for
        # the primary there (a write's implicit connect would go back to the old address).
        await connection.connect()
    else:
        await connection.check_health()  # a PING when the connection was idle for long
    results: list[Any] = []
    try:
        async with asyncio.timeout(connection.socket_timeout):
            writer = connection._writer  # (redis-py's stream: one write, no task)
            writer.write(packed)
            await writer.drain()
            for _ in range(replies):
                try:
                    # Timed by the block above, not one timeout per reply.
                    results.append(await connection.read_response(timeout=math.inf))
                except ResponseError as exc:
                    results.append(exc)
    except TimeoutError:
        await connection.disconnect(nowait=True)
        raise RedisTimeoutError("Timeout talking to the store") from None
    except OSError as exc:
        await connection.disconnect(nowait=True)
        raise RedisConnectionError(f"Error talking to the store: {exc!r}") from exc
    except BaseException:
        # Anything else mid-way (cancelled, a broken connection redis-py already closed):
        # what was written may not have been read back, so the connection is not reused.
        await connection.disconnect(nowait=True)
        raise
    return results


class CommandBatcher(_PerIteration):
    """Sends the Redis commands asked for in one loop iteration in one pipeline.

    Each caller gives a few commands (a connection's handshake reads them: the seats hash,
    what it needs once it follows the match) and gets their replies, as from a pipeline of
    its own: in order, or the first error among them raised. In a restart storm thousands of
    handshakes ask at once; sending them together costs one pooled connection, one write and
    one read per loop iteration instead of per handshake. Nothing is atomic across callers
    (nor was it: each caller's own pipeline was not a transaction either), and a caller still
    waits for its replies before it goes on, so the order of its own steps is unchanged.
    """

    def __init__(self, redis: Any, link: LeanLink | None = None, window: float = 0.0) -> None:
        super().__init__(link, window)
        self.redis = redis

    async def run(self, *commands: tuple[Any, ...]) -> list[Any]:
        replies: list[Any] = await self._queued(commands)
        return replies

    def _packed(self, calls: list[_Commands]) -> tuple[bytes, int]:
        packed = b"".join(command(*c) for commands in calls for c in commands)
        return packed, sum(len(commands) for commands in calls)

    def _outcomes_at_once(self, calls: list[_Commands], replies: list[Any]) -> list[Any]:
        return _each_own(calls, replies)

    async def _send_all(self, calls: list[_Commands], sent: _Sent | None = None) -> list[Any]:
        if self._link is not None:
            results = await _on_link(self._link, *self._packed(calls), sent)
        else:
            async with self.redis.pipeline(transaction=False) as pipe:
                for commands in calls:
                    for one in commands:
                        pipe.execute_command(*one)
                results = await pipe.execute(raise_on_error=False)
        return _each_own(calls, results)


def _each_own(calls: list[_Commands], results: list[Any]) -> list[Any]:
    """Each caller's replies (its share of ``results``), or the first error among them."""
    outcomes: list[Any] = []
    start = 0
    for commands in calls:
        replies = results[start : start + len(commands)]
        start += len(commands)
        # As from a pipeline of its own: the replies in order, or the first error raised.
        error = next((r for r in replies if isinstance(r, Exception)), None)
        outcomes.append(error if error is not None else replies)
    return outcomes
