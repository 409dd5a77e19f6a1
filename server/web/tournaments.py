"""Tournaments over HTTP (JSON): docs/protocol.md, "Tournaments"; the rules in
docs/tournaments.md.

    POST /api/tournaments   {kind, name?, mode?, length?, clock?, reserve?, max_players?,
                             rounds?, minutes?, rated?, start?, private?, no_show?, break?}
                            -> 201 the tournament
    GET  /api/tournaments   -> {open, running, finished, mine}
    GET  /api/tournaments/{id}                -> the tournament, with ``me``
    POST /api/tournaments/{id}/join     {}    -> the tournament
    POST /api/tournaments/{id}/withdraw {}    -> the tournament

Creating, joining and withdrawing need the session cookie: a tournament's players are accounts
(seeded by their rating). ``GET /api/tournaments/{id}`` with the cookie of a player in it holds
``me``: that player's match now as ``{match, seat, token, round, board, page}`` (nil between
matches), so any client can play its tournament matches. A private tournament is never listed:
its id (128 random bits) is its link's secret.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from engine.errors import GameError
from engine.match import MatchOptions
from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.competition.errors import Code, Refused
from server.competition.machine import next_due
from server.competition.state import MAX_NAME, MINUTE, Config, Kind, Pairing, TournamentState
from server.competition.tournaments import Current, NotATournament, TooMany, Tournaments
from server.ops.addresses import address_key
from server.players import profiles as players
from server.players.accounts import Account
from server.web.common import MATCH_REFUSALS, BadRequest, answering, client_address, error, service
from server.web.http_input import BOOLEAN, INTEGER, NO_FIELDS, STRING, STRING_OR_NULL, Fields, takes
from server.web.limits import LobbyLimits

TOURNAMENT_ID = re.compile(r"[0-9a-f]{32}")
LISTED = 30
HISTORY = 60
"""An arena's last decided pairings shown."""

CREATE: Fields = {
    "kind": STRING,
    "name": STRING_OR_NULL,
    "mode": STRING,
    "length": INTEGER,
    "clock": INTEGER,
    "reserve": INTEGER,
    "max_players": INTEGER,
    "rounds": INTEGER,
    "minutes": INTEGER,
    "rated": BOOLEAN,
    "start": STRING_OR_NULL,
    "private": BOOLEAN,
    "no_show": INTEGER,
    "break": INTEGER,
}

REFUSED_AS: dict[Code, tuple[Any, int]] = {
    Code.BAD_CONFIG: (HttpCode.BAD_CONFIG, 400),
    Code.BAD_FIELD: (ErrorCode.BAD_FIELD, 400),
    Code.FULL: (HttpCode.FULL, 409),
    Code.STARTED: (HttpCode.STARTED, 409),
    Code.FINISHED: (HttpCode.FINISHED, 409),
    Code.NOT_A_PLAYER: (ErrorCode.NOT_A_PLAYER, 409),
}
"""How the API answers the machine's refusals (the others never reach it)."""


def _refused(exc: Refused) -> Response:
    code, status = REFUSED_AS.get(exc.code, (ErrorCode.BAD_FIELD, 400))
    return error(code, exc.message, status)


handles = answering(
    {
        **MATCH_REFUSALS,
        Refused: _refused,
        NotATournament: lambda exc: error(ErrorCode.NOT_FOUND, "no such tournament", 404),
        TooMany: lambda exc: error(
            HttpCode.TOO_MANY_TOURNAMENTS,
            "you have as many unfinished tournaments as you may create",
        ),
    }
)


def tournaments(request: Request) -> Tournaments:
    return request.app.state.tournaments


def tournament_of(request: Request) -> str:
    tid = request.path_params["tournament"]
    if not TOURNAMENT_ID.fullmatch(tid):
        raise NotATournament(tid)
    return tid


async def account_or_refuse(request: Request, doing: str) -> Account:
    account = await players.signed_in(request)
    if account is None:
        raise BadRequest(HttpCode.NEEDS_ACCOUNT, f"sign in to {doing}", 401)
    return account


