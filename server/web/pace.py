"""The pace of a match against the computer: the page's "fast play" setting, for the bot.

    POST /api/matches/{id}/pace   {token, fast}

The seat holding ``token`` says whether it plays fast (``fast`` true) or at the normal pace
(false). While it plays fast the bot worker answers without its think time
(:func:`bots.worker.think_time`); the page shortens its own pauses at the same time. The pace
is kept under :func:`bots.queue.pace_key` (read by the worker at each decision, so a change
takes effect at the bot's next one) and goes with the match.

Answers ``{match, fast}``. Errors: ``hints_unavailable`` (403) in a match between people (the
pace is the computer's); ``forbidden`` (403) for a token that holds no seat; ``not_found``
(404); ``bad_field`` (400) for a missing token or a ``fast`` that is not a boolean.
"""

from __future__ import annotations

from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from bots import queue
from protocol.errors import ErrorCode
from server.match.tokens import seat_of
from server.web.common import BadRequest, handles_errors, match_id_of, required_secret, service
from server.web.http_input import BOOLEAN, STRING, Fields, takes
from server.work import botmatch

PACE: Fields = {"token": STRING, "fast": BOOLEAN}


@handles_errors
@takes(PACE)
async def pace(request: Request, body: dict[str, Any]) -> JSONResponse:
    match_id = match_id_of(request)
    token = required_secret(body, "token", "your seat token")
    fast = body.get("fast")
    if fast is None:
        raise BadRequest(ErrorCode.BAD_FIELD, "fast (true or false) is required")
    matches = service(request)
    await matches.load(match_id)  # 404 for no such match
    if await botmatch.level_of(matches.store, match_id) is None:
        raise BadRequest(ErrorCode.HINTS_UNAVAILABLE,
                         "the pace is set only in matches against the computer", 403)
    if seat_of(await matches.store.seat_hashes(match_id) or (None, None), token) is None:
        raise BadRequest(ErrorCode.FORBIDDEN, "that token holds no seat of this match", 403)
    redis = matches.store.redis
    if fast:
        await redis.set(queue.pace_key(match_id), queue.FAST, ex=queue.PACE_TTL_S)
    else:
        await redis.delete(queue.pace_key(match_id))
    return JSONResponse({"match": match_id, "fast": fast})


routes = [Route("/api/matches/{match_id}/pace", pace, methods=["POST"])]
