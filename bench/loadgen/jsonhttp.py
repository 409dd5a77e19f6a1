"""A minimal keep-alive HTTP/1.1 JSON client on asyncio streams, for setting up thousands
of matches through the lobby API quickly (``protocol.client.lobby`` opens a connection and a
thread per request)."""

from __future__ import annotations

import asyncio
import json
from typing import Any
from urllib.parse import urlsplit


class HttpError(Exception):
    pass


class JsonClient:
    """``await client.post(path, body)`` over a small pool of kept-alive connections."""

    def __init__(self, base: str, size: int = 8) -> None:
        parts = urlsplit(base)
        self.host = parts.hostname or "127.0.0.1"
        self.port = parts.port or 80
        self._pool: asyncio.Queue[tuple[asyncio.StreamReader, asyncio.StreamWriter] | None]
        self._pool = asyncio.Queue()
        for _ in range(size):
            self._pool.put_nowait(None)

    async def post(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        conn = await self._pool.get()
        try:
            if conn is None:
                conn = await asyncio.open_connection(self.host, self.port)
            status, reply = await self._request(conn, "POST", path, body)
        except Exception:
            if conn is not None:
                conn[1].close()
            conn = None
            raise
        finally:
            self._pool.put_nowait(conn)
        if status >= 300:
            raise HttpError(f"{status} {reply}")
        return reply

    async def _request(
        self, conn: tuple[asyncio.StreamReader, asyncio.StreamWriter], method: str, path: str,
        body: dict[str, Any],
    ) -> tuple[int, dict[str, Any]]:  # fmt: skip
        reader, writer = conn
        data = json.dumps(body).encode()
        writer.write(
            f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
            f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode()
            + data
        )
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        length = 0
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.lower() == "content-length":
                length = int(value)
        payload = await reader.readexactly(length)
        return status, json.loads(payload) if payload else {}

    async def close(self) -> None:
        while not self._pool.empty():
            conn = self._pool.get_nowait()
            if conn is not None:
                conn[1].close()