# ---------------------------------------------------------------- time


def server_time(request: Request, iso: str) -> int:
    """The server time (ms) of an ISO 8601 time with its zone."""
    try:
        when = dt.datetime.fromisoformat(iso)
    except ValueError:
        raise BadRequest(ErrorCode.BAD_FIELD, "start is an ISO time or when_full") from None
    if when.tzinfo is None:
        raise BadRequest(ErrorCode.BAD_FIELD, "start needs its time zone (…Z or …+02:00)")
    return int(when.timestamp() * 1000) - _credit(request)


def iso(request: Request, server_ms: int | None) -> str | None:
    """An ISO 8601 UTC time of a server time."""
    if server_ms is None:
        return None
    wall = (server_ms + _credit(request)) / 1000
    return dt.datetime.fromtimestamp(wall, dt.UTC).isoformat(timespec="seconds").replace(
        "+00:00", "Z"
    )


def _credit(request: Request) -> int:
    """Wall time minus server time (the clock credit), in ms."""
    return int(time.time() * 1000) - service(request).now()


# ---------------------------------------------------------------- create


def terms(request: Request, body: dict[str, Any]) -> Config:
    """A tournament's terms from a create request's body (docs/protocol.md, "Tournaments")."""
    settings = request.app.state.services.settings
    kind_name = body.get("kind")
    try:
        kind = Kind(kind_name)
    except ValueError:
        raise BadRequest(HttpCode.BAD_CONFIG, "kind is knockout, swiss or arena") from None
    mode = body.get("mode", "match")
    try:
        if mode == "match":
            if "length" not in body:
                raise BadRequest(ErrorCode.BAD_FIELD, "length (1..25 points) is required")
            options = MatchOptions.match(body["length"])
        elif mode == "single_game":
            options = MatchOptions.single_game()
        else:
            raise BadRequest(ErrorCode.BAD_FIELD, "mode is match or single_game")
    except GameError as exc:
        raise BadRequest(ErrorCode.BAD_FIELD, exc.detail) from None
    clock = body.get("clock", settings.clock_seconds)
    if not 5 <= clock <= 600:
        raise BadRequest(ErrorCode.BAD_FIELD, "clock must be 5..600 seconds")
    reserve = body.get("reserve", 0)
    if not 0 <= reserve <= 3600:
        raise BadRequest(ErrorCode.BAD_FIELD, "reserve must be 0..3600 seconds")
    rated = body.get("rated", False)
    if rated and mode != "match":
        raise BadRequest(ErrorCode.BAD_FIELD, "only matches to N points can be rated")
    start = body.get("start")
    start_at = None if start in (None, "when_full") else server_time(request, start)
    minutes = body.get("minutes", 0)
    duration = minutes * MINUTE
    extra: dict[str, Any] = {}
    if kind is Kind.ARENA:
        extra["cutoff_ms"] = min(MINUTE, duration // 4) if duration > 0 else 0
    if "no_show" in body:
        extra["no_show_ms"] = body["no_show"] * 1000
    if "break" in body:
        extra["break_ms"] = body["break"] * 1000
    return Config(
        kind,
        options,
        clock_ms=clock * 1000,
        reserve_ms=reserve * 1000,
        rated=rated,
        private=body.get("private", False),
        max_players=body.get("max_players", 16),
        start_at=start_at,
        rounds=body.get("rounds", 0),
        duration_ms=duration,
        **extra,
    )


def title(body: dict[str, Any], kind: Kind, account: Account) -> str:
    name = " ".join((body.get("name") or "").split())
    if not name:
        return f"{account.name}'s {kind.value}"[:MAX_NAME]
    if len(name) > MAX_NAME or not name.isprintable():
        raise BadRequest(ErrorCode.BAD_FIELD, f"name is 1..{MAX_NAME} printable characters")
    return name


@handles
@takes(CREATE)
async def create_tournament(request: Request, body: dict[str, Any]) -> Response:
    account = await account_or_refuse(request, "create a tournament")
    config = terms(request, body)
    limits: LobbyLimits = request.app.state.lobby_limits
    await limits.admit(address_key(client_address(request)), service(request).now())
    state = await tournaments(request).create(config, account.id, title(body, config.kind, account))
    current = await tournaments(request).load(state.id)
    return JSONResponse(await view(request, current, account), status_code=201)


# ---------------------------------------------------------------- read


def names_of(state: TournamentState) -> dict[str, str]:
    return {p.id: p.name for p in state.players}


def pairing_json(pairing: Pairing, names: dict[str, str]) -> dict[str, Any]:
    outcome = pairing.outcome
    return {
        "round": pairing.round,
        "board": pairing.board,
        "players": [names.get(p) if p else None for p in pairing.players],
        "match": pairing.match,
        "outcome": None
        if outcome is None
        else {
            "winner": outcome.winner,
            "how": outcome.how.value,
            "score": list(outcome.score),
            "points": list(outcome.awarded),
        },
    }


PUBLIC_KEPT = 64
"""How many tournaments' public views a process keeps (the newest version of each)."""
_public: dict[str, tuple[tuple[int, int], dict[str, Any]]] = {}


async def view(request: Request, current: Current, viewer: Account | None) -> dict[str, Any]:
    """The tournament as ``GET /api/tournaments/{id}`` answers it: its public part (the same
    for every viewer, kept per version: a page of 256 players polled by all of them every few
    seconds is built once per change, not once per request) and the viewer's own ``me`` and
    ``you``."""
    shell = tournaments(request)
    state = current.state
    key = (current.version, _credit(request) // 1000)
    kept = _public.get(state.id)
    if kept is None or kept[0] != key:
        if len(_public) >= PUBLIC_KEPT:
            _public.clear()
        kept = _public[state.id] = (key, await public_view(request, current))
    me = None
    you = None
    if viewer is not None and state.player(viewer.id) is not None:
        player = state.player(viewer.id)
        assert player is not None
        found = await shell.me(current, viewer.id)
        if found is not None:
            base = request.app.state.services.settings.base_url
            me = {**found, "page": f"{base}/m/{found['match']}"}
        you = {"name": player.name, "points": player.points, "withdrawn": not player.active,
               "seed": player.seed}  # fmt: skip
    return {**kept[1], "now": service(request).now(), "me": me, "you": you}


async def bot_players(request: Request, current: Current) -> set[str]:
    """The players of the tournament who are bot accounts (docs/accounts.md, "Bot accounts")."""
    state = current.state
    refs = await tournaments(request).refs(state.id, *(p.id for p in state.players))
    ids = [p.id for p in state.players if refs.get(p.id)]
    keys = [refs[p].partition(" ")[0] for p in ids]
    rows = await players.players(request).accounts.store.accounts(keys) if keys else []
    return {p for p, row in zip(ids, rows, strict=True) if row and row.get("bot") == "1"}


async def public_view(request: Request, current: Current) -> dict[str, Any]:
    """What every viewer of the tournament is shown (:func:`view` adds ``now``, ``me``,
    ``you``)."""
    shell = tournaments(request)
    state = current.state
    config = state.config
    names = names_of(state)
    bots = await bot_players(request, current)
    base = request.app.state.services.settings.base_url
    decided = list(state.pairings)
    if config.kind is Kind.ARENA:
        decided = await shell.decided(state.id, HISTORY) + decided
    rounds: dict[int, list[dict[str, Any]]] = {}
    for pairing in decided:
        rounds.setdefault(pairing.round, []).append(pairing_json(pairing, names))
    running = [
        {**pairing_json(p, names), "watch": f"{base}/m/{p.match}#watch"}
        for p in state.pairings
        if p.outcome is None and p.match is not None
    ]
    table = [
        {
            "rank": line.rank,
            "bot": line.player in bots,
            "name": line.name,
            "points": line.points,
            "tiebreaks": list(line.tiebreaks),
            "won": line.won,
            "played": line.played,
            "streak": line.streak,
            "withdrawn": line.withdrawn,
        }
        for line in shell.standings(state)
    ]
    winner = state.player(state.winner) if state.winner else None
    return {
        "tournament": state.id,
        "name": current.name,
        "kind": config.kind.value,
        "state": state.phase.value,
        "page": f"{base}/t/{state.id}",
        "terms": {
            "mode": config.options.mode.value,
            "length": config.options.length,
            "clock": config.clock_ms // 1000,
            "reserve": config.reserve_ms // 1000,
            "max_players": config.max_players,
            "rounds": config.rounds,
            "minutes": config.duration_ms // MINUTE,
            "rated": config.rated,
            "private": config.private,
            "start": iso(request, config.start_at) if config.start_at else "when_full",
            "no_show": config.no_show_ms // 1000,
            "break": config.break_ms // 1000,
        },
        "created": state.created,
        "start_at": config.start_at,
        "open_until": state.created + config.open_ms if config.start_at is None else None,
        "started": state.started_at,
        "finished": state.finished_at,
        "ends": state.arena_end,
        "next": next_due(state),
        "end": state.end or None,
        "round": state.round,
        "players": [
            {
                "name": p.name,
                "bot": p.id in bots,
                "rating": round(p.rating),
                "seed": p.seed,
                "points": p.points,
                "withdrawn": not p.active,
            }
            for p in sorted(state.players, key=lambda p: p.entry)
        ],
        "standings": table,
        "rounds": [{"round": r, "pairings": ps} for r, ps in sorted(rounds.items())],
        "running": running,
        "winner": winner.name if winner else None,
    }


@handles
async def get_tournament(request: Request) -> Response:
    tid = tournament_of(request)
    current = await tournaments(request).load(tid)
    viewer = await players.signed_in(request)
    return JSONResponse(
        await view(request, current, viewer), headers={"Cache-Control": "no-store"}
    )


@handles
async def list_tournaments(request: Request) -> Response:
    shell = tournaments(request)
    out: dict[str, Any] = {
        phase: await shell.listing(phase, LISTED) for phase in ("open", "running", "finished")
    }
    viewer = await players.signed_in(request)
    out["mine"] = await shell.mine(viewer.id, LISTED) if viewer else []
    return JSONResponse(out, headers={"Cache-Control": "no-store"})


# ---------------------------------------------------------------- join, withdraw


@handles
@takes(NO_FIELDS)
async def join_tournament(request: Request, body: dict[str, Any]) -> Response:
    tid = tournament_of(request)
    account = await account_or_refuse(request, "join a tournament")
    shell = tournaments(request)
    if (await shell.load(tid)).state.config.rated:
        if account.bot:
            refusal = "bots are rated apart: a bot joins unrated tournaments"
            raise BadRequest(HttpCode.BOT_POOL, refusal, 403)
        await players.may_play_rated(request, account)  # docs/moderation.md
    await shell.join(tid, account.id, account.name, account.rating, account.ref)
    return JSONResponse(await view(request, await shell.load(tid), account))


@handles
@takes(NO_FIELDS)
async def withdraw_tournament(request: Request, body: dict[str, Any]) -> Response:
    tid = tournament_of(request)
    account = await account_or_refuse(request, "withdraw")
    shell = tournaments(request)
    await shell.withdraw(tid, account.id)
    return JSONResponse(await view(request, await shell.load(tid), account))


routes = [
    Route("/api/tournaments", create_tournament, methods=["POST"]),
    Route("/api/tournaments", list_tournaments, methods=["GET"]),
    Route("/api/tournaments/{tournament}", get_tournament, methods=["GET"]),
    Route("/api/tournaments/{tournament}/join", join_tournament, methods=["POST"]),
    Route("/api/tournaments/{tournament}/withdraw", withdraw_tournament, methods=["POST"]),
]
