"""The live side of notices in one process: every notices socket it holds (``WS /ws/notices``,
server/web/notices.py) hears its account's channel through one shared pub/sub transport.

A socket used to open its own pub/sub connection, taken from the process's Redis pool: past
the pool's size (64) the next socket waited for a connection for ever, and so did every other
request of the process. Here the process follows an account's channel once, however many of
its pages are open (a :class:`server.match.fanout.Feed` of its own: one pub/sub connection per
node, ``SSUBSCRIBE`` on a cluster, reconnected with a backoff), subscribing when the first
socket of the account opens and unsubscribing when the last one closes.

What a socket reads from its queue (:meth:`NoticeHub.listen`):

* ``bytes`` — a stored notice as published (:meth:`server.players.notices.Notices.notify`);
* :data:`MISSED` — the channel was deaf for a while (its connection broke and was subscribed
  again): notices stored meanwhile were not heard live, and the socket tells the page its
  unread count again.

A socket's queue holds :data:`QUEUE` items; a page that does not read them loses the newest
(its unread count is right again at its next :data:`MISSED` or reload), never the process's
memory.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Final

from server.match.fanout import Feed, Gap, Message
from server.ops import logs
from server.ops.redis_link import RedisTarget
from server.players.notices import channel

log = logs.get("notices")

MISSED: Final = "missed"
QUEUE = 64

Item = bytes | str


class NoticeHub:
    """The notices sockets of this process by account key, over one :class:`Feed`."""

    def __init__(self, target: RedisTarget) -> None:
        self.feed = Feed(target)
        self._queues: dict[str, set[asyncio.Queue[Item]]] = {}
        self._lock = asyncio.Lock()

    @contextlib.asynccontextmanager
    async def listen(self, key: str) -> AsyncIterator[asyncio.Queue[Item]]:
        """A queue of what account ``key``'s channel carries, from the moment this returns (the
        subscription is confirmed when it is the account's first socket here)."""
        queue: asyncio.Queue[Item] = asyncio.Queue(QUEUE)
        name = channel(key)
        async with self._lock:
            first = name not in self._queues
            self._queues.setdefault(name, set()).add(queue)
            if first:
                try:
                    await self.feed.subscribe(name)
                except Exception:
                    self._leave(name, queue)
                    raise
        try:
            yield queue
        finally:
            async with self._lock:
                if self._leave(name, queue):
                    with contextlib.suppress(Exception):
                        await self.feed.unsubscribe(name)

    def _leave(self, name: str, queue: asyncio.Queue[Item]) -> bool:
        """Forget ``queue``; True when it was the channel's last."""
        queues = self._queues.get(name)
        if queues is None:
            return False
        queues.discard(queue)
        if queues:
            return False
        del self._queues[name]
        return True

    def _hand(self, name: str, item: Item) -> None:
        for queue in self._queues.get(name, ()):
            with contextlib.suppress(asyncio.QueueFull):
                queue.put_nowait(item)

    async def run(self) -> None:
        """Forever (a task of the process): hand what the feed reads to the sockets."""
        while True:
            item = await self.feed.next(timeout=1.0)
            if isinstance(item, Message):
                self._hand(item.channel, item.data)
            elif isinstance(item, Gap):
                deaf = len(item.channels)
                log.info("notices channels deaf for a while", extra=logs.fields(channels=deaf))
                for name in item.channels:
                    self._hand(name, MISSED)

    async def close(self) -> None:
        await self.feed.close()
