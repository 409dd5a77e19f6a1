"""Quick pairing over HTTP (JSON) and its own small WebSocket (docs/protocol.md, "Quick
pairing"):

    POST   /api/seeks    {mode, length?, clock?, rated?, range?, bots?, name?}
                         -> 201 {seek, state…}
    GET    /api/seeks    -> {looking: [{mode, length, clock, rated, count}]}
    GET    /api/seeks/{seek}   -> {seek, state: waiting | paired | gone, …}
    DELETE /api/seeks/{seek}   -> the same, once it left the pool
    WS     /ws/seeks/{seek}    -> that state as JSON text, again each time it changes;
                                  closing the socket takes a waiting seek out of the pool

A seek's id is its holder's secret: whoever has it reads the seat token of the match it was
paired into (``{state: "paired", match, seat, token, page}``), so any client can play. The
browser is told apart by a cookie of its own (``fg_browser``, set on the first seek): the pool
never pairs two seeks of one browser, nor of one account. Rated seeks and rating ranges need
the session cookie (an account with its rating). Seeks count against the lobby's creation
limits per client address (server/web/limits.py). A bot account's seek is a bot's; a
human's accepts bots only with ``bots: true`` (unrated: docs/accounts.md, "Bot accounts").
The rules: docs/tournaments.md, "Quick pairing"; the shell: :mod:`server.competition.quick`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import secrets
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect

from engine.errors import GameError
from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.competition.errors import Refused as CompetitionRefused
from server.competition.quick import QuickPairing, Seeker, options_of
from server.competition.seeks import MAX_RANGE, MODES
from server.ops.addresses import address_key
from server.players import profiles as players
from server.web.common import (
    BadRequest,
    clean_name,
    client_address,
    error,
    handles_errors,
    service,
)
from server.web.http_input import (
    BOOLEAN,
    INTEGER,
    NO_FIELDS,
    STRING,
    STRING_OR_NULL,
    Field,
    Fields,
    takes,
)
from server.web.limits import LobbyLimits

BROWSER_COOKIE = "fg_browser"
BROWSER_ID = re.compile(r"[A-Za-z0-9_-]{16,64}")
SEEK_ID = re.compile(r"[0-9a-f]{32}")
HEARTBEAT_SECONDS = 15.0
"""A waiting socket is sent its state again this often even when nothing changed."""

SEEK: Fields = {
    "mode": STRING,
    "length": INTEGER,
    "clock": INTEGER,
    "rated": BOOLEAN,
    "range": Field(int, nullable=True),
    "bots": BOOLEAN,
    "name": STRING_OR_NULL,
}


def quick(request: Request | WebSocket) -> QuickPairing:
    return request.app.state.quick


def seek_of(request: Request | WebSocket) -> str:
    seek_id = request.path_params["seek"]
    if not SEEK_ID.fullmatch(seek_id):
        raise BadRequest(ErrorCode.NOT_FOUND, "no such seek", 404)
    return seek_id


def answer(request: Request | WebSocket, seek_id: str, state: dict[str, Any]) -> dict[str, Any]:
    """A seek's state as the API answers it (with the match's page once paired)."""
    out = {"seek": seek_id, **state}
    if state.get("state") == "paired":
        base = request.app.state.services.settings.base_url
        out["page"] = f"{base}/m/{state['match']}"
    return out


@handles_errors
@takes(SEEK)
async def create_seek(request: Request, body: dict[str, Any]) -> Response:
    settings = request.app.state.services.settings
    mode = body.get("mode", "single_game")
    if mode not in MODES:
        raise BadRequest(ErrorCode.BAD_FIELD, "mode is single_game, match or money")
    length = body.get("length", 0) if mode == "match" else 0
    if mode == "match" and "length" not in body:
        raise BadRequest(ErrorCode.BAD_FIELD, "length (1..25 points) is required for a match")
    clock = body.get("clock", settings.clock_seconds)
    if not 5 <= clock <= 600:
        raise BadRequest(ErrorCode.BAD_FIELD, "clock must be 5..600 seconds")
    try:
        options = options_of(mode, length)
    except GameError as exc:
        raise BadRequest(ErrorCode.BAD_FIELD, exc.detail) from None
    account = await players.signed_in(request)
    rated = players.rated_choice(body, options, account)
    if rated:
        await players.may_play_rated(request, account)  # docs/moderation.md
    range_ = body.get("range")
    if range_ is not None:
        if account is None:
            raise BadRequest(HttpCode.NEEDS_ACCOUNT, "sign in to choose a rating range", 401)
        if not 0 <= range_ <= MAX_RANGE:
            raise BadRequest(ErrorCode.BAD_FIELD, f"range is 0..{MAX_RANGE} rating points")
    limits: LobbyLimits = request.app.state.lobby_limits
    await limits.admit(address_key(client_address(request)), service(request).now())
    browser = request.cookies.get(BROWSER_COOKIE, "")
    new_browser = not BROWSER_ID.fullmatch(browser)
    if new_browser:
        browser = secrets.token_urlsafe(16)
    if account is not None:
        seeker = Seeker(account.name, account.ref)
        identity = {"account": account.id, "rating": round(account.rating), "range": range_,
                    "bot": account.bot, "bots": account.bot or body.get("bots", False)}
    else:
        seeker = Seeker(clean_name(body.get("name")))
        identity = {"bots": body.get("bots", False)}
    pairing = quick(request)
    try:
        seek_id = await pairing.seek(mode, length, clock, rated, browser, seeker, **identity)
    except CompetitionRefused as exc:
        raise BadRequest(HttpCode.BAD_SEEK, exc.message) from None
    state = await pairing.state(seek_id) or {"state": "waiting", "computer": False}
    response = JSONResponse(
        {**answer(request, seek_id, state), "socket": f"/ws/seeks/{seek_id}"}, status_code=201
    )
    if new_browser:
        response.set_cookie(
            BROWSER_COOKIE, browser, max_age=365 * 86400, path="/", httponly=True, samesite="lax"
        )
    return response


@handles_errors
async def list_seeks(request: Request) -> Response:
    return JSONResponse({"looking": await quick(request).looking()})


@handles_errors
async def get_seek(request: Request) -> Response:
    seek_id = seek_of(request)
    state = await quick(request).state(seek_id)
    if state is None:
        return error(ErrorCode.NOT_FOUND, "no such seek (or it ended long ago)", 404)
    return JSONResponse(answer(request, seek_id, state), headers={"Cache-Control": "no-store"})


@handles_errors
@takes(NO_FIELDS)
async def delete_seek(request: Request, body: dict[str, Any]) -> Response:
    seek_id = seek_of(request)
    state = await quick(request).cancel(seek_id)
    if state is None:
        return error(ErrorCode.NOT_FOUND, "no such seek (or it ended long ago)", 404)
    return JSONResponse(answer(request, seek_id, state))


async def seek_socket(ws: WebSocket) -> None:
    """The seek's state now and at each change, as JSON text; the socket closes (1000) once
    the seek is paired or gone. A socket that closes while its seek waits takes it out."""
    origins = ws.app.state.services.settings.origins()
    origin = ws.headers.get("origin")
    seek_id = ws.path_params["seek"]
    if (origin is not None and origin not in origins) or not SEEK_ID.fullmatch(seek_id):
        await ws.close(code=1008)  # before accept: the upgrade is answered 403
        return
    await ws.accept()
    pairing = quick(ws)
    closed = asyncio.Event()

    async def receive() -> None:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    break
        closed.set()

    reader = asyncio.create_task(receive())
    closing = asyncio.create_task(closed.wait())
    settled = False
    last: dict[str, Any] | None = None
    quiet = 0.0
    try:
        async with pairing.watch(seek_id) as wake:
            while not closed.is_set():
                state = await pairing.state(seek_id)
                gone = {"state": "gone", "why": "unknown"}
                body = answer(ws, seek_id, state or gone)
                if body != last or quiet >= HEARTBEAT_SECONDS:
                    await ws.send_text(json.dumps(body))
                    last, quiet = body, 0.0
                if body["state"] != "waiting":
                    settled = True
                    break
                waiting = asyncio.create_task(wake.get())
                started = asyncio.get_running_loop().time()
                await asyncio.wait(
                    {waiting, closing},
                    timeout=HEARTBEAT_SECONDS,
                    return_when=asyncio.FIRST_COMPLETED,
                )
                quiet += asyncio.get_running_loop().time() - started
                waiting.cancel()
    except Exception:  # the socket broke: as if closed
        pass
    finally:
        reader.cancel()
        closing.cancel()
        if not settled:
            with contextlib.suppress(Exception):
                await pairing.cancel(seek_id)  # the page is gone: so is its seek
        with contextlib.suppress(Exception):
            await ws.close(1000)


routes = [
    Route("/api/seeks", create_seek, methods=["POST"]),
    Route("/api/seeks", list_seeks, methods=["GET"]),
    Route("/api/seeks/{seek}", get_seek, methods=["GET"]),
    Route("/api/seeks/{seek}", delete_seek, methods=["DELETE"]),
    WebSocketRoute("/ws/seeks/{seek}", seek_socket),
]
