"""The pub/sub transport under :class:`server.match.hub.Hub`: this process's subscriptions to match
channels, on one Redis or across the shards of a cluster.

A :class:`Feed` keeps one pub/sub connection per node that owns followed channels (one node for
a single Redis; on a cluster, the master of each channel's slot, with ``SSUBSCRIBE``). Each
connection has its own reader, so a node that is down or slow holds up only its own channels.
What arrives is put on one queue for the hub, except the messages, which go straight to
the feed's :attr:`Feed.sink` as they are read once the hub has set it:

* :class:`Message` — a message on a followed channel;
* :class:`Gap` — these channels were deaf for a while (their connection broke and has been
  opened and subscribed again, possibly on another node after a failover): whatever was
  published meanwhile must be fetched from the log.

Why not redis-py's own ``ClusterPubSub`` (its asyncio cluster client has ``ssubscribe`` since
5.x): its ``get_sharded_message`` polls the per-node connections one after the other, each with
the caller's timeout, so an idle node delays the messages of a busy one; and a connection it
re-opens is re-subscribed silently, so nobody learns that messages were missed meanwhile. Here
every node has its own reader and a reconnect is reported as a :class:`Gap`.

On one plain Redis the connection is :mod:`server.ops.lean_pubsub`'s own, which reads the
messages at a fraction of redis-py's cost (a process reads back every event it publishes) and
hands each on as it is read, without waking the node's reader;
:func:`server.ops.redis_link.open_pubsub` decides.

A broken connection is retried with a short backoff; on a cluster every retry first asks the
cluster where the channels' slots are now, so channels follow a failover or a slot migration
(Redis also ends sharded subscriptions itself when their slot moves: an ``sunsubscribe`` we did
not ask for, handled the same way).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError

from server.ops import logs
from server.ops.lean_pubsub import LeanPubSub
from server.ops.redis_link import RedisTarget, connect, open_pubsub, sentinel_primary
from server.ops.tasks import cancel_all

log = logs.get("fanout")

RETRY_SECONDS = (0.05, 0.1, 0.25, 0.5, 1.0)
SUBSCRIBE_CHUNK = 500
"""Most channels named in one SUBSCRIBE command."""


@dataclass(frozen=True, slots=True)
class Message:
    channel: str
    data: bytes


@dataclass(frozen=True, slots=True)
class Gap:
    channels: tuple[str, ...]


class Feed:
    """Subscriptions to channels on ``target``; read with :meth:`next`, or messages handed to
    :attr:`sink` as they are read."""

    def __init__(self, target: RedisTarget) -> None:
        self.target = target
        self.sink: Callable[[Message], None] | None = None
        """Takes each :class:`Message` as its node's reader reads it, when set (it must not
        raise or block); gaps still go to :meth:`next`. A message then costs no queue and no
        wake of the task reading it: a process reads back every event it stores. Messages
        and gaps are no longer in one order then: a follower keeps its stream gap-free by
        itself (:class:`server.match.hub.Follower`)."""
        self._queue: asyncio.Queue[Message | Gap] = asyncio.Queue()
        self._nodes: dict[str, _Node] = {}
        self._home: dict[str, str] = {}  # channel -> node name
        self._cluster: Any = connect(target, max_connections=4) if target.cluster else None
        self._lock = asyncio.Lock()
        self._pending: dict[str, asyncio.Future[None]] = {}  # channel -> its confirmation
        self._batch: list[str] = []  # asked for, not yet being subscribed
        self._batcher: asyncio.Task[None] | None = None

    @property
    def channels(self) -> list[str]:
        return list(self._home)

    async def subscribe(self, *channels: str) -> None:
        """Subscribe ``channels``: confirmed by Redis when this returns, so a state read after it
        misses no later message. The channels asked for by every caller of one event-loop
        iteration are subscribed together, in one command (per node) and one wait for their
        confirmations: a restart's reconnect storm asks for a thousand channels at once, and
        one round trip each in turn would hold every handshake behind all the others."""
        waits = []
        for name in channels:
            future = self._pending.get(name)
            if future is None:
                if name in self._home:
                    continue
                future = self._pending[name] = asyncio.get_running_loop().create_future()
                self._batch.append(name)
                if self._batcher is None:
                    self._batcher = asyncio.create_task(self._subscribe_batch())
            waits.append(future)
        for future in waits:
            await asyncio.shield(future)  # (a caller given up on does not fail the others)

    async def _subscribe_batch(self) -> None:
        async with self._lock:
            batch, self._batch, self._batcher = self._batch, [], None  # later ones: next batch
            try:
                failed = await self._place([c for c in batch if c not in self._home])
            except Exception as exc:
                failed = dict.fromkeys(batch, exc)
        for name in batch:
            future = self._pending.pop(name)
            if future.done():
                continue
            if name in failed:
                future.set_exception(failed[name])
                future.exception()  # retrieved: its callers may all have given up
            else:
                future.set_result(None)

    async def unsubscribe(self, channel: str) -> None:
        async with self._lock:
            name = self._home.pop(channel, None)
            node = self._nodes.get(name) if name else None
            if node is not None:
                await node.drop(channel)

    async def next(self, timeout: float) -> Message | Gap | None:
        """The next message or gap (None after ``timeout`` seconds without one). What is
        queued already is taken without a wait: under load every message is. (A wait is timed
        by ``asyncio.timeout``: ``wait_for`` would start a task for each.)"""
        if not self._queue.empty():
            return self._queue.get_nowait()
        try:
            async with asyncio.timeout(timeout):
                return await self._queue.get()
        except TimeoutError:
            return None

    async def close(self) -> None:
        nodes, self._nodes = list(self._nodes.values()), {}
        for node in nodes:
            await node.close()
        if self._cluster is not None:
            with contextlib.suppress(Exception):
                await self._cluster.aclose()

    # ---------------------------------------------------------------- placement

    async def _place(
        self, channels: list[str], moving_from: _Node | None = None
    ) -> dict[str, Exception]:
        """Subscribe ``channels`` on the nodes that own them now (``moving_from``: the node
        whose reader is asking, which subscribes its own share once it reconnects); the
        channels whose node could not be reached, with the error (that node's reader
        subscribes them when it can)."""
        failed: dict[str, Exception] = {}
        if not channels:
            return failed
        groups: dict[tuple[str, str | None, int | None], list[str]] = {}
        if self._cluster is None:
            groups[("redis", None, None)] = channels
        else:
            if not self._cluster.nodes_manager.slots_cache:
                await self._cluster.initialize()
            for channel in channels:
                node = self._cluster.get_node_from_key(channel)
                groups.setdefault((node.name, node.host, node.port), []).append(channel)
        for (name, host, port), group in groups.items():
            node = self._nodes.get(name)
            if node is None:
                node = self._nodes[name] = _Node(self, name, host, port)
            for channel in group:
                self._home[channel] = name
            if node is moving_from:
                node.channels.update(group)
                continue
            try:
                await node.add(group)
            except Exception as exc:  # that node's reader subscribes them when it can
                failed.update(dict.fromkeys(group, exc))
                continue
            if moving_from is not None:
                self.report(Gap(tuple(group)))
        return failed

    async def _moved(self, node: _Node, channels: Iterable[str]) -> None:
        """``node`` lost these channels (it failed, or their slot moved): ask the cluster
        where they are now and subscribe them there, reporting the gap."""
        async with self._lock:
            mine = [c for c in channels if self._home.get(c) == node.name]
            if not mine:
                return
            with contextlib.suppress(Exception):
                await self._cluster.nodes_manager.initialize()
            for channel in mine:
                del self._home[channel]
                node.channels.discard(channel)
            try:
                await self._place(mine, moving_from=node)
            except Exception as exc:  # no topology now: keep them where they were
                log.warning("channels not placed", extra=logs.fields(error=repr(exc)))
                for channel in mine:
                    self._home[channel] = node.name
                node.channels.update(mine)

    def report(self, item: Message | Gap) -> None:
        """Hand ``item`` to the sink (a message, when there is one) or queue it for
        :meth:`next` (also a :class:`Gap` the hub could not fill yet)."""
        if self.sink is not None and isinstance(item, Message):
            self.sink(item)
        else:
            self._queue.put_nowait(item)


class _Node:
    """One pub/sub connection to one node, with its reader task."""

    def __init__(self, feed: Feed, name: str, host: str | None, port: int | None) -> None:
        self.feed = feed
        self.name = name
        self.host, self.port = host, port
        self.channels: set[str] = set()
        self._leaving: dict[str, int] = {}  # our own unsubscribes not yet confirmed
        self._joining: dict[str, asyncio.Future[None]] = {}  # subscriptions not yet confirmed
        self._pubsub: Any = None
        self._sharded = feed.target.subscribe == "ssubscribe"
        self._task: asyncio.Task[None] | None = None
        self._connected = asyncio.Event()
        self._address: tuple[str, int] | None = None  # where a Sentinel client connected
        self._checked = 0.0

    async def add(self, channels: list[str], wait: float = 5.0) -> None:
        """Follow ``channels``: subscribed (the command sent) when this returns, so a state
        read after it misses no later message; raises when the node cannot be reached."""
        fresh = [c for c in channels if c not in self.channels]
        self.channels.update(fresh)
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name=f"pubsub {self.name}")
        try:
            await asyncio.wait_for(self._connected.wait(), wait)
        except TimeoutError:
            raise RedisConnectionError(f"no pub/sub connection to {self.name}") from None
        try:
            await self._subscribe(fresh, confirmed=wait)
        except Exception as exc:
            await self._disconnect()  # the reader reconnects and subscribes them all again
            raise RedisConnectionError(f"pub/sub to {self.name} failed: {exc!r}") from exc

    async def drop(self, channel: str) -> None:
        self.channels.discard(channel)
        if self._connected.is_set():
            with contextlib.suppress(Exception):
                if self._sharded:
                    self._leaving[channel] = self._leaving.get(channel, 0) + 1
                    await self._pubsub.sunsubscribe(channel)
                else:
                    await self._pubsub.unsubscribe(channel)

    async def close(self) -> None:
        if self._task is not None:
            await cancel_all([self._task])
        await self._disconnect()

    async def _subscribe(self, channels: Iterable[str], confirmed: float = 0) -> None:
        """Subscribe; with ``confirmed`` (s), wait until Redis confirms each (the reader sees
        the confirmations): from then on no message on them can be missed."""
        channels = list(channels)
        waiting = []
        for channel in channels:
            if confirmed:
                future = self._joining.get(channel)
                if future is None or future.done():
                    future = asyncio.get_running_loop().create_future()
                    self._joining[channel] = future
                waiting.append(future)
        if self._sharded:
            for channel in channels:  # SSUBSCRIBE takes channels of one slot only: one each
                await self._pubsub.ssubscribe(channel)
        else:
            for i in range(0, len(channels), SUBSCRIBE_CHUNK):
                await self._pubsub.subscribe(*channels[i : i + SUBSCRIBE_CHUNK])
        if waiting:
            try:
                await asyncio.wait_for(asyncio.gather(*waiting), confirmed)
            except TimeoutError:
                raise RedisConnectionError("subscription not confirmed") from None

    async def _primary_moved(self, every: float = 0.5) -> bool:
        """(Sentinel) Whether the Sentinels name another primary (asked every ``every`` s)."""
        now = asyncio.get_running_loop().time()
        if now < self._checked + every:
            return False
        self._checked = now
        try:
            address = await sentinel_primary(self._pubsub)
        except Exception:
            return False  # no Sentinel answers now: stay
        return address is not None and tuple(address) != self._address

    async def _disconnect(self) -> None:
        self._connected.clear()
        self._leaving.clear()
        joining, self._joining = self._joining, {}
        for future in joining.values():
            if not future.done():
                future.set_exception(RedisConnectionError("pub/sub connection lost"))
                future.exception()  # retrieved: nobody may be waiting any more
        pubsub, self._pubsub = self._pubsub, None
        if pubsub is not None:
            with contextlib.suppress(Exception):
                await pubsub.aclose()
            with contextlib.suppress(Exception):
                await pubsub.connection_pool.disconnect()

    async def _run(self) -> None:
        failures = 0
        first = True
        while True:
            try:
                self._pubsub = open_pubsub(self.feed.target, self.host, self.port)
                if isinstance(self._pubsub, LeanPubSub):  # the bare one pushes messages
                    self._pubsub.on_message = self._heard
                await self._pubsub.ping()  # connects (and fails here if the node is down)
                connection = self._pubsub.connection
                self._address = (connection.host, connection.port) if connection else None
                await self._subscribe(sorted(self.channels))
                self._connected.set()
                if not first:
                    log.info("pub/sub back", extra=logs.fields(node=self.name))
                    self.feed.report(Gap(tuple(self.channels)))
                first = False
                failures = 0
                await self._read()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if failures == 0:
                    log.warning(
                        "pub/sub lost; resubscribing",
                        extra=logs.fields(node=self.name, error=repr(exc)),
                    )
                first = False
            await self._disconnect()
            await asyncio.sleep(RETRY_SECONDS[min(failures, len(RETRY_SECONDS) - 1)])
            failures += 1
            if self.feed._cluster is not None and self.channels:
                # The node may be gone for good (a replica took its slots over).
                await self.feed._moved(self, list(self.channels))
                if not self.channels:
                    return  # all moved elsewhere; add() starts a reader again if needed

    def _heard(self, channel: bytes, data: bytes) -> None:
        """A message the bare connection read, handed on at once, not through :meth:`_read`'s
        loop (:attr:`server.ops.lean_pubsub.LeanPubSub.on_message`)."""
        self.feed.report(Message(channel.decode(), data))

    async def _read(self) -> None:
        pubsub = self._pubsub
        while pubsub is self._pubsub:
            # A bounded wait, so that the health check (a PING when idle) notices a node
            # that went away without closing the connection.
            message = await pubsub.get_message(timeout=1.0)
            if self.feed.target.sentinels and await self._primary_moved():
                raise RedisConnectionError("the Sentinels named another primary")
            if message is None:
                continue
            kind = message["type"]
            if kind in ("message", "smessage"):
                self.feed.report(Message(message["channel"].decode(), message["data"]))
            elif kind in ("subscribe", "ssubscribe"):
                future = self._joining.pop(message["channel"].decode(), None)
                if future is not None and not future.done():
                    future.set_result(None)
            elif kind == "sunsubscribe":
                channel = message["channel"].decode()
                if self._leaving.get(channel):
                    self._leaving[channel] -= 1
                    if not self._leaving[channel]:
                        del self._leaving[channel]
                elif channel in self.channels:
                    # Not asked for: Redis ended it because the slot moved. Start over: the
                    # reconnect asks the cluster where every channel of this node is now.
                    raise RedisConnectionError("a shard channel's slot moved")
        raise RedisConnectionError("pub/sub connection closed")
