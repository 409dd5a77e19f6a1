"""Reports and moderation over HTTP (docs/moderation.md). Every route needs the session cookie
(401 ``needs_account``); the ``/api/moderation/`` routes need an account the operator named a
moderator (403 ``not_moderator``: ``FAIRGAMMON_MODERATORS``).

    POST /api/reports  {name, reason, match?, room?, line?}   -> 201 {id}
         a player (``name``), in a match (``match``: its id), or one of its chat lines
         (``room`` and ``line``: the line's number); 429 ``rate_limited`` past the allowance,
         403 ``banned`` for a banned reporter
    GET  /api/moderation/reports                -> {reports: [...open, oldest first], flags: [...]}
    GET  /api/moderation/players/{name}         -> {name, sanctions, reports, recent, audit}
    GET  /api/moderation/chat/{match_id}   -> {match, link, players: [line], spectators: [line]}
    POST /api/moderation/actions {name, action, reason, sanction?, report?}
         action ``mute``, ``suspend``, ``ban``, or ``lift`` with ``sanction`` (the one lifted);
         ``report``: the report it answers (closed by it)  -> {name, sanctions}
    POST /api/moderation/reports/{id}/dismiss {reason}    -> {id, closed}
    GET  /api/moderation/audit?name=            -> {entries: [...newest first]}
    DELETE /api/moderation/flags/{name}  {reason}  -> {name, cleared}: a flag reviewed

Engine-assist flags (analysis/assist.py): when a rated match ends, each account of it is judged
on the stored analyses of its latest rated games (:func:`assist_verdict`); a flagged one goes
into the queue's ``flags`` with its evidence, for a moderator to review (never a sanction).
"""

from __future__ import annotations

import json
from typing import Any

import msgpack
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from analysis import assist
from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode, status_of
from server.match.bus import MatchFinished
from server.match.service import NotFound
from server.match.store import seats_key
from server.players import moderation as rules
from server.players import profiles as players
from server.players.accounts import Account
from server.players.accounts_store import AccountsStore
from server.players.moderation_store import ModerationStore
from server.web.common import MATCH_ID, BadRequest, answering, error, handles_errors, service
from server.web.http_input import STRING, STRING_OR_NULL, Field, Fields, takes
from server.work.analysis_queue import report_key

REPORT: Fields = {
    "name": STRING,
    "reason": STRING,
    "match": STRING_OR_NULL,
    "room": STRING_OR_NULL,
    "line": Field(int, nullable=True),
}
ACTION: Fields = {
    "name": STRING,
    "action": STRING,
    "reason": STRING,
    "sanction": STRING_OR_NULL,
    "report": Field(int, nullable=True),
}
DISMISS: Fields = {"reason": STRING}
NO_STORE = {"Cache-Control": "no-store"}
RECENT = 20
"""The recent games a moderator sees of a player."""
ASSIST_MATCHES = 30
"""The latest matches of an account whose rated games the engine-assist verdict reads."""
ASSIST_GAMES = 12
"""The window: the latest analysed rated games (about 250 non-trivial decisions)."""
GAMES_READ = 40
"""Games of a match whose analyses are looked for."""


def _rules_refused(exc: rules.Refused) -> JSONResponse:
    return error(
        exc.code, exc.message, status_of(exc.code, 400 if exc.code is ErrorCode.BAD_FIELD else None)
    )


handles = answering({rules.Refused: _rules_refused})


def store(request: Request) -> ModerationStore:
    return request.app.state.moderation


async def me(request: Request) -> Account:
    account = await players.signed_in(request)
    if account is None:
        raise BadRequest(HttpCode.NEEDS_ACCOUNT, "sign in to report or moderate", 401)
    return account


async def moderator(request: Request) -> Account:
    account = await me(request)
    if not request.app.state.services.settings.is_moderator(account.key):
        raise BadRequest(HttpCode.NOT_MODERATOR, "moderators only", 403)
    return account


async def account_named(request: Request, name: str) -> Account:
    row = await players.players(request).accounts.store.account(name) if name else None
    if row is None:
        raise BadRequest(ErrorCode.NOT_FOUND, f"no player is named {name!r}", 404)
    return Account.of(row)


def now(request: Request) -> int:
    return service(request).now()


# ---------------------------------------------------------------- reports


