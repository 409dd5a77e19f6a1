"""Hostile input to the HTTP API gets a typed 4xx, never a 500, and changes nothing.

The body rules of server/web/http_input.py (size read incrementally and cut at the limit, nesting
checked before parsing, only declared fields of their declared types), on every route that
takes a body (enumerated from the app's own route table, so a new route without a declaration
fails here); strings with lone surrogates; and, with raw sockets against a real server
process, bodies over the limit (declared or chunked) answered 413 without being read, and the
connection closed ``LINGER_SECONDS`` after the answer (server/web/guard.py).
(Usernames and passwords: tests/server/test_accounts.py; whole-string patterns:
tests/unit/test_patterns.py.)
"""

from __future__ import annotations

import asyncio
import json
import socket
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from starlette.requests import Request

from harness.accounts import Browser
from harness.offline_app import offline_app
from harness.srv_support import server_fixture
from protocol import limits as L
from protocol.schema import shown
from server.web import http_input
from server.web.common import BadRequest
from server.web.guard import LINGER_SECONDS
from server.web.http_input import nesting, parse, read_body

ROOT = Path(__file__).resolve().parents[2]
CHANGING = {"POST", "PUT", "PATCH", "DELETE"}
UNKNOWN_MATCH = "0" * 32
PASSWORD = "correct horse"

server = server_fixture()


# ---------------------------------------------------------------- helpers


def _send(base: str, method: str, path: str, data: bytes | None) -> tuple[int, dict[str, Any]]:
    request = urllib.request.Request(base + path, data=data, method=method,
                                     headers={"Content-Type": "application/json"})  # fmt: skip
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            status, raw = response.status, response.read()
    except urllib.error.HTTPError as exc:
        status, raw = exc.code, exc.read()
    return status, json.loads(raw) if raw else {}


async def send(base: str, method: str, path: str, data: bytes | None) -> tuple[int, dict]:
    """The status and JSON answer of ``data`` (raw bytes) sent to ``path``."""
    return await asyncio.to_thread(_send, base, method, path, data)


def body_routes() -> list[tuple[str, str, http_input.Fields]]:
    """Every ``(method, path, declared fields)`` of the app's state-changing /api routes, with
    ``{match_id}`` filled in. Fails if one of them declares no body."""
    app = offline_app()
    found = []
    for route in app.routes:
        path, methods = getattr(route, "path", ""), getattr(route, "methods", None) or set()
        if not path.startswith("/api/"):
            continue  # not an API route (the one-click unsubscribe takes a form: RFC 8058)
        if getattr(getattr(route, "endpoint", None), "body_file", None):
            continue  # a file upload (http_input.takes_file): its own tests
        for method in sorted(methods & CHANGING):
            fields = getattr(route.endpoint, "body_fields", None)
            assert fields is not None, (
                f"{method} {path} declares no body (server.web.http_input.takes)"
            )
            found.append((method, path.replace("{match_id}", UNKNOWN_MATCH), fields))
    return found


ROUTES = body_routes()
# A value of another JSON type than the declared one.
WRONG = {str: 1, int: "1", bool: 1, list: "1", dict: "1"}


