"""Direct challenges over HTTP (docs/friends.md, "Challenges"). Every route needs the session
cookie (401 ``needs_account``).

    POST /api/challenges  {name, match, invite}  -> 201 {match, to}: offer the caller's open
                                                    match (seat 0, as ``POST /api/matches``
                                                    created it) to the player ``name``
    GET  /api/my/challenges                      -> {received: [...], sent: [...]}
    POST /api/challenges/{match}/accept   {}     -> {match, seat: 1, token, page}
    POST /api/challenges/{match}/decline  {}     -> {match, declined: true} (the challenged
                                                    declines, or the challenger withdraws:
                                                    the match is cancelled)
"""

from __future__ import annotations

import contextlib
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.players import profiles as players
from server.players.accounts import Account
from server.players.challenges import Challenge, ChallengeRefused, Challenges
from server.players.friends import Friends
from server.players.notices import Notices
from server.web.common import BadRequest, handles_errors, match_id_of, service
from server.web.http_input import NO_FIELDS, STRING, Fields, takes

OFFER: Fields = {"name": STRING, "match": STRING, "invite": STRING}
NO_STORE = {"Cache-Control": "no-store"}


def challenges(request: Request) -> Challenges:
    return request.app.state.challenges


async def signed_in(request: Request) -> Account:
    account = await players.signed_in(request)
    if account is None:
        raise BadRequest(HttpCode.NEEDS_ACCOUNT, "sign in to challenge a player", 401)
    return account


def page(request: Request, match_id: str) -> str:
    return f"{request.app.state.services.settings.base_url}/m/{match_id}"


async def tell(request: Request, key: str, kind: str, text: str, c: Challenge) -> None:
    """A notice to ``key`` about challenge ``c`` (a notice lost to the store loses only it)."""
    notices: Notices = request.app.state.notices
    with contextlib.suppress(Exception):
        now = service(request).now()
        await notices.notify(key, kind, text, now, page(request, c.match), match=c.match)


@handles_errors
@takes(OFFER)
async def offer(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await signed_in(request)
    friends: Friends = request.app.state.friends
    target = await players.players(request).accounts.find(body["name"])
    if target is None or await friends.blocks(target.key, account.key):
        raise BadRequest(ErrorCode.NOT_FOUND, f"no player is named {body['name']!r}", 404)
    if target.key == account.key:
        raise BadRequest(ErrorCode.BAD_FIELD, "you cannot challenge yourself")
    if not await friends.may_challenge(account.key, target.key):
        raise BadRequest(ErrorCode.FORBIDDEN, f"{target.name} takes no challenges from you", 403)
    matches = service(request)
    match_id = body["match"]
    if len(match_id) > 64 or len(body["invite"]) > 512:
        raise BadRequest(ErrorCode.BAD_FIELD, "match is a match id, invite its invite link")
    refs = await matches.store.seat_fields(match_id, ["a0", "a1", "rated"])
    if not refs[0] or refs[0].decode() != account.ref or refs[1]:
        raise BadRequest(ErrorCode.NOT_FOUND, "you have no open match of that id", 404)
    if account.bot and not target.bot:
        raise BadRequest(HttpCode.BOT_POOL, "a bot challenges only bots", 403)
    if refs[2] == b"1" and account.bot != target.bot:
        raise BadRequest(HttpCode.BOT_POOL, "bots are rated apart: challenge a bot unrated", 403)
    state = await matches.load(match_id, fresh=True)
    if state.is_over or state.names[1] is not None:
        raise BadRequest(ErrorCode.NOT_FOUND, "that match is no longer open", 404)
    lifetime = request.app.state.lobby_limits.limits.open_ms
    remaining = max(1, state.created + lifetime - matches.now())
    try:
        c = Challenge(match_id, account.key, target.key, body["invite"].rsplit("#join=", 1)[-1])
        await challenges(request).offer(c, matches.now(), remaining)
    except ChallengeRefused as exc:
        raise BadRequest(ErrorCode.TOO_MANY_OPEN, str(exc), 429) from None
    d = state.config.days
    days = f" ({d} day{'s' if d > 1 else ''} a move)" if d else ""
    await tell(request, target.key, "challenge", f"{account.name} challenges you{days}", c)
    return JSONResponse({"match": match_id, "to": target.name}, status_code=201)


@handles_errors
async def my_challenges(request: Request) -> JSONResponse:
    account = await signed_in(request)
    body = await challenges(request).listing(account.key, service(request).now())
    for rows in body.values():
        for row in rows:
            row["page"] = page(request, row["match"])
    return JSONResponse(body, headers=NO_STORE)


async def the_challenge(request: Request, account: Account) -> Challenge:
    c = await challenges(request).get(match_id_of(request))
    if c is None or account.key not in (c.sender, c.receiver):
        raise BadRequest(ErrorCode.NOT_FOUND, "no such challenge (it may have expired)", 404)
    return c


@handles_errors
@takes(NO_FIELDS)
async def accept(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await signed_in(request)
    c = await the_challenge(request, account)
    if account.key != c.receiver:
        raise BadRequest(ErrorCode.NOT_FOUND, "this challenge is not yours to accept", 404)
    matches = service(request)
    await players.check_join(request, c.match, account)
    if (await matches.load(c.match)).config.correspondence:
        await players.may_start(request, account)
    token = await matches.account_token(c.match, 1, account.ref)
    extra = players.seat_fields(1, account)
    token = await matches.join(c.match, account.name, c.invite, seat_extra=extra, token=token)
    await players.took_seat(request, account, c.match, 1)
    await challenges(request).close(c)
    with contextlib.suppress(Exception):  # presence is a hint
        await request.app.state.services.gateway.presence.claimed(c.match, 1)
    await tell(request, c.sender, "challenge_accepted", f"{account.name} accepted", c)
    return JSONResponse(
        {"match": c.match, "seat": 1, "token": token, "page": page(request, c.match)}
    )


@handles_errors
@takes(NO_FIELDS)
async def decline(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await signed_in(request)
    c = await the_challenge(request, account)
    await challenges(request).close(c)
    await service(request).cancel_unjoined(c.match, 0)
    if account.key == c.receiver:
        await tell(request, c.sender, "challenge_declined", f"{account.name} declined", c)
    return JSONResponse({"match": c.match, "declined": True})


routes = [
    Route("/api/challenges", offer, methods=["POST"]),
    Route("/api/my/challenges", my_challenges, methods=["GET"]),
    Route("/api/challenges/{match_id}/accept", accept, methods=["POST"]),
    Route("/api/challenges/{match_id}/decline", decline, methods=["POST"]),
]
