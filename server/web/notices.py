"""Notifications over HTTP and one WebSocket (docs/friends.md, "Notifications"). The HTTP
routes need the session cookie (401 ``needs_account``).

    GET  /api/my/notices               -> {notices: [{id, kind, at, text, page, data, read}],
                                           unread}
    POST /api/my/notices/read {upto?}  -> the same, every notice up to id ``upto`` (all when
                                           absent) marked read
    GET  /api/my/email                 -> {address, on, available}: e-mail of notices
    POST /api/my/email {address?, on?} -> the same after the change
    GET or POST /unsubscribe?u=<name>&t=<token>  -> (no login) e-mail off; plain text
    WS   /ws/notices                   -> text frames, JSON: first {unread}, then each new
                                           notice as stored ({unread} again after the process
                                           was deaf to it: server/players/notice_hub.py)

The socket is refused (closed before accept: HTTP 403) from a foreign origin, and closed with
4401 without a session.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.ops import logs
from server.players import profiles as players
from server.players.accounts import Account
from server.players.mail import Mailer, valid_address
from server.players.notice_hub import MISSED, NoticeHub
from server.players.notices import Notices
from server.web.common import BadRequest, handles_errors
from server.web.http_input import BOOLEAN, STRING, Field, Fields, takes

READ: Fields = {"upto": Field(int, nullable=True)}
EMAIL: Fields = {"address": STRING, "on": BOOLEAN}
NO_STORE = {"Cache-Control": "no-store"}
NO_SESSION = 4401

log = logs.get("notices")


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


def mailer(request: Request) -> Mailer:
    return request.app.state.mailer


@handles_errors
async def my_email(request: Request) -> JSONResponse:
    account = await signed_in(request)
    return JSONResponse(await mailer(request).settings(account.key), headers=NO_STORE)


@handles_errors
@takes(EMAIL)
async def set_email(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await signed_in(request)
    address = body.get("address")
    if address is not None and not valid_address(address):
        raise BadRequest(ErrorCode.BAD_FIELD, "address is an e-mail address")
    m = mailer(request)
    if body.get("on") and address is None and not (await m.settings(account.key))["address"]:
        raise BadRequest(ErrorCode.BAD_FIELD, "give an address to receive e-mail")
    answer = await m.configure(account.key, address, body.get("on"))
    return JSONResponse(answer, headers=NO_STORE)


async def unsubscribe(request: Request) -> PlainTextResponse:
    user, token = request.query_params.get("u", ""), request.query_params.get("t", "")
    if len(user) > 64 or len(token) > 128 or not await mailer(request).unsubscribe(user, token):
        return PlainTextResponse("This unsubscribe link is not valid (any more).", 404)
    return PlainTextResponse("You will receive no more e-mail from fairgammon.")


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
    hub: NoticeHub = ws.app.state.notice_hub
    try:
        async with hub.listen(account.key) as heard:
            await ws.send_json({"unread": await n.unread(account.key)})

            async def forward() -> None:
                while True:
                    item = await heard.get()
                    if item == MISSED:  # notices may have been stored unheard: recount
                        await ws.send_json({"unread": await n.unread(account.key)})
                    else:
                        await ws.send_text(bytes(item).decode())

            task = asyncio.create_task(forward())
            try:
                while True:  # the page sends nothing; this notices its going (anything sent
                    # is ignored)
                    if (await ws.receive())["type"] == "websocket.disconnect":
                        break
            except (WebSocketDisconnect, RuntimeError):
                pass
            finally:
                task.cancel()
                with contextlib.suppress(BaseException):
                    await task
    except Exception as exc:  # no pub/sub now (Redis away): the page opens another later
        log.warning("notices socket ended", extra=logs.fields(error=repr(exc)))
        with contextlib.suppress(Exception):
            await ws.close(code=1011)


routes = [
    Route("/api/my/notices", my_notices, methods=["GET"]),
    Route("/api/my/notices/read", mark_read, methods=["POST"]),
    Route("/api/my/email", my_email, methods=["GET"]),
    Route("/api/my/email", set_email, methods=["POST"]),
    Route("/unsubscribe", unsubscribe, methods=["GET", "POST"]),
    WebSocketRoute("/ws/notices", live),
]