def test_the_enumeration_finds_every_route_that_takes_a_body():
    named = {(method, path.replace(UNKNOWN_MATCH, "{id}")) for method, path, _ in ROUTES}
    assert named == {
        ("POST", "/api/matches"),
        ("POST", "/api/matches/{id}/join"),
        ("POST", "/api/matches/{id}/rematch"),
        ("POST", "/api/matches/{id}/decline"),
        ("POST", "/api/matches/{id}/hint"),
        ("POST", "/api/matches/{id}/pace"),
        ("POST", "/api/account/signup"),
        ("POST", "/api/account/login"),
        ("POST", "/api/account/logout"),
        ("DELETE", "/api/account"),
        ("POST", "/api/seeks"),
        ("DELETE", "/api/seeks/{seek}"),
        ("POST", "/api/analyse"),
        ("POST", "/api/rollouts"),
        ("POST", "/api/rollouts/{rollout}/cancel"),
        ("POST", "/api/imports/{import}/share"),
        ("POST", "/api/trainer/answer"),
        ("POST", "/api/trainer/guest"),
        ("POST", "/api/trainer/guest/answer"),
        ("DELETE", "/api/my/blocks/{name}"),
        ("DELETE", "/api/my/friends/{name}"),
        ("DELETE", "/api/my/vacation"),
        ("POST", "/api/challenges"),
        ("POST", "/api/challenges/{id}/accept"),
        ("POST", "/api/challenges/{id}/decline"),
        ("POST", "/api/matches/{id}/seat"),
        ("POST", "/api/my/blocks"),
        ("POST", "/api/my/email"),
        ("POST", "/api/my/friends"),
        ("POST", "/api/my/notices/read"),
        ("POST", "/api/my/privacy"),
        ("POST", "/api/my/vacation"),
        ("POST", "/api/my/bot"),
        ("POST", "/api/tournaments"),
        ("POST", "/api/tournaments/{tournament}/join"),
        ("POST", "/api/tournaments/{tournament}/withdraw"),
        ("POST", "/api/reports"),
        ("POST", "/api/moderation/actions"),
        ("POST", "/api/moderation/reports/{id}/dismiss"),
        ("DELETE", "/api/moderation/flags/{name}"),
    }


# ---------------------------------------------------------------- every route, a real server


async def test_every_route_refuses_an_unknown_field_and_names_it(server):
    for method, path, _ in ROUTES:
        for name in ("no_such_field", "flavour", "colour", "x\n\ud800<b>"):
            status, answer = await send(server.base, method, path,
                                        json.dumps({name: 1}).encode())  # fmt: skip
            assert (status, answer["error"]) == (400, "bad_field"), (method, path, name, answer)
            assert shown(name) in answer["message"], answer
        # Declared fields still pass (whatever the route answers next, it is not bad_field
        # naming an unknown field); an empty body and {} are read as no fields at all.
        for data in (b"", b"{}"):
            status, answer = await send(server.base, method, path, data)
            assert "unknown field" not in answer.get("message", ""), (method, path, answer)
            assert status != 500


async def test_every_declared_field_refuses_another_json_type(server):
    for method, path, fields in ROUTES:
        for name, field in fields.items():
            arrays = [] if field.kind is list else [[1]]
            objects = [] if field.kind is dict else [{"a": 1}]
            wrongs = [WRONG[field.kind], *arrays, *objects] + ([] if field.nullable else [None])
            for value in wrongs:
                data = json.dumps({name: value}).encode()
                status, answer = await send(server.base, method, path, data)
                assert (status, answer["error"]) == (400, "bad_field"), (path, name, value)
                assert answer["message"].startswith(f"{name} must be "), answer


async def test_deeply_nested_json_is_bad_frame_on_every_route(server):
    deep = b"[" * 2040 + b"]" * 2040  # 4 KiB: within the size limit
    inside = b'{"name": ' + b"[" * 2000 + b"]" * 2000 + b"}"
    for method, path, _ in ROUTES:
        for data in (deep, inside):
            status, answer = await send(server.base, method, path, data)
            assert (status, answer["error"]) == (400, "bad_frame"), (path, answer)
            assert "deep" in answer["message"]
    # The limit itself: 16 levels parse (and the value is then the wrong type), 17 do not.
    levels = L.MAX_HTTP_BODY_DEPTH - 1
    ok = b'{"name": ' + b"[" * levels + b"]" * levels + b"}"
    status, answer = await send(server.base, "POST", "/api/matches", ok)
    assert (status, answer["error"]) == (400, "bad_field")
    too = b'{"name": ' + b"[" * (levels + 1) + b"]" * (levels + 1) + b"}"
    status, answer = await send(server.base, "POST", "/api/matches", too)
    assert (status, answer["error"]) == (400, "bad_frame")


