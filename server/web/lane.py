"""The match socket's own lane: ``/ws`` straight to the gateway, past the routing.

Starlette takes a WebSocket through its error middleware, the app's middleware, the
exception middleware, the router (each route's ``matches``) and the route's session
wrapper before the endpoint runs: about a dozen coroutines, each suspended for as long as
the connection lives. A process holding 2,000 match sockets keeps 24,000 of them for the
collector to walk, and a restart's reconnect storm builds them all at once.

This middleware, the outermost the app adds, hands a WebSocket for ``path`` to ``endpoint``
with a plain :class:`~starlette.websockets.WebSocket`, as the route would; everything else
(HTTP, the lifespan, the other sockets) goes on to the app unchanged. Nothing is lost on the
way: the app's own middleware only looks at HTTP (``server/web/origin.py``), the gateway
checks the ``Origin`` of its sockets itself, and no code of the gateway raises
``WebSocketException`` or reads the route's ``path_params``. An exception that escapes the
endpoint reaches uvicorn exactly as through the router (Starlette's middleware re-raise it
for WebSockets): logged, the socket closed with 1011 (or the upgrade answered 500).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from starlette._utils import get_route_path
from starlette.websockets import WebSocket

Scope = MutableMapping[str, Any]
ASGIApp = Callable[[Scope, Any, Any], Awaitable[None]]


class SocketLane:
    """``path`` (a WebSocket) to ``endpoint``; all else to ``app``."""

    def __init__(
        self, app: ASGIApp, path: str, endpoint: Callable[[WebSocket], Awaitable[None]]
    ) -> None:
        self.app = app
        self.path = path
        self.endpoint = endpoint

    async def __call__(self, scope: Scope, receive: Any, send: Any) -> None:
        if scope["type"] == "websocket" and get_route_path(scope) == self.path:
            await self.endpoint(WebSocket(scope, receive=receive, send=send))
        else:
            await self.app(scope, receive, send)
