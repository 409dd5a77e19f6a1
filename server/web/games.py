"""A signed-in player's games over HTTP (docs/correspondence.md).

    GET    /api/my/games                 -> every live game of the account, most urgent first
    POST   /api/matches/{id}/seat   {}   -> the account's seat token of that match (any device)
    GET    /api/my/vacation              -> the vacation: on, until, days used and left
    POST   /api/my/vacation  {days}      -> start one now (a running one ends first)
    DELETE /api/my/vacation              -> end it now (the days not taken are given back)

Both need the session cookie (401 ``needs_account`` without it). The seat token of a seat an
account took is derived from the account (:func:`server.match.tokens.account_token`), so this
route can give it again, to that account only; a seat it holds otherwise (a rematch's, derived
from the earlier match's token) is answered 404: its token is only in the browser that took it.
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
from server.players.vacation import VacationRefused
from server.web.common import BadRequest, handles_errors, match_id_of, service
from server.web.http_input import INTEGER, NO_FIELDS, Fields, takes

NO_STORE = {"Cache-Control": "no-store"}


async def signed_in(request: Request) -> Account:
    account = await players.signed_in(request)
    if account is None:
        raise BadRequest(HttpCode.NEEDS_ACCOUNT, "sign in to see your games", 401)
    return account


def row(game: dict[str, Any], base: str, now: int) -> dict[str, Any]:
    """One game of the list as the API answers it."""
    s, seat = game["summary"], game["seat"]
    names = s["names"]
    deadline = s.get("deadline")
    return {
        "match": game["match"],
        "seat": seat,
        "opponent": names[1 - seat],
        "mode": s["mode"],
        "length": s["length"],
        "variant": s.get("variant", "backgammon"),
        "score": [s["score"][seat], s["score"][1 - seat]],
        "days": s.get("days", 0),
        "clock": s["clock"],
        "phase": s["phase"],
        "your_turn": game["your_turn"],
        "decision": s.get("decision"),
        "deadline": deadline,
        "time_left": max(0, deadline - now) if deadline is not None else None,
        "private": s["private"],
        "page": f"{base}/m/{game['match']}",
    }


@handles_errors
async def my_games(request: Request) -> JSONResponse:
    account = await signed_in(request)
    p = players.players(request)
    matches = service(request)
    live = await p.games.live(account)
    now = matches.now()
    await request.app.state.friends.seen(account, now)  # online, as friends see it
    base = request.app.state.services.settings.base_url
    rows = [row(g, base, now) for g in live]
    body = {
        "games": rows,
        "count": len(rows),
        "correspondence": sum(1 for r in rows if r["days"]),
        "limit": p.games_per_account,
        "your_turn": sum(1 for r in rows if r["your_turn"]),
        "server_time": now,
    }
    return JSONResponse(body, headers=NO_STORE)


@handles_errors
@takes(NO_FIELDS)
async def seat_token(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await signed_in(request)
    match_id = match_id_of(request)
    matches = service(request)
    refs = await matches.store.seat_fields(match_id, ["a0", "a1"])
    seat = next((s for s in (0, 1) if refs[s] and refs[s].decode() == account.ref), None)
    if seat is None:
        raise BadRequest(ErrorCode.NOT_FOUND, "you hold no seat of this match", 404)
    token = await matches.account_token(match_id, seat, account.ref)
    if not await matches.holds(match_id, str(seat), token):
        raise BadRequest(
            ErrorCode.NOT_FOUND, "this seat's token is only in the browser that took it", 404
        )
    base = request.app.state.services.settings.base_url
    answer = {"match": match_id, "seat": seat, "token": token, "page": f"{base}/m/{match_id}"}
    return JSONResponse(answer, headers=NO_STORE)


VACATION: Fields = {"days": INTEGER}


@handles_errors
async def vacation(request: Request) -> JSONResponse:
    account = await signed_in(request)
    p = players.players(request)
    status = await p.vacations.status(account)
    return JSONResponse(status.as_json(service(request).now()), headers=NO_STORE)


@handles_errors
@takes(VACATION)
async def start_vacation(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await signed_in(request)
    p = players.players(request)
    days = body.get("days")
    if days is None or not 1 <= days <= max(1, p.vacations.allowance_ms // p.vacations.day_ms):
        raise BadRequest(ErrorCode.BAD_FIELD, "days is the length of the vacation (1 or more)")
    try:
        status = await p.vacations.start(account, days)
    except VacationRefused as exc:
        raise BadRequest(HttpCode.VACATION_USED, str(exc), 409) from None
    return JSONResponse(status.as_json(service(request).now()), headers=NO_STORE)


@handles_errors
@takes(NO_FIELDS)
async def end_vacation(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await signed_in(request)
    status = await players.players(request).vacations.end(account)
    return JSONResponse(status.as_json(service(request).now()), headers=NO_STORE)


routes = [
    Route("/api/my/games", my_games, methods=["GET"]),
    Route("/api/matches/{match_id}/seat", seat_token, methods=["POST"]),
    Route("/api/my/vacation", vacation, methods=["GET"]),
    Route("/api/my/vacation", start_vacation, methods=["POST"]),
    Route("/api/my/vacation", end_vacation, methods=["DELETE"]),
]
