"""What the HTTP API takes from a request's JSON body, and how it refuses the rest.

Every route that takes a body declares its fields with :func:`takes`; the handler then gets
the body read and checked by :func:`read_json`, which answers (docs/protocol.md, "HTTP lobby"):

* 413 ``too_large`` for a body over :data:`~protocol.limits.MAX_HTTP_BODY_BYTES`: at once when
  the declared ``Content-Length`` is larger (nothing of it is read), or as soon as the bytes
  read so far pass it (a chunked body). The rest is never read: the server's h11 protocol
  closes a connection answered before its request's body was read to the end
  (:mod:`server.web.guard`);
* 400 ``bad_frame`` for a body that is not one UTF-8 JSON object, repeats a key, or nests
  arrays and objects deeper than :data:`~protocol.limits.MAX_HTTP_BODY_DEPTH` (counted by a
  scan before parsing: a deep body never reaches the recursive parser);
* 400 ``bad_field`` for a field the route does not declare (the message names it) or a value
  of another JSON type than the declared one (an integer is never a boolean; ``null`` only
  where declared, and then it counts as absent).

An empty body counts as ``{}``. A refusal is a :class:`server.web.common.BadRequest` (the
route's error handling answers it with :func:`server.web.common.error`).
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, NamedTuple

from starlette.requests import ClientDisconnect, Request
from starlette.responses import Response

from protocol import limits as L
from protocol.errors import ErrorCode
from protocol.schema import shown
from server.web.common import BadRequest, Endpoint

# ---------------------------------------------------------------- declared fields


class Field(NamedTuple):
    """A body field's JSON type: ``kind`` is ``str``, ``int``, ``bool`` or ``list``;
    ``nullable``: null is accepted too (and counts as absent)."""

    kind: type
    nullable: bool = False


STRING, INTEGER, BOOLEAN = Field(str), Field(int), Field(bool)
ARRAY_OR_NULL = Field(list, nullable=True)
"""An array (its items are the route's to check), or null."""
STRING_OR_NULL = Field(str, nullable=True)
OBJECT_OR_NULL = Field(dict, nullable=True)
"""A JSON object (its members are the route's to check), or null."""
Fields = Mapping[str, Field]
"""A route's body: its field names, each with its type. An empty mapping: no fields at all."""

NO_FIELDS: Fields = {}

_KINDS = {str: "a string", int: "an integer", bool: "a boolean", list: "an array",
          dict: "an object"}


def checked_fields(body: dict[str, Any], fields: Fields) -> dict[str, Any]:
    """``body`` without its null fields, if it has only the declared ``fields``, each of its
    type; else :class:`BadRequest` ``bad_field`` naming a field (quoted as the wire codec quotes
    a client's string: :func:`protocol.schema.shown`, so a control character or a lone
    surrogate in a name is escaped).

    >>> checked_fields({"name": None, "clock": 30}, {"name": STRING_OR_NULL, "clock": INTEGER})
    {'clock': 30}
    >>> checked_fields({"days": 1}, {"clock": INTEGER})
    Traceback (most recent call last):
    ...
    server.web.common.BadRequest: unknown field 'days' (this request takes: clock)
    >>> checked_fields({"clock": True}, {"clock": INTEGER})
    Traceback (most recent call last):
    ...
    server.web.common.BadRequest: clock must be an integer
    """
    unknown = sorted(name for name in body if name not in fields)
    if unknown:
        names = ", ".join(shown(name) for name in unknown[:3]) + (", …" if len(unknown) > 3 else "")
        takes = f"takes: {', '.join(fields)}" if fields else "takes no fields"
        plural = "s" if len(unknown) > 1 else ""
        message = f"unknown field{plural} {names} (this request {takes})"
        raise BadRequest(ErrorCode.BAD_FIELD, message)
    out = {}
    for name, value in body.items():
        field = fields[name]
        if value is None and field.nullable:
            continue
        if type(value) is not field.kind:
            what = _KINDS[field.kind] + (" or null" if field.nullable else "")
            raise BadRequest(ErrorCode.BAD_FIELD, f"{name} must be {what}")
        out[name] = value
    return out


# ---------------------------------------------------------------- the body

# A JSON string (escapes included; an unterminated one runs to the end), or a bracket.
_TOKENS = re.compile(r'"(?:[^"\\]|\\.)*"?|[\[\]{}]', re.S)


def nesting(text: str) -> int:
    """The deepest nesting of arrays and objects in JSON ``text``, found by a scan (no parse,
    no recursion): brackets inside strings do not count.

    >>> nesting('{"a": [1, {"b": "]]\\\\"[["}]}'), nesting("[]"), nesting("1"), nesting("[" * 3000)
    (3, 1, 0, 3000)
    """
    depth = deepest = 0
    for token in _TOKENS.finditer(text):
        first = token.group()[0]
        if first in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif first in "]}":
            depth = max(depth - 1, 0)
    return deepest


def _too_large(limit: int = L.MAX_HTTP_BODY_BYTES) -> BadRequest:
    return BadRequest(ErrorCode.TOO_LARGE, f"request body over {limit} bytes", 413)


async def read_body(request: Request, limit: int = L.MAX_HTTP_BODY_BYTES,
                    json_body: bool = False) -> bytes:
    """The request's body, read as it comes and never past ``limit``: 413 ``too_large`` once its
    declared length or its bytes so far are over it."""
    declared = request.headers.get("content-length", "")
    json_body = json_body or limit == L.MAX_HTTP_BODY_BYTES
    too_large = _too_large(limit) if json_body else BadRequest(
        ErrorCode.TOO_LARGE, f"a file over {limit} bytes", 413)
    if declared.isascii() and declared.isdigit() and int(declared) > limit:
        raise too_large
    body = bytearray()
    try:
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise too_large
    except ClientDisconnect:  # gone, or cut off for sending too slowly (server/web/guard.py)
        message = "the request body did not arrive in time"
        raise BadRequest(ErrorCode.BAD_FRAME, message, 408) from None
    return bytes(body)


class _Repeated(ValueError):
    pass


def _object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        twice = next(key for key, _ in pairs if key in seen or seen.add(key))
        raise _Repeated(f"the body repeats the key {shown(twice)}")
    return out


def parse(raw: bytes) -> dict[str, Any]:
    """The JSON object ``raw`` holds ({} if empty); else :class:`BadRequest` ``bad_frame``.

    >>> parse(b'{"mode": "match"}'), parse(b"")
    ({'mode': 'match'}, {})
    >>> parse(b'{"a": ' * 17 + b"1" + b"}" * 17)
    Traceback (most recent call last):
    ...
    server.web.common.BadRequest: the body nests arrays and objects 17 deep (at most 16)
    """
    if not raw:
        return {}
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadRequest(ErrorCode.BAD_FRAME, "the body is not UTF-8") from None
    depth, most = nesting(text), L.MAX_HTTP_BODY_DEPTH
    if depth > most:
        message = f"the body nests arrays and objects {depth} deep (at most {most})"
        raise BadRequest(ErrorCode.BAD_FRAME, message)
    try:
        body = json.loads(text, object_pairs_hook=_object)
    except _Repeated as exc:
        raise BadRequest(ErrorCode.BAD_FRAME, str(exc)) from None
    except ValueError:
        raise BadRequest(ErrorCode.BAD_FRAME, "the body is not JSON") from None
    if not isinstance(body, dict):
        raise BadRequest(ErrorCode.BAD_FRAME, "the body must be a JSON object")
    return body


async def read_json(request: Request, fields: Fields,
                    limit: int = L.MAX_HTTP_BODY_BYTES) -> dict[str, Any]:
    """The request's JSON body, read within the limits (``limit`` bytes: a route may declare a
    larger one) and holding only ``fields`` (module docstring); its null fields are left out."""
    return checked_fields(parse(await read_body(request, limit, json_body=True)), fields)


BodyHandler = Callable[[Request, dict[str, Any]], Awaitable[Response]]


def takes(fields: Fields, limit: int = L.MAX_HTTP_BODY_BYTES) -> Callable[[BodyHandler], Endpoint]:
    """Declare a route's body: the endpoint reads it with :func:`read_json` before anything
    else and calls ``handler(request, body)``. It keeps the declaration as ``body_fields``
    (tests/server/test_http_input.py sends every route an undeclared field)."""

    def declare(handler: BodyHandler) -> Endpoint:
        @functools.wraps(handler)
        async def endpoint(request: Request) -> Response:
            return await handler(request, await read_json(request, fields, limit))

        endpoint.body_fields = fields  # type: ignore[attr-defined]
        return endpoint

    return declare


FileHandler = Callable[[Request, bytes], Awaitable[Response]]


def takes_file(limit: int) -> Callable[[FileHandler], Endpoint]:
    """Declare a route whose body is a file (not JSON): the endpoint reads it with
    :func:`read_body` up to ``limit`` bytes and calls ``handler(request, data)``. It keeps the
    limit as ``body_file`` (the JSON routes' checks in tests/server/test_http_input.py skip it)."""

    def declare(handler: FileHandler) -> Endpoint:
        @functools.wraps(handler)
        async def endpoint(request: Request) -> Response:
            return await handler(request, await read_body(request, limit))

        endpoint.body_file = limit  # type: ignore[attr-defined]
        return endpoint

    return declare