@handles_errors
@handles
@takes(REPORT)
async def report(request: Request, body: dict[str, Any]) -> JSONResponse:
    reporter = await me(request)
    if rules.may_report(await store(request).sanctions(reporter.id)) is not None:
        raise BadRequest(HttpCode.BANNED, "a moderator banned this account: it cannot report", 403)
    target = await account_named(request, body["name"])
    chat_ref = rules.report_fields(body, reporter.key, target.key)
    reason = rules.reason_of(body["reason"])
    match = body.get("match")
    evidence: dict[str, Any] = {}
    if match is not None:
        if not MATCH_ID.fullmatch(match):
            raise BadRequest(ErrorCode.NOT_FOUND, "no such match", 404)
        await service(request).load(match)  # NotFound: 404
        evidence["match"] = match
        evidence["link"] = f"/m/{match}"
    if chat_ref is not None:
        context = await store(request).chat_context(chat_ref)
        line = next((c for c in context if c["n"] == chat_ref.n), None)
        if line is None:
            raise BadRequest(ErrorCode.NOT_FOUND, "no such chat line", 404)
        if not line["account"] or line["name"].lower() != target.key:
            raise BadRequest(ErrorCode.BAD_FIELD, f"that line is not {target.name}'s")
        evidence["chat"] = {"room": chat_ref.room, "line": chat_ref.n, "context": context}
    filed = {
        "at": now(request),
        "reporter": reporter.name,
        "target": target.name,
        "target_id": target.id,
        "reason": reason,
        **evidence,
    }
    number = await store(request).report(reporter.id, filed, now(request))
    if number < 0:
        wait = (-number + 999) // 1000
        answer = BadRequest(ErrorCode.RATE_LIMITED, f"too many reports: wait {wait} s", 429)
        response = answer.answer()
        response.headers["Retry-After"] = str(wait)
        return response
    return JSONResponse({"id": number}, status_code=201, headers=NO_STORE)


# ---------------------------------------------------------------- the moderators' queue


@handles_errors
@handles
async def queue(request: Request) -> JSONResponse:
    await moderator(request)
    reports = await store(request).open_reports()
    flags = await store(request).flags()
    return JSONResponse({"reports": reports, "flags": flags}, headers=NO_STORE)


@handles_errors
@handles
async def player(request: Request) -> JSONResponse:
    await moderator(request)
    target = await account_named(request, request.path_params["name"])
    s = store(request)
    accounts = players.players(request).accounts.store
    history = [msgpack.unpackb(e, raw=False) for e in await accounts.history(
        target.key, False, 0, RECENT)]  # fmt: skip
    for entry in history:
        entry["link"] = f"/m/{entry['match']}"
    verdict = await assist_verdict(accounts, target.id, target.key)
    return JSONResponse(
        {
            "name": target.name,
            "rating": round(target.rating, 2),
            "matches": target.matches,
            "sanctions": (await s.sanctions(target.id)).as_json(),
            "reports": await s.reports_about(target.id),
            "recent": history,
            "audit": await s.audit(50, target.name),
            "assist": flag_of(target.name, verdict, now(request)) | {"flagged": verdict.flagged},
        },
        headers=NO_STORE,
    )


@handles_errors
@handles
async def chat(request: Request) -> JSONResponse:
    await moderator(request)
    match_id = request.path_params["match_id"]
    if not MATCH_ID.fullmatch(match_id):
        raise NotFound(match_id)
    await service(request).load(match_id)
    rooms = await store(request).chat(match_id)
    return JSONResponse({"match": match_id, "link": f"/m/{match_id}", **rooms}, headers=NO_STORE)


@handles_errors
@handles
@takes(ACTION)
async def act(request: Request, body: dict[str, Any]) -> JSONResponse:
    mod = await moderator(request)
    target = await account_named(request, body["name"])
    action = body["action"]
    command: rules.Sanction | rules.Lift
    if action == "lift":
        command = rules.Lift(body.get("sanction") or "", body["reason"], mod.name)
    elif action in rules.SANCTIONS:
        if body.get("sanction") is not None:
            raise BadRequest(ErrorCode.BAD_FIELD, "sanction goes with action lift only")
        command = rules.Sanction(action, body["reason"], mod.name)
    else:
        raise BadRequest(ErrorCode.BAD_FIELD, "action is mute, suspend, ban or lift")
    number = body.get("report")
    if number is not None and await store(request).get_report(number) is None:
        raise BadRequest(ErrorCode.NOT_FOUND, "no such report", 404)
    after = await store(request).act(target.id, target.name, command, now(request), number)
    return JSONResponse({"name": target.name, "sanctions": after.as_json()}, headers=NO_STORE)


