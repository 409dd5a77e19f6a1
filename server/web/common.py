"""What the route modules share: the error answer, how each refusal is answered, and the parts
of a request that several routes read.

* :func:`error` — the HTTP API's error answer ``{"error": code, "message": message, ...}``,
  and :class:`BadRequest`, the refusal any handler (or :mod:`server.web.http_input`, reading
  a body) raises for it;
* :func:`handles_errors` — the lobby's and the hints' routes: a refusal of the match
  service, the machine, the lobby limits, the accounts rules or the bot workers becomes its
  answer (:data:`MATCH_REFUSALS`); :func:`handles_account_errors` — the accounts' routes
  (:data:`ACCOUNT_REFUSALS`). Both answer :class:`BadRequest` too; any other exception is the
  server's fault (500);
* :func:`match_id_of` — the match named in the path (404 ``not_found`` when it cannot be one),
  :func:`log_or_error` — its log, or the error answer; :func:`required_secret` and
  :func:`secret_field` — a seat token in a body; :func:`client_address` — who asks (behind a
  trusted proxy, the address it forwarded); :func:`service` — the process's match service;
  :func:`clean_name` — a guest's display name (the lobby's and quick pairing's).

A route module takes its body through :mod:`server.web.http_input` and everything else it
shares with other routes from here; no route module imports another.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any

from redis.exceptions import RedisError
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from protocol import limits as L
from protocol.errors import ErrorCode
from protocol.fields import MATCH_ID_PATTERN, TOKEN
from protocol.http_errors import ApiErrorCode, checked, status_of
from protocol.schema import Invalid
from server.machine import core
from server.match.history import Logged, read_log
from server.match.service import MatchService, NotFound, Unavailable
from server.match.store import Store
from server.ops import metrics
from server.players import profiles
from server.players.accounts import AccountError
from server.web import limits
from server.work import botmatch

MATCH_ID = re.compile(MATCH_ID_PATTERN)

# ---------------------------------------------------------------- the error answer


def error(
    code: ApiErrorCode, message: str, status: int | None = None, **extra: Any
) -> JSONResponse:
    """The HTTP API's error answer ``{"error": code, "message": message, **extra}``.

    ``code`` is an :class:`ErrorCode` or :class:`HttpCode` member (docs/protocol.md lists
    both); a bare string is refused (``TypeError``), so every code the API answers is in the
    catalogue.
    """
    body = {"error": checked(code).value, "message": message, **extra}
    return JSONResponse(body, status_code=status_of(code, status))


class BadRequest(Exception):
    """A request refused with ``code`` (a catalogued code, never a bare string) and ``status``."""

    def __init__(self, code: ApiErrorCode, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status

    def answer(self) -> JSONResponse:
        return error(self.code, self.message, self.status)


# ---------------------------------------------------------------- refusals and their answers

Endpoint = Callable[[Request], Awaitable[Response]]
Refusals = Mapping[type[Exception], Callable[[Any], Response]]
"""Exception classes and the answer each gets (the first class an exception is an instance of)."""


def answering(refusals: Refusals) -> Callable[[Endpoint], Endpoint]:
    """A decorator: the endpoint answers :class:`BadRequest` and each of ``refusals``. It keeps
    the handler's name and body declaration (``body_fields``: server.web.http_input.takes)."""
    kinds = tuple(refusals)

    def wrap(handler: Endpoint) -> Endpoint:
        @functools.wraps(handler)
        async def wrapped(request: Request) -> Response:
            try:
                return await handler(request)
            except BadRequest as exc:
                return exc.answer()
            except kinds as exc:
                return next(answer(exc) for k, answer in refusals.items() if isinstance(exc, k))

        return wrapped

    return wrap


def _rejected(exc: core.Rejected) -> Response:
    code = ErrorCode(exc.code)  # the machine's codes are the protocol's (as on the WS)
    return error(code, exc.message, 403 if code is ErrorCode.FORBIDDEN else 409)


def _too_many(exc: limits.Refused) -> Response:
    metrics.REJECTIONS.labels(exc.code.value).inc()  # so an operator sees a flood
    answer = error(exc.code, exc.message, 429, retry_after=exc.retry_after)
    answer.headers["Retry-After"] = str(exc.retry_after)
    return answer


