"""Only the server's own pages may change state over HTTP.

An ASGI middleware in front of every ``POST``/``PUT``/``PATCH``/``DELETE`` to ``/api/``: a
request whose ``Origin`` header is not in the allowlist (:meth:`Settings.origins`, the same
one the WebSocket gateway checks) is refused with 403 ``bad_origin``, as is one carrying the
session cookie without any ``Origin`` (every browser sends one on such requests; a page of
another site cannot make a browser leave it out). Programs that send neither (the asyncio
client, scripts) are served as before. Read-only requests are not checked.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from http.cookies import SimpleCookie
from typing import Any

from protocol.http_errors import STATUS, HttpCode
from server.players.accounts import COOKIE

Scope = MutableMapping[str, Any]
Channel = Callable[..., Awaitable[Any]]
ASGIApp = Callable[[Scope, Channel, Channel], Awaitable[None]]

CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})


def has_session_cookie(header: str | None) -> bool:
    if not header:
        return False
    cookies: SimpleCookie = SimpleCookie()
    try:
        cookies.load(header)
    except Exception:
        return COOKIE in header
    return COOKIE in cookies


def refused(origin: str | None, cookie_header: str | None, allowed: frozenset[str]) -> bool:
    """Whether a state-changing request with these headers is refused.

    >>> own = frozenset({"http://localhost:8000"})
    >>> refused("http://localhost:8000", "fg_session=a.b", own), refused(None, None, own)
    (False, False)
    >>> refused("https://evil.example", None, own), refused(None, "fg_session=a.b", own)
    (True, True)
    >>> refused("null", None, own)
    True
    """
    if origin is not None:
        return origin not in allowed
    return has_session_cookie(cookie_header)


class OriginCheck:
    def __init__(self, app: ASGIApp, allowed: frozenset[str]) -> None:
        self.app = app
        self.allowed = allowed

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if (
            scope["type"] == "http"
            and scope.get("method") in CHANGING
            and scope.get("path", "").startswith("/api/")
        ):
            headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
            if refused(headers.get("origin"), headers.get("cookie"), self.allowed):
                body = json.dumps(
                    {"error": HttpCode.BAD_ORIGIN.value,
                     "message": "only this site's own pages may do this"}
                ).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": STATUS[HttpCode.BAD_ORIGIN],
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)
