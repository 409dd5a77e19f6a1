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

from analysis.game import GameInput
from analysis.trainer import board_ids
from engine.match import Mode
from engine.position import Position
from engine.position_id import encode
from engine.record import MatchRecord
from engine.turns import game_turns
from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.match.history import Logged, find_game, finished_games, match_record
from server.match.store import Store
from server.web.common import MATCH_ID, error, log_or_error
from server.work import analysis_queue


def record_json(match_id: str, log: list[Logged], game_no: int) -> dict[str, Any]:
    """The record of game ``game_no`` (KeyError when it has not started)."""
    return record_body(match_record(log), game_no, match_id, log[-1].v)


def record_body(record: MatchRecord, game_no: int, ident: str, v: int) -> dict[str, Any]:
    """The record of game ``game_no`` of ``record`` (KeyError when it has not started), named
    ``ident`` (a match, or an import: ``GET /api/imports/{import}/games/{n}/record.json``)."""
    game = find_game(record, game_no)
    options = record.options
    given = GameInput.of(record, game)
    turns = []
    for t in game_turns(game):
        ids = board_ids(t, length=given.length, score=given.score, crawford=given.crawford)
        turns.append({
            "seat": t.seat,
            "action": t.action.value,
            "dice": sorted(t.dice, reverse=True) if t.dice else None,
            "text": t.text,
            "moves": [list(m) for m in t.moves],
            "position": encode(t.after),
            "cube": t.cube_after,
            "owner": t.owner_after,
            "board": {"position_id": ids[0], "match_id": ids[1]} if ids else None,
        })
    result = None
    if game.result is not None:
        r = game.result
        result = {
            "winner": r.winner,
            "points": game.points if game.points is not None else r.points,
            "result": r.counted.word,  # what the game counted, as game_over says
            "reason": r.reason.value,
            "score": list(game.final_score) if game.final_score else None,
        }
    return {
        "match": ident,
        "game": game.number,
        "games": [g.number for g in record.games],
        "v": v,
        "names": list(record.names),
        "mode": options.mode.value,
        "length": options.length if options.mode is Mode.MATCH else None,
        "score": list(game.score),
        "crawford": game.crawford,
        "start": encode(Position.start()),
        "turns": turns,
        "result": result,
    }


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
    return JSONResponse({"status": "pending", "level": "1-ply",
                         "progress": status.get("progress"), "players": [], "turns": []},
                        headers={"Cache-Control": "no-cache"})


routes = [
    Route("/api/matches/{match_id}/games/{game}/record.json", game_record),
    Route("/api/matches/{match_id}/games/{game}/analysis.json", game_analysis),
]