MATCH_REFUSALS: Refusals = {
    NotFound: lambda exc: error(ErrorCode.NOT_FOUND, "no such match", 404),
    Unavailable: lambda exc: error(
        ErrorCode.RETRY_LATER, "storage is unavailable, try again shortly", 503
    ),
    botmatch.NoBots: lambda exc: error(exc.code, str(exc), 503),
    core.Rejected: _rejected,
    limits.Refused: _too_many,
    profiles.Refused: lambda exc: error(exc.code, exc.message, exc.status),
}
"""How the match routes (the lobby, hints) answer what the layers below refuse."""


def _account_refused(exc: AccountError) -> Response:
    response = error(exc.code, exc.message, exc.status)
    if exc.retry_after:
        response.headers["Retry-After"] = str(exc.retry_after)
    return response


def _storage_unavailable(exc: Exception) -> Response:
    message = f"storage is unavailable, try again shortly ({exc})"
    return error(ErrorCode.RETRY_LATER, message, 503)


ACCOUNT_REFUSALS: Refusals = {
    AccountError: _account_refused,
    RedisError: _storage_unavailable,
    OSError: _storage_unavailable,
}
"""How the accounts' routes answer a refusal of the accounts rules or a store out of reach."""

handles_errors = answering(MATCH_REFUSALS)
handles_account_errors = answering(ACCOUNT_REFUSALS)

# ---------------------------------------------------------------- parts of a request


def match_id_of(request: Request) -> str:
    """The ``match_id`` of the path; :class:`BadRequest` 404 when it cannot name a match."""
    match_id = request.path_params["match_id"]
    if not MATCH_ID.fullmatch(match_id):
        raise BadRequest(ErrorCode.NOT_FOUND, "no such match", 404)
    return match_id


async def log_or_error(request: Request) -> tuple[str, list[Logged]] | Response:
    """The match of the path and its event log, or the error answer: 404 for no such match,
    503 when the store cannot be read."""
    match_id = request.path_params["match_id"]
    if not MATCH_ID.fullmatch(match_id):
        return error(ErrorCode.NOT_FOUND, "no such match", 404)
    store: Store = request.app.state.services.store
    try:
        log = await read_log(store, match_id)
    except Exception:
        return error(ErrorCode.RETRY_LATER, "storage unavailable", 503)
    if not log:
        return error(ErrorCode.NOT_FOUND, "no such match", 404)
    return match_id, log


def secret_field(body: dict[str, Any], key: str) -> str | None:
    """A seat token in ``body`` (None if absent): 1-64 characters of the URL-safe alphabet."""
    value = body.get(key)
    if value is None:
        return None
    try:
        return TOKEN.load(value)
    except Invalid:
        message = f"{key} must be a seat token ({TOKEN.what})"
        raise BadRequest(ErrorCode.BAD_FIELD, message) from None


def required_secret(body: dict[str, Any], key: str, what: str) -> str:
    """The seat token ``body[key]``; :class:`BadRequest` naming ``what`` it is when absent."""
    value = secret_field(body, key)
    if value is None:
        raise BadRequest(ErrorCode.BAD_FIELD, f"{key} ({what}) is required")
    return value


def client_address(request: Request) -> str:
    """The client's address (uvicorn takes it from X-Forwarded-For when the peer is a trusted
    proxy: ``FAIRGAMMON_TRUSTED_PROXIES``), or ``unknown``."""
    return request.client.host if request.client else "unknown"


def service(request: Request) -> MatchService:
    """The process's match service."""
    return request.app.state.services.matches


NAME_LIMIT = L.MAX_NAME_CHARS  # a name the wire (protocol.fields.Name) can carry


def clean_name(raw: str | None) -> str:
    """A display name: 1-24 printable characters, whitespace collapsed; 'Guest' if empty."""
    if raw is None:
        return "Guest"
    name = " ".join(raw.split())
    if len(name) > NAME_LIMIT:
        raise BadRequest(ErrorCode.BAD_FIELD, f"name is longer than {NAME_LIMIT} characters")
    if any(not ch.isprintable() for ch in name):
        raise BadRequest(ErrorCode.BAD_FIELD, "name has unprintable characters")
    return name or "Guest"