async def test_an_unknown_field_creates_nothing(server):
    async def open_count() -> int:
        status, answer = await send(server.base, "GET", "/api/matches?status=open", None)
        assert status == 200
        return len(answer["matches"])

    before = await open_count()
    for body in ({"variant": "chouette"}, {"colour": "white"},
                 {"mode": "single_game", "no_such_field": 1}):  # fmt: skip
        status, answer = await send(server.base, "POST", "/api/matches", json.dumps(body).encode())
        assert (status, answer["error"]) == (400, "bad_field"), answer
    assert await open_count() == before
    # The positive control: the same request without the unknown field creates a match.
    status, _ = await send(server.base, "POST", "/api/matches", b'{"mode": "single_game"}')
    assert status == 201 and await open_count() == before + 1
    # An account is not created by a sign-up with an extra field either.
    extra = {"username": "extra_1", "password": PASSWORD, "email": "a@b.example"}
    refused = await Browser(server.base).post("/api/account/signup", extra)
    assert (refused.status, refused.body["error"]) == (400, "bad_field") and not refused.set_cookie
    assert (await Browser(server.base).signup("extra_1", PASSWORD)).status == 201


async def test_logout_and_delete_take_an_empty_body_and_refuse_fields(server):
    browser = Browser(server.base, origin=server.base)
    assert (await browser.signup("leaver_1", PASSWORD)).status == 201
    refused = await browser.call("DELETE", "/api/account", {"confirm": True})
    assert (refused.status, refused.body["error"]) == (400, "bad_field")
    assert (await browser.get("/api/account")).body["signed_in"]  # nothing was deleted
    refused = await browser.post("/api/account/logout", {"everywhere": True})
    assert (refused.status, refused.body["error"]) == (400, "bad_field")
    assert (await browser.get("/api/account")).body["signed_in"]  # still signed in
    assert (await browser.post("/api/account/logout", {})).status == 200
    assert not (await browser.get("/api/account")).body["signed_in"]
    assert (await browser.login("leaver_1", PASSWORD)).status == 200
    gone = await browser.call("DELETE", "/api/account")  # no body at all
    assert gone.status == 200 and gone.body == {"deleted": "leaver_1"}


# ---------------------------------------------------------------- strings


async def test_lone_surrogates_in_names_tokens_and_invites_are_bad_field(server):
    created = await Browser(server.base).post("/api/matches", {"mode": "single_game"})
    match = created.body["match"]
    cases = [
        ("/api/matches", {"name": "Ann\ud800"}),
        (f"/api/matches/{match}/join", {"name": "\udfff"}),
        (f"/api/matches/{match}/join", {"invite": "\ud800"}),
        (f"/api/matches/{match}/join", {"rematch_token": "tok\ud800"}),
        (f"/api/matches/{match}/rematch", {"token": "\ud800"}),
        (f"/api/matches/{match}/decline", {"rematch_token": "\ud800"}),
        (f"/api/matches/{match}/hint", {"token": "\ud800"}),
        (f"/api/matches/{match}/hint", {"token": "to ken"}),
        (f"/api/matches/{match}/hint", {"token": "t" * 30 + "\ud800"}),  # (its UTF-8 length)
    ]
    for path, body in cases:
        reply = await Browser(server.base).post(path, body)
        assert (reply.status, reply.body["error"]) == (400, "bad_field"), (path, body)


# ---------------------------------------------------------------- bodies over the limit


