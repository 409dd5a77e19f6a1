"""The trainer (docs/analysis.md, "Trainer"): a signed-in player's own errors as puzzles.

    GET  /api/trainer            the next puzzle, and the player's streak and puzzle rating
    POST /api/trainer/answer     {puzzle, answer}

Puzzles (:mod:`analysis.trainer`) come from the player's analysed games (their last
:data:`GAMES_FROM` matches in their history, the seat their account held) and their imports
(the side whose name is their account's). ``GET`` answers ``{puzzle, due, total, streak,
best_streak, rating, answered}``: ``puzzle`` (without its answer) is the first of the queue, or
null when nothing is due; set it up on the analysis board from its ``position_id`` and
``match_id``. ``answer`` is the Position ID after the chosen play, or ``double``,
``no_double``, ``take``, ``pass``; the answer says ``right`` and gives the analysis's ``best``
and ``best_text``, and the progress after it. Progress is kept per account
(``fg:trainer:<account key>``). 401 ``needs_account`` signed out; 404 ``not_found`` for a
puzzle that is not one of yours.

Guests (no account) train on the games played in their browser, which keeps each match's seat
token (``web-client/src/net/storage.ts``); their progress stays in the browser:

    POST /api/trainer/guest          {seats: [{match, token}, …], progress}
    POST /api/trainer/guest/answer   {seats, progress, puzzle, answer}

Each token proves its seat (the server keeps only token hashes): the puzzles are that seat's
errors in the match's finished, analysed games; a token that holds no seat of its match (or a
match no longer kept) gives nothing. At most :data:`GUEST_MATCHES` seats; a malformed item is
``400 bad_field`` (nothing read);
bodies up to :data:`GUEST_BODY_BYTES` (the browser's progress has one entry per puzzle met).
``progress`` is what the last answer returned (null at first): both answers carry the new
``progress`` for the browser to keep.
"""

from __future__ import annotations

import json
import time
from typing import Any

import msgpack
from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from analysis.game import GameInput
from analysis.trainer import Progress, Puzzle, answer, due, puzzles_of
from engine.importer import MatchFileError, read_match
from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.match.history import find_game, match_record, read_log
from server.match.store import seats_key
from server.match.tokens import seat_of
from server.players.accounts import Account
from server.players.accounts_store import history_key
from server.players.profiles import signed_in
from server.players.results import refs
from server.web.common import BadRequest, answering, error
from server.web.http_input import ARRAY_OR_NULL, OBJECT_OR_NULL, STRING, Fields, takes
from server.work import analysis_queue, import_queue

GAMES_FROM = 50
GUEST_MATCHES = 50
GUEST_BODY_BYTES = 65536
"""The guests' bodies carry their seats and progress (one entry per puzzle met)."""
ANSWER: Fields = {"puzzle": STRING, "answer": STRING}
GUEST: Fields = {"seats": ARRAY_OR_NULL, "progress": OBJECT_OR_NULL}
GUEST_ANSWER: Fields = {**GUEST, **ANSWER}
_HEX = frozenset("0123456789abcdef")


def _unavailable(exc: Exception) -> JSONResponse:
    return error(ErrorCode.RETRY_LATER, "storage is unavailable, try again shortly", 503)


handles = answering({RedisError: _unavailable, OSError: _unavailable})


def progress_key(account: Account) -> str:
    return f"fg:trainer:{account.key}"


async def _account(request: Request) -> Account:
    account = await signed_in(request)
    if account is None:
        raise BadRequest(HttpCode.NEEDS_ACCOUNT, "the trainer needs a signed-in player", 401)
    return account


def _game_puzzles(source: str, record: Any, n: int, report: dict, seat: int) -> list[Puzzle]:
    game = record.games[n - 1]
    given = GameInput.of(record, game)
    return puzzles_of(f"{source}/{n}", given.turns, report, seat, length=given.length,
                      score=given.score, crawford=given.crawford)


async def _match_puzzles(request: Request, match_id: str, seats: list[int]) -> list[Puzzle]:
    """The puzzles of ``seats`` in the finished, analysed games of a played match."""
    services = request.app.state.services
    redis, store = services.store.redis, services.store
    out: list[Puzzle] = []
    record = match_record(await read_log(store, match_id))
    for n in range(1, len(record.games) + 1):
        report = await analysis_queue.report(redis, match_id, n)
        body = json.loads(report) if report else None
        if body and body.get("status") == "done" and find_game(record, n).is_over:
            for seat in seats:
                out += _game_puzzles(f"m:{match_id}", record, n, body, seat)
    return out


async def collect(request: Request, account: Account) -> list[Puzzle]:
    """The player's puzzles, oldest game first."""
    redis = request.app.state.services.store.redis
    out: list[Puzzle] = []
    rows = await redis.lrange(history_key(account.key), 0, GAMES_FROM - 1)
    for raw in reversed(rows):
        match_id = msgpack.unpackb(raw)["match"]
        seats = refs(await redis.hmget(seats_key(match_id), "a0", "a1"))
        mine = [s for s in (0, 1) if seats[s] is not None and seats[s][0] == account.key]
        if not mine:
            continue
        out += await _match_puzzles(request, match_id, mine)
    for ident in reversed(await import_queue.listed(redis, f"a:{account.key}")):
        stored = await import_queue.found(redis, ident)
        if stored is None:
            continue
        try:
            record = read_match(stored["text"], stored["format"]).record
        except MatchFileError:
            continue
        seats = [s for s in (0, 1) if record.names[s].lower() == account.name.lower()]
        for n in range(1, len(record.games) + 1):
            body = await import_queue.report(redis, ident, n)
            if body and body.get("status") == "done":
                for seat in seats:
                    out += _game_puzzles(f"i:{ident}", record, n, body, seat)
    return out


