"""The Redis protocol (RESP2), sans I/O: commands to bytes, bytes to replies.

Used by the bare connections to one plain Redis (:mod:`server.ops.lean_pubsub`,
:mod:`server.ops.lean_link`), which read whatever the socket has in one call and parse every
whole reply in it at once, where redis-py reads a line at a time with an await each.

>>> command("SET", "k", b"v", 3)
b'*4\\r\\n$3\\r\\nSET\\r\\n$1\\r\\nk\\r\\n$1\\r\\nv\\r\\n$1\\r\\n3\\r\\n'
>>> p = Parser()
>>> p.feed(b"*3\\r\\n$9\\r\\nsubscribe\\r\\n$2\\r\\nch\\r\\n:1\\r\\n")
>>> p.feed(b"*3\\r\\n$7\\r\\nmessage\\r\\n$2\\r\\nch\\r\\n$3\\r")
>>> p.take()
[[b'subscribe', b'ch', 1]]
>>> p.feed(b"\\nabc\\r\\n+PONG\\r\\n$-1\\r\\n-NOSCRIPT No matching script\\r\\n")
>>> *replies, error = p.take()
>>> replies, type(error).__name__, str(error)
([[b'message', b'ch', b'abc'], b'PONG', None], 'NoScriptError', 'No matching script')
"""

from __future__ import annotations

from typing import Any, NamedTuple

from redis.asyncio.connection import parse_url
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import NoScriptError, ResponseError


class Parser:
    """RESP2 replies from bytes fed in any pieces: :meth:`take` returns every whole reply
    parsed so far (arrays as lists, bulk strings as bytes, a null as None, integers as ints,
    simple strings as bytes, errors as :class:`ResponseError` — :class:`NoScriptError` for
    ``NOSCRIPT``, as redis-py names it), and keeps the rest for the next feed. Bytes that are
    no reply raise redis-py's ``ConnectionError`` (the connection cannot be trusted after)."""

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> None:
        self._buffer = self._buffer + data if self._buffer else data

    def take(self) -> list[Any]:
        out: list[Any] = []
        buffer, pos, end = self._buffer, 0, len(self._buffer)
        while pos < end:
            parsed = _value(buffer, pos)
            if parsed is None:
                break
            value, pos = parsed
            out.append(value)
        self._buffer = buffer[pos:]
        return out


def _value(buffer: bytes, pos: int) -> tuple[Any, int] | None:
    """The reply at ``pos`` and where the next begins, or None if it is not whole yet."""
    eol = buffer.find(b"\r\n", pos)
    if eol < 0:
        return None
    kind, head = buffer[pos : pos + 1], buffer[pos + 1 : eol]
    if kind == b"$":
        size = int(head)
        if size < 0:
            return None, eol + 2
        start = eol + 2
        if len(buffer) < start + size + 2:
            return None
        return buffer[start : start + size], start + size + 2
    if kind == b"*":
        count = int(head)
        items: list[Any] = []
        pos = eol + 2
        for _ in range(max(count, 0)):
            parsed = _value(buffer, pos)
            if parsed is None:
                return None
            item, pos = parsed
            items.append(item)
        return (items if count >= 0 else None), pos
    if kind == b":":
        return int(head), eol + 2
    if kind == b"+":
        return head, eol + 2
    if kind == b"-":
        return _error(head.decode(errors="replace")), eol + 2
    raise RedisConnectionError(f"not a RESP2 reply: {buffer[pos : pos + 16]!r}")


def _error(text: str) -> ResponseError:
    if text.startswith("NOSCRIPT "):
        return NoScriptError(text[len("NOSCRIPT ") :])
    return ResponseError(text)


def encode(value: str | bytes | int | float) -> bytes:
    """One argument as Redis takes it, as redis-py's encoder makes it: bytes as they are, text
    as UTF-8, numbers in decimal (a float as its ``repr``); anything else is refused.

    >>> encode("é"), encode(b"\\x00"), encode(-3), encode(0.5)
    (b'\\xc3\\xa9', b'\\x00', b'-3', b'0.5')
    >>> encode(True)
    Traceback (most recent call last):
    ...
    TypeError: not a Redis argument: bool
    """
    kind = type(value)
    if kind is bytes:
        return value  # type: ignore[return-value]
    if kind is str:
        return value.encode()  # type: ignore[union-attr]
    if kind is int:
        return b"%d" % value
    if kind is float:
        return repr(value).encode()
    if isinstance(value, bytes | memoryview | bytearray):
        return bytes(value)
    raise TypeError(f"not a Redis argument: {kind.__name__}")


def command(*parts: str | bytes | int | float) -> bytes:
    """One command as RESP, each part as :func:`encode` makes it."""
    out = [b"*%d\r\n" % len(parts)]
    for part in parts:
        data = encode(part)
        out.append(b"$%d\r\n%s\r\n" % (len(data), data))
    return b"".join(out)


def auth(username: str | None, password: str) -> bytes:
    """The ``AUTH`` command for a URL's credentials (the password alone: the default user)."""
    return command("AUTH", *((username, password) if username else (password,)))


class Plain(NamedTuple):
    """Where a plain ``redis://`` URL points, and with which credentials and database."""

    host: str
    port: int
    username: str | None
    password: str | None
    db: int


def plain(url: str) -> Plain | None:
    """The address of a plain ``redis://`` URL, or None for anything else (``rediss://``: TLS;
    ``unix://``: a socket), which the bare connections leave to redis-py.

    >>> plain("redis://u:pw@10.0.0.2:6380/3")
    Plain(host='10.0.0.2', port=6380, username='u', password='pw', db=3)
    >>> plain("redis://h"), plain("rediss://h") is None
    (Plain(host='h', port=6379, username=None, password=None, db=0), True)
    """
    if not url.startswith("redis://"):
        return None
    options = parse_url(url)
    return Plain(
        options.get("host") or "localhost",
        int(options.get("port") or 6379),
        options.get("username"),
        options.get("password"),
        int(options.get("db") or 0),
    )
