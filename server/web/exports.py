"""Finished games out of the event log: fair-dice transcripts (JSON) and the ``.mat`` export.

    GET /api/matches/{id}/games/{n}/transcript.json   one game, for ``fairgammon verify``
    GET /api/matches/{id}/transcript.json             every finished game of the match, and
                                                      the finished games left out (none to verify)
    GET /api/matches/{id}/match.mat                   Jellyfish/gnubg text (finished matches)

The facts come from :mod:`server.match.history` (the log through
:func:`server.web.common.log_or_error`); this module only answers the routes.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Route

from protocol import events as pe
from protocol.errors import ErrorCode
from server.match.history import Uncommitted, mat_text, transcript, transcripts
from server.web.common import error, log_or_error

# ---------------------------------------------------------------- routes


def _json(obj: Any, filename: str) -> Response:
    return Response(
        json.dumps(obj, indent=1) + "\n",
        media_type="application/json",
        headers={"Content-Disposition": f'inline; filename="{filename}"'},
    )


async def game_transcript(request: Request) -> Response:
    got = await log_or_error(request)
    if isinstance(got, Response):
        return got
    match_id, log = got
    try:
        game_no = int(request.path_params["game"])
        text = transcript(match_id, log, game_no).to_json()
    except Uncommitted as missing:
        return error(ErrorCode.NOT_FOUND, str(missing), 404)
    except (KeyError, ValueError):
        return error(ErrorCode.NOT_FOUND, "no such finished game", 404)
    name = f"fairgammon-{match_id[:8]}-game{game_no}.json"
    return Response(
        text,
        media_type="application/json",
        headers={"Content-Disposition": f'inline; filename="{name}"'},
    )


async def match_transcript(request: Request) -> Response:
    got = await log_or_error(request)
    if isinstance(got, Response):
        return got
    match_id, log = got
    found = transcripts(match_id, log)
    games = [json.loads(t.to_json()) for t in found.games]
    left_out = [{"game": m.game, "reason": m.reason, "why": str(m)} for m in found.left_out]
    return _json({"match_id": match_id, "games": games, "left_out": left_out},
                 f"fairgammon-{match_id[:8]}.json")


async def match_mat(request: Request) -> Response:
    got = await log_or_error(request)
    if isinstance(got, Response):
        return got
    match_id, log = got
    created = log[0].data if log else None
    if isinstance(created, pe.MatchCreated) and created.variant != "backgammon":
        # gnubg's format holds backgammon games (its importer would misread any other).
        why = f"a {created.variant} match has no .mat export: the format is backgammon's"
        return error(ErrorCode.NOT_FOUND, why, 404)
    return PlainTextResponse(
        mat_text(log),
        headers={"Content-Disposition": f'attachment; filename="fairgammon-{match_id[:8]}.mat"'},
    )


routes = [
    Route("/api/matches/{match_id}/games/{game}/transcript.json", game_transcript),
    Route("/api/matches/{match_id}/transcript.json", match_transcript),
    Route("/api/matches/{match_id}/match.mat", match_mat),
]
