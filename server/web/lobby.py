"""The lobby over HTTP (JSON): create, join, list and look up matches.

    POST /api/matches                 {mode, length?, jacoby?, beavers?, clock?, reserve?,
                                       private?, name?, rated?, bot?, days?}
    POST /api/matches/{id}/join       {name?, invite?} or {rematch_token}
    POST /api/matches/{id}/rematch    {token}
    POST /api/matches/{id}/decline    {rematch_token}
    GET  /api/matches?status=open|live
    GET  /api/matches/{id}

Seat tokens are returned once, in the response body, and never appear in a URL. The invite
link carries its code in the fragment (``/m/<id>#join=<code>``), which browsers do not send to
servers, so it never lands in a log either.

A rematch is asked for by a seat of a finished match with its seat token (in the body), and
taken by the other seat with ITS token of the finished match as ``rematch_token``: the new
match's open seat is kept for that player alone, private or not (the process, step by step:
:mod:`server.match.rematch`).

Each route declares its body's fields (:data:`CREATE`, :data:`JOIN`, ...): server.web.http_input
reads the body within its limits and refuses any other field, or another JSON type. Refusals are
answered as every match route answers them (:func:`server.web.common.handles_errors`).

Create and join accept the session cookie (docs/accounts.md): a signed-in player plays under
the account's name and the seat is linked to the account (:mod:`server.players.profiles`);
its seat token is derived from the account (:func:`server.match.tokens.account_token`), so the
account can have it again on another device, and the match goes into the account's games
(:mod:`server.players.games`). ``days`` (1, 2, 3, 5 or 7) makes a correspondence match
(docs/correspondence.md): signed-in players only, within the account's limit of such matches.
"""

from __future__ import annotations

import contextlib
from typing import Any, NamedTuple

import msgpack
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from engine.errors import GameError
from engine.match import MatchOptions, Mode
from engine.variants import NAMES, UnknownVariant, rules
from protocol import limits as L
from protocol.errors import ErrorCode
from protocol.fields import TOKEN
from protocol.schema import Invalid
from server.match.rematch import Rematches
from server.match.service import Created, Unavailable
from server.match.store import LIVE_MATCHES, OPEN_MATCHES
from server.match.stored import summary
from server.match.tokens import new_match_id
from server.ops.addresses import address_key
from server.players import profiles as players
from server.players.accounts import Account
from server.players.results import refs
from server.web.common import (
    BadRequest,
    clean_name,
    client_address,
    handles_errors,
    match_id_of,
    required_secret,
    secret_field,
    service,
)
from server.web.http_input import BOOLEAN, INTEGER, STRING, STRING_OR_NULL, Fields, takes
from server.web.limits import LobbyLimits, Refused
from server.work import botmatch

MAX_INVITE_LINK = 512


class Terms(NamedTuple):
    """What a new match is created with: the rules, the clock and the time reserve (seconds),
    whether it is kept off the lists, and its days per decision (correspondence; 0 for a match
    played in real time)."""

    options: MatchOptions
    clock: int
    reserve: int
    private: bool
    days: int = 0


MAX_RESERVE = L.MAX_RESERVE_MS // 1000

CREATE: Fields = {
    "mode": STRING,
    "length": INTEGER,
    "jacoby": BOOLEAN,
    "beavers": BOOLEAN,
    "clock": INTEGER,
    "reserve": INTEGER,
    "private": BOOLEAN,
    "name": STRING_OR_NULL,
    "rated": BOOLEAN,
    "bot": STRING_OR_NULL,
    "days": INTEGER,
    "variant": STRING,
}
JOIN: Fields = {"name": STRING_OR_NULL, "invite": STRING_OR_NULL, "rematch_token": STRING_OR_NULL}
REMATCH: Fields = {"token": STRING}
DECLINE: Fields = {"rematch_token": STRING}


