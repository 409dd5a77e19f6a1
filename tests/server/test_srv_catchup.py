"""Catch-up of any length, and connections that do not keep up (docs/protocol.md, "Versions,
events and resume" and "Connection lifecycle").

A resume from any ``last_v`` gets exactly the missing events, or a snapshot: the replay flows
through the connection's send queue at the reader's pace, however long. A reader that does
not keep up is closed 4009 and shown ``reconnecting`` at once; a link that goes silent is
closed 4010 within the probe timing and shown ``reconnecting`` too.
"""

from __future__ import annotations

import asyncio
import random
import socket
import time
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from engine.match import MatchOptions
from harness.failure_kit import Cable
from harness.long_match import LongMatch, store_long_match
from harness.serverproc import ServerProcess
from harness.srv_support import (
    WAIT,
    Peer,
    closing_error,
    seat_two,
    server_fixture,
    stored_frames,
)
from protocol import codec
from protocol import messages as m
from protocol.close_codes import CloseCode
from protocol.limits import PROTOCOL_VERSION as PROTO

# Resumes up to 300 events behind get the events (the default is 500: the replay of a long one
# costs the test time, not the server), probes every 0.25 s with a 2 s timeout: a dead link is
# found within 2.25 s (the defaults, 2 s and 4 s, give at most 6 s).
server = server_fixture(
    FAIRGAMMON_RESUME_MAX_EVENTS="300",
    FAIRGAMMON_PROBE_SECONDS="0.25",
    FAIRGAMMON_PROBE_TIMEOUT_SECONDS="2",
)
RESUME_MAX = 300


@pytest.fixture(scope="module")
def long_match(server: ServerProcess, redis_process: Any) -> LongMatch:
    """A money session of 1,000+ events, stored once for the module."""
    built = store_long_match(redis_process.url, 1000, seed=3, options=MatchOptions.money())
    return asyncio.run(built)


async def resumed(url: str, match_id: str, last_v: int | None, final: int) -> list[bytes]:
    """The frames a spectator resuming from ``last_v`` receives until the final version (or
    its snapshot), and at least until the answer to a ping sent after its hello."""
    async with connect(url, compression=None, max_size=1 << 20) as ws:
        await ws.send(codec.encode(m.Hello(PROTO, match_id, None, last_v, None)))
        await ws.send(codec.encode(m.Ping(7)))
        frames: list[bytes] = []
        done = pong = False
        while not (done and pong):
            frame = await asyncio.wait_for(ws.recv(), WAIT)
            assert isinstance(frame, bytes)
            frames.append(frame)
            head = msgpack.unpackb(frame)  # the strict codec checks them below
            pong = pong or head["t"] == "pong"
            done = done or head["t"] == "snapshot" or head.get("v") == final or last_v == final
        return frames


def check_resume(frames: list[bytes], log: dict[int, bytes], last_v: int | None) -> str:
    """Exactly the events after ``last_v``, byte for byte, or one snapshot of the last version,
    after the welcome."""
    final = len(log)
    messages = [codec.decode_from_server(f) for f in frames]
    assert isinstance(messages[0], m.Welcome) and messages[0].v == final, last_v
    events = [f for f, x in zip(frames, messages, strict=True) if isinstance(x, m.Event)]
    snapshots = [x for x in messages if isinstance(x, m.Snapshot)]
    if snapshots:
        assert len(snapshots) == 1 and snapshots[0].v == final and not events, last_v
        return "snapshot"
    assert last_v is not None
    assert events == [log[v] for v in range(last_v + 1, final + 1)], last_v
    return "events"


