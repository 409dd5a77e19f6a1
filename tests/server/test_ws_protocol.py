"""The server's own WebSocket protocol (server.web.websocket) under a real uvicorn: the
application may write frames through the scope's SEND_FRAME extension, in order with the
frames it sends the ASGI way, and the extension refuses once a close was sent; a frame the
application takes as it arrives (TAKE_FRAME) is offered only with nothing queued before it,
and never reaches its receive."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from types import SimpleNamespace
from typing import Any

import uvicorn
from websockets.asyncio.client import connect

from server.match.connections import TAKE_FRAME
from server.match.outbox import SEND_FRAME
from server.ops.redis_process import free_port
from server.web.websocket import FairWebSocketProtocol


@contextlib.asynccontextmanager
async def served(app: Any) -> AsyncIterator[int]:
    """``app`` under a real uvicorn with the server's WebSocket protocol: its port."""
    port = free_port()
    config = uvicorn.Config(
        app,
        host="127.0.0.1",
        port=port,
        ws="server.web.websocket:FairWebSocketProtocol",
        ws_ping_interval=None,
        log_config=None,
        lifespan="off",
    )
    server = uvicorn.Server(config)
    serving = asyncio.create_task(server.serve())
    try:
        while not server.started:
            await asyncio.sleep(0.01)
        yield port
    finally:
        server.should_exit = True
        await serving


async def test_frames_written_through_the_extension_arrive_in_order_with_the_others():
    seen: dict[str, Any] = {}

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        assert (await receive())["type"] == "websocket.connect"
        direct = scope["extensions"].get(SEND_FRAME)
        seen["offered before accept"] = direct is not None and direct(b"early")
        await send({"type": "websocket.accept"})
        seen["direct"] = [direct(b"1"), direct(b"2")]
        await send({"type": "websocket.send", "bytes": b"3"})
        seen["direct"].append(direct(b"4"))
        message = await receive()
        seen["direct"].append(direct(b"echo:" + message["bytes"]))
        await send({"type": "websocket.close", "code": 1000})
        seen["after close"] = direct(b"late")

    async with served(app) as port, connect(f"ws://127.0.0.1:{port}/") as ws:
        got = [await ws.recv() for _ in range(4)]
        await ws.send(b"hi")
        got.append(await ws.recv())
        await ws.wait_closed()
    assert got == [b"1", b"2", b"3", b"4", b"echo:hi"]
    assert seen == {
        "offered before accept": False,  # the handshake is not complete: the usual way
        "direct": [True, True, True, True],
        "after close": False,
    }


async def test_a_frame_the_application_takes_as_it_arrives_never_reaches_its_receive():
    offered: list[bytes] = []
    received: list[bytes] = []

    def take(frame: bytes) -> bool:
        offered.append(frame)
        return frame.startswith(b"take")

    async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "websocket":
            return
        await receive()
        await send({"type": "websocket.accept"})
        scope["extensions"][TAKE_FRAME] = take
        while (message := await receive())["type"] == "websocket.receive":
            received.append(message["bytes"])
            await send({"type": "websocket.send", "bytes": b"got " + message["bytes"]})

    async with served(app) as port, connect(f"ws://127.0.0.1:{port}/") as ws:
        await ws.send(b"a")
        assert await ws.recv() == b"got a"  # the application waits in receive again
        await ws.send(b"take 1")
        await ws.send(b"b")
        assert await ws.recv() == b"got b"
    assert received == [b"a", b"b"]
    assert offered[:2] == [b"a", b"take 1"]


def test_a_frame_is_offered_only_when_nothing_waits_before_it():
    """(The protocol's step alone: a real socket cannot make two frames queue on cue.)"""
    offered: list[bytes] = []

    def take(frame: bytes) -> bool:
        offered.append(frame)
        return True

    async def run() -> list[Any]:
        state = SimpleNamespace(
            frames=[b"first"],
            close_sent=False,
            curr_msg_data_type="binary",
            queue=asyncio.Queue(),
            _extensions={TAKE_FRAME: take},
            read_paused=False,
            _max_queue=8,
        )
        state.queue.put_nowait({"type": "websocket.receive", "bytes": b"queued"})
        FairWebSocketProtocol.send_receive_event_to_app(state)  # type: ignore[arg-type]
        assert offered == []  # one waits before it: queued behind it, in order
        got = [state.queue.get_nowait(), state.queue.get_nowait()]
        state.frames = [b"second"]
        FairWebSocketProtocol.send_receive_event_to_app(state)  # type: ignore[arg-type]
        assert state.queue.empty()  # offered, and taken
        return [m["bytes"] for m in got]

    assert asyncio.run(run()) == [b"queued", b"first"]
    assert offered == [b"second"]
