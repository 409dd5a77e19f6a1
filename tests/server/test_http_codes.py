"""The HTTP API's error codes are typed and documented from one catalogue.

Every ``{"error": code}`` the server answers is an ``ErrorCode`` (shared with the WebSocket) or
an ``HttpCode`` (HTTP only, with its one status): the server's source passes no bare string to
the error helpers (an AST scan), ``error()`` refuses one at run time, the route tables of
docs/protocol.md and docs/accounts.md name only catalogued codes (an ``HttpCode`` with its own
status), the web client compares codes only with catalogued ones, and a real server answers a
few routes as their rows say.
"""

from __future__ import annotations

import ast
import inspect
import json
import re
from pathlib import Path

import pytest

from harness.accounts import Browser
from harness.srv_support import server_fixture
from protocol.errors import ErrorCode
from protocol.http_errors import DESCRIPTIONS, STATUS, HttpCode, checked
from server.players import accounts
from server.players import profiles as players
from server.web import common
from server.web import limits as lobby_limits

ROOT = Path(__file__).resolve().parents[2]
KNOWN = {c.value for c in ErrorCode} | {c.value for c in HttpCode}

server = server_fixture()


# ---------------------------------------------------------------- the catalogue


def test_http_codes_are_described_have_a_status_and_are_not_protocol_codes():
    assert not {c.value for c in HttpCode} & {c.value for c in ErrorCode}
    for code in HttpCode:
        assert re.fullmatch("[a-z_]+", code.value)
        assert DESCRIPTIONS[code] and 400 <= STATUS[code] < 600
    assert set(DESCRIPTIONS) == set(STATUS) == set(HttpCode)


def test_the_exception_classes_and_error_take_only_catalogued_codes():
    takers = [common.error, common.BadRequest, players.Refused, lobby_limits.Refused,
              accounts.AccountError]  # fmt: skip
    for taker in takers:
        code = inspect.signature(taker).parameters["code"]
        assert code.annotation == "ApiErrorCode", taker
    with pytest.raises(TypeError):
        common.error("bad_field", "a bare string", 400)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        checked(None)


def test_the_json_carries_the_same_strings():
    for code, status in ((ErrorCode.BAD_FIELD, 400), (HttpCode.NEEDS_ACCOUNT, 401)):
        answer = common.error(code, "why", status, retry_after=3)
        assert answer.status_code == status
        assert json.loads(answer.body) == {"error": code.value, "message": "why",
                                           "retry_after": 3}  # fmt: skip


# ---------------------------------------------------------------- the server's source

TAKERS = {"error", "BadRequest", "Refused", "AccountError"}
DEFAULT_STATUS = {"BadRequest": 400}


def _callee(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name) and func.id in TAKERS:
        return func.id
    if isinstance(func, ast.Attribute) and func.attr in TAKERS - {"error"}:
        return func.attr
    if (isinstance(func, ast.Attribute) and func.attr == "error"
            and isinstance(func.value, ast.Name)
            and func.value.id in ("common", "lobby", "http_input")):  # fmt: skip
        return "error"
    return None


def _argument(call: ast.Call, index: int, name: str) -> ast.expr | None:
    if len(call.args) > index:
        return call.args[index]
    return next((k.value for k in call.keywords if k.arg == name), None)


