"""Playing the computer in Chromium, against a real server with its bot worker: one click from
the lobby (level and match options), the match page shows the level, the computer thinking and
the hint panel; a double is answered by the bot; screenshots on a phone and a desktop."""

from __future__ import annotations

import re

import pytest_asyncio
from playwright.async_api import Browser, Page

from tests.browser.conftest import NetPages
from tests.browser.net_support import Seat, leave_match, play, view
from tests.browser.support import DESKTOP, PHONE, SCREENSHOTS
from tests.serverproc import ServerProcess


@pytest_asyncio.fixture
async def bot_net(dist, browser: Browser, redis_url):
    """A real server with its bot worker (a visible think time, so the page can show it)."""
    proc = ServerProcess(redis_url, FAIRGAMMON_BOTS="1", FAIRGAMMON_BOT_DELAY_MS="400")
    proc.start()
    pages = NetPages(browser, proc.base)
    try:
        yield pages
    finally:
        proc.stop()
    assert pages.errors == [], f"errors in the pages: {pages.errors}"


async def play_the_computer(page: Page, base: str, name: str, mode: str, level: str) -> str:
    await page.goto(f"{base}/")
    await page.fill("input[name=name]", name)
    await page.click(f"label[for=mode-{mode}]")
    await page.click(f"label[for=level-{level}]")
    await page.click("button.play-bot")
    await page.wait_for_url(re.compile(r".*/m/[0-9a-f]{32}$"))
    await page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    return page.url.rsplit("/", 1)[1]


def my_move(views) -> bool:
    v = views[0]
    return v["phase"] == "moving" and v["turn"] == v["viewer"] and not v["pending"]


async def show_hint(page: Page) -> list[str]:
    await page.click(".hint-panel button.hint")
    await page.locator(".hint-plays li").first.wait_for()
    return await page.eval_on_selector_all(".hint-plays li", "els => els.map(e => e.innerText)")


async def test_play_the_computer_from_the_lobby(bot_net: NetPages) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    desk = await bot_net.new(DESKTOP, who="desktop")
    await desk.goto(f"{bot_net.base}/")
    await desk.locator(".bot-choice").wait_for()
    await desk.screenshot(path=SCREENSHOTS / "bots-lobby-1440x900.png")
    await play_the_computer(desk, bot_net.base, "Ann", "money", "easy")

    # The level, under the computer's name, and its seat taken at once.
    panel = desk.locator(".bot-panel")
    await panel.wait_for()
    assert await panel.locator(".bot-level").inner_text() == "Easy"
    await desk.wait_for_function(
        "window.fairgammon.session.tracker.names[1] === 'Computer (Easy)'")

    # Play until it is our move; the first time we may, we double (the bot must answer).
    ann = Seat(desk, double_next=True)
    await play([ann], my_move, timeout=60)
    plays = await show_hint(desk)
    assert 1 <= len(plays) <= 3 and all(re.search(r"[+−]\d\.\d{3}", p) for p in plays)
    await desk.screenshot(path=SCREENSHOTS / "bots-hint-1440x900.png")
    await ann.play_turn()
    # Now the computer thinks (its think time shows), then plays.
    await desk.locator(".bot-panel.thinking").wait_for()
    assert "Thinking" in await desk.locator(".bot-status").inner_text()
    await desk.screenshot(path=SCREENSHOTS / "bots-thinking-1440x900.png")

    # Our double, and the computer's answer (take, beaver, or drop: a new game).
    def answered(views) -> bool:
        v = views[0]
        return not ann.double_next and (v["cube"]["value"] > 1 or v["match"]["gameNo"] > 1)

    await play([ann], answered, timeout=90)
    await leave_match(desk)

    # On a phone: the lobby's choice, then a single game against Hard with the hint panel.
    phone = await bot_net.new(PHONE, who="phone")
    await phone.goto(f"{bot_net.base}/")
    await phone.locator(".bot-choice").scroll_into_view_if_needed()
    await phone.screenshot(path=SCREENSHOTS / "bots-lobby-390x844.png")
    await play_the_computer(phone, bot_net.base, "Bob", "single_game", "hard")
    assert await phone.locator(".bot-panel .bot-level").inner_text() == "Hard"
    bob = Seat(phone)
    await play([bob], my_move, timeout=60)
    await phone.locator(".hint-panel").scroll_into_view_if_needed()
    assert len(await show_hint(phone)) >= 1
    await phone.screenshot(path=SCREENSHOTS / "bots-hint-390x844.png")
    assert (await view(phone))["viewer"] == 0
    await leave_match(phone)
