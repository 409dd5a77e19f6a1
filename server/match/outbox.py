"""A connection's bounded send queue: slow readers never block a match.

Everything sent to a client goes through :meth:`Outbox.send`, which never waits: a frame is
written at once while nothing waits before it (the server's direct path), else queued for a
writer task, and a client that lets the queue fill up (a spectator that never reads, a phone
on a dead link) is dropped — it reconnects and resumes from its last version.

The writer task lives only while frames wait: it is started by the first frame queued and
ends when the queue is empty. Most connections never have one (their frames go out at once),
so a connection costs no task, coroutine or event of its own here — a process holding
thousands of them keeps that much less for the collector to walk.

Long replays (a resume, a late spectator) do not go through :meth:`send` all at once: they wait
for :meth:`room` before each page, so a catch-up of any length flows at the reader's pace and
only ever fills half the queue; the other half is for live frames (acks, presence, probes).

>>> import asyncio
>>> async def demo():
...     sent = []
...     async def write(frame): sent.append(frame)
...     box = Outbox(write, limit=2)
...     box.send(b"a"); box.send(b"b")
...     await box.drain()
...     return sent
>>> asyncio.run(demo())
[b'a', b'b']
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable

SEND_FRAME = "fairgammon.send_frame"
"""The ASGI scope extension (``scope["extensions"][SEND_FRAME]``) of a server whose WebSocket
protocol can take a binary frame at once: a function ``(frame) -> bool``, False when the frame
must be sent the usual way (:mod:`server.web.websocket`)."""


class Outbox:
    def __init__(
        self,
        write: Callable[[bytes], Awaitable[None]],
        limit: int,
        on_overflow: Callable[[], None] | None = None,
        direct: Callable[[bytes], bool] | None = None,
    ) -> None:
        """``write`` sends one frame (awaited by the writer task, one at a time); ``direct``,
        where the server offers it (:data:`SEND_FRAME`), sends one at once if it can: used
        while nothing is queued or being written, so frames keep their order."""
        self._write = write
        self._direct = direct
        self._limit = limit
        self._frames: deque[bytes] = deque()
        self._task: asyncio.Task[None] | None = None
        """The writer, while frames wait (queued or being written); None otherwise: then a
        frame may go out at once without passing one before it."""
        self._space: asyncio.Event | None = None  # made by the first room() that must wait
        self._wanted = 0
        self.on_overflow = on_overflow
        self.transform: Callable[[bytes], bytes] | None = None
        """What every frame becomes as it is written (an older protocol version's frames)."""
        self.closed = False
        self.sealed = False
        self.overflowed = False

    def send(self, frame: bytes) -> bool:
        if self.closed or self.sealed:
            return False
        if (
            self._direct is not None
            and self._task is None
            and self._direct(self.transform(frame) if self.transform else frame)
        ):
            return True
        if len(self._frames) >= self._limit:
            self.overflowed = True
            self.close()
            if self.on_overflow:
                self.on_overflow()
            return False
        self._frames.append(frame)
        if self._task is None:
            self._task = asyncio.create_task(self._run())
        return True

    async def _run(self) -> None:
        """Write the queued frames in order; end when none is left. No await between the
        last check of the queue and the end: a frame sent meanwhile starts a new writer."""
        try:
            while self._frames and not self.closed:
                frame = self._frames.popleft()
                await self._write(self.transform(frame) if self.transform else frame)
                if self._space is not None and len(self._frames) <= self._wanted:
                    self._space.set()
        except Exception:
            self.close()  # the socket is gone: nothing more can be sent
        finally:
            self._task = None

    @property
    def queued(self) -> int:
        return len(self._frames)

    async def room(self, frames: int) -> bool:
        """Wait until ``frames`` more fit in the first half of the queue (at least one frame
        is always let through); False once the box is closed."""
        wanted = max(0, self._limit // 2 - frames)
        while not self.closed and len(self._frames) > wanted:
            self._wanted = wanted
            if self._space is None:
                self._space = asyncio.Event()
            self._space.clear()
            await self._space.wait()
        return not self.closed

    async def drain(self, timeout: float = 5.0) -> None:
        """Wait until every queued frame has been written (or the box closed), at most
        ``timeout`` seconds."""
        deadline = asyncio.get_running_loop().time() + timeout
        while (task := self._task) is not None:
            left = deadline - asyncio.get_running_loop().time()
            if left <= 0:
                return
            await asyncio.wait({task}, timeout=left)  # (never raises the writer's end)

    def seal(self) -> None:
        """Accept nothing more; what is queued still goes out (the last word before a close)."""
        self.sealed = True

    def close(self) -> None:
        self.closed = True
        self._frames.clear()
        if self._space is not None:
            self._space.set()

    async def stop(self) -> None:
        self.close()
        task = self._task
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await task