def parse_options(body: dict[str, Any], default_clock: int) -> Terms:
    """The terms of a create request's body (its fields' JSON types already checked:
    :data:`CREATE`)."""
    mode = body.get("mode", "single_game")
    if mode == Mode.MATCH and "length" not in body:
        raise BadRequest(ErrorCode.BAD_FIELD, "length (1..25 points) is required for a match")
    length = body.get("length", 0)
    clock = body.get("clock", default_clock)
    reserve = body.get("reserve", 0)
    flags = {k: body.get(k, False) for k in ("jacoby", "beavers", "private")}
    try:
        played = rules(body.get("variant", "backgammon"))
    except UnknownVariant:
        known = ", ".join(NAMES)
        raise BadRequest(ErrorCode.BAD_FIELD, f"variant is one of {known}") from None
    if not 5 <= clock <= 600:
        raise BadRequest(ErrorCode.BAD_FIELD, "clock must be 5..600 seconds")
    if not 0 <= reserve <= MAX_RESERVE:
        raise BadRequest(ErrorCode.BAD_FIELD, f"reserve must be 0..{MAX_RESERVE} seconds")
    try:
        if mode == Mode.MATCH:
            options = MatchOptions.match(length, played)
        elif mode == Mode.MONEY:
            options = MatchOptions.money(
                jacoby=flags["jacoby"], beavers=flags["beavers"], variant=played
            )
        elif mode == Mode.SINGLE_GAME:
            options = MatchOptions.single_game(played)
        else:
            raise BadRequest(ErrorCode.BAD_FIELD, "mode is single_game, match or money")
    except GameError as exc:
        raise BadRequest(ErrorCode.BAD_FIELD, exc.detail) from None
    days = body.get("days", 0)
    if "days" in body:
        if days not in L.CORRESPONDENCE_DAYS:
            allowed = ", ".join(str(d) for d in L.CORRESPONDENCE_DAYS)
            raise BadRequest(ErrorCode.BAD_FIELD, f"days is one of {allowed} (days per move)")
        if "clock" in body or reserve:
            raise BadRequest(
                ErrorCode.BAD_FIELD, "a correspondence match (days) has no clock and no reserve"
            )
        if mode == Mode.MONEY:
            raise BadRequest(
                ErrorCode.BAD_FIELD, "correspondence is for matches and single games"
            )
    return Terms(options, clock, reserve, flags["private"], days)


def links(request: Request, match_id: str, invite: str | None = None) -> dict[str, str]:
    base = request.app.state.services.settings.base_url
    out = {"page": f"{base}/m/{match_id}", "watch": f"{base}/m/{match_id}#watch"}
    if invite:
        out["invite"] = f"{base}/m/{match_id}#join={invite}"
    return out


def rematches(request: Request) -> Rematches:
    return request.app.state.services.rematches


@handles_errors
@takes(CREATE)
async def create_match(request: Request, body: dict[str, Any]) -> JSONResponse:
    settings = request.app.state.services.settings
    terms = parse_options(body, settings.clock_seconds)
    try:
        bot = botmatch.parse_level(body, terms.options.variant.name)
    except ValueError as exc:  # not a level, or one the computer does not play in the variant
        raise BadRequest(ErrorCode.BAD_FIELD, str(exc)) from None
    account = await players.signed_in(request)
    rated = players.rated_choice(body, terms.options, account)
    if rated:
        await players.may_play_rated(request, account)
    name = account.name if account else clean_name(body.get("name"))
    extra = players.seat_fields(0, account, rated)
    if terms.days:
        if bot is not None:
            raise BadRequest(ErrorCode.BAD_FIELD, "the computer does not play correspondence")
        await players.may_start(request, account)
    if bot is not None:
        await botmatch.ensure_workers(service(request))
    created = await limited_create(request, terms, name, extra, account)
    if bot is None:
        await not_connected_yet(request, created.match_id, 0)
    else:
        await botmatch.seat_bot(service(request), created, bot)
    return JSONResponse(
        {
            "match": created.match_id,
            "seat": 0,
            "token": created.token,
            "rated": rated,
            "bot": bot,
            **links(request, created.match_id, None if bot else created.invite),
        },
        status_code=201,
    )


