"""The send queue's direct path (server.match.outbox): a frame is written at once while
nothing waits before it, and queued behind whatever does; order is kept either way."""

from __future__ import annotations

import asyncio

from server.match.outbox import Outbox


class Socket:
    """A socket whose direct path can be open or shut (shut: a paused transport)."""

    def __init__(self) -> None:
        self.wire: list[tuple[str, bytes]] = []
        self.open = True
        self.release = asyncio.Event()
        self.release.set()

    def direct(self, frame: bytes) -> bool:
        if not self.open:
            return False
        self.wire.append(("direct", frame))
        return True

    async def write(self, frame: bytes) -> None:
        await self.release.wait()
        self.wire.append(("task", frame))


async def test_frames_go_out_at_once_while_nothing_is_queued():
    sock = Socket()
    box = Outbox(sock.write, limit=4, direct=sock.direct)
    for frame in (b"a", b"b", b"c"):
        assert box.send(frame)
        assert sock.wire[-1] == ("direct", frame)  # written before send returned
    assert box.queued == 0
    await box.stop()


async def test_a_frame_waits_behind_the_queued_ones_even_when_the_direct_path_reopens():
    sock = Socket()
    box = Outbox(sock.write, limit=8, direct=sock.direct)
    sock.open = False  # the transport is paused: frames queue for the writer task
    sock.release.clear()  # ... which is stuck in its write
    box.send(b"1")
    await asyncio.sleep(0)  # the writer takes "1" and waits in its write: the queue is empty
    assert box.queued == 0
    sock.open = True
    box.send(b"2")  # not ahead of the "1" being written
    box.send(b"3")  # nor of the queued "2"
    assert sock.wire == []
    sock.release.set()
    await box.drain()
    box.send(b"4")  # nothing waits any more: at once
    assert sock.wire == [("task", b"1"), ("task", b"2"), ("task", b"3"), ("direct", b"4")]
    await box.stop()


async def test_the_transform_applies_on_both_paths_and_a_full_queue_still_overflows():
    sock = Socket()
    overflowed = []
    box = Outbox(
        sock.write, limit=2, on_overflow=lambda: overflowed.append(True), direct=sock.direct
    )
    box.transform = bytes.upper
    box.send(b"x")
    sock.open = False
    sock.release.clear()
    assert box.send(b"y") and box.send(b"z")
    assert not box.send(b"w")  # the reader does not read: the queue fills
    assert overflowed == [True] and box.closed
    assert sock.wire == [("direct", b"X")]
    await box.stop()


async def test_without_a_direct_path_every_frame_goes_through_the_writer():
    sock = Socket()
    box = Outbox(sock.write, limit=4)
    box.send(b"a")
    box.send(b"b")
    await box.drain()
    assert sock.wire == [("task", b"a"), ("task", b"b")]
    await box.stop()


async def test_the_writer_task_lives_only_while_frames_wait():
    sock = Socket()
    box = Outbox(sock.write, limit=8, direct=sock.direct)
    before = len(asyncio.all_tasks())
    box.send(b"a")  # at once: no writer
    assert box._task is None and len(asyncio.all_tasks()) == before
    sock.open = False
    sock.release.clear()
    box.send(b"b")  # queued: a writer starts ...
    writer = box._task
    assert writer is not None and len(asyncio.all_tasks()) == before + 1
    box.send(b"c")  # ... one for all that waits
    assert box._task is writer
    sock.open = True
    sock.release.set()
    await box.drain()
    assert writer.done() and box._task is None  # ... and ends with the queue
    assert sock.wire == [("direct", b"a"), ("task", b"b"), ("task", b"c")]
    box.send(b"d")
    assert box._task is None and sock.wire[-1] == ("direct", b"d")


async def test_room_waits_for_the_writer_and_a_close_ends_the_wait():
    sock = Socket()
    box = Outbox(sock.write, limit=4, direct=sock.direct)
    sock.open = False
    sock.release.clear()
    for frame in (b"1", b"2", b"3"):
        box.send(frame)
    room = asyncio.ensure_future(box.room(1))  # wants at most 1 queued (half of 4, less 1)
    await asyncio.sleep(0)
    assert not room.done()
    sock.release.set()  # the writer empties the queue: room at last
    assert await asyncio.wait_for(room, 1) is True
    sock.release.clear()
    for frame in (b"4", b"5", b"6"):
        box.send(frame)
    room = asyncio.ensure_future(box.room(1))
    await asyncio.sleep(0)
    box.close()
    assert await asyncio.wait_for(room, 1) is False
    await box.stop()
