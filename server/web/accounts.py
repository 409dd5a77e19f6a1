"""HTTP routes of accounts, player profiles and the leaderboard (docs/accounts.md).

    POST   /api/account/signup   {username, password}  -> 201, the session cookie
    POST   /api/account/login    {username, password}  -> 200, the session cookie
    POST   /api/account/logout   {} or no body         -> 200, the cookie cleared
    DELETE /api/account          {} or no body         -> 200, account and sessions gone
    GET    /api/account                                -> who am I ({signed_in: false} if nobody)
    GET    /api/players/{name}?page=<n>                -> profile, rating chart, history
    GET    /api/leaderboard?pool=humans|bots           -> the top rated players of a pool
    POST   /api/my/bot           {} or no body         -> 200, the account is now a bot account
    GET    /api/top?period=week|month                  -> the Top Gamer board of the period

State-changing requests also pass :mod:`server.web.origin`. The lobby asks
:func:`signed_in` who made a create or join request.
"""

from __future__ import annotations

import time
from typing import Any

import msgpack
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.players.accounts import COOKIE, SESSION_DAYS, Account, is_username
from server.players.profiles import players, signed_in
from server.players.top import KINDS
from server.web.common import BadRequest, client_address, error, handles_account_errors
from server.web.http_input import NO_FIELDS, STRING, Fields, takes

PAGE = 20
CHART_POINTS = 500
LEADERS = 50
POOLS = ("humans", "bots")
CREDENTIALS: Fields = {"username": STRING, "password": STRING}


def _secure(request: Request) -> bool:
    """Mark the cookie Secure when the site is served over TLS: the public URL is https, or
    the request came over https (directly, or as a trusted proxy's X-Forwarded-Proto says)."""
    base = request.app.state.services.settings.base_url
    return base.startswith("https://") or request.url.scheme == "https"


def _with_session(request: Request, body: dict[str, Any], cookie: str, status: int) -> Response:
    response = JSONResponse(body, status_code=status, headers={"Cache-Control": "no-store"})
    response.set_cookie(
        COOKIE,
        cookie,
        max_age=SESSION_DAYS * 86400,
        path="/",
        secure=_secure(request),
        httponly=True,
        samesite="lax",
    )
    return response


def _credentials(body: dict[str, Any]) -> tuple[Any, Any]:
    return body.get("username"), body.get("password")


@handles_account_errors
@takes(CREDENTIALS)
async def signup(request: Request, body: dict[str, Any]) -> Response:
    accounts = players(request).accounts
    account, cookie = await accounts.signup(*_credentials(body), client_address(request))
    return _with_session(request, account.public(), cookie, 201)


@handles_account_errors
@takes(CREDENTIALS)
async def login(request: Request, body: dict[str, Any]) -> Response:
    accounts = players(request).accounts
    account, cookie = await accounts.login(*_credentials(body), client_address(request))
    return _with_session(request, account.public(), cookie, 200)


@handles_account_errors
@takes(NO_FIELDS)
async def logout(request: Request, body: dict[str, Any]) -> Response:
    await players(request).accounts.logout(request.cookies.get(COOKIE))
    response = JSONResponse({"signed_in": False})
    response.delete_cookie(COOKIE, path="/", secure=_secure(request), httponly=True, samesite="lax")
    return response


@handles_account_errors
async def whoami(request: Request) -> Response:
    """200 either way (a page asks on every load; signed out is not an error)."""
    account = await signed_in(request)
    body = {"signed_in": True, **account.public()} if account else {"signed_in": False}
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@handles_account_errors
@takes(NO_FIELDS)
async def delete_account(request: Request, body: dict[str, Any]) -> Response:
    account = await signed_in(request)
    if account is None:
        return error(HttpCode.SIGNED_OUT, "not signed in")
    await players(request).accounts.delete(account)
    response = JSONResponse({"deleted": account.name})
    response.delete_cookie(COOKIE, path="/", secure=_secure(request), httponly=True, samesite="lax")
    return response


