"""The lobby's HTTP API from asyncio code (standard library only: urllib in a thread).

>>> base_url("ws://127.0.0.1:8000/ws")
'http://127.0.0.1:8000'
"""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any


class LobbyError(Exception):
    """An error answer: HTTP ``status``, the error ``code``, and for a 429 when to try again
    (``retry_after``, seconds, from the ``Retry-After`` header)."""

    def __init__(
        self, status: int, code: str, message: str, retry_after: int | None = None
    ) -> None:
        super().__init__(f"{status} {code}: {message}")
        self.status = status
        self.code = code
        self.retry_after = retry_after


def base_url(ws_url: str) -> str:
    """The HTTP base of a server from its WebSocket URL."""
    http = "https" + ws_url[3:] if ws_url.startswith("wss") else "http" + ws_url[2:]
    return http.rsplit("/ws", 1)[0]


def ws_url(http_base: str) -> str:
    return "ws" + http_base[4:].rstrip("/") + "/ws"


def _call(method: str, url: str, body: dict[str, Any] | None) -> dict[str, Any]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(
        url, data=data, method=method, headers={"Content-Type": "application/json"}
    )
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        try:
            err = json.loads(exc.read())
        except ValueError:
            err = {"error": "http", "message": str(exc)}
        retry = exc.headers.get("Retry-After")
        raise LobbyError(
            exc.code,
            err.get("error", "?"),
            err.get("message", ""),
            int(retry) if retry and retry.isdigit() else None,
        ) from None


async def create_match(base: str, **options: Any) -> dict[str, Any]:
    """POST /api/matches: ``mode``, ``length``, ``clock``, ``private``, ``name``, ..."""
    return await asyncio.to_thread(_call, "POST", f"{base}/api/matches", options)


async def join_match(
    base: str, match_id: str, name: str | None = None, invite: str | None = None
) -> dict[str, Any]:
    body: dict[str, Any] = {"name": name}
    if invite:
        body["invite"] = invite
    return await asyncio.to_thread(_call, "POST", f"{base}/api/matches/{match_id}/join", body)


async def offer_rematch(base: str, match_id: str, token: str) -> dict[str, Any]:
    """POST /api/matches/{id}/rematch with the caller's seat token of the finished match: the
    rematch's id, and the caller's seat and token in it."""
    url = f"{base}/api/matches/{match_id}/rematch"
    return await asyncio.to_thread(_call, "POST", url, {"token": token})


async def accept_rematch(base: str, match_id: str, token: str) -> dict[str, Any]:
    """Take the seat rematch ``match_id`` keeps for you, with your token of the finished match."""
    url = f"{base}/api/matches/{match_id}/join"
    return await asyncio.to_thread(_call, "POST", url, {"rematch_token": token})


async def decline_rematch(base: str, match_id: str, token: str) -> dict[str, Any]:
    """Decline rematch ``match_id`` (offered to you) with your token of the finished match."""
    url = f"{base}/api/matches/{match_id}/decline"
    return await asyncio.to_thread(_call, "POST", url, {"rematch_token": token})


async def get(base: str, path: str) -> dict[str, Any]:
    return await asyncio.to_thread(_call, "GET", f"{base}{path}", None)


async def get_text(base: str, path: str) -> str:
    def fetch() -> str:
        with urllib.request.urlopen(f"{base}{path}", timeout=10) as response:
            return response.read().decode()

    return await asyncio.to_thread(fetch)
