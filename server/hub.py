"""Fan-out: deliver each match's events, in version order, to every local connection watching it.

One process holds one Redis pub/sub connection and subscribes to the channel of every match it
has sockets for. Events reach a connection by two paths — right after this process stored them
(the fast path) and from the channel (events stored by any process) — and :class:`Follower`
keeps each connection's stream gap-free and duplicate-free: it sends version ``n`` only after
``n - 1`` and fills any gap from the stored log.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Protocol

import redis.asyncio as aioredis

from server import logs
from server.store import Store, channel, split_published

log = logs.get("hub")


class Sink(Protocol):
    """Where a follower's frames go (a WebSocket connection's bounded send queue)."""

    def send(self, frame: bytes) -> bool:
        """Queue a frame; False when the sink is gone or overflowing (then it closes itself)."""
        ...


class Follower:
    """One connection's view of one match's event stream: gap-free, in order, no duplicates."""

    def __init__(self, store: Store, match_id: str, sink: Sink, next_version: int) -> None:
        self.store = store
        self.match_id = match_id
        self.sink = sink
        self.next_version = next_version
        self._held: dict[int, bytes] = {}
        self._catching_up: asyncio.Task[None] | None = None

    def deliver(self, version: int, frame: bytes) -> None:
        if version < self.next_version:
            return  # already sent (both delivery paths carry every event)
        if version > self.next_version or self._catching_up:
            self._held[version] = frame
            if not self._catching_up:
                self._catching_up = asyncio.create_task(self._catch_up())
            return
        self.sink.send(frame)
        self.next_version += 1

    async def _catch_up(self) -> None:
        try:
            while self._held:
                missing_to = min(self._held)
                if missing_to > self.next_version:
                    frames = await self.store.events_after(
                        self.match_id, self.next_version - 1, missing_to - self.next_version
                    )
                    for frame in frames:
                        self.sink.send(frame)
                        self.next_version += 1
                    if self.next_version < missing_to:
                        log.error(
                            "event log shorter than published versions",
                            extra=logs.fields(match=self.match_id, want=missing_to),
                        )
                        self.next_version = missing_to
                while self.next_version in self._held:
                    self.sink.send(self._held.pop(self.next_version))
                    self.next_version += 1
                for stale in [v for v in self._held if v < self.next_version]:
                    del self._held[stale]
        except Exception as exc:
            log.warning("catch-up failed", extra=logs.fields(match=self.match_id, error=repr(exc)))
        finally:
            self._catching_up = None


class Hub:
    """This process's subscriptions: match id -> followers of local connections."""

    def __init__(self, store: Store, redis_url: str) -> None:
        self.store = store
        self._redis = aioredis.from_url(redis_url, decode_responses=False)
        self._pubsub = self._redis.pubsub()
        self._followers: dict[str, set[Follower]] = {}
        self._task: asyncio.Task[None] | None = None
        self.on_presence: Callable[[str, bytes], None] | None = None

    def followers(self, match_id: str) -> set[Follower]:
        return self._followers.get(match_id, set())

    def match_ids(self) -> list[str]:
        return list(self._followers)

    async def follow(self, match_id: str, follower: Follower) -> None:
        group = self._followers.setdefault(match_id, set())
        group.add(follower)
        if len(group) == 1:
            await self._pubsub.subscribe(channel(match_id))

    async def unfollow(self, match_id: str, follower: Follower) -> None:
        group = self._followers.get(match_id)
        if not group:
            return
        group.discard(follower)
        if not group:
            del self._followers[match_id]
            with contextlib.suppress(Exception):
                await self._pubsub.unsubscribe(channel(match_id))

    def publish_local(self, match_id: str, version: int, frame: bytes) -> None:
        """The fast path: events this process has just stored."""
        for follower in list(self.followers(match_id)):
            follower.deliver(version, frame)

    def send_local(self, match_id: str, frame: bytes) -> None:
        for follower in list(self.followers(match_id)):
            follower.sink.send(frame)

    def start(self) -> None:
        self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        if self._task:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()
        await self._redis.aclose()

    async def _listen(self) -> None:
        while True:
            try:
                if not self._pubsub.subscribed:
                    await asyncio.sleep(0.05)
                    continue
                message = await self._pubsub.get_message(ignore_subscribe_messages=True, timeout=1)
                if message is None or message["type"] != "message":
                    continue
                match_id = message["channel"].decode().split("{m:", 1)[1].split("}", 1)[0]
                version, frame = split_published(message["data"])
                if version:
                    self.publish_local(match_id, version, frame)
                else:
                    self.send_local(match_id, frame)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("pub/sub lost; resubscribing", extra=logs.fields(error=repr(exc)))
                await asyncio.sleep(0.5)
                await self._resubscribe()

    async def _resubscribe(self) -> None:
        """After a lost pub/sub connection: subscribe again and fill what was missed."""
        with contextlib.suppress(Exception):
            await self._pubsub.aclose()
        self._pubsub = self._redis.pubsub()
        try:
            if self._followers:
                await self._pubsub.subscribe(*(channel(m) for m in self._followers))
            for match_id, group in self._followers.items():
                for follower in list(group):
                    # Any event stored while we were deaf is in the log: ask for one past the
                    # follower's position; deliver() notices the gap and fetches it.
                    stored = await self.store.load(match_id)
                    if stored and stored.version >= follower.next_version:
                        frames = await self.store.events_after(
                            match_id, stored.version - 1, 1
                        )
                        if frames:
                            follower.deliver(stored.version, frames[0])
        except Exception as exc:
            log.warning("resubscribe failed", extra=logs.fields(error=repr(exc)))
