"""Fan-out: deliver each match's events, in version order, to every local connection watching it.

One process subscribes to the channel of every match it has sockets for, through a
:class:`server.match.fanout.Feed` (one pub/sub connection per Redis node that owns followed
channels). Events reach a connection by two paths — right after this process stored them (the
fast path) and from the channel (events stored by any process) — and :class:`Follower` keeps
each connection's stream gap-free and duplicate-free: it sends version ``n`` only after
``n - 1`` and fills any gap from the stored log.

A catch-up (a resume, a late spectator, a gap) is read from the log a page at a time, and
each page waits until the connection's send queue has room for it: a replay of any length
reaches a reader that keeps reading, at its pace, and never overflows the queue.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Protocol

from server.match.fanout import Feed, Gap, Message
from server.match.high_water import HighWater
from server.match.store import CONTROL, Store, channel, match_of, split_published
from server.ops import logs
from server.ops.backoff import doubling
from server.ops.redis_link import RedisTarget
from server.ops.tasks import cancel_all

log = logs.get("hub")


class Sink(Protocol):
    """Where a follower's frames go (a WebSocket connection's bounded send queue)."""

    def send(self, frame: bytes) -> bool:
        """Queue a frame; False when the sink is gone or overflowing (then it closes itself)."""
        ...

    async def room(self, frames: int) -> bool:
        """Wait until ``frames`` more frames fit without crowding the queue; False once the
        sink is gone."""
        ...


PAGE = 64
"""Events read from the log, and queued, at a time during a catch-up."""
RETRY_FIRST_SECONDS = 0.25
RETRY_MAX_SECONDS = 2.0
"""A catch-up the store failed is tried again after the first, then twice as long each time
up to the second (:func:`server.ops.backoff.doubling`)."""
NOTICES_HELD = 32
"""Most unversioned frames a connection holds before its greeting (then the newest are lost:
its greeting is as new as they are)."""


class Follower:
    """One connection's view of one match's event stream: gap-free, in order, no duplicates.

    A follower starts paused (``next_version`` None): it holds what arrives until
    :meth:`start` says where the connection's stream begins. That lets the gateway subscribe
    first and send its welcome and snapshot before any event, without missing one.
    """

    def __init__(
        self, store: Store, match_id: str, sink: Sink, next_version: int | None = None
    ) -> None:
        self.store = store
        self.match_id = match_id
        self.sink = sink
        self.next_version = next_version
        self._held: dict[int, bytes] = {}
        # A follower that starts paused also holds unversioned frames (presence, watchers)
        # until the gateway has greeted the connection: nothing may reach it before its
        # welcome, and what the greeting says (read after subscribing) must not overwrite a
        # newer notice.
        self._notices: list[bytes] | None = [] if next_version is None else None
        self._want = 0
        self._catching_up: asyncio.Task[None] | None = None

    def deliver(self, version: int, frame: bytes) -> None:
        nxt = self.next_version
        if nxt is not None and version < nxt:
            return  # already sent (both delivery paths carry every event)
        if nxt is None or version > nxt or self._catching_up:
            self._held[version] = frame
            if nxt is not None:
                self._want = max(self._want, version)
                self._kick()
            return
        self.sink.send(frame)
        self.next_version = nxt + 1

    def notice(self, frame: bytes) -> None:
        """An unversioned frame for the connection (presence, watchers)."""
        if self._notices is None:
            self.sink.send(frame)
        elif len(self._notices) < NOTICES_HELD:
            self._notices.append(frame)

    def release_notices(self) -> None:
        """The connection was greeted: send the notices held since it subscribed, and any
        from now on."""
        held, self._notices = self._notices or [], None
        for frame in held:
            self.sink.send(frame)

    def start(self, next_version: int, known_version: int = 0) -> None:
        """Send from ``next_version`` on; everything up to ``known_version`` exists already
        (fetched from the log if it does not arrive by itself)."""
        self.next_version = next_version
        self._held = {v: f for v, f in self._held.items() if v >= next_version}
        self._want = max(known_version, max(self._held, default=0))
        if self._want >= next_version:
            self._kick()

    def rewind(self, next_version: int) -> None:
        """Go on from ``next_version`` although later versions were sent: the store lost them
        (see :mod:`server.match.rewind`); whatever is held from before is dropped."""
        self._held.clear()
        self._want = 0
        self.next_version = next_version

    def _kick(self) -> None:
        if not self._catching_up:
            self._catching_up = asyncio.create_task(self._catch_up())

    async def _catch_up(self) -> None:
        """Fill the stream up to the newest version known, from the log where it lacks one.
        A store that does not answer (a failover, a cluster master restarting) is asked again,
        after 0.25 s, then twice as long each time up to :data:`RETRY_MAX_SECONDS`, until the
        stream is whole or the connection is gone: nothing else would (the event the
        connection waits for may be the last of its match for a while)."""
        try:
            for delay in doubling(RETRY_FIRST_SECONDS, RETRY_MAX_SECONDS):
                try:
                    await self._fill()
                    return
                except Exception as exc:
                    log.warning("catch-up failed", extra=logs.fields(
                        match=self.match_id, error=repr(exc), retry_in=delay))  # fmt: skip
                await asyncio.sleep(delay)
        finally:
            self._catching_up = None

    async def _fill(self) -> None:
        while self.next_version is not None and self.next_version <= self._want:
            nxt = self.next_version
            if nxt in self._held:
                if not await self.sink.room(1):
                    return
                if self.next_version != nxt or nxt not in self._held:
                    continue  # restarted (a resync) while waiting
                self.sink.send(self._held.pop(nxt))
                self.next_version = nxt + 1
                continue
            upto = min((v for v in self._held if v > nxt), default=self._want + 1) - 1
            count = min(upto - nxt + 1, PAGE)
            if not await self.sink.room(count):
                return  # the connection is gone
            if self.next_version != nxt:
                continue  # restarted (a resync) while waiting
            fetched = await self.store.events_after(self.match_id, nxt - 1, count)
            sent = False
            for version, frame in fetched:
                if version == self.next_version:
                    self.sink.send(frame)
                    self.next_version = version + 1
                    sent = True
            if not sent and self.next_version == nxt:
                log.error(
                    "event missing from the log",
                    extra=logs.fields(match=self.match_id, version=nxt),
                )
                return


class Hub:
    """This process's subscriptions: match id -> followers of local connections."""

    def __init__(self, store: Store, target: str | RedisTarget) -> None:
        self.store = store
        self._feed = Feed(RedisTarget.of(target))
        self._followers: dict[str, set[Follower]] = {}
        self._task: asyncio.Task[None] | None = None
        self._retries: set[asyncio.Task[None]] = set()
        self._subscribing: dict[str, asyncio.Future[None]] = {}
        self.on_control: Callable[[str, bytes], None] | None = None
        self.on_behind: Callable[[str, int, str], None] | None = None
        """Called with ``(match, stored version, where it was seen)`` when the store is found
        behind what followers may have been sent (see :mod:`server.match.rewind`)."""
        self.known = HighWater()
        """The newest version of each match this process saw stored (server.match.high_water)."""

    def followers(self, match_id: str) -> set[Follower]:
        return self._followers.get(match_id, set())

    def match_ids(self) -> list[str]:
        return list(self._followers)

    async def follow(self, match_id: str, follower: Follower) -> None:
        """Add ``follower``; once this returns the match's channel is subscribed, so a state
        read after it misses no later event (a second follower waits for the first's
        subscription too)."""
        group = self._followers.setdefault(match_id, set())
        group.add(follower)
        pending = self._subscribing.get(match_id)
        if len(group) > 1:
            if pending is not None:
                await asyncio.shield(pending)
            return
        pending = self._subscribing[match_id] = asyncio.get_running_loop().create_future()
        try:
            await self._feed.subscribe(channel(match_id))
        except Exception as exc:
            if self._forget(match_id, follower):
                with contextlib.suppress(Exception):  # not half-subscribed for good
                    await self._feed.unsubscribe(channel(match_id))
            pending.set_exception(exc)
            pending.exception()  # retrieved: later followers may not be waiting
            raise
        else:
            pending.set_result(None)
        finally:
            if self._subscribing.get(match_id) is pending:
                del self._subscribing[match_id]

    async def unfollow(self, match_id: str, follower: Follower) -> None:
        if self._forget(match_id, follower):
            with contextlib.suppress(Exception):
                await self._feed.unsubscribe(channel(match_id))

    def _forget(self, match_id: str, follower: Follower) -> bool:
        """Drop ``follower``; True when it was the match's last one here."""
        group = self._followers.get(match_id)
        if not group:
            return False
        group.discard(follower)
        if group:
            return False
        del self._followers[match_id]
        return True

    def publish_local(self, match_id: str, version: int, frame: bytes) -> None:
        """Deliver a stored event (one this process has just stored: the fast path; or one
        from the channel) to the match's followers here."""
        self.known.saw(match_id, version)
        for follower in list(self.followers(match_id)):
            follower.deliver(version, frame)

    def send_local(self, match_id: str, frame: bytes) -> None:
        for follower in list(self.followers(match_id)):
            follower.notice(frame)

    def start(self) -> None:
        self._task = asyncio.create_task(self._listen())

    async def stop(self) -> None:
        if self._task:
            await cancel_all([self._task])  # one cancel() is not always enough: server.ops.tasks
        await cancel_all(list(self._retries))
        with contextlib.suppress(Exception):
            await self._feed.close()

    def _heard(self, message: Message) -> None:
        """A message on a match's channel, as the feed's reader reads it (its sink)."""
        try:
            match_id = match_of(message.channel)
            version, frame = split_published(message.data)
            if version == CONTROL:
                if self.on_control:
                    self.on_control(match_id, frame)
            elif version:
                self.publish_local(match_id, version, frame)
            else:
                self.send_local(match_id, frame)
        except Exception as exc:
            log.warning("pub/sub message not handled", extra=logs.fields(error=repr(exc)))

    async def _listen(self) -> None:
        """Messages go to :meth:`_heard` as they are read; the gaps come here."""
        self._feed.sink = self._heard
        while True:
            try:
                item = await self._feed.next(timeout=60)
                if isinstance(item, Gap):
                    await self._caught_up(item.channels)
                elif item is not None:
                    self._heard(item)  # (queued before the sink was set)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("pub/sub gap not handled", extra=logs.fields(error=repr(exc)))

    async def _caught_up(self, channels: tuple[str, ...]) -> None:
        """These channels were deaf for a while (their pub/sub connection broke and is back):
        each follower learns how far its match got and fetches what it lacks from the log.
        Retried until the store answers (right after a failover it may not, yet)."""
        failed = []
        for name in channels:
            match_id = match_of(name)
            group = self._followers.get(match_id)
            if not group:
                continue
            try:
                version = await self.store.version(match_id)
            except Exception as exc:
                log.warning("catch-up failed", extra=logs.fields(match=match_id, error=repr(exc)))
                failed.append(name)
                continue
            if version is None:
                continue
            if self.on_behind and any(
                f.next_version is not None and f.next_version - 1 > version for f in group
            ):
                self.on_behind(match_id, version, "gap")  # the store lost events they were sent
            for follower in list(group):
                if follower.next_version is not None:
                    follower.start(follower.next_version, version)
        if failed:
            retry = asyncio.create_task(self._again(Gap(tuple(failed))))
            self._retries.add(retry)
            retry.add_done_callback(self._retries.discard)

    async def _again(self, gap: Gap, delay: float = 0.25) -> None:
        await asyncio.sleep(delay)
        self._feed.report(gap)
