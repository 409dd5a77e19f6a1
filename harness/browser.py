"""Paths, viewports and Chromium settings shared by the browser tests and their fixtures."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path
from typing import Any

from playwright.async_api import Browser, Page, async_playwright

ROOT = Path(__file__).resolve().parents[1]
WEB = ROOT / "web-client"
DIST = WEB / "dist"
SCREENSHOTS = ROOT / "artifacts" / "screenshots"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@contextlib.asynccontextmanager
async def launched_chromium() -> AsyncIterator[Browser]:
    """Debian's Chromium driven by Playwright's async API (no browser download), closed on the
    way out: the one launch behind every browser fixture, whatever its scope."""
    assert CHROMIUM.exists(), "Chromium is missing: apt-get install -y chromium"
    async with async_playwright() as p:
        browser = await p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            await browser.close()


PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}

OpenDemo = Callable[..., Awaitable[Page]]
"""open_demo(query, viewport, scheme, motion, settings) -> a Page showing demo.html?query (motion:
"reduce" or "no-preference"; settings: the player settings over the defaults, else the classic
feel)."""

CLASSIC_FEEL = (
    "try { if (!localStorage.getItem('fairgammon.settings.v1')) localStorage.setItem("
    "'fairgammon.settings.v1', "
    "JSON.stringify({autoConfirm: false, quickMove: false, autoRoll: false})) }"
    " catch (e) {}"  # about:blank has no storage
)
"""An init script for the tests written before the quick play feel: tap a checker then its
destination, End turn and Roll by hand (the settings a player can still choose)."""

# Wait (in the page) until the player on turn can tap, or the game is over; then say what the
# scene offers: one round trip a tap.
NEXT_TAP = """() => new Promise((resolve) => {
  let decisions = 0, lastDecide = null;
  const check = () => {
    const v = window.fairgammon.game.current();
    const s = window.fairgammon.app.scene;
    if (v.phase === 'decide' && lastDecide !== v.turn) decisions++;
    lastDecide = v.phase === 'decide' ? v.turn : null;
    if (v.phase === 'gameover' || (v.phase === 'moving' && s.interactive && s.movable.length
        && !s.turnComplete)) {
      resolve({phase: v.phase, k: v.dice ? v.dice.k : null, turn: v.turn, movable: s.movable,
               decisions, winner: v.result ? v.result.winner : null,
               off: v.boards.map(b => b[0])});
    } else setTimeout(check, 5);
  };
  check();
})"""


def under_csp(page: Page) -> Page:
    """``page`` with a ``wait_for_function`` that works under the server's
    Content-Security-Policy (server/web/csp.py: no 'unsafe-eval').

    Playwright evaluates a ``wait_for_function`` expression with ``eval`` in the page at every
    poll; the first evaluation goes through the DevTools protocol, which the policy does not
    govern, but the later polls are refused (EvalError). A function is evaluated once and then
    called, so an expression is handed over as a function of it (a function given as text
    still gets the ``arg``). Every page of the real server is made through this."""
    original = page.wait_for_function

    async def wait_for_function(expression: str, *args: Any, **kwargs: Any) -> Any:
        wrapped = (
            f"(arg) => {{ const v = ({expression}\n);"
            " return typeof v === 'function' ? v(arg) : v; }"
        )
        return await original(wrapped, *args, **kwargs)

    page.wait_for_function = wait_for_function  # type: ignore[method-assign]
    return page
