"""The BOT tag in Chromium (docs/accounts.md, "Bot accounts"): two bot accounts play a rated
match through the public client library; on a 360 px phone and on desktop, the bot's profile,
the bots' leaderboard and the match page's players bars show BOT beside their names (and the
humans' leaderboard does not list them), nothing overflows the phone; screenshots of each. On
desktop, a guest who ticks "Bot accounts welcome" is paired with a bot's seek."""

from __future__ import annotations

import asyncio
import random
import re

import pytest
from playwright.async_api import Page

from harness.accounts import Browser, signed_up
from harness.browser import DESKTOP, SCREENSHOTS
from harness.serverproc import ServerProcess
from protocol.client import MatchClient, play_random
from tests.browser.conftest import NetPages

SMALL_PHONE = {"width": 360, "height": 780}


@pytest.fixture
async def server(redis_url):
    """A real server whose leaderboard admits players after one rated point."""
    proc = ServerProcess(redis_url, FAIRGAMMON_LEADERBOARD_EXPERIENCE="1")
    proc.start()
    yield proc
    proc.stop()


async def fits(page: Page, width: int) -> None:
    """Nothing is wider than the window."""
    wide = await page.evaluate("document.documentElement.scrollWidth")
    assert wide <= width, (page.url, wide)


async def welcomes_a_bot(page: Page, base: str, bot: Browser) -> None:
    """A guest's seek with "Bot accounts welcome" ticked is paired with a bot's seek (an
    unticked one never is: tests/server/test_bot_accounts.py); the bot's bar says BOT."""
    await page.goto(f"{base}/")
    await page.locator(".seek-custom summary").click()
    await page.fill(".seek-custom input[name=seek_clock]", "45")
    await page.locator(".seek-custom input[name=seek_bots]").check()
    await page.locator(".seek-custom .seek-custom-go").click()
    await page.locator(".seek-status:has-text('Looking')").wait_for()
    made = await bot.post("/api/seeks", {"mode": "single_game", "clock": 45})
    assert made.body["state"] == "paired", made.body
    await page.wait_for_url(re.compile(rf".*/m/{made.body['match']}$"))
    await page.locator(".player .bot-tag:visible").wait_for()
    assert await page.locator(".player .bot-tag:visible").count() == 1


async def test_bot_accounts_are_labelled_on_phone_and_desktop(net: NetPages, server) -> None:
    zed, ray = await signed_up(net.base, "zed_engine"), await signed_up(net.base, "ray_engine")
    for bot in (zed, ray):
        assert (await bot.post("/api/my/bot", {})).body["bot"] is True
    created = await zed.post("/api/matches", {"mode": "match", "length": 1, "rated": True})
    match = created.body["match"]
    joined = await ray.post(f"/api/matches/{match}/join", {})
    a = MatchClient(server.ws, match, created.body["token"])
    b = MatchClient(server.ws, match, joined.body["token"])
    async with a, b:
        await asyncio.wait_for(
            asyncio.gather(play_random(a, random.Random(1)), play_random(b, random.Random(2))), 60
        )
    for _ in range(100):  # the result is recorded just after the match ends
        if len((await zed.get("/api/leaderboard?pool=bots")).body["players"]) == 2:
            break
        await asyncio.sleep(0.05)

    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for viewport in (SMALL_PHONE, DESKTOP):
        size = f"{viewport['width']}x{viewport['height']}"
        page = await net.new(viewport, who=size)

        if viewport is DESKTOP:
            await welcomes_a_bot(page, net.base, zed)
        await page.goto(f"{net.base}/u/zed_engine")
        await page.locator(".profile-head h1 .bot-tag").wait_for()
        assert await page.locator(".profile-head h1").text_content() == "zed_engine BOT"
        await fits(page, viewport['width'])
        await page.screenshot(path=SCREENSHOTS / f"bot-profile-{size}.png", full_page=True)

        await page.goto(f"{net.base}/leaderboard?pool=bots")
        await page.locator(".leaders tbody tr").nth(1).wait_for()
        names = await page.locator(".leaders tbody tr td:nth-child(2)").all_text_contents()
        assert sorted(names) == ["ray_engine BOT", "zed_engine BOT"], names
        await fits(page, viewport['width'])
        await page.screenshot(path=SCREENSHOTS / f"bot-leaderboard-{size}.png", full_page=True)
        await page.goto(f"{net.base}/leaderboard")
        await page.locator(".leaderboard h1").first.wait_for()
        assert await page.locator(".leaders").count() == 0  # no human rated yet, no bot here

        await page.goto(f"{net.base}/m/{match}#watch")
        await page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
        tags = page.locator(".player .bot-tag:visible")
        await tags.nth(1).wait_for()
        bars = await page.locator(".player .namebox").all_text_contents()
        assert all("BOT" in bar for bar in bars) and len(bars) == 2, bars
        await fits(page, viewport['width'])
        await page.screenshot(path=SCREENSHOTS / f"bot-match-{size}.png")
        await page.context.close()