async def limited_create(
    request: Request,
    terms: Terms,
    name: str,
    seat_extra: dict[str, bytes] | None = None,
    account: Account | None = None,
) -> Created:
    """Create the match within the lobby limits (server/web/limits.py) of the client; a
    signed-in creator's seat token is its account's, and the match goes into its games."""
    limits: LobbyLimits = request.app.state.lobby_limits
    matches = service(request)
    address = address_key(client_address(request))
    match_id = new_match_id()
    token = await matches.account_token(match_id, 0, account.ref) if account else None
    try:
        now = matches.now()
        await limits.admit(address, now)
        await limits.reserve(address, match_id, now)
    except Refused:
        raise
    except Exception as exc:
        raise Unavailable(str(exc)) from exc
    try:
        created = await matches.create(
            terms.options,
            terms.clock,
            terms.private,
            name,
            match_id=match_id,
            seat_extra=seat_extra,
            reserve_seconds=terms.reserve,
            days=terms.days,
            day_ms=request.app.state.services.settings.day_ms,
            token=token,
        )
    except BaseException:
        with contextlib.suppress(Exception):
            await limits.release(address, match_id)
        raise
    if account is not None:
        await players.took_seat(request, account, match_id, 0)
    return created


@handles_errors
@takes(JOIN)
async def join_match(request: Request, body: dict[str, Any]) -> JSONResponse:
    match_id = match_id_of(request)
    rematch_token = secret_field(body, "rematch_token")
    if rematch_token is not None:
        # The other player of the finished match takes the seat its rematch keeps for it.
        token = await rematches(request).accept(match_id, rematch_token)
        return JSONResponse(
            {"match": match_id, "seat": 1, "token": token, **links(request, match_id)}
        )
    invite = invite_code(body.get("invite"))
    account = await players.signed_in(request)
    await players.check_join(request, match_id, account)
    await players.bots_welcome(request, match_id, account, invited=invite is not None)
    if (await service(request).load(match_id)).config.correspondence:
        await players.may_start(request, account)
    name = account.name if account else clean_name(body.get("name"))
    extra = players.seat_fields(1, account)
    token = await service(request).account_token(match_id, 1, account.ref) if account else None
    token = await service(request).join(match_id, name, invite, seat_extra=extra, token=token)
    if account is not None:
        await players.took_seat(request, account, match_id, 1)
    await not_connected_yet(request, match_id, 1)
    return JSONResponse({"match": match_id, "seat": 1, "token": token, **links(request, match_id)})


def invite_code(raw: str | None) -> str | None:
    """The invite code: as given, or taken from the whole invite link ``…#join=<code>`` (what
    ``POST /api/matches`` answers as ``invite``).

    >>> invite_code("https://example.org/m/ab#join=Xy_1"), invite_code("Xy_1"), invite_code(None)
    ('Xy_1', 'Xy_1', None)
    """
    if raw is None:
        return None
    refused = BadRequest(ErrorCode.BAD_FIELD, "invite is the invite code or the whole invite link")
    if len(raw) > MAX_INVITE_LINK:
        raise refused
    try:
        return TOKEN.load(raw.rsplit("#join=", 1)[-1])
    except Invalid:
        raise refused from None


async def not_connected_yet(request: Request, match_id: str, seat: int) -> None:
    """Record a seat that was just claimed over HTTP as not connected yet (``reconnecting``),
    so that it shows ``gone`` only if it stays away as long as a dropped one would."""
    with contextlib.suppress(Exception):  # presence is a hint: never fail the request for it
        await request.app.state.services.gateway.presence.claimed(match_id, seat)


