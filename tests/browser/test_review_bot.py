"""The after-game analysis of a game against the computer, in Chromium: a real server with its
bot worker (Easy, no think time) and one analysis worker, a real Redis. The human seat is played
by the asyncio client (random plays); a desktop page and a phone page watch the match page as
spectators and, once the game is over, show its analysis: the summary for the human and the
computer, and the equity and luck chart, replaced by the deeper (2-ply) report when it lands
without the page being reopened. Screenshots go to artifacts/screenshots."""

from __future__ import annotations

import asyncio
import random
from collections.abc import AsyncIterator

import pytest_asyncio
from playwright.async_api import Browser

from harness.browser import PHONE, SCREENSHOTS
from harness.serverproc import ServerProcess
from protocol.client import LobbyError, MatchClient, create_match, play_random
from tests.browser.conftest import NetPages, served_pages
from tests.browser.net_support import watch_on_desktop_and_phone

LOADED = 60_000
"""Waits (ms) on the server's, the bot's and the analysis worker's work: generous, because the
test machine is shared; reached only when something is wrong."""


@pytest_asyncio.fixture
async def bot_review(dist, browser: Browser, redis_url) -> AsyncIterator[
        tuple[ServerProcess, NetPages]]:
    """A real server with its bot worker (no think time) and one analysis worker."""
    env = {"FAIRGAMMON_BOTS": "1", "FAIRGAMMON_BOT_DELAY_MS": "0", "FAIRGAMMON_ANALYSERS": "1",
           "FAIRGAMMON_ANALYSIS_DEEP": "1"}
    async with served_pages(browser, redis_url, **env) as served:
        yield served


async def create_bot_match(base: str) -> dict:
    for _ in range(200):  # the bot worker announces itself within a second or so of starting
        try:
            return await create_match(base, name="Ann", mode="single_game", bot="easy")
        except LobbyError as exc:
            if exc.code != "no_bots":
                raise
            await asyncio.sleep(0.1)
    raise AssertionError("the bot worker never came up")


async def test_summary_and_chart_after_a_game_against_the_computer(
        bot_review: tuple[ServerProcess, NetPages]) -> None:
    server, net = bot_review
    created = await create_bot_match(net.base)
    match_id = created["match"]
    assert created["bot"] == "easy"
    desk, phone = await watch_on_desktop_and_phone(net, match_id, LOADED)
    await desk.evaluate("window.__sameDocument = true")
    human = MatchClient(server.ws, match_id, created["token"])
    async with human:
        await human.wait_for(lambda t: t.names[1] is not None, timeout=10)
        result = await asyncio.wait_for(play_random(human, random.Random(8)), 90)
    assert result is not None and result.reason != "forfeit"
    assert human.rejects == []

    # The summary: both players by name, the figures the issue asks for.
    summary = desk.locator(".live-analysis .analysis-summary")
    await summary.wait_for()
    header = await summary.locator("thead th").all_inner_texts()
    assert header[1:] == ["Ann", "Computer (Easy)"]
    rows = await summary.locator("tbody th").all_inner_texts()
    assert {"Error rate", "PR", "Errors · blunders", "Luck", "Luck-adjusted"} <= set(rows)
    # Each figure row has a value for each player.
    pr = summary.locator("tbody tr", has=desk.locator("th", has_text="PR")).first
    values = await pr.locator("td").all_inner_texts()
    assert len(values) == 2 and all(v.strip() for v in values)
    # The chart: the equity line and the luck bars over the game's turns.
    chart = desk.locator(".live-analysis svg.analysis-chart")
    assert await chart.locator("path.chart-equity").count() == 1
    assert await chart.locator("path.chart-luck").count() == 1
    # The deeper (2-ply) report replaces the first one on the page left open, without reloading
    # it (the page was opened before the game began: the same document throughout).
    note = desk.locator(".live-analysis .analysis-note")
    await note.filter(has_text="2-ply analysis").wait_for(timeout=LOADED)
    assert await desk.evaluate("window.__sameDocument") is True
    # The record says who won, as the game ended for the human.
    end = await desk.locator(".live-record tr.record-end").inner_text()
    assert "wins" in end
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await desk.locator(".live-analysis").scroll_into_view_if_needed()
    await desk.screenshot(path=SCREENSHOTS / "review-bot-1440x900.png")

    # On a phone: the same summary and chart below the board, within the screen's width; the
    # computer's long name reads in full (wrapped, not cut).
    small = phone.locator(".live-analysis .analysis-summary")
    await small.wait_for()
    clipped = await small.evaluate(
        "t => [...t.querySelectorAll('thead th')].filter(th => th.scrollWidth > th.clientWidth)"
        ".map(th => th.textContent)")
    assert clipped == []
    table = await small.bounding_box()
    assert table and table["x"] + table["width"] <= PHONE["width"]
    small_chart = phone.locator(".live-analysis svg.analysis-chart")
    await small_chart.wait_for()
    board = await phone.locator("svg.board").bounding_box()
    box = await small_chart.bounding_box()
    assert board and box and board["y"] + board["height"] <= box["y"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= PHONE["width"]
    await small_chart.scroll_into_view_if_needed()
    await phone.screenshot(path=SCREENSHOTS / "review-bot-390x844.png", full_page=True)
