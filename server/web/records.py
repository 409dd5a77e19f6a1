"""The record of one game as JSON, for the move record and the replay board, and its analysis.

    GET /api/matches/{id}/games/{n}/record.json
    GET /api/matches/{id}/games/{n}/analysis.json

Any game that has started, finished or not (everything in it was public as it happened:
spectators saw the same events). ``v`` is the log version the record was read at, so a client
that knows the game only from a later snapshot can put the two together.

The analysis of a finished game is made by the analysis workers
(:mod:`server.work.analysis_worker`) from their queue: each game is queued when it ends (the
bus's analysis listener, :mod:`server.work.analysis_listener`); a request for a game that is
not queued yet (one that ended while no server queued it) queues it.
Until the report is stored the answer is ``{"status": "pending", "progress": [done, total] |
null}``.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.match.history import Logged, finished_games, match_record
from server.match.record_json import record_body
from server.match.store import Store
from server.web.common import MATCH_ID, error, log_or_error
from server.work import analysis_queue


def record_json(match_id: str, log: list[Logged], game_no: int) -> dict[str, Any]:
    """The record of game ``game_no`` (KeyError when it has not started)."""
    return record_body(match_record(log), game_no, match_id, log[-1].v)


async def game_record(request: Request) -> Response:
    got = await log_or_error(request)
    if isinstance(got, Response):
        return got
    match_id, log = got
    try:
        game_no = int(request.path_params["game"])
        body = record_json(match_id, log, game_no)
    except (KeyError, ValueError):
        return error(ErrorCode.NOT_FOUND, "no such game", 404)
    return Response(json.dumps(body) + "\n", media_type="application/json",
                    headers={"Cache-Control": "no-cache"})


def _not_found(message: str) -> Response:
    return error(ErrorCode.NOT_FOUND, message, 404)


async def game_analysis(request: Request) -> Response:
    match_id = request.path_params["match_id"]
    try:
        game_no = int(request.path_params["game"])
    except ValueError:
        return _not_found("no such finished game")
    if not MATCH_ID.fullmatch(match_id) or not 1 <= game_no < 2**31:
        return _not_found("no such finished game")
    store: Store = request.app.state.services.store
    redis = store.redis
    try:
        body = await analysis_queue.report(redis, match_id, game_no)
        if body is not None:
            return Response(body, media_type="application/json")
        status = await analysis_queue.status(redis, match_id, game_no)
        if status is None:
            got = await log_or_error(request)
            if isinstance(got, Response):
                return got
            if game_no not in finished_games(got[1]):
                return _not_found("no such finished game")
            await analysis_queue.enqueue(redis, match_id, game_no)
            status = {"status": "pending", "progress": None}
    except Exception:
        return error(ErrorCode.RETRY_LATER, "storage unavailable", 503)
    if status.get("status") == "failed":
        return error(HttpCode.ANALYSIS_FAILED, status.get("message", ""))
    if status.get("status") == "unavailable":  # a variant without analysis (docs/analysis.md)
        return JSONResponse({"status": "unavailable", "reason": status.get("reason"),
                             "variant": status.get("variant"), "message": status.get("message"),
                             "players": [], "turns": []})
    return JSONResponse({"status": "pending", "level": "1-ply",
                         "progress": status.get("progress"), "players": [], "turns": []},
                        headers={"Cache-Control": "no-cache"})


routes = [
    Route("/api/matches/{match_id}/games/{game}/record.json", game_record),
    Route("/api/matches/{match_id}/games/{game}/analysis.json", game_analysis),
]