async def _progress(request: Request, account: Account) -> Progress:
    raw = await request.app.state.services.store.redis.get(progress_key(account))
    return Progress.of(json.loads(raw)) if raw else Progress()


def _public(puzzle: Puzzle) -> dict[str, Any]:
    body = puzzle.as_dict()
    for hidden in ("best", "best_text", "played", "played_text"):
        del body[hidden]
    return body


def _summary(progress: Progress, queue: list[Puzzle], total: int) -> dict[str, Any]:
    return {"due": len(queue), "total": total, "streak": progress.streak,
            "best_streak": progress.best_streak, "rating": round(progress.rating),
            "answered": progress.answered}


@handles
async def next_puzzle(request: Request) -> JSONResponse:
    account = await _account(request)
    puzzles = await collect(request, account)
    progress = await _progress(request, account)
    queue = due(progress, puzzles, time.time())
    return JSONResponse({"puzzle": _public(queue[0]) if queue else None,
                         **_summary(progress, queue, len(puzzles))},
                        headers={"Cache-Control": "no-store"})


@handles
@takes(ANSWER)
async def answer_puzzle(request: Request, body: dict[str, Any]) -> JSONResponse:
    account = await _account(request)
    puzzles = await collect(request, account)
    found = next((p for p in puzzles if p.id == body["puzzle"]), None)
    if found is None:
        raise BadRequest(ErrorCode.NOT_FOUND, "no such puzzle of yours", 404)
    progress, right = answer(await _progress(request, account), found, body["answer"],
                             time.time())
    await request.app.state.services.store.redis.set(progress_key(account),
                                                     json.dumps(progress.as_dict()))
    queue = due(progress, puzzles, time.time())
    return JSONResponse({"right": right, "best": found.best, "best_text": found.best_text,
                         "played_text": found.played_text, "error": round(found.error, 4),
                         **_summary(progress, queue, len(puzzles))})


def _guest_seats(body: dict[str, Any]) -> list[tuple[str, str]]:
    items = body.get("seats") or []
    if len(items) > GUEST_MATCHES:
        raise BadRequest(ErrorCode.BAD_FIELD, f"seats: at most {GUEST_MATCHES} matches")
    out = []
    for item in items:
        match = item.get("match") if isinstance(item, dict) else None
        token = item.get("token") if isinstance(item, dict) else None
        if not (isinstance(match, str) and len(match) == 32 and set(match) <= _HEX
                and isinstance(token, str) and 0 < len(token) <= 200):
            raise BadRequest(ErrorCode.BAD_FIELD,
                             "seats: each item is {match: a match id, token: its seat token}")
        out.append((match, token))
    return out


async def _guest_collect(request: Request, body: dict[str, Any]) -> list[Puzzle]:
    """The puzzles of the seats whose tokens the guest holds (every token checked first)."""
    store = request.app.state.services.store
    held: list[tuple[str, int]] = []
    for match, token in _guest_seats(body):
        hashes = await store.seat_hashes(match)
        seat = seat_of(hashes, token) if hashes else None
        if seat is not None:  # (a match gone, or a token of nothing: no puzzles from it)
            held.append((match, seat))
    out: list[Puzzle] = []
    for match, seat in held:
        out += await _match_puzzles(request, match, [seat])
    return out


def _guest_progress(body: dict[str, Any]) -> Progress:
    try:
        return Progress.of(body.get("progress") or {})
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        raise BadRequest(ErrorCode.BAD_FIELD, "progress: not a progress from this trainer") from exc


@handles
@takes(GUEST, GUEST_BODY_BYTES)
async def guest_next(request: Request, body: dict[str, Any]) -> JSONResponse:
    puzzles = await _guest_collect(request, body)
    progress = _guest_progress(body)
    queue = due(progress, puzzles, time.time())
    return JSONResponse({"puzzle": _public(queue[0]) if queue else None,
                         **_summary(progress, queue, len(puzzles)),
                         "progress": progress.as_dict()},
                        headers={"Cache-Control": "no-store"})


@handles
@takes(GUEST_ANSWER, GUEST_BODY_BYTES)
async def guest_answer(request: Request, body: dict[str, Any]) -> JSONResponse:
    puzzles = await _guest_collect(request, body)
    found = next((p for p in puzzles if p.id == body["puzzle"]), None)
    if found is None:
        raise BadRequest(ErrorCode.NOT_FOUND, "no such puzzle of yours", 404)
    progress, right = answer(_guest_progress(body), found, body["answer"], time.time())
    queue = due(progress, puzzles, time.time())
    return JSONResponse({"right": right, "best": found.best, "best_text": found.best_text,
                         "played_text": found.played_text, "error": round(found.error, 4),
                         **_summary(progress, queue, len(puzzles)),
                         "progress": progress.as_dict()})


routes = [
    Route("/api/trainer/guest", guest_next, methods=["POST"]),
    Route("/api/trainer/guest/answer", guest_answer, methods=["POST"]),
    Route("/api/trainer", next_puzzle, methods=["GET"]),
    Route("/api/trainer/answer", answer_puzzle, methods=["POST"]),
]
