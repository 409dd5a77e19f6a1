"""The analysis board's API (docs/analysis.md, "Analysis board"):

    POST /api/analyse        {position_id, match_id, xgid, dice, ply}
    GET  /api/analyse/{job}

``POST`` takes a gnubg Position ID (and, for score and cube, perhaps a Match ID) or an XGID,
exactly one of the two; ``dice`` ``[d1, d2]`` (optional: without dice, and without dice in
the IDs, the cube decision); ``ply`` 1, 2 or 3 (default 1). At 1- and 2-ply the answer is
computed at once (on a thread, at most :data:`SEARCHES` at a time in a process): 200 with
:func:`analysis.board.to_json`'s answer. A 3-ply request is queued for the analysis workers
(:mod:`server.work.board_queue`): 202 ``{status: "pending", job, poll}`` — or 200 with the
answer when the same request was analysed before and its result is still kept — and
``GET /api/analyse/{job}`` answers 202 ``{status: "pending", job, poll}`` until it is done,
then 200 with the answer.

Errors: 400 ``bad_position_id``, ``bad_match_id``, ``bad_xgid`` (the message says why),
``bad_dice``, ``bad_field`` (a ply other than 1, 2, 3; a field of the wrong type),
``game_over`` (a side has borne off everything), ``unsupported`` (a match over 25 points);
404 ``not_found`` (no such job, or its result expired); 500 ``analysis_failed`` (the workers
could not analyse it); 503 ``retry_later`` (the store is out of reach, for a 3-ply request).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from analysis.board import Setup, SetupError, analyse_position, setup_from_request, to_json
from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.web.board_errors import refused
from server.web.common import BadRequest, answering, error
from server.web.http_input import ARRAY_OR_NULL, INTEGER, STRING_OR_NULL, Fields, takes
from server.work import board_queue

SEARCHES = 2
"""1- and 2-ply board analyses running at once in one process."""
QUEUED_PLY = 3
"""From this ply on, a request goes to the workers."""
ANALYSE: Fields = {"position_id": STRING_OR_NULL, "match_id": STRING_OR_NULL,
                   "xgid": STRING_OR_NULL, "dice": ARRAY_OR_NULL, "ply": INTEGER}
JOB = re.compile(r"[0-9a-f]{24}")

def _unavailable(exc: Exception) -> JSONResponse:
    return error(ErrorCode.RETRY_LATER, "storage is unavailable, try again shortly", 503)


handles = answering({SetupError: refused, RedisError: _unavailable, OSError: _unavailable})

_searches = asyncio.Semaphore(SEARCHES)


def _pending(job: str) -> JSONResponse:
    return JSONResponse({"status": "pending", "job": job, "poll": f"/api/analyse/{job}"},
                        status_code=202)


@handles
@takes(ANALYSE)
async def analyse(request: Request, body: dict[str, Any]) -> JSONResponse:
    ply = body.get("ply", 1)
    if ply not in (1, 2, 3):
        raise BadRequest(ErrorCode.BAD_FIELD, f"ply is 1, 2 or 3, got {ply}")
    setup: Setup = setup_from_request(body.get("position_id"), body.get("match_id"),
                                      body.get("xgid"), body.get("dice"))
    if ply < QUEUED_PLY:
        async with _searches:
            return JSONResponse(to_json(await asyncio.to_thread(analyse_position, setup, ply)))
    dice = setup.dice if body.get("dice") is not None else None  # the IDs' own dice stay there
    job = board_queue.job_id(body.get("position_id"), body.get("match_id"), body.get("xgid"),
                             dice, ply)
    redis = request.app.state.services.store.redis
    if not await board_queue.enqueue(redis, board_queue.BoardJob(
            job, body.get("position_id"), body.get("match_id"), body.get("xgid"), dice, ply)):
        known = await board_queue.result(redis, job)
        if known is not None and known["status"] == "done":
            return JSONResponse(known["analysis"])
    return _pending(job)


@handles
async def job_result(request: Request) -> JSONResponse:
    job = request.path_params["job"]
    if not JOB.fullmatch(job):
        raise BadRequest(ErrorCode.NOT_FOUND, "no such analysis", 404)
    known = await board_queue.result(request.app.state.services.store.redis, job)
    if known is None:
        raise BadRequest(ErrorCode.NOT_FOUND, "no such analysis (or it expired)", 404)
    if known["status"] == "done":
        return JSONResponse(known["analysis"])
    if known["status"] == "failed":
        raise BadRequest(HttpCode.ANALYSIS_FAILED, known.get("message", "failed"), 500)
    return _pending(job)


routes = [
    Route("/api/analyse", analyse, methods=["POST"]),
    Route("/api/analyse/{job}", job_result, methods=["GET"]),
]
