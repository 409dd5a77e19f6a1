"""The browser client's pages and assets, built into ``web-client/dist`` (no network at run
time: everything the page needs is in that folder). Every page is sent with the
Content-Security-Policy of :mod:`server.web.csp`."""

from __future__ import annotations

from pathlib import Path

from starlette.requests import Request
from starlette.responses import FileResponse, HTMLResponse, Response
from starlette.routing import BaseRoute, Mount, Route
from starlette.staticfiles import StaticFiles

from server.web import csp

_MISSING = """<!doctype html><meta charset="utf-8"><title>fairgammon</title>
<body>
<h1>fairgammon</h1><p>The server runs, but the browser client is not built.
Run <code>make serve</code> (it builds <code>web-client/</code>), or
<code>scripts/build-web.sh</code>.</p><p><a href="/healthz">/healthz</a></p>"""


PAGES: tuple[str, ...] = (
    "/",
    "/m/{match_id}",
    "/m/{match_id}/replay/{game:int}",
    "/verify",
    "/u/{name}",
    "/leaderboard",
    "/rules",
    "/local",
    "/tournaments",
    "/t/{tournament}",
    "/analyse",
    "/imports",
    "/imports/{import_id}/replay/{game:int}",
    "/trainer",
    "/notices",
    "/friends",
    "/games",
    "/moderation",
)
"""The client's pages: each path answers ``index.html``, whose script picks the page by its
path. The client's list (``web-client/src/generated/catalog.ts``) is generated from this one by
``web-client/tools/make_catalog.py``; ``tests/web/test_web_catalog.py`` fails when it is stale."""

ROOT_FILES = {
    "sw.js": "text/javascript",
    "manifest.webmanifest": "application/manifest+json",
    "icon-192.png": "image/png",
    "icon-512.png": "image/png",
    "icon-maskable-512.png": "image/png",
}


def _root_file(path: Path, media: str):  # type: ignore[no-untyped-def]
    async def serve(request: Request) -> Response:
        if not path.is_file():
            return Response("not built", status_code=404, media_type="text/plain")
        return FileResponse(path, media_type=media, headers={"Cache-Control": "no-cache"})

    return serve


def routes(dist: Path) -> list[BaseRoute]:
    dist = dist.resolve()

    def page(name: str):  # type: ignore[no-untyped-def]
        async def serve(request: Request) -> Response:
            path = dist / name
            policy = {csp.HEADER: csp.policy(request.headers.get("host"))}
            if not path.is_file():
                return HTMLResponse(_MISSING, status_code=503, headers=policy)
            # The app is tiny and changes with each build: always revalidate the page itself.
            return FileResponse(path, headers={"Cache-Control": "no-cache", **policy})

        return serve

    out: list[BaseRoute] = [Route(path, page("index.html")) for path in PAGES]
    out.append(Route("/demo.html", page("demo.html")))
    # The installable app (web-client/pwa/): the service worker must come from the root to
    # control every page, and is always revalidated so a new build replaces the old one.
    for name, media in ROOT_FILES.items():
        out.append(Route(f"/{name}", _root_file(dist / name, media)))
    if (dist / "assets").is_dir():
        out.append(Mount("/assets", StaticFiles(directory=dist / "assets"), name="assets"))
    return out