async def resynced(ws: Any, last_v: int, final: int) -> list[bytes]:
    """What ``resync{last_v}`` on an open connection brings: its frames up to the final
    version (or the snapshot) and the answer to a ping sent after it."""
    await ws.send(codec.encode(m.Resync(last_v)))
    await ws.send(codec.encode(m.Ping(last_v)))
    frames: list[bytes] = []
    done, pong = last_v == final, False  # nothing is missing: the pong ends the answer
    while not (done and pong):
        frame = await asyncio.wait_for(ws.recv(), WAIT)
        head = msgpack.unpackb(frame)
        if head["t"] == "probe":
            await ws.send(codec.encode(m.Echo(head["p"]["t"])))
            continue
        if head["t"] == "pong":
            pong = pong or head["p"]["t"] == last_v
            continue
        frames.append(frame)
        done = done or head["t"] == "snapshot" or head.get("v") == final
    return frames


async def test_resume_from_every_version_of_a_long_match(server, long_match, redis_process):
    """Every last_v from 0 to V: exactly the missing events, or a snapshot. A hello with a
    sample of them (the ends, both sides of the limit, and more at random) on fresh
    connections; every one of them with resync (the same server path) on open connections."""
    match_id, final = long_match.seated.match_id, long_match.state.version
    log = await stored_frames(redis_process.url, match_id)
    assert len(log) == final >= 1000
    started = time.monotonic()
    limit = final - RESUME_MAX
    sample = {0, 1, limit - 1, limit, limit + 1, final - 256, final - 1, final}
    sample |= set(random.Random(4).sample(range(final + 1), 24))
    for v in sorted(sample):
        check_resume(await resumed(server.ws, match_id, v, final), log, v)
    no_version = await resumed(server.ws, match_id, None, final)
    assert check_resume(no_version, log, None) == "snapshot"

    kinds: dict[str, int] = {"events": 0, "snapshot": 0}

    async def share(first: int, step: int) -> None:
        async with connect(server.ws, compression=None, max_size=1 << 20) as ws:
            await ws.send(codec.encode(m.Hello(PROTO, match_id, None, final, None)))
            await ws.send(codec.encode(m.Ping(final)))
            while msgpack.unpackb(await asyncio.wait_for(ws.recv(), WAIT))["t"] != "pong":
                pass  # the welcome and the greeting
            for v in range(first, final + 1, step):
                frames = await resynced(ws, v, final)
                welcome = codec.encode(m.Welcome("spectator", match_id, final, 0, None))
                kinds[check_resume([welcome, *frames], log, v)] += 1

    await asyncio.gather(*(share(first, 6) for first in range(6)))
    assert kinds == {"events": RESUME_MAX + 1, "snapshot": final - RESUME_MAX}, kinds
    print(f"{len(sample) + 1} hellos, {final + 1} resyncs: {time.monotonic() - started:.1f} s")


async def test_a_replay_longer_than_the_send_queue_flows_at_the_readers_pace(
    server, long_match, redis_process
) -> None:
    """300 events to a reader that takes its time (the queue holds 256 frames): all of them
    arrive, in order, and the connection stays open."""
    match_id, final = long_match.seated.match_id, long_match.state.version
    log = await stored_frames(redis_process.url, match_id)
    sock = _small_buffer_socket(server.port)
    # (a reader that does not read what follows: no patience for the closing handshake)
    async with connect(server.ws, sock=sock, max_queue=4, close_timeout=0.2) as ws:
        await ws.send(codec.encode(m.Hello(PROTO, match_id, None, final - RESUME_MAX, None)))
        messages: list[m.ServerMessage] = []
        while not any(isinstance(x, m.Event) and x.v == final for x in messages):
            message = codec.decode_from_server(await asyncio.wait_for(ws.recv(), WAIT))
            messages.append(message)
            if isinstance(message, m.Probe):
                await ws.send(codec.encode(m.Echo(message.t)))
            if len(messages) % 50 == 0:
                await asyncio.sleep(0.1)  # a slow reader: ~0.6 s for the whole replay
        frames = [codec.encode(x) for x in messages]
        assert check_resume(frames, log, final - RESUME_MAX) == "events"


