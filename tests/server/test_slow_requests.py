"""Slow requests (a slowloris) get a bounded time: on the server (server/web/guard.py) and on
the proxy (deploy/nginx.conf's client_header_timeout and client_body_timeout), both configured
here with a 1 s bound so that nothing waits long."""

from __future__ import annotations

import asyncio
import time

import pytest

from harness.proxy_process import ProxyProcess
from harness.srv_support import server_fixture

BOUND = 1.0
UPGRADE = (
    b"GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    b"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n"
)
HEALTH = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"


async def drip(
    port: int, chunks: list[bytes], pause: float, limit: float = 8.0, answers: int = 0
) -> tuple[float, bytes]:
    """Send ``chunks`` with ``pause`` between them (stopping if the peer closes) and read until
    it closes (or, with ``answers``, until that many responses came); returns the seconds from
    connecting to the end, and what came back."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    started = time.monotonic()
    received = bytearray()

    async def read() -> None:
        while chunk := await reader.read(4096):
            received.extend(chunk)
            if answers and received.count(b"HTTP/1.1 ") >= answers:
                return

    reading = asyncio.create_task(read())
    try:
        for chunk in chunks:
            if reading.done():
                break
            writer.write(chunk)
            await asyncio.sleep(pause)
        await asyncio.wait_for(reading, limit)
    except (TimeoutError, ConnectionError):
        pass
    finally:
        reading.cancel()
        writer.close()
    return time.monotonic() - started, bytes(received)


def bytewise(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


guarded = server_fixture(FAIRGAMMON_REQUEST_TIMEOUT_SECONDS=str(BOUND))


async def test_an_upgrade_sent_a_byte_at_a_time_is_cut_off(guarded):
    # The whole head, a byte every 0.2 s, would take 35 s.
    elapsed, answer = await drip(guarded.port, bytewise(UPGRADE), 0.2)
    assert answer.startswith(b"HTTP/1.1 408 ")
    assert BOUND - 0.1 <= elapsed < BOUND + 1.5


async def test_a_request_body_sent_slowly_is_cut_off(guarded):
    body = b'{"name": "Ann"}'
    head = (
        f"POST /api/matches HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    elapsed, answer = await drip(guarded.port, [head, *bytewise(body)], 0.3)
    assert answer.startswith(b"HTTP/1.1 408 ") and elapsed < BOUND + 1.5


async def test_a_silent_connection_is_closed_and_a_prompt_one_is_served(guarded):
    elapsed, answer = await drip(guarded.port, [], 0)
    assert answer.startswith(b"HTTP/1.1 408 ") and elapsed < BOUND + 1.5
    # The positive control: a head in pieces that all arrive within the bound is served, and
    # the next request on the same kept-alive connection gets the bound afresh.
    pieces = [HEALTH[:10], HEALTH[10:20], HEALTH[20:]]
    elapsed, answer = await drip(guarded.port, [*pieces, *pieces], 0.3, answers=2)
    assert answer.count(b"HTTP/1.1 200 ") == 2, answer


async def test_the_proxy_cuts_off_slow_requests_but_not_established_websockets(
    guarded, tmp_path
):
    edits = {
        "    client_header_timeout 10s;": "    client_header_timeout 1s;",
        "    client_body_timeout 10s;": "    client_body_timeout 1s;",
    }
    proxy = ProxyProcess(tmp_path / "nginx", [guarded.port], edits)
    await asyncio.to_thread(proxy.start)
    try:
        elapsed, answer = await drip(proxy.port, bytewise(UPGRADE), 0.2)
        # nginx answers 408 by closing the connection without a response.
        assert not answer.startswith(b"HTTP/1.1 101") and elapsed < BOUND + 1.5
        # An upgrade sent at once goes through, and the WebSocket then stays open although it
        # is silent for longer than both bounds (the server pings only every 20 s).
        reader, writer = await asyncio.open_connection("127.0.0.1", proxy.port)
        writer.write(UPGRADE)
        head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 5)
        assert head.startswith(b"HTTP/1.1 101 ")
        with pytest.raises(asyncio.TimeoutError):
            await asyncio.wait_for(reader.read(1), 3 * BOUND)  # neither data nor a close
        writer.close()
    finally:
        proxy.stop()
