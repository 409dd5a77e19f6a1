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
        status, reply = await self._send("POST", path, body)
        if status >= 300:
            raise HttpError(f"{status} {reply}")
        return reply

    async def get(self, path: str) -> tuple[int, Any]:
        """``GET path``: the status and the JSON body (any status: the caller decides)."""
        return await self._send("GET", path, None)

    async def _send(self, method: str, path: str, body: dict[str, Any] | None) -> tuple[int, Any]:
        """One request on a pooled connection. A kept-alive connection the server closed
        meanwhile (uvicorn closes idle ones after 5 s) is replaced by a new one and the request
        sent again, as a browser does."""
        conn = await self._pool.get()
        try:
            for attempt in (0, 1):
                fresh = conn is None
                if conn is None:
                    conn = await asyncio.open_connection(self.host, self.port)
                try:
                    return await self._request(conn, method, path, body)
                except (asyncio.IncompleteReadError, ConnectionError):
                    conn[1].close()
                    conn = None
                    if fresh or attempt:
                        raise
            raise AssertionError("unreachable")
        except Exception:
            if conn is not None:
                conn[1].close()
            conn = None
            raise
        finally:
            self._pool.put_nowait(conn)

    async def _request(
        self, conn: tuple[asyncio.StreamReader, asyncio.StreamWriter], method: str, path: str,
        body: dict[str, Any] | None,
    ) -> tuple[int, Any]:  # fmt: skip
        reader, writer = conn
        head = f"{method} {path} HTTP/1.1\r\nHost: {self.host}:{self.port}\r\n"
        if body is None:
            writer.write(f"{head}\r\n".encode())
        else:
            data = json.dumps(body).encode()
            writer.write(
                f"{head}Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                .encode() + data
            )  # fmt: skip
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
