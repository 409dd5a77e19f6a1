"""Paths, viewports and Chromium settings shared by the browser tests and their fixtures."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from playwright.async_api import Page

ROOT = Path(__file__).resolve().parents[2]
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
PHONE = {"width": 390, "height": 844}
DESKTOP = {"width": 1440, "height": 900}

OpenDemo = Callable[..., Awaitable[Page]]
"""open_demo(query, viewport, scheme, motion) -> a Page showing demo.html?query (motion: "reduce"
or "no-preference")."""

CLASSIC_FEEL = (
    "try { if (!localStorage.getItem('fairgammon.settings.v1')) localStorage.setItem("
    "'fairgammon.settings.v1', "
    "JSON.stringify({autoConfirm: false, quickMove: false, autoRoll: false})) }"
    " catch (e) {}"  # about:blank has no storage
)
"""An init script for the tests written before the quick play feel: tap a checker then its
destination, End turn and Roll by hand (the settings a player can still choose)."""
