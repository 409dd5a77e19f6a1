"""The ceiling of the stack: a bare WebSocket echo under the same uvicorn settings as
``fairgammon serve`` (its WebSocket protocol ``server.web.websocket``, no compression), and a
client process that measures round trips per second through it with the load generator's own
connections.

    python bench/loadgen/echo.py PORT [WS]   # the echo server (started by bench/load.py)

``WS`` is uvicorn's ``ws`` setting: :data:`SERVER_WS` by default, ``websockets-sansio`` for
uvicorn's own protocol (what the server used before December 2026).
"""

from __future__ import annotations

import asyncio
import sys
import time
from pathlib import Path
from typing import Any

SERVER_WS = "server.web.websocket:FairWebSocketProtocol"


async def app(scope: dict[str, Any], receive: Any, send: Any) -> None:
    """A raw ASGI app: accept any WebSocket and send every binary frame straight back."""
    if scope["type"] == "lifespan":
        while True:
            message = await receive()
            await send({"type": message["type"] + ".complete"})
            if message["type"] == "lifespan.shutdown":
                return
    if scope["type"] != "websocket":
        await send({"type": "http.response.start", "status": 404, "headers": []})
        await send({"type": "http.response.body", "body": b""})
        return
    await receive()  # websocket.connect
    await send({"type": "websocket.accept"})
    while True:
        message = await receive()
        if message["type"] == "websocket.disconnect":
            return
        await send({"type": "websocket.send", "bytes": message.get("bytes")})


def serve(port: int, ws: str = SERVER_WS) -> None:
    import uvicorn

    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # the checkout, for ``server``
    uvicorn.run(
        app, host="127.0.0.1", port=port, ws=ws, ws_max_size=16 * 1024,
        ws_max_queue=8, ws_per_message_deflate=False, ws_ping_interval=20, ws_ping_timeout=20,
        log_level="warning", access_log=False, lifespan="on",
    )  # fmt: skip


async def measure(
    url: str, connections: int, seconds: float, size: int = 60, ready_pipe: Any = None
) -> dict[str, float]:
    """Round trips per second with ``connections`` sockets each keeping one frame in flight."""
    from loadgen.wsconn import WsConn

    loop = asyncio.get_running_loop()
    payload = bytes(size)
    done = 0
    stop_at = 0.0
    opened = asyncio.Event()
    ready = 0

    class Pinger:
        conn: WsConn

        def on_open(self, conn: WsConn) -> None:
            nonlocal ready
            ready += 1
            if ready == connections:
                opened.set()

        def on_frame(self, data: bytes) -> None:
            nonlocal done
            if stop_at and time.monotonic() < stop_at:
                done += 1
                self.conn.send(payload)

        def on_close(self, conn: WsConn, code: int | None) -> None:
            pass

    host, port = url.split("//", 1)[1].split("/", 1)[0].split(":")
    pingers = []
    for _ in range(connections):
        p = Pinger()
        _, p.conn = await loop.create_connection(
            lambda p=p: WsConn(url, p.on_open, p.on_frame, p.on_close), host, int(port)
        )
        pingers.append(p)
    await asyncio.wait_for(opened.wait(), 30)
    if ready_pipe is not None:
        ready_pipe.send("go")
    start = time.monotonic()
    stop_at = start + seconds
    for p in pingers:
        p.conn.send(payload)
    await asyncio.sleep(seconds)
    elapsed = time.monotonic() - start
    for p in pingers:
        p.conn.close()
    await asyncio.sleep(0.2)
    return {"round_trips_per_s": done / elapsed, "connections": connections}


def client(url: str, connections: int, seconds: float, out: Any) -> None:
    """Process entry: measure and send the result through the pipe ``out``."""
    out.send(asyncio.run(measure(url, connections, seconds, ready_pipe=out)))


if __name__ == "__main__":
    serve(int(sys.argv[1]), *sys.argv[2:3])