@handles_errors
@takes(REMATCH)
async def rematch_match(request: Request, body: dict[str, Any]) -> JSONResponse:
    match_id = match_id_of(request)
    token = required_secret(body, "token", "your seat token of this match")
    done = await rematches(request).offer(match_id, token)
    if done.created:  # (not on a retry: the seat may be connected by now)
        await not_connected_yet(request, done.match_id, 0)
    return JSONResponse(
        {
            "match": done.match_id,
            "seat": done.seat,
            "token": done.token,
            "rematch_of": match_id,
            "offered_by": done.offered_by,
            **links(request, done.match_id),
        },
        status_code=201 if done.created else 200,
    )


@handles_errors
@takes(DECLINE)
async def decline_match(request: Request, body: dict[str, Any]) -> JSONResponse:
    match_id = match_id_of(request)
    rematch_token = required_secret(body, "rematch_token", "your seat token of the last match")
    await rematches(request).decline(match_id, rematch_token)
    return JSONResponse({"match": match_id, "declined": True})


@handles_errors
async def list_matches(request: Request) -> JSONResponse:
    status = request.query_params.get("status", "open")
    if status not in ("open", "live"):
        raise BadRequest(ErrorCode.BAD_FIELD, "status is open or live")
    index = OPEN_MATCHES if status == "open" else LIVE_MATCHES
    store = service(request).store
    limits: LobbyLimits = request.app.state.lobby_limits
    now = service(request).now()
    try:
        ids = await store.listed(index, 50)
        fields = (botmatch.BOT_FIELD, players.RATED_FIELD, "a0", "a1")
        rows = await store.listing(ids, fields)
        listed, stale, seats = [], [], []
        for match_id, (blob, (bot, rated, a0, a1)) in zip(ids, rows, strict=True):
            summary = msgpack.unpackb(blob, raw=False) if blob else None
            if summary is not None and _belongs(summary, status):
                if limits.listable(summary, now):  # else expiring: the sweeper ends it
                    label = {"bot": bot.decode() if bot else None, "rated": rated == b"1"}
                    # (a summary stored before the variants names none: backgammon)
                    listed.append({"variant": "backgammon", **summary, **label})
                    seats += refs([a0, a1])
            else:
                stale.append(match_id)
        # Which seats bot accounts hold: every listed seat's account read at once.
        bots = await players.bot_accounts(request, seats)
        for i, entry in enumerate(listed):
            entry["bot_accounts"] = bots[2 * i : 2 * i + 2]
        # The indexes are hints (a crash can leave one behind): the stored summary decides,
        # and a stale entry is dropped on the way.
        if stale:
            await store.redis.zrem(index, *stale)
    except Exception as exc:
        raise Unavailable(str(exc)) from exc
    return JSONResponse({"matches": listed})


def _belongs(summary: dict[str, Any], status: str) -> bool:
    if status == "open":
        return (
            summary["phase"] == "waiting"
            and not summary["private"]
            and not summary.get("rematch_of")
            and not summary.get("arranged")
        )
    return summary["phase"] not in ("waiting", "over") and not summary["private"]


@handles_errors
async def get_match(request: Request) -> JSONResponse:
    match_id = match_id_of(request)
    state = await service(request).load(match_id, fresh=True)
    accounts = await players.match_accounts(request, match_id)
    bot = await botmatch.level_of(service(request).store, match_id)
    return JSONResponse({**summary(state), **accounts, "bot": bot, **links(request, match_id)})


routes = [
    Route("/api/matches", create_match, methods=["POST"]),
    Route("/api/matches", list_matches, methods=["GET"]),
    Route("/api/matches/{match_id}", get_match, methods=["GET"]),
    Route("/api/matches/{match_id}/join", join_match, methods=["POST"]),
    Route("/api/matches/{match_id}/rematch", rematch_match, methods=["POST"]),
    Route("/api/matches/{match_id}/decline", decline_match, methods=["POST"]),
]
