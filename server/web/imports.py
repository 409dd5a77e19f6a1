"""Importing matches played elsewhere (docs/analysis.md, "Import"):

    POST /api/imports?name=<file name>   the file as the body (.mat or .sgf), session cookie
    GET  /api/imports                    your imports, newest first
    GET  /api/imports/{import}           one import: its players, format, games
    GET  /api/imports/{import}/games/{n}/analysis.json
    GET  /api/imports/{import}/games/{n}/record.json   (for the replay board)
    POST /api/imports/{import}/share     {"shared": bool}

An import needs a signed-in player (401 ``needs_account``) and belongs to them: only they see it
(403 ``forbidden``) unless they share it. The file, at most :data:`MAX_FILE_BYTES`, is read by
the pure importer (:func:`engine.importer.read_match`): a file it refuses is 400
``bad_match_file`` with ``file_error`` ``{code, message, line, column}``. Each finished game is
then analysed by the analysis workers exactly as a game played here (the same report):
``analysis.json`` answers ``{status: "pending"}`` until it is stored. 201 ``{import, games,
page}``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from engine.importer import MatchFileError, read_match
from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.match.record_json import record_body
from server.players.accounts import Account
from server.players.profiles import signed_in
from server.web.common import BadRequest, answering, error
from server.web.http_input import BOOLEAN, Fields, takes, takes_file
from server.work import import_queue as queue

MAX_FILE_BYTES = 1024 * 1024
"""The largest file taken (a long match with gnubg's analysis in its SGF is a few hundred KB)."""
IMPORT = re.compile(r"[0-9a-f]{24}")
SHARE: Fields = {"shared": BOOLEAN}


def _unavailable(exc: Exception) -> JSONResponse:
    return error(ErrorCode.RETRY_LATER, "storage is unavailable, try again shortly", 503)


def _bad_file(exc: MatchFileError) -> JSONResponse:
    return error(HttpCode.BAD_MATCH_FILE, str(exc), file_error=exc.as_dict())


handles = answering({MatchFileError: _bad_file, RedisError: _unavailable,
                     OSError: _unavailable})


def _redis(request: Request):  # type: ignore[no-untyped-def]
    return request.app.state.services.store.redis


async def _account(request: Request) -> Account:
    account = await signed_in(request)
    if account is None:
        raise BadRequest(HttpCode.NEEDS_ACCOUNT, "importing a match needs a signed-in player",
                         401)
    return account


def _page(imported: str) -> str:
    return f"/imports#{imported}"


@handles
@takes_file(MAX_FILE_BYTES)
async def create(request: Request, data: bytes) -> JSONResponse:
    account = await _account(request)
    name = request.query_params.get("name", "")[:80]
    imported = read_match(data)
    record = imported.record
    games = len(record.games)
    if not games:
        raise BadRequest(HttpCode.BAD_MATCH_FILE, "the file holds no game")
    text = data.decode("utf-8", errors="replace")
    ident = await queue.create(_redis(request), f"a:{account.key}", imported.format, name,
                               record.names, games, text)
    return JSONResponse({"import": ident, "games": games, "format": imported.format,
                         "names": list(record.names), "page": _page(ident)}, status_code=201)


async def _visible(request: Request) -> tuple[str, dict[str, str], bool]:
    ident = request.path_params["import"]
    stored = await queue.found(_redis(request), ident) if IMPORT.fullmatch(ident) else None
    if stored is None:
        raise BadRequest(ErrorCode.NOT_FOUND, "no such import", 404)
    account = await signed_in(request)
    mine = account is not None and stored["owner"] == f"a:{account.key}"
    if not mine and stored.get("shared") != "1":
        raise BadRequest(ErrorCode.FORBIDDEN, "this import is private to who imported it", 403)
    return ident, stored, mine


async def summary(request: Request, ident: str, stored: dict[str, str],
                  mine: bool) -> dict[str, Any]:
    redis = _redis(request)
    games = []
    for n in range(1, int(stored["games"]) + 1):
        got = await queue.report(redis, ident, n) or {"status": "pending"}
        games.append({"game": n, "status": got.get("status"),
                      "players": got.get("players") if got.get("status") == "done" else None,
                      "analysis": f"/api/imports/{ident}/games/{n}/analysis.json"})
    return {"import": ident, "format": stored["format"], "name": stored.get("name", ""),
            "names": json.loads(stored["names"]), "created": int(stored.get("created", "0")),
            "shared": stored.get("shared") == "1", "mine": mine, "games": games,
            "page": _page(ident)}


@handles
async def show(request: Request) -> JSONResponse:
    ident, stored, mine = await _visible(request)
    return JSONResponse(await summary(request, ident, stored, mine),
                        headers={"Cache-Control": "no-store"})


def _game_no(request: Request, stored: dict[str, Any]) -> int:
    """The path's game number, one of the import's games (404 ``not_found`` otherwise)."""
    try:
        n = int(request.path_params["game"])
    except ValueError:
        n = 0
    if not 1 <= n <= int(stored["games"]):
        raise BadRequest(ErrorCode.NOT_FOUND, "no such game", 404)
    return n


@handles
async def record(request: Request) -> JSONResponse:
    """The move record of an imported game, as ``record.json`` of a game played here (the
    replay board reads it)."""
    ident, stored, _ = await _visible(request)
    n = _game_no(request, stored)
    imported = read_match(stored["text"], stored["format"]).record
    try:
        body = record_body(imported, n, ident, 0)
    except KeyError:
        raise BadRequest(ErrorCode.NOT_FOUND, "no such game", 404) from None
    return JSONResponse(body, headers={"Cache-Control": "no-store"})


@handles
async def analysis(request: Request) -> JSONResponse:
    ident, stored, _ = await _visible(request)
    n = _game_no(request, stored)
    got = await queue.report(_redis(request), ident, n) or {"status": "pending"}
    if got.get("status") == "failed":
        raise BadRequest(HttpCode.ANALYSIS_FAILED, got.get("message", "failed"), 500)
    return JSONResponse(got, headers={"Cache-Control": "no-store"})


@handles
async def mine(request: Request) -> JSONResponse:
    account = await _account(request)
    owner = f"a:{account.key}"
    redis = _redis(request)
    out = []
    for ident in await queue.listed(redis, owner):
        stored = await queue.found(redis, ident)
        if stored is not None:
            out.append(await summary(request, ident, stored, True))
    return JSONResponse({"imports": out}, headers={"Cache-Control": "no-store"})


@handles
@takes(SHARE)
async def share(request: Request, body: dict[str, Any]) -> JSONResponse:
    ident, _, mine_ = await _visible(request)
    if not mine_:
        raise BadRequest(ErrorCode.FORBIDDEN, "only who imported it may share it", 403)
    shared = bool(body.get("shared", True))
    await _redis(request).hset(queue.import_key(ident), "shared", "1" if shared else "0")
    return JSONResponse({"import": ident, "shared": shared})


routes = [
    Route("/api/imports", create, methods=["POST"]),
    Route("/api/imports", mine, methods=["GET"]),
    Route("/api/imports/{import}", show, methods=["GET"]),
    Route("/api/imports/{import}/share", share, methods=["POST"]),
    Route("/api/imports/{import}/games/{game}/analysis.json", analysis, methods=["GET"]),
    Route("/api/imports/{import}/games/{game}/record.json", record, methods=["GET"]),
]
