"""The WebSocket upgrade parsed once (server/web/websocket.py, server/web/guard.py): the
application sees the same scope and messages, and the client the same answer, as when the
request's bytes are parsed again by websockets (uvicorn's way, still taken by requests that
parser could see otherwise)."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import os
from typing import Any

from uvicorn.config import Config
from uvicorn.server import ServerState

from server.web.guard import GuardedH11Protocol
from server.web.websocket import FairWebSocketProtocol

KEY = base64.b64encode(b"0123456789abcdef").decode()
REQUEST = (
    "GET /ws?x=1 HTTP/1.1\r\nHost: example.test\r\nUpgrade: websocket\r\n"
    f"Connection: Upgrade\r\nSec-WebSocket-Key: {KEY}\r\nSec-WebSocket-Version: 13\r\n"
    "Origin: http://example.test\r\nX-Name: caf\xe9\r\n\r\n"
).encode("latin-1")


class ReparsedProtocol(FairWebSocketProtocol):
    upgraded = None  # type: ignore[assignment]  # (the guard then hands over bytes)


class Transport:
    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.protocol: Any = None
        self.closed = False

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return {"sockname": ("127.0.0.1", 8000), "peername": ("127.0.0.1", 50000)}.get(
            name, default
        )

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def set_protocol(self, protocol: Any) -> None:
        self.protocol = protocol

    def get_protocol(self) -> Any:
        return self.protocol

    def is_closing(self) -> bool:
        return self.closed

    def close(self) -> None:
        self.closed = True

    def pause_reading(self) -> None:
        pass

    def resume_reading(self) -> None:
        pass


def masked_binary(payload: bytes) -> bytes:
    mask = os.urandom(4)
    body = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return bytes([0x82, 0x80 | len(payload)]) + mask + body


async def upgrade(ws_class: type) -> tuple[dict[str, Any], list[Any], bytes, type]:
    seen: dict[str, Any] = {}
    messages: list[Any] = []
    done = asyncio.Event()

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.update(scope)
        messages.append(await receive())
        await send({"type": "websocket.accept"})
        messages.append(await receive())
        await send({"type": "websocket.send", "bytes": b"welcome"})
        done.set()
        await asyncio.sleep(3600)

    config = Config(app=app, ws=ws_class, ws_per_message_deflate=False, log_config=None)
    config.load()
    http = GuardedH11Protocol(config=config, server_state=ServerState(), app_state={})
    transport = Transport()
    transport.protocol = http
    http.connection_made(transport)  # type: ignore[arg-type]
    http.data_received(REQUEST)
    ws = transport.protocol
    for _ in range(100):
        if transport.written:
            break
        await asyncio.sleep(0)
    ws.data_received(masked_binary(b"hello"))
    await asyncio.wait_for(done.wait(), 5)
    await asyncio.sleep(0)  # (the write at the end of the iteration)
    for task in list(ws.tasks):
        task.cancel()
    seen.pop("state")
    # (the frame-sending extension is the connection's own bound method: compared by name)
    seen["extensions"] = {k: getattr(v, "__name__", v) for k, v in seen["extensions"].items()}
    return seen, messages, b"".join(transport.written), type(ws)


def without_date(answer: bytes) -> bytes:
    return b"\r\n".join(line for line in answer.split(b"\r\n") if not line.startswith(b"Date:"))


async def test_a_parsed_upgrade_is_seen_and_answered_as_a_reparsed_one():
    scope, messages, answer, used = await upgrade(FairWebSocketProtocol)
    again, messages_again, answer_again, used_again = await upgrade(ReparsedProtocol)
    assert used is FairWebSocketProtocol and used_again is ReparsedProtocol
    assert scope == again
    assert scope["path"] == "/ws" and scope["query_string"] == b"x=1"
    assert (b"x-name", "caf\xe9".encode("latin-1")) in scope["headers"]
    assert messages == messages_again == [
        {"type": "websocket.connect"},
        {"type": "websocket.receive", "bytes": b"hello"},
    ]
    accept = base64.b64encode(
        hashlib.sha1((KEY + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest()
    )
    assert answer.startswith(b"HTTP/1.1 101 Switching Protocols\r\n")
    assert b"Sec-WebSocket-Accept: " + accept in answer
    assert without_date(answer) == without_date(answer_again)
    assert answer.endswith(b"\x82\x07welcome")  # the frame after the upgrade
