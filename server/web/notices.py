"""Notifications over HTTP and one WebSocket (docs/friends.md, "Notifications"). The HTTP
routes need the session cookie (401 ``needs_account``).

    GET  /api/my/notices               -> {notices: [{id, kind, at, text, page, data, read}],
                                           unread}
    POST /api/my/notices/read {upto?}  -> the same, every notice up to id ``upto`` (all when
                                           absent) marked read
    WS   /ws/notices                   -> text frames, JSON: first {unread}, then each new
                                           notice as stored; the page keeps one per browser

The socket is refused (closed before accept: HTTP 403) from a foreign origin, and closed with
4401 without a session.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.players import profiles as players
from server.players.accounts import Account
from server.players.notices import Notices, channel
from server.web.common import BadRequest, handles_errors
from server.web.http_input import Field, Fields, takes

READ: Fields = {"upto": Field(int, nullable=True)}
NO_STORE = {"Cache-Control": "no-store"}
NO_SESSION = 4401


def notices(conn: Request | WebSocket) -> Notices:
    return conn.app.state.notices


async def signed_in(request: Request) -> Account:
    account = await players.signed_in(request)
    if account is None:
        raise BadRequest(HttpCode.NEEDS_ACCOUNT, "sign in to see your notifications", 401)
    return account


@handles_errors
async def my_notices(request: Request) -> JSONResponse:
    account = await signed_in(request)
    return JSONResponse(await notices(request).listing(account.key), headers=NO_STORE)


@handles_errors
@takes(READ)
async def mark_read(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await signed_in(request)
    upto = body.get("upto")
    if upto is not None and upto < 0:
        raise BadRequest(ErrorCode.BAD_FIELD, "upto is a notice id")
    await notices(request).mark_read(account.key, upto)
    return JSONResponse(await notices(request).listing(account.key), headers=NO_STORE)


async def live(ws: WebSocket) -> None:
    origin = ws.headers.get("origin")
    if origin is not None and origin not in ws.app.state.services.settings.origins():
        await ws.close(code=1008)
        return
    account = await players.signed_in(ws)  # type: ignore[arg-type]
    await ws.accept()
    if account is None:
        await ws.close(code=NO_SESSION)
        return
    n = notices(ws)
    pubsub = n.redis.pubsub()
    await pubsub.subscribe(channel(account.key))
    try:
        await ws.send_json({"unread": await n.unread(account.key)})

        async def forward() -> None:
            async for message in pubsub.listen():
                if message.get("type") == "message":
                    await ws.send_text(message["data"].decode())

        task = asyncio.create_task(forward())
        try:
            while True:  # the page sends nothing; this notices its going
                await ws.receive_text()
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            task.cancel()
            with contextlib.suppress(BaseException):
                await task
    finally:
        with contextlib.suppress(Exception):
            await pubsub.unsubscribe()
            await pubsub.aclose()


routes = [
    Route("/api/my/notices", my_notices, methods=["GET"]),
    Route("/api/my/notices/read", mark_read, methods=["POST"]),
    WebSocketRoute("/ws/notices", live),
]