def untyped_codes(source: str, filename: str = "<source>") -> list[str]:
    """Where ``source`` gives an error helper a literal code, builds ``{"error": "<literal>"}``,
    or answers an ``HttpCode`` with another status than its own.

    >>> untyped_codes('raise BadRequest("bad_field", "x")')
    ['<source>:1: BadRequest("bad_field")']
    >>> untyped_codes('JSONResponse({"error": "nope", "message": "x"}, 404)')
    ['<source>:1: {"error": "nope"}']
    >>> untyped_codes('error(HttpCode.SIGNED_OUT, "x", 403)')
    ['<source>:1: error(HttpCode.SIGNED_OUT) answers 403, not 401']
    >>> untyped_codes('error(ErrorCode.NOT_FOUND, "x", 404); log.error("fine")')
    []
    """
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        where = f"{filename}:{getattr(node, 'lineno', 0)}"
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (isinstance(key, ast.Constant) and key.value == "error"
                        and isinstance(value, ast.Constant | ast.JoinedStr)):  # fmt: skip
                    found.append(f'{where}: {{"error": {ast.unparse(value)}}}'.replace("'", '"'))
            continue
        if not isinstance(node, ast.Call) or (name := _callee(node)) is None:
            continue
        code = _argument(node, 0, "code")
        if isinstance(code, ast.Constant | ast.JoinedStr):
            found.append(f"{where}: {name}({ast.unparse(code)})".replace("'", '"'))
        elif (isinstance(code, ast.Attribute) and isinstance(code.value, ast.Name)
                and code.value.id == "HttpCode"):  # fmt: skip
            status = _argument(node, 2, "status")
            if status is None and name in DEFAULT_STATUS:
                status = ast.Constant(DEFAULT_STATUS[name])
            own = STATUS[HttpCode[code.attr]]
            if isinstance(status, ast.Constant) and status.value != own:
                found.append(f"{where}: {name}(HttpCode.{code.attr}) answers {status.value}, "
                             f"not {own}")  # fmt: skip
    return found


def test_the_server_passes_no_bare_string_as_an_http_error_code():
    found = []
    for path in sorted((ROOT / "server").rglob("*.py")):
        found += untyped_codes(path.read_text(), str(path.relative_to(ROOT)))
    assert not found, "use an ErrorCode or protocol.http_errors.HttpCode member:\n" + "\n".join(
        found
    )


# ---------------------------------------------------------------- the documents


def documented_answers(doc: Path, heading: str) -> dict[str, set[tuple[int, str]]]:
    """Per route (named in the first cell of a table row in the section under ``heading``), the
    ``(status, code)`` pairs its answer (the last cell) names, parentheses left out: from
    ``200 `{…}`; 401 `needs_account` (…); 409 `a`, `b``` the pairs (401, needs_account),
    (409, a) and (409, b).
    """
    section = re.split(r"^##? ", doc.read_text().split(heading + "\n", 1)[1], flags=re.M)[0]
    table: dict[str, set[tuple[int, str]]] = {}
    for row in re.findall(r"^\| `.*\|$", section, re.M):
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        answer = cells[-1]
        while re.search(r"\([^()]*\)", answer):
            answer = re.sub(r"\([^()]*\)", "", answer)
        pairs = set()
        for part in answer.split(";"):
            m = re.match(r"\s*(\d{3})\b(.*)", part, re.S)
            if m:
                pairs |= {(int(m[1]), c) for c in re.findall(r"`([a-z_]+)`", m[2])}
        for route in re.findall(r"`([A-Z]+ [^`]+)`", cells[0]):
            table[route] = pairs
    return table


PROTOCOL = documented_answers(ROOT / "docs" / "protocol.md", "## HTTP lobby")
ACCOUNTS = documented_answers(ROOT / "docs" / "accounts.md", "### Routes")
ROUTES = {**PROTOCOL, **ACCOUNTS}


def test_the_route_tables_name_only_catalogued_codes_with_their_status():
    assert "POST /api/matches" in PROTOCOL and "POST /api/account/signup" in ACCOUNTS
    assert (401, "needs_account") in PROTOCOL["POST /api/matches"]
    named = set()
    for route, pairs in ROUTES.items():
        for status, code in pairs:
            assert code in KNOWN, (route, code)
            if code in HttpCode.__members__.values():
                assert status == STATUS[HttpCode(code)], (route, status, code)
            named.add(code)
    # Every HTTP-only code is named by a route, but bad_origin (any changing request: prose)
    # and muted (a chat line, refused on the WebSocket as forbidden: the client's words for it).
    assert {c.value for c in HttpCode} - named == {"bad_origin", "muted"}


