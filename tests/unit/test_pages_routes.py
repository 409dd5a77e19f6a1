"""The browser client's routes: every page of the one-page app, each with the
Content-Security-Policy, and the installable app's files at the site root (the service worker
must be served from there, always revalidated)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.routing import Route

from server.web import csp
from server.web.pages import ROOT_FILES, routes

ROOT = Path(__file__).resolve().parents[2]


async def fetch(app: Starlette, path: str) -> tuple[int, dict[str, str], bytes]:
    """One GET through the ASGI app: status, headers, body."""
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"test")],
        "client": ("127.0.0.1", 1),
        "server": ("test", 80),
    }
    sent: list[dict[str, Any]] = []
    asked = False
    done = asyncio.Event()

    async def receive() -> dict[str, Any]:
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await done.wait()  # the client goes only once the whole answer has come
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            done.set()

    await app(scope, receive, send)
    start = next(m for m in sent if m["type"] == "http.response.start")
    headers = {k.decode().lower(): v.decode() for k, v in start["headers"]}
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], headers, body


async def test_pages_and_the_app_shell_files(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>app</title>")
    (tmp_path / "sw.js").write_text("self.addEventListener('fetch', () => {});")
    (tmp_path / "manifest.webmanifest").write_text('{"name": "fairgammon"}')
    app = Starlette(routes=routes(tmp_path))
    for page in ("/", "/local", "/rules", "/verify", "/m/" + "a" * 32):
        status, headers, body = await fetch(app, page)
        assert status == 200 and b"<title>app</title>" in body, page
        assert headers["cache-control"] == "no-cache"
    status, headers, body = await fetch(app, "/sw.js")
    assert status == 200 and headers["content-type"].startswith("text/javascript")
    assert headers["cache-control"] == "no-cache" and b"fetch" in body
    status, headers, _ = await fetch(app, "/manifest.webmanifest")
    assert status == 200 and headers["content-type"].startswith("application/manifest+json")
    status, _, _ = await fetch(app, "/icon-192.png")  # not built here
    assert status == 404


def concrete(path: str) -> str:
    """A route's path with its parameters filled in."""
    filled = {"match_id": "a" * 32, "game": "1", "name": "ann_b", "tournament": "b" * 32,
              "import_id": "c" * 24}
    return re.sub(r"\{(\w+)(?::\w+)?\}", lambda m: filled[m.group(1)], path)


def page_paths(dist: Path) -> list[str]:
    """Every path of :func:`server.web.pages.routes` that answers a page (the root files and the
    assets are not pages)."""
    return [
        concrete(r.path)
        for r in routes(dist)
        if isinstance(r, Route) and r.path.lstrip("/") not in ROOT_FILES
    ]


def directives(header: str) -> dict[str, list[str]]:
    return {
        name: sources
        for name, *sources in (part.split() for part in header.split(";") if part.strip())
    }


async def test_every_page_answers_with_the_content_security_policy(tmp_path: Path) -> None:
    (tmp_path / "index.html").write_text("<!doctype html><title>app</title>")
    (tmp_path / "demo.html").write_text("<!doctype html><title>demo</title>")
    paths = page_paths(tmp_path)
    assert set(paths) >= {
        "/",
        "/m/" + "a" * 32,
        "/m/" + "a" * 32 + "/replay/1",
        "/verify",
        "/u/ann_b",
        "/leaderboard",
        "/rules",
        "/local",
        "/demo.html",
    }
    built = Starlette(routes=routes(tmp_path))
    unbuilt = Starlette(routes=routes(tmp_path / "missing"))  # the "not built" page, 503
    for app, status in ((built, 200), (unbuilt, 503)):
        for path in paths:
            got, headers, body = await fetch(app, path)
            assert got == status and headers["content-type"].startswith("text/html"), path
            policy = directives(headers["content-security-policy"])
            assert policy["script-src"] == ["'self'"], path  # no inline script, no handler
            assert policy["style-src"] == ["'self'"]
            assert policy["object-src"] == policy["base-uri"] == ["'none'"]
            assert policy["frame-ancestors"] == ["'none'"]
            assert policy["connect-src"] == ["'self'", "ws://test", "wss://test"]
            assert policy["default-src"] == ["'self'"]
            assert b"<script" not in body and b" style=" not in body, path


def test_the_documented_header_is_the_one_sent() -> None:
    """docs/operations.md shows the header as the server sends it (``<host>`` for the Host),
    and what a Host that is no host name gets: no WebSocket source, nothing added."""
    doc = (ROOT / "docs" / "operations.md").read_text()
    shown = re.search(r"```\n(Content-Security-Policy: .*?)\n```", doc, re.S)
    assert shown is not None, "docs/operations.md shows no Content-Security-Policy header"
    sent = f"{csp.HEADER}: {csp.policy('play.example:8443')}"
    assert " ".join(shown.group(1).split()) == sent.replace("play.example:8443", "<host>")
    for host in (None, "", "a b", "evil; script-src *", "x/y", "[::1", "host:99999x"):
        plain = csp.policy(host)
        assert directives(plain)["connect-src"] == ["'self'"], host
        assert directives(plain).keys() == directives(sent.split(": ", 1)[1]).keys(), host
    assert "ws://[::1]:8000 wss://[::1]:8000" in csp.policy("[::1]:8000")


def test_only_the_pages_module_answers_html() -> None:
    """Every HTML answer comes from server/web/pages.py, so every one carries the policy."""
    server = ROOT / "server"
    makers = re.compile(r"HTMLResponse|text/html")
    found = sorted(
        str(p.relative_to(server.parent))
        for p in server.rglob("*.py")
        if makers.search(p.read_text())
    )
    assert found == ["server/web/pages.py"]
