"""Rollouts on the server (docs/analysis.md, "Rollouts"):

    POST /api/rollouts               {position_id, match_id, xgid, dice, play, trials,
                                      truncation, variance_reduction, seed}
    GET  /api/rollouts/{rollout}
    POST /api/rollouts/{rollout}/cancel
    GET  /api/rollouts               the caller's rollouts, newest first

``POST`` queues a rollout of a position (its cube decision) or, with ``dice`` and ``play`` (the
Position ID after the play, as the analysis board lists it), of a play; 202 ``{rollout,
status, poll, page}``. It belongs to the caller (the signed-in account, else the client
address), who may have :data:`server.work.rollout_queue.ACTIVE_LIMIT` queued or running. ``GET``
answers anyone with its id (a result is shared by its link): ``status``, ``progress``
(``trials`` done and ``of``, ``running``: the trials of the batch in play) and ``figures`` so
far (:func:`analysis.rollouts.report`), with 95% intervals that narrow batch by batch;
``mine`` says whether the caller owns it. ``cancel`` (the owner only) stops it within a batch,
keeping the batches played.

Errors: 400 as ``POST /api/analyse`` (``bad_position_id``, ``bad_match_id``, ``bad_xgid``,
``bad_dice``, ``game_over``, ``unsupported``), ``bad_play``, ``bad_field`` (settings out of
range, a field of another type); 403 ``forbidden`` (cancelling another's rollout); 404
``not_found``; 429 ``too_many_rollouts``; 503 ``retry_later``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from analysis.board import SetupError
from analysis.rollouts import RolloutSpec, report
from brain.rollout import RolloutError, Tally
from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.players.profiles import signed_in
from server.web.board_errors import refused
from server.web.common import BadRequest, answering, client_address, error
from server.web.http_input import (
    ARRAY_OR_NULL,
    BOOLEAN,
    INTEGER,
    NO_FIELDS,
    STRING_OR_NULL,
    Fields,
    takes,
)
from server.work import rollout_queue as queue

START: Fields = {"position_id": STRING_OR_NULL, "match_id": STRING_OR_NULL,
                 "xgid": STRING_OR_NULL, "dice": ARRAY_OR_NULL, "play": STRING_OR_NULL,
                 "trials": INTEGER, "truncation": INTEGER, "variance_reduction": BOOLEAN,
                 "seed": INTEGER}
ROLLOUT = re.compile(r"[0-9a-f]{24}")


def _unavailable(exc: Exception) -> JSONResponse:
    return error(ErrorCode.RETRY_LATER, "storage is unavailable, try again shortly", 503)


def _too_many(exc: queue.TooMany) -> JSONResponse:
    return error(HttpCode.TOO_MANY_ROLLOUTS, f"at most {queue.ACTIVE_LIMIT} rollouts queued or "
                                             "running at a time: cancel one, or wait")


handles = answering({SetupError: refused, RolloutError: refused, queue.TooMany: _too_many,
                     RedisError: _unavailable, OSError: _unavailable})


async def owner_of(request: Request) -> str:
    account = await signed_in(request)
    return f"a:{account.key}" if account else f"g:{client_address(request)}"


def _redis(request: Request):  # type: ignore[no-untyped-def]
    return request.app.state.services.store.redis


def _links(rollout: str) -> dict[str, str]:
    return {"poll": f"/api/rollouts/{rollout}", "page": f"/analyse#rollout={rollout}"}


def view(rollout: str, found: dict[str, str], owner: str) -> dict[str, Any]:
    """The answer of ``GET /api/rollouts/{rollout}``."""
    spec = RolloutSpec.of(json.loads(found["spec"]))
    tally = Tally.of(json.loads(found["tally"]))
    out: dict[str, Any] = {
        "rollout": rollout, "status": found["status"], "spec": spec.as_dict(),
        "progress": {"trials": tally.trials, "of": spec.settings.trials,
                     "running": int(found.get("running", "0"))},
        "figures": report(spec, tally), "created": int(found.get("created", "0")),
        "mine": found["owner"] == owner, **_links(rollout)}
    if found.get("message"):
        out["message"] = found["message"]
    return out


@handles
@takes(START)
async def start(request: Request, body: dict[str, Any]) -> JSONResponse:
    spec = RolloutSpec.of(body)
    rollout = await queue.create(_redis(request), await owner_of(request), spec.as_dict())
    return JSONResponse({"rollout": rollout, "status": "queued", **_links(rollout)},
                        status_code=202)


async def _found(request: Request) -> tuple[str, dict[str, str]]:
    rollout = request.path_params["rollout"]
    found = await queue.state(_redis(request), rollout) if ROLLOUT.fullmatch(rollout) else None
    if found is None:
        raise BadRequest(ErrorCode.NOT_FOUND, "no such rollout (or it expired)", 404)
    return rollout, found


@handles
async def show(request: Request) -> JSONResponse:
    rollout, found = await _found(request)
    return JSONResponse(view(rollout, found, await owner_of(request)),
                        headers={"Cache-Control": "no-store"})


@handles
@takes(NO_FIELDS)
async def cancel(request: Request, body: dict[str, Any]) -> JSONResponse:
    rollout, found = await _found(request)
    if found["owner"] != await owner_of(request):
        raise BadRequest(ErrorCode.FORBIDDEN, "only who started a rollout may cancel it", 403)
    if found["status"] not in queue.FINAL:
        await queue.cancel(_redis(request), rollout)
    return JSONResponse({"rollout": rollout, "status": found["status"],
                         "cancel": found["status"] not in queue.FINAL})


@handles
async def mine(request: Request) -> JSONResponse:
    owner = await owner_of(request)
    redis = _redis(request)
    out = []
    for rollout in await queue.listed(redis, owner):
        found = await queue.state(redis, rollout)
        if found is not None:
            out.append(view(rollout, found, owner))
    return JSONResponse({"rollouts": out, "limit": queue.ACTIVE_LIMIT},
                        headers={"Cache-Control": "no-store"})


routes = [
    Route("/api/rollouts", start, methods=["POST"]),
    Route("/api/rollouts", mine, methods=["GET"]),
    Route("/api/rollouts/{rollout}", show, methods=["GET"]),
    Route("/api/rollouts/{rollout}/cancel", cancel, methods=["POST"]),
]
