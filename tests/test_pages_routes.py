"""The browser client's routes: every page of the one-page app, and the installable app's files
at the site root (the service worker must be served from there, always revalidated)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from starlette.applications import Starlette

from server.pages import routes


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