@handles_account_errors
async def profile(request: Request) -> Response:
    name = request.path_params["name"]
    p = players(request)
    row = await p.accounts.store.account(name) if is_username(name) else None
    if row is None:
        return error(ErrorCode.NOT_FOUND, "no such player", 404)
    account = Account.of(row)
    me = await signed_in(request)
    own = me is not None and me.id == account.id  # the player sees their private matches too
    try:
        page = int(request.query_params.get("page", "1"))
    except ValueError:
        raise BadRequest(ErrorCode.BAD_FIELD, "page is a number") from None
    if not 1 <= page <= 10_000:
        raise BadRequest(ErrorCode.BAD_FIELD, "page is 1..10000")
    store = p.accounts.store
    total = await store.history_length(account.key, public=not own)
    entries = await store.history(account.key, not own, (page - 1) * PAGE, PAGE)
    history = [msgpack.unpackb(e, raw=False) for e in entries]
    # Which opponents are bot accounts now (one read for the page's accounts).
    named = sorted({e["opponent"].lower() for e in history if e.get("opponent_account")})
    bots = {k for k, r in zip(named, await store.accounts(named) if named else [], strict=True)
            if r and r.get("bot") == "1"}  # fmt: skip
    for entry in history:
        entry["link"] = f"/m/{entry['match']}"
        entry.setdefault("void", None)  # lines stored before docs/fairplay.md's rules
        entry["opponent_bot"] = bool(entry.get("opponent_account")) and (
            entry["opponent"].lower() in bots
        )
    points = [msgpack.unpackb(c, raw=False) for c in await store.chart(account.key, CHART_POINTS)]
    chart = [{"at": at, "rating": round(r, 2), "match": m or None} for at, r, m in points]
    # The tournaments the player finished (server/competition: docs/tournaments.md).
    placed = await request.app.state.tournaments.results_of(account.id, PAGE)
    placed = [t for t in placed if own or not t.get("private")]
    return JSONResponse(
        {
            **account.public(),
            "variants": account.variant_ratings(),
            "wins": int(row.get("wins", 0)),
            "created": int(row["created"]),
            "chart": chart,
            "history": history,
            "page": page,
            "pages": max(1, -(-total // PAGE)),
            "total": total,
            "own": own,
            "tournaments": placed,
        },
        headers={"Cache-Control": "no-store"},
    )


@handles_account_errors
@takes(NO_FIELDS)
async def become_bot(request: Request, body: dict[str, Any]) -> Response:
    """The account asks to be a bot account (docs/accounts.md, "Bot accounts"): granted to an
    account that never played a rated match against humans; for good (only the operator
    turns it back)."""
    account = await signed_in(request)
    if account is None:
        return error(HttpCode.NEEDS_ACCOUNT, "not signed in")
    if not account.bot:
        done = await players(request).accounts.store.mark_bot(
            account.key, account.id, on=True, only_fresh=True
        )
        if done < 0:
            return error(HttpCode.BOT_REFUSED, "this account has played rated matches against "
                         "humans: only the operator can make it a bot")  # fmt: skip
        if done == 0:
            return error(HttpCode.SIGNED_OUT, "not signed in")
    return JSONResponse({"signed_in": True, **account.public(), "bot": True})


@handles_account_errors
async def leaderboard(request: Request) -> Response:
    pool = request.query_params.get("pool", "humans")
    if pool not in POOLS:
        return error(ErrorCode.BAD_FIELD, "pool is humans or bots", 400)
    p = players(request)
    store = p.accounts.store
    top = await store.leaders(LEADERS * 4, bots=pool == "bots")
    rows = await store.accounts([key for key, _ in top])
    out = []
    for row in rows:
        if row is None or int(row.get("exp", 0)) < p.min_experience:
            continue
        if (row.get("bot") == "1") != (pool == "bots"):
            continue  # moved to the other pool meanwhile
        account = Account.of(row)
        out.append({"rank": len(out) + 1, **account.public(), "wins": int(row.get("wins", 0))})
        if len(out) == LEADERS:
            break
    return JSONResponse({"min_experience": p.min_experience, "pool": pool, "players": out})


@handles_account_errors
async def top_gamers(request: Request) -> Response:
    """This week's or this month's Top Gamer board (server/players/top.py)."""
    kind = request.query_params.get("period", "week")
    if kind not in KINDS:
        return error(ErrorCode.BAD_FIELD, "period is week or month", 400)
    p = players(request)
    period, top = await p.results.top.board(kind, int(time.time() * 1000), LEADERS * 2)
    rows = await p.accounts.store.accounts([line["key"] for line in top])
    out = []
    for line, row in zip(top, rows, strict=True):
        if row is None or row.get("bot") == "1":
            continue  # deleted, or a bot account (bots are on neither Top Gamer board)
        account = Account.of(row)
        entry = {k: v for k, v in line.items() if k != "key"}
        out.append({"rank": len(out) + 1, "username": account.name, **entry})
        if len(out) == LEADERS:
            break
    return JSONResponse({"period": period, "kind": kind, "players": out},
                        headers={"Cache-Control": "no-store"})  # fmt: skip


routes = [
    Route("/api/top", top_gamers, methods=["GET"]),
    Route("/api/account/signup", signup, methods=["POST"]),
    Route("/api/account/login", login, methods=["POST"]),
    Route("/api/account/logout", logout, methods=["POST"]),
    Route("/api/account", whoami, methods=["GET"]),
    Route("/api/account", delete_account, methods=["DELETE"]),
    Route("/api/players/{name}", profile, methods=["GET"]),
    Route("/api/leaderboard", leaderboard, methods=["GET"]),
    Route("/api/my/bot", become_bot, methods=["POST"]),
]
