"""Friends over HTTP (docs/friends.md). Every route needs the session cookie (401
``needs_account``); a name no account has, or one that blocks the caller, is 404 ``not_found``.

    GET    /api/my/friends               -> {following: [{name, mutual, online, playing, tell}],
                                             blocked: [name], privacy: {show, challenges}}
    POST   /api/my/friends    {name, tell?}  -> follow (idempotent); tell: hear when they start
                                             a match (a ``friend_playing`` notice)
    DELETE /api/my/friends/{name}        -> unfollow
    POST   /api/my/blocks     {name}     -> block (both follows end)
    DELETE /api/my/blocks/{name}         -> unblock
    POST   /api/my/privacy    {show?, challenges?}  -> the settings after the change

``playing`` lists live public games as watch links; ``online`` and ``playing`` are null when
the followed account's ``show`` setting hides them from the caller.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.players import profiles as players
from server.players.accounts import Account
from server.players.friends import PRIVACY_LEVELS, FollowRefused, Friends
from server.web.common import BadRequest, handles_errors, service
from server.web.http_input import BOOLEAN, NO_FIELDS, STRING, Field, Fields, takes

NAME: Fields = {"name": STRING}
FOLLOW: Fields = {"name": STRING, "tell": BOOLEAN}
PRIVACY: Fields = {"show": Field(str, nullable=True), "challenges": Field(str, nullable=True)}


NO_STORE = {"Cache-Control": "no-store"}


def friends(request: Request) -> Friends:
    return request.app.state.friends


async def me(request: Request) -> Account:
    account = await players.signed_in(request)
    if account is None:
        raise BadRequest(HttpCode.NEEDS_ACCOUNT, "sign in to see your friends", 401)
    await friends(request).seen(account, service(request).now())
    return account


async def other(request: Request, name: str | None, caller: Account) -> Account:
    found = await players.players(request).accounts.find(name or "")
    if found is None or await friends(request).blocks(found.key, caller.key):
        raise BadRequest(ErrorCode.NOT_FOUND, f"no player is named {name!r}", 404)
    return found


async def listing(request: Request, account: Account) -> JSONResponse:
    f = friends(request)
    body = await f.listing(account, service(request).now())
    base = request.app.state.services.settings.base_url
    for row in body["following"]:
        if row["playing"] is not None:
            row["playing"] = [{"match": m, "watch": f"{base}/m/{m}#watch"} for m in row["playing"]]
    body["privacy"] = await f.privacy(account.key)
    return JSONResponse(body, headers=NO_STORE)


@handles_errors
async def list_friends(request: Request) -> JSONResponse:
    return await listing(request, await me(request))


@handles_errors
@takes(FOLLOW)
async def follow(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await me(request)
    target = await other(request, body.get("name"), account)
    try:
        if not await friends(request).follow(account, target.key, body.get("tell")):
            raise BadRequest(ErrorCode.NOT_FOUND, f"no player is named {body['name']!r}", 404)
    except FollowRefused as exc:
        raise BadRequest(ErrorCode.BAD_FIELD, str(exc)) from None
    return await listing(request, account)


@handles_errors
@takes(NO_FIELDS)
async def unfollow(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await me(request)
    await friends(request).unfollow(account, request.path_params["name"].lower())
    return await listing(request, account)


@handles_errors
@takes(NAME)
async def block(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await me(request)
    found = await players.players(request).accounts.find(body.get("name") or "")
    if found is None:
        raise BadRequest(ErrorCode.NOT_FOUND, f"no player is named {body['name']!r}", 404)
    try:
        await friends(request).block(account, found.key)
    except FollowRefused as exc:
        raise BadRequest(ErrorCode.BAD_FIELD, str(exc)) from None
    return await listing(request, account)


@handles_errors
@takes(NO_FIELDS)
async def unblock(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await me(request)
    await friends(request).unblock(account, request.path_params["name"].lower())
    return await listing(request, account)


@handles_errors
@takes(PRIVACY)
async def set_privacy(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await me(request)
    changes = {k: v for k, v in body.items() if v is not None}
    for k, v in changes.items():
        if v not in PRIVACY_LEVELS:
            raise BadRequest(ErrorCode.BAD_FIELD, f"{k} is one of {', '.join(PRIVACY_LEVELS)}")
    await friends(request).set_privacy(account, changes)
    return await listing(request, account)


routes = [
    Route("/api/my/friends", list_friends, methods=["GET"]),
    Route("/api/my/friends", follow, methods=["POST"]),
    Route("/api/my/friends/{name}", unfollow, methods=["DELETE"]),
    Route("/api/my/blocks", block, methods=["POST"]),
    Route("/api/my/blocks/{name}", unblock, methods=["DELETE"]),
    Route("/api/my/privacy", set_privacy, methods=["POST"]),
]
