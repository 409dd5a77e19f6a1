"""The server's own WebSocket protocol (server.web.websocket) under a real uvicorn: the
application may write frames through the scope's SEND_FRAME extension, in order with the
frames it sends the ASGI way, and the extension refuses once a close was sent."""

from __future__ import annotations

import asyncio
from typing import Any

import uvicorn
from websockets.asyncio.client import connect

from server.match.outbox import SEND_FRAME
from server.ops.redis_process import free_port


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
        async with connect(f"ws://127.0.0.1:{port}/") as ws:
            got = [await ws.recv() for _ in range(4)]
            await ws.send(b"hi")
            got.append(await ws.recv())
            await ws.wait_closed()
    finally:
        server.should_exit = True
        await serving
    assert got == [b"1", b"2", b"3", b"4", b"echo:hi"]
    assert seen == {
        "offered before accept": False,  # the handshake is not complete: the usual way
        "direct": [True, True, True, True],
        "after close": False,
    }