def _small_buffer_socket(port: int) -> socket.socket:
    """A connected client socket with a small receive buffer: a reader that stops reading
    soon stops the server's writes too (as a slow phone would)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 16384)
    # Small segments, as on a real network (loopback's 64 KiB ones let the server's kernel
    # buffer megabytes for a reader that reads nothing).
    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, 1200)
    sock.connect(("127.0.0.1", port))
    return sock


async def presence_of(peer: Peer, seat: int, status: str, start: int = 0) -> float:
    """Wait until ``peer`` is told that ``seat`` is ``status``; when (monotonic seconds)."""
    await peer.next(m.Presence, lambda x: x.seat == seat and x.status == status, start)
    return time.monotonic()


async def test_a_reader_that_stops_reading_is_closed_4009_and_shown_away(server, long_match):
    """Seat 1 keeps asking for replays and pongs and reads nothing: once its queue fills, seat 0
    sees it ``reconnecting`` at once, and when it reads again it finds close 4009."""
    seated, final = long_match.seated, long_match.state.version
    watcher = await seated.peer(server.ws, 0)
    sock = _small_buffer_socket(server.port)
    async with connect(server.ws, sock=sock, max_queue=2, close_timeout=0.2) as ws:
        await ws.send(codec.encode(m.Hello(PROTO, seated.match_id, seated.tokens[1], None, None)))
        seen = len(watcher.messages)
        await presence_of(watcher, 1, "online", seen)
        away = asyncio.ensure_future(presence_of(watcher, 1, "reconnecting", seen))
        asked = 0
        while not away.done():
            assert asked < 1000, "the queue never filled"
            # Replays fill the socket's buffers (at most half the queue waits for them); the
            # pongs, sent at once, fill the rest.
            for _ in range(4):
                await ws.send(codec.encode(m.Resync(final - RESUME_MAX)))
            for t in range(20):
                await ws.send(codec.encode(m.Ping(t)))
            asked += 4
            await asyncio.sleep(0.05)
        await away
        print(f"seat 1 shown away after {asked} unread replays")
        with pytest.raises(ConnectionClosed):
            while True:
                await asyncio.wait_for(ws.recv(), WAIT)
        assert ws.close_code == CloseCode.TOO_SLOW
    await watcher.close()


async def test_a_black_holed_seat_is_shown_reconnecting_within_the_probe_timing(server):
    """Seat 1's link goes silent both ways (no FIN): within probe + timeout (here 0.25 s +
    2 s; by default 2 s + 4 s) seat 0 sees it ``reconnecting``."""
    seated = await seat_two(server.base)
    cable = Cable(server.port)
    await cable.mend()
    try:
        phone = await seated.peer(cable.ws, 1)
        watcher = await seated.peer(server.ws, 0)
        await presence_of(watcher, 1, "online")
        probes = sum(isinstance(x, m.Probe) for x in phone.messages)
        await phone.wait(lambda: sum(isinstance(x, m.Probe) for x in phone.messages) > probes)
        seen = len(watcher.messages)
        cable.black_hole()
        cut = time.monotonic()
        shown = await presence_of(watcher, 1, "reconnecting", seen)
        assert shown - cut < 2.25 + 1.0, shown - cut  # the timing, and a second to spare
    finally:
        await cable.cut()
    await phone.close()
    await watcher.close()


async def test_spectators_are_probed_all_along_and_closed_4010_when_silent(server, long_match):
    """Spectators are probed like seats, every probe_seconds (not only at connect); one that
    stops answering is told ``unresponsive`` and closed 4010."""
    peer = await Peer.open(server.ws)
    await peer.hello(long_match.seated.match_id, None, long_match.state.version)
    await peer.wait(lambda: sum(isinstance(x, m.Probe) for x in peer.messages) >= 4)
    peer.echo = False
    assert await peer.closed() == CloseCode.UNRESPONSIVE
    assert closing_error(peer.messages) == "unresponsive"