@handles_errors
@handles
@takes(DISMISS)
async def dismiss(request: Request, body: dict[str, Any]) -> JSONResponse:
    mod = await moderator(request)
    try:
        number = int(request.path_params["id"])
    except ValueError:
        raise BadRequest(ErrorCode.NOT_FOUND, "no such report", 404) from None
    reason = rules.reason_of(body["reason"])
    if not await store(request).dismiss(number, mod.name, reason, now(request)):
        raise BadRequest(ErrorCode.NOT_FOUND, "no such open report", 404)
    return JSONResponse({"id": number, "closed": "dismiss"}, headers=NO_STORE)


@handles_errors
@handles
async def audit(request: Request) -> JSONResponse:
    await moderator(request)
    name = request.query_params.get("name") or None
    entries = await store(request).audit(200, name)
    return JSONResponse({"entries": entries}, headers=NO_STORE)


# ---------------------------------------------------------------- engine-assisted play


async def assist_verdict(accounts: AccountsStore, account_id: str, key: str) -> assist.Verdict:
    """The detector's verdict on the account's latest analysed games of rated matches (its own
    seat's decisions in each)."""
    redis = accounts.redis
    games: list[assist.GameFigures] = []
    entries = [msgpack.unpackb(e, raw=False) for e in await accounts.history(
        key, False, 0, ASSIST_MATCHES)]  # fmt: skip
    for entry in entries:
        if not entry.get("rated") or len(games) >= ASSIST_GAMES:
            continue
        match = entry["match"]
        refs = await redis.hmget(seats_key(match), "a0", "a1")
        seats = [i for i, r in enumerate(refs) if r and r.decode().split(" ")[-1] == account_id]
        if not seats:
            continue
        reports = await redis.mget([report_key(match, g) for g in range(GAMES_READ)])
        for raw in reports:
            if raw:
                body = json.loads(raw)
                if body.get("status") == "done":
                    games.append(assist.figures(match, body, seats[0]))
    return assist.verdict(games[:ASSIST_GAMES])


def flag_of(name: str, v: assist.Verdict, now: int) -> dict[str, Any]:
    return {
        "name": name,
        "at": now,
        "summary": v.summary(),
        "pr": round(v.pr, 2),
        "best_share": round(v.best_share, 3),
        "decisions": v.decisions,
        "games": [
            {
                "match": g.match,
                "link": f"/m/{g.match}",
                "pr": round(g.pr, 2),
                "decisions": g.decisions,
            }
            for g in v.games
        ],
    }


class AssistWatch:
    """The match-event bus's listener (wired in server/app.py): each account of a rated match
    that ended is judged again, and flagged when the detector says so."""

    def __init__(self, accounts: AccountsStore, moderation: ModerationStore, now: Any) -> None:
        self.accounts = accounts
        self.moderation = moderation
        self.now = now

    async def finished(self, event: MatchFinished) -> None:
        redis = self.accounts.redis
        a0, a1, rated = await redis.hmget(seats_key(event.match_id), "a0", "a1", "rated")
        if rated != b"1":
            return
        for ref in (a0, a1):
            if ref:
                key, account_id = ref.decode().split(" ", 1)
                v = await assist_verdict(self.accounts, account_id, key)
                if v.flagged:
                    row = await self.accounts.account(key)
                    name = row["name"] if row else key
                    await self.moderation.flag(account_id, flag_of(name, v, self.now()))


@handles_errors
@handles
@takes(DISMISS)
async def clear_flag(request: Request, body: dict[str, Any]) -> JSONResponse:
    mod = await moderator(request)
    target = await account_named(request, request.path_params["name"])
    reason = rules.reason_of(body["reason"])
    if not await store(request).clear_flag(target.id, target.name, mod.name, reason, now(request)):
        raise BadRequest(ErrorCode.NOT_FOUND, "no flag on this account", 404)
    return JSONResponse({"name": target.name, "cleared": True}, headers=NO_STORE)


routes = [
    Route("/api/reports", report, methods=["POST"]),
    Route("/api/moderation/reports", queue, methods=["GET"]),
    Route("/api/moderation/players/{name}", player, methods=["GET"]),
    Route("/api/moderation/chat/{match_id}", chat, methods=["GET"]),
    Route("/api/moderation/actions", act, methods=["POST"]),
    Route("/api/moderation/reports/{id}/dismiss", dismiss, methods=["POST"]),
    Route("/api/moderation/audit", audit, methods=["GET"]),
    Route("/api/moderation/flags/{name}", clear_flag, methods=["DELETE"]),
]