def test_the_web_client_compares_codes_only_with_catalogued_ones():
    compared = set()
    for path in (ROOT / "web-client" / "src").rglob("*.ts"):
        text = path.read_text()
        compared |= set(re.findall(r"\bcode\s*[!=]==?\s*'([a-z_]+)'", text))
        # The sets of codes the client treats alike (retried, chat's, detailed refusals).
        for listed in re.findall(r"\b(?:CHAT_REFUSALS|TRY_AGAIN|DETAILED)\b[^=]*= new Set\("
                                 r"\[([^\]]*)\]\)", text):
            compared |= set(re.findall(r"'([a-z_]+)'", listed))
    assert compared, "the pattern no longer finds the client's comparisons"
    assert compared <= KNOWN, compared - KNOWN


# ---------------------------------------------------------------- a real server


async def answer(browser: Browser, method: str, path: str, body=None) -> tuple[int, str]:
    reply = await browser.call(method, path, body if body is not None or method != "POST" else {})
    return reply.status, reply.body.get("error", "")


async def test_the_server_answers_as_the_route_tables_say(server):
    base = server.base
    page = Browser(base, origin=base)  # the site's own page, signed out
    unknown = "0" * 32
    human = await page.post("/api/matches", {"mode": "single_game"})
    assert human.status == 201
    own = await page.post("/api/account/signup", {"username": "codes_1", "password": "x" * 10})
    assert own.status == 201
    cases = [
        ("POST /api/matches", "POST", "/api/matches", {"mode": "match"}, (400, "bad_field")),
        ("POST /api/matches", "POST", "/api/matches", {"mode": "match", "length": 3,
                                                       "rated": True}, (401, "needs_account")),
        ("POST /api/matches/{match}/join", "POST", f"/api/matches/{unknown}/join", {},
         (404, "not_found")),
        ("POST /api/matches/{match}/hint", "POST", f"/api/matches/{human.body['match']}/hint",
         {"token": human.body["token"]}, (403, "hints_unavailable")),
        ("POST /api/matches/{match}/pace", "POST", f"/api/matches/{human.body['match']}/pace",
         {"token": human.body["token"], "fast": True}, (403, "hints_unavailable")),
        ("GET /api/matches?status=open|live", "GET", "/api/matches?status=gone", None,
         (400, "bad_field")),
        ("GET /api/matches/{match}", "GET", f"/api/matches/{unknown}", None, (404, "not_found")),
        ("GET /api/matches/{match}/games/{n}/analysis.json", "GET",
         f"/api/matches/{unknown}/games/1/analysis.json", None, (404, "not_found")),
        ("POST /api/account/signup", "POST", "/api/account/signup",
         {"username": "x", "password": "x" * 10}, (400, "bad_username")),
        ("POST /api/account/signup", "POST", "/api/account/signup",
         {"username": "Codes_1", "password": "x" * 10}, (409, "name_taken")),
        ("POST /api/account/login", "POST", "/api/account/login",
         {"username": "codes_1", "password": "y" * 10}, (401, "bad_login")),
        ("DELETE /api/account", "DELETE", "/api/account", None, (401, "signed_out")),
        ("GET /api/players/{name}?page=n", "GET", "/api/players/nobody", None, (404, "not_found")),
    ]  # fmt: skip
    for route, method, path, body, expected in cases:
        got = await answer(Browser(base, origin=base), method, path, body)
        assert got == expected, (route, path, got)
        assert expected in ROUTES[route.replace("|", "\\|")]
    evil = Browser(base, origin="https://evil.example")
    assert await answer(evil, "POST", "/api/matches") == (STATUS[HttpCode.BAD_ORIGIN],
                                                          HttpCode.BAD_ORIGIN.value)  # fmt: skip
