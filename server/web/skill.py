"""A player's skill record and lifetime dice audit (docs/analysis.md, "Skill record"):

    GET /api/players/{name}/skill

From the player's last :data:`MATCHES` matches (their public history; their private matches
too when they ask for themselves) and the analyses stored for those games (the seat their
account held): ``matches``, oldest first, each ``{match, at, games, pr, luck_adjusted}`` (the
match's PR: the mean of its games' PRs weighted by decisions; the luck-adjusted result summed
over its games); ``rolling``, the same weighted PR over the last :data:`ROLLING` games, after
each match (the chart's second line). And ``dice``, the **lifetime** dice audit: every roll the
player made in every match of their history (the public ones only, unless they ask for
themselves), kept by :mod:`server.players.dice_ledger` (:mod:`analysis.dice_audit`: faces,
doubles, entering from the bar, chances to hit, each with chi-square and p), with ``rolls``,
``matches`` and ``pending`` (older history entries still to count: 0 once the backfill is
through). Every roll counted is one of the match's fair-dice rolls:
``/api/matches/{match}/games/{n}/transcript.json`` proves each. 404 ``not_found`` for no such
player.
"""

from __future__ import annotations

import json
from typing import Any

import msgpack
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from protocol.errors import ErrorCode
from server.match.history import match_record, read_log
from server.match.store import seats_key
from server.players.accounts import Account, is_username
from server.players.accounts_store import history_key
from server.players.profiles import players, signed_in
from server.players.results import refs
from server.web.common import BadRequest, answering, error
from server.work import analysis_queue

MATCHES = 50
ROLLING = 25


def _unavailable(exc: Exception) -> JSONResponse:
    return error(ErrorCode.RETRY_LATER, "storage is unavailable, try again shortly", 503)


handles = answering({RedisError: _unavailable, OSError: _unavailable})


def _weighted(games: list[tuple[float, int]]) -> float | None:
    decisions = sum(d for _, d in games)
    return round(sum(pr * d for pr, d in games) / decisions, 2) if decisions else None


def series(matches: list[list[tuple[float, int]]]) -> list[tuple[float | None, float | None]]:
    """Per match (oldest first, each its games' ``(pr, decisions)``): its PR (its games'
    weighted by decisions) and the rolling PR of the last :data:`ROLLING` games up to it."""
    out: list[tuple[float | None, float | None]] = []
    seen: list[tuple[float, int]] = []
    for games in matches:
        seen += games
        out.append((_weighted(games), _weighted(seen[-ROLLING:])))
    return out


@handles
async def skill(request: Request) -> JSONResponse:
    name = request.path_params["name"]
    p = players(request)
    row = await p.accounts.store.account(name) if is_username(name) else None
    if row is None:
        raise BadRequest(ErrorCode.NOT_FOUND, "no such player", 404)
    account = Account.of(row)
    me = await signed_in(request)
    own = me is not None and me.id == account.id
    services = request.app.state.services
    redis, store = services.store.redis, services.store
    rows = await redis.lrange(history_key(account.key, public=not own), 0, MATCHES - 1)
    matches: list[dict[str, Any]] = []
    per_match: list[list[tuple[float, int]]] = []
    for raw in reversed(rows):
        entry = msgpack.unpackb(raw)
        match_id = entry["match"]
        seats = refs(await redis.hmget(seats_key(match_id), "a0", "a1"))
        mine = [s for s in (0, 1) if seats[s] is not None and seats[s][0] == account.key]
        if not mine:
            continue
        seat = mine[0]
        record = match_record(await read_log(store, match_id))
        games: list[tuple[float, int]] = []
        luck_adjusted = 0.0
        for n, game in enumerate(record.games, start=1):
            if game.result is None:
                continue
            raw_report = await analysis_queue.report(redis, match_id, n)
            report = json.loads(raw_report) if raw_report else None
            if not report or report.get("status") != "done":
                continue
            player = next(x for x in report["players"] if x["seat"] == seat)
            if player.get("pr") is not None and player.get("decisions"):
                games.append((player["pr"], player["decisions"]))
            luck_adjusted += player.get("luck_adjusted") or 0.0
        per_match.append(games)
        matches.append({"match": match_id, "at": entry.get("at"), "games": len(games),
                        "luck_adjusted": round(luck_adjusted, 3),
                        "variant": entry.get("variant", "backgammon")})
    figures = series(per_match)
    for row, (pr, rolling) in zip(matches, figures, strict=True):
        row["pr"], row["rolling"] = pr, rolling
    dice = await request.app.state.dice.lifetime(account.key, account.id, own)
    return JSONResponse({"player": account.name, "matches": matches,
                         "rolling": figures[-1][1] if figures else None, "dice": dice},
                        headers={"Cache-Control": "no-store"})


routes = [Route("/api/players/{name}/skill", skill, methods=["GET"])]
