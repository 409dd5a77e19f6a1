"""Fixtures for the browser tests: a fresh web-client build, a static file server and Chromium.

The tests drive Debian's Chromium through Playwright's async API (no browser download); the
built client (web-client/dist) is rebuilt with scripts/build-web.sh whenever a source file is
newer than the build.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import json
import subprocess
import threading
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Page
from redis.asyncio import Redis

from bots.queue import ALIVE
from harness.browser import (
    CLASSIC_FEEL,
    DESKTOP,
    DIST,
    ROOT,
    WEB,
    OpenDemo,
    launched_chromium,
    under_csp,
)
from harness.serverproc import ServerProcess


def _newest_source() -> float:
    sources = [*WEB.glob("src/**/*"), *WEB.glob("pwa/*"), *WEB.glob("*.html")]
    sources.append(WEB / "package-lock.json")
    sources.append(WEB / "vite.config.ts")
    return max(p.stat().st_mtime for p in sources if p.is_file())


@pytest.fixture(scope="session")
def dist() -> Path:
    """web-client/dist, built now if missing or older than its sources."""
    built = DIST / "demo.html"
    if not built.exists() or built.stat().st_mtime < _newest_source():
        subprocess.run([str(ROOT / "scripts" / "build-web.sh")], check=True, cwd=ROOT)
    assert built.exists(), "scripts/build-web.sh did not produce web-client/dist/demo.html"
    return DIST


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture(scope="session")
def base_url(dist: Path) -> Iterator[str]:
    """A static file server for dist on a free loopback port, in a thread."""
    handler = functools.partial(_QuietHandler, directory=str(dist))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest_asyncio.fixture
async def browser() -> AsyncIterator[Browser]:
    async with launched_chromium() as chromium:
        yield chromium


def stored_settings(settings: dict[str, Any]) -> str:
    """An init script storing these player settings (the rest keep their defaults)."""
    stored = json.dumps(settings)
    return (
        f"try {{ localStorage.setItem('fairgammon.settings.v1', JSON.stringify({stored})) }}"
        " catch (e) {}"
    )


@pytest_asyncio.fixture
async def open_demo(browser: Browser, base_url: str) -> AsyncIterator[OpenDemo]:
    """Open demo.html?QUERY in a fresh context; page errors fail the test."""
    errors: list[str] = []

    async def opener(
        query: str = "",
        viewport: dict[str, int] | None = None,
        scheme: str = "light",
        motion: str = "reduce",
        settings: dict[str, Any] | None = None,
    ) -> Page:
        context = await browser.new_context(
            viewport=viewport or DESKTOP, color_scheme=scheme, reduced_motion=motion
        )
        # The classic feel, or the default feel with `settings` overridden.
        script = CLASSIC_FEEL if settings is None else stored_settings(settings)
        await context.add_init_script(script)
        page = await context.new_page()
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        page.on("console", lambda msg: errors.append(msg.text) if msg.type == "error" else None)
        await page.goto(f"{base_url}/demo.html?{query}")
        await page.wait_for_selector("svg.board .checker")
        return page

    yield opener
    assert errors == [], f"errors in the page: {errors}"


class NetPages:
    """Browser contexts on a real server's pages; page errors (and console errors, unless
    they are network noise a test allows) fail the test."""

    def __init__(self, browser: Browser, base: str) -> None:
        self.browser = browser
        self.base = base
        self.errors: list[str] = []
        self.tolerate_network_errors = False

    async def new(
        self,
        viewport: dict[str, int] | None = None,
        motion: str = "reduce",
        who: str = "",
        classic: bool = True,
    ) -> Page:
        context = await self.browser.new_context(
            viewport=viewport or DESKTOP, reduced_motion=motion, color_scheme="light"
        )
        if classic:
            await context.add_init_script(CLASSIC_FEEL)
        page = under_csp(await context.new_page())
        page.on("pageerror", lambda exc: self.errors.append(f"{who}: {exc}"))
        page.on("console", lambda msg: self._console(who, msg.type, msg.text))
        return page

    def _console(self, who: str, kind: str, text: str) -> None:
        network = "WebSocket" in text or "Failed to load resource" in text
        if kind == "error" and not (network and self.tolerate_network_errors):
            self.errors.append(f"{who}: {text}")


@contextlib.asynccontextmanager
async def served_pages(
    browser: Browser, redis_url: str, **env: str
) -> AsyncIterator[tuple[ServerProcess, NetPages]]:
    """A real server started with `env` (on its own Redis database) and pages of it; errors in
    the pages fail the test."""
    proc = ServerProcess(redis_url, **env)
    proc.start()
    pages = NetPages(browser, proc.base)
    try:
        yield proc, pages
    finally:
        proc.stop()
    assert pages.errors == [], f"errors in the pages: {pages.errors}"


async def worker_alive(proc: ServerProcess, timeout: float = 60.0) -> None:
    """Wait until the server's bot worker has said it is alive: before that the lobby refuses a
    match against the computer (503 no_bots), and a busy machine takes a while to start it."""
    redis = Redis.from_url(proc.redis_url)
    try:
        deadline = time.monotonic() + timeout
        while not await redis.zcard(ALIVE):
            assert time.monotonic() < deadline, "no bot worker"
            await asyncio.sleep(0.1)
    finally:
        await redis.aclose()


@contextlib.asynccontextmanager
async def bots_served(browser: Browser, redis_url: str, delay_ms: int) -> AsyncIterator[NetPages]:
    """Pages of a real server with its bot worker, alive, thinking ``delay_ms`` a decision."""
    bots = {"FAIRGAMMON_BOTS": "1", "FAIRGAMMON_BOT_DELAY_MS": str(delay_ms)}
    async with served_pages(browser, redis_url, **bots) as (proc, pages):
        await worker_alive(proc)
        yield pages


@pytest_asyncio.fixture
async def bot_net(dist: Path, browser: Browser, redis_url: str) -> AsyncIterator[NetPages]:
    """A real server with its bot worker (a visible think time, so the page can show it)."""
    async with bots_served(browser, redis_url, 400) as pages:
        yield pages


@pytest_asyncio.fixture
async def quick_bot_net(dist: Path, browser: Browser, redis_url: str) -> AsyncIterator[NetPages]:
    """A real server with its bot worker playing at once (no think time)."""
    async with bots_served(browser, redis_url, 0) as pages:
        yield pages


@pytest_asyncio.fixture
async def net(dist: Path, browser: Browser, server) -> AsyncIterator[NetPages]:
    """Pages of a real server (with its own Redis) serving this worktree's web-client/dist."""
    pages = NetPages(browser, server.base)
    yield pages
    assert pages.errors == [], f"errors in the pages: {pages.errors}"