def vm(pid: int, key: str) -> int:
    """A /proc/<pid>/status figure in bytes (VmRSS, VmHWM: the peak resident size)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(key + ":"):
            return int(line.split()[1]) * 1024
    raise KeyError(key)


class RawPost:
    """One POST over a plain socket: the head, then as much of a body as the server takes,
    while another thread reads the answer."""

    def __init__(self, port: int, head: bytes) -> None:
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=15)
        self.sock.sendall(head)
        self.answer = bytearray()
        self.ended = threading.Event()  # the server's end of the stream (or a reset)
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()

    def _read(self) -> None:
        try:
            while chunk := self.sock.recv(65536):
                self.answer.extend(chunk)
        except OSError:
            pass
        self.ended.set()

    def send(self, pieces: int, piece: bytes) -> tuple[int, bool]:
        """Send ``piece`` up to ``pieces`` times: the bytes sent and whether all went."""
        sent = 0
        try:
            for _ in range(pieces):
                self.sock.sendall(piece)
                sent += len(piece)
        except OSError:  # reset or broken pipe: the server closed the connection
            return sent, False
        return sent, True

    def until_reset(self, limit: float) -> float:
        """Send a byte every 20 ms until the server's close makes a send fail: the seconds
        that took (AssertionError after ``limit``)."""
        started = time.monotonic()
        while time.monotonic() - started < limit:
            try:
                self.sock.send(b" ")
            except OSError:  # reset or broken pipe: the connection is gone on the server
                return time.monotonic() - started
            time.sleep(0.02)
        raise AssertionError(f"the server kept the connection for {limit} s")

    def close(self) -> None:
        self.sock.close()
        self.reader.join(5)


def head(content: str) -> bytes:
    return (f"POST /api/matches HTTP/1.1\r\nHost: 127.0.0.1\r\n"
            f"Content-Type: application/json\r\n{content}\r\n\r\n").encode()  # fmt: skip


TOTAL = 20 * 1024 * 1024


async def test_a_declared_length_over_the_limit_is_answered_before_any_of_the_body(server):
    post = RawPost(server.port, head(f"Content-Length: {TOTAL}"))
    try:
        # Nothing of the body is sent: the answer comes anyway, and the stream ends with it
        # (uvicorn alone would keep the connection open for the body: 5 s of keep-alive).
        assert await asyncio.to_thread(post.ended.wait, 3)
        answer = bytes(post.answer)
        assert answer.startswith(b"HTTP/1.1 413 "), answer
        assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"] == "too_large"
        # Then, still reading nothing, the server closes it (server/web/guard.py): a client
        # that goes on sending is reset LINGER_SECONDS after the end of the stream, not before
        # (the answer had that long to arrive) and not never (the connection would be held).
        gone = await asyncio.to_thread(post.until_reset, LINGER_SECONDS + 5)
        print(f"\nreset {gone:.2f} s after the end of the stream")
        assert gone >= LINGER_SECONDS - 0.2, gone
    finally:
        post.close()


async def test_a_chunked_body_is_cut_off_at_the_limit_without_being_buffered(server):
    pid = server.process.pid
    peak = vm(pid, "VmHWM")
    piece = 64 * 1024
    chunk = b"%x\r\n" % piece + b" " * piece + b"\r\n"
    post = RawPost(server.port, head("Transfer-Encoding: chunked"))
    try:
        sent, all_went = await asyncio.to_thread(post.send, TOTAL // piece, chunk)
        assert await asyncio.to_thread(post.ended.wait, 10)
    finally:
        post.close()
    answer = bytes(post.answer)
    assert answer.startswith(b"HTTP/1.1 413 "), answer[:200]
    assert json.loads(answer.split(b"\r\n\r\n", 1)[1])["error"] == "too_large"
    # The server stopped reading: the client could not send it all (what it did send sits in
    # the kernels' socket buffers), and the process did not grow by anything like the body.
    assert not all_went and sent < TOTAL // 2, sent
    grown = vm(pid, "VmHWM") - peak
    assert grown < 4 * 1024 * 1024, grown
    print(f"\n20 MiB chunked: {sent / 2**20:.1f} MiB accepted by the sockets, peak RSS +{grown} B")
    # The server is fine: a chunked body within the limit, in pieces, is served.
    ok = b'{"mode": "single_game", "name": "Chunky"}'
    small = RawPost(server.port, head("Transfer-Encoding: chunked"))
    try:
        pieces = [ok[i : i + 7] for i in range(0, len(ok), 7)]
        small.sock.sendall(b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n")
        deadline = time.monotonic() + 10
        while b'"seat":0' not in small.answer and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert bytes(small.answer).startswith(b"HTTP/1.1 201 "), bytes(small.answer)
    finally:
        small.close()


async def test_a_chunked_body_just_over_the_limit_is_too_large(server):
    body = b'{"name": "' + b"a" * L.MAX_HTTP_BODY_BYTES + b'"}'
    post = RawPost(server.port, head("Transfer-Encoding: chunked"))
    try:
        pieces = [body[i : i + 1000] for i in range(0, len(body), 1000)]
        post.send(1, b"".join(b"%x\r\n%s\r\n" % (len(p), p) for p in pieces) + b"0\r\n\r\n")
        deadline = time.monotonic() + 10
        while b"too_large" not in post.answer and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert bytes(post.answer).startswith(b"HTTP/1.1 413 "), bytes(post.answer)
    finally:
        post.close()


# ---------------------------------------------------------------- the reader, in process


def request_of(headers: dict[str, str], chunks: int, piece: bytes) -> tuple[Request, list[int]]:
    """A request whose body comes as up to ``chunks`` pieces; the list counts those read."""
    taken = [0]

    async def receive() -> dict[str, Any]:
        taken[0] += 1
        return {"type": "http.request", "body": piece, "more_body": taken[0] < chunks}

    scope = {"type": "http", "method": "POST", "path": "/api/matches", "query_string": b"",
             "headers": [(k.encode(), v.encode()) for k, v in headers.items()]}  # fmt: skip
    return Request(scope, receive), taken


async def test_the_reader_stops_at_the_limit_and_never_reads_a_declared_oversized_body():
    request, taken = request_of({"transfer-encoding": "chunked"}, 1_000_000, b"x" * 1000)
    with pytest.raises(BadRequest) as exc:
        await read_body(request)
    assert (exc.value.code.value, exc.value.status) == ("too_large", 413)
    assert taken[0] == L.MAX_HTTP_BODY_BYTES // 1000 + 1  # the first piece past the limit
    request, taken = request_of({"content-length": str(10**9)}, 1_000_000, b"x" * 1000)
    with pytest.raises(BadRequest):
        await read_body(request)
    assert taken[0] == 0
    request, taken = request_of({"transfer-encoding": "chunked"}, 4, b"a" * 1024)
    assert await read_body(request) == b"a" * 4096  # exactly the limit is fine
    assert taken[0] == 4


# JSON values whose strings are full of what could fool a scan: quotes, backslashes, brackets.
TRICKY = st.text(st.sampled_from('"\\[]{}/ a\n\u2028\ud800\U0001f600'), max_size=8)
VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | TRICKY,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TRICKY, inner, max_size=3),
    max_leaves=12,
)


def depth(value: Any) -> int:
    if isinstance(value, list | dict):
        children = value.values() if isinstance(value, dict) else value
        return 1 + max(map(depth, children), default=0)
    return 0


@given(VALUES, st.booleans(), st.sampled_from([None, 0, 2]))
def test_nesting_is_the_depth_the_parser_finds(value, ascii_only, indent):
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent)
    assert nesting(text) == depth(json.loads(text)) == depth(value), text


def test_nesting_is_counted_without_recursion_and_strings_do_not_count():
    assert nesting("[" * 100_000) == 100_000
    assert nesting('{"a": "[[[[{{{{", "b": ["\\"]]]]"]}') == 2
    assert nesting('"unterminated [[[[') == 0
    for text, code in ((b'{"a": 1, "a": 2}', "bad_frame"), (b"\xff", "bad_frame"),
                       (b"[1]", "bad_frame"), (b"nul", "bad_frame")):  # fmt: skip
        with pytest.raises(BadRequest) as exc:
            parse(text)
        assert exc.value.code.value == code, text
