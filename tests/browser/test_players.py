"""Accounts, a rated match, the profile with its rating chart, the leaderboard and the chat in
Chromium against a real server and Redis: two players sign up in the lobby, play a rated match
(ended the fastest way, a forfeit: a rated loss), chat while a spectator chats apart; the
winner's profile shows 1510.00, the chart and the history; phone and desktop screenshots."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from harness.serverproc import ServerProcess
from tests.browser.conftest import NetPages
from tests.browser.net_support import leave_match, same_host

PASSWORD = "a long enough password"


@pytest.fixture
async def server(redis_url):
    """A real server whose leaderboard admits players after one rated point."""
    proc = ServerProcess(redis_url, FAIRGAMMON_LEADERBOARD_EXPERIENCE="1")
    proc.start()
    yield proc
    proc.stop()


async def sign_up(page: Page, base: str, username: str) -> None:
    await page.goto(f"{base}/")
    await page.click(".account-box button.signin")
    await page.fill(".account-card input[name=username]", username)
    await page.fill(".account-card input[name=password]", PASSWORD)
    await page.click(".account-card button.create-account")
    await page.locator(".account-box .me").wait_for()
    me = await page.locator(".account-box .me").text_content()
    assert me == f"{username} 1500.00"
    assert await page.input_value("input[name=name]") == username


async def chat_lines(page: Page) -> list[str]:
    return [t.strip() for t in await page.locator(".chat-lines .chat-line").all_text_contents()]


async def test_sign_up_play_rated_chat_and_see_the_profile(net: NetPages) -> None:
    ann = await net.new(DESKTOP, who="ann")
    bob = await net.new(PHONE, who="bob")
    fan = await net.new(DESKTOP, who="fan")
    await ann.goto(f"{net.base}/")
    await ann.click(".account-box button.signin")
    await ann.locator(".account-card").wait_for()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await ann.screenshot(path=SCREENSHOTS / "sign-in-1440x900.png")
    await sign_up(ann, net.base, "ann_b")
    await sign_up(bob, net.base, "bob_b")
    await bob.click("label[for=mode-match]")
    await bob.locator("input[name=rated]").wait_for()  # offered to signed-in players only
    await bob.screenshot(path=SCREENSHOTS / "lobby-signed-in-390x844.png", full_page=True)
    assert await fan.goto(f"{net.base}/") and await fan.locator("input[name=rated]").is_hidden()

    # Ann creates a rated match to 1 point; Bob joins it from the invite link.
    await ann.click("label[for=mode-match]")
    await ann.fill("input[name=length]", "1")
    await ann.check("input[name=rated]")
    await ann.click("button.create")
    await ann.wait_for_url(re.compile(r".*/m/[0-9a-f]{32}$"))
    match_id = ann.url.rsplit("/", 1)[1]
    invite = same_host(await ann.input_value(".invite .invitelink input"), net.base)
    await bob.goto(invite)
    await bob.click(".join-card button.join")
    await bob.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    await fan.goto(f"{net.base}/m/{match_id}#watch")
    await fan.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")

    # The players chat (a quick phrase, then typed text); the spectator chats apart.
    await ann.click(".chat-quick button:has-text('Good luck')")
    await bob.locator(".chat-lines .chat-line:has-text('Good luck')").wait_for()
    await fan.fill(".chat-name input", "Fan")  # a guest spectator's name
    await fan.fill(".chat-form input", "<b>go</b> Ann")
    await fan.press(".chat-form input", "Enter")
    await fan.locator(".chat-line:has-text('<b>go</b> Ann')").wait_for()  # text, not markup
    assert await fan.locator(".chat-lines b").count() == 0
    assert await chat_lines(fan) == ["Fan (guest)<b>go</b> Ann"]
    assert await ann.locator(".chat-name").is_hidden()  # players speak under their seat
    await bob.fill(".chat-form input", "You too")
    await bob.press(".chat-form input", "Enter")
    await ann.locator(".chat-line:has-text('You too')").wait_for()
    assert await chat_lines(ann) == ["ann_bGood luck", "bob_bYou too"]
    assert await fan.locator(".chat-line:has-text('Good luck')").count() == 0
    assert await ann.locator(".chat-tab-spectators").count() == 0
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await bob.screenshot(path=SCREENSHOTS / "chat-player-390x844.png", full_page=True)
    await fan.screenshot(path=SCREENSHOTS / "chat-spectator-1440x900.png")

    # Bob leaves: a forfeit, a rated loss. After the match the players may read the spectators.
    await leave_match(bob)
    await ann.wait_for_function("window.fairgammon.game.current().phase === 'gameover'")
    await ann.click(".chat-tab-spectators")
    await ann.locator(".chat-line:has-text('<b>go</b> Ann')").wait_for()
    await ann.click(".chat-tab-players")
    await ann.locator(".chat-line:has-text('You too')").wait_for()

    # A reload shows the chat history again.
    await bob.reload()
    await bob.locator(".chat-line:has-text('Good luck')").wait_for()

    # Ann's profile: 1510.00 after beating a new player over 1 point, the chart, the history.
    await ann.goto(f"{net.base}/u/ann_b")
    await ann.locator(".profile-head .rating-value").wait_for()
    for _ in range(50):  # the result is recorded just after the match ends
        if await ann.locator(".rating-value").inner_text() == "1510.00":
            break
        await ann.wait_for_timeout(100)
        await ann.reload()
        await ann.locator(".rating-value").wait_for()
    assert await ann.locator(".rating-value").inner_text() == "1510.00"
    assert await ann.locator("svg.rating-chart path.line").count() == 1
    assert await ann.locator("svg.rating-chart circle.dot").count() == 1
    row = ann.locator("table.history tbody tr").first
    assert "bob_b" in await row.inner_text() and "+10.00" in await row.inner_text()
    assert await row.locator("a:has-text('Replay')").get_attribute("href") == f"/m/{match_id}"
    await ann.screenshot(path=SCREENSHOTS / "profile-1440x900.png", full_page=True)
    await bob.goto(f"{net.base}/u/bob_b")
    await bob.locator(".rating-value:has-text('1490.00')").wait_for()
    await bob.screenshot(path=SCREENSHOTS / "profile-390x844.png", full_page=True)

    # The leaderboard lists both, best first.
    await fan.goto(f"{net.base}/leaderboard")
    await fan.locator("table.leaders").wait_for()
    names = await fan.locator("table.leaders tbody td:nth-child(2)").all_inner_texts()
    assert names == ["ann_b", "bob_b"]
    # The Top Gamer boards of this week and month: both, from their first rated match, with
    # the rating each gained (Ann won: +10.00, Bob -10.00) and their one match.
    for kind in ("week", "month"):
        rows = fan.locator(f".top-{kind} table.top tbody tr")
        assert await rows.count() == 2
        first = (await rows.first.inner_text()).split()
        assert first[1] == "ann_b" and "+10.00" in first and first[-1] == "1", first
    await fan.screenshot(path=SCREENSHOTS / "leaderboard-1440x900.png", full_page=True)
    await bob.goto(f"{net.base}/leaderboard")
    await bob.locator(".top-month table.top").wait_for()
    width = await bob.evaluate("document.documentElement.scrollWidth")
    wide = await bob.evaluate(
        "[...document.querySelectorAll('*')].filter(e => e.getBoundingClientRect().right > 390)"
        ".map(e => e.tagName + '.' + e.className + ':' + e.getBoundingClientRect().right)"
    )
    assert width <= 390, (width, wide)
    await bob.screenshot(path=SCREENSHOTS / "leaderboard-390x844.png", full_page=True)
