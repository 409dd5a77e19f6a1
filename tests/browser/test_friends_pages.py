"""Friends, a challenge, the bell, "my games" and a correspondence move in Chromium against a real
server and Redis (docs/friends.md, docs/correspondence.md): two accounts follow each other from
their profiles; one challenges the other to a rated correspondence match from its friends list;
the other, on the leaderboard, is told at once (a toast, the bell's count) and accepts from its
friends page; each plays when it is its turn, the second from another device that has nothing
of the match stored (its "my games" says whose turn, the match page asks the server for the
seat); the notices page lists what came. Phone and desktop screenshots, nothing wider than a
360 px screen."""

from __future__ import annotations

import re

from playwright.async_api import Page

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from tests.browser.conftest import NetPages, served_pages
from tests.browser.net_support import Seat, no_overflow, play, to_play, view
from tests.browser.test_players import PASSWORD, sign_up

MATCH_PAGE = re.compile(r".*/m/([0-9a-f]{32})$")
CORRESPONDENCE_CLOCK = re.compile(r"^(\d+ d \d+ h|\d+ h \d\d)$")


async def log_in(page: Page, base: str, username: str) -> None:
    await page.goto(f"{base}/")
    await page.click(".account-box button.signin")
    await page.fill(".account-card input[name=username]", username)
    await page.fill(".account-card input[name=password]", PASSWORD)
    await page.click(".account-card button.login")
    await page.locator(".account-box .me").wait_for()


async def follow_from_profile(page: Page, base: str, name: str) -> None:
    await page.goto(f"{base}/u/{name}")
    await page.click(".profile-actions button.follow")
    await page.locator(".profile-actions button.unfollow").wait_for()


async def test_follow_challenge_accept_and_play_correspondence_from_anywhere(
    browser, redis_url, dist
) -> None:
    async with served_pages(browser, redis_url) as (_proc, net):
        await friends_challenge_and_correspondence(net)


async def friends_challenge_and_correspondence(net: NetPages) -> None:
    base = net.base
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    ann = await net.new(DESKTOP, who="ann")
    bob = await net.new(PHONE, who="bob")
    await sign_up(ann, base, "ann_f")
    await sign_up(bob, base, "bob_f")

    # Each follows the other from the other's profile: friends.
    await follow_from_profile(ann, base, "bob_f")
    await follow_from_profile(bob, base, "ann_f")
    await ann.screenshot(path=SCREENSHOTS / "profile-follow-1440x900.png")
    await ann.goto(f"{base}/friends")
    row = ann.locator(".following-list li[data-name=bob_f]")
    await row.wait_for()
    assert (await row.locator(".sub").inner_text()).startswith("friends · online")
    # Ann asks to hear when Bob starts a match: kept by the server (read again after a reload).
    await row.locator("input[name=tell]").check()
    await ann.wait_for_load_state("networkidle")
    await ann.reload()
    await row.locator("input[name=tell]:checked").wait_for()
    await ann.screenshot(path=SCREENSHOTS / "friends-1440x900.png", full_page=True)

    # Bob is elsewhere on the site; Ann challenges him to a rated match to 3, a day a move.
    await bob.goto(f"{base}/leaderboard")
    await bob.locator(".account-box .bell").wait_for()
    assert await bob.locator(".bell .bell-count").is_hidden()
    await row.locator("button.challenge").click()
    card = ann.locator(".challenge-card")
    await card.locator("select[name=mode]").select_option("match")
    await card.locator("input[name=length]").fill("3")
    await card.locator("select[name=pace]").select_option("1")
    assert await card.locator("input[name=clock]").is_hidden()  # days replace the seconds
    await card.locator("input[name=rated]").check()
    await ann.screenshot(path=SCREENSHOTS / "challenge-1440x900.png")
    await card.locator("button.send-challenge").click()
    await ann.wait_for_url(MATCH_PAGE)
    match_id = MATCH_PAGE.match(ann.url).group(1)

    # Told at once, on the page he is on: a toast with the challenge's words and the bell.
    toast = bob.locator(".note-toast.notice-challenge")
    await toast.wait_for()
    assert "ann_f" in await toast.locator(".toast-text").inner_text()
    assert await toast.evaluate("e => getComputedStyle(e).opacity") == "1"  # on the screen
    assert await bob.locator(".bell .bell-count").inner_text() == "1"
    await no_overflow(bob, PHONE["width"])
    await bob.screenshot(path=SCREENSHOTS / "challenge-toast-390x844.png")

    # He accepts from another page: his friends page lists it with its terms.
    await bob.goto(f"{base}/friends")
    received = bob.locator(f".challenge-list li.received[data-match='{match_id}']")
    await received.wait_for()
    assert "Match to 3 · 1 day per move" in await received.inner_text()
    await no_overflow(bob, PHONE["width"])
    await bob.screenshot(path=SCREENSHOTS / "friends-challenge-390x844.png", full_page=True)
    await received.locator("button.accept-challenge").click()
    await bob.wait_for_url(f"**/m/{match_id}")

    # The match opens for both; each plays when it is its turn, until Bob has rolled after one
    # of Ann's turns and owes his play. (Not his roll: a device without his dice chain cannot
    # roll for him while Ann's part of that roll is deposited, docs/fairness.md section 15.)
    for page in (ann, bob):
        await page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    seats = [Seat(ann), Seat(bob)]

    def bob_to_move(vs):
        return seats[0].turns >= 1 and to_play(vs[1], 1) and vs[1]["phase"] == "moving"

    v = await play(seats, bob_to_move, timeout=90)
    assert v["viewer"] == 0 and v["match"]["length"] == 3
    clock = (await bob.locator(".player.bottom .clock .time").inner_text()).strip()
    assert CORRESPONDENCE_CLOCK.match(clock), clock
    await bob.screenshot(path=SCREENSHOTS / "correspondence-match-390x844.png")
    await bob.context.close()  # Bob goes away, owing his play

    # Later, on another device with nothing stored: his games say it is his turn; he plays.
    bob2 = await net.new(DESKTOP, who="bob2")
    await log_in(bob2, base, "bob_f")
    await bob2.goto(f"{base}/games")
    game = bob2.locator(f".my-games li[data-match='{match_id}']")
    await game.wait_for()
    assert (await game.locator(".turn").inner_text()).startswith("Your turn · ")
    assert "vs ann_f" in await game.inner_text()
    summary = await bob2.locator(".games-summary").inner_text()
    assert summary.startswith("Your turn in 1 of your 1 game"), summary
    await bob2.screenshot(path=SCREENSHOTS / "my-games-1440x900.png")
    await game.locator("a.open-game").click()
    await bob2.wait_for_url(f"**/m/{match_id}")
    await bob2.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    before = await view(ann)
    now = await view(bob2)
    assert now["viewer"] == 1, now  # his seat, not a spectator's view
    seat = Seat(bob2)
    await play([seat], lambda vs: seat.turns >= 1 and not to_play(vs[0], 1), timeout=60)
    await ann.wait_for_function(
        "(v0) => window.fairgammon.game.current().version > v0", arg=before["version"])

    # His notices: the challenge and his turn, read once the page is opened.
    await bob2.goto(f"{base}/notices")
    kinds = bob2.locator(".notices li.notice")
    await kinds.first.wait_for()
    classes = await kinds.evaluate_all("els => els.map(e => e.className)")
    assert any("notice-challenge" in c for c in classes), classes
    assert any("notice-your_turn" in c for c in classes), classes
    await bob2.locator(".bell .bell-count").wait_for(state="hidden")
    await bob2.screenshot(path=SCREENSHOTS / "notices-1440x900.png")

    # The new pages on a phone: nothing wider than the screen.
    await bob2.set_viewport_size({"width": 360, "height": 800})
    for path in ("/notices", "/friends", "/games", "/u/ann_f", "/"):
        await bob2.goto(f"{base}{path}")
        await bob2.locator("main").first.wait_for()
        await bob2.wait_for_load_state("networkidle")
        await no_overflow(bob2, 360)
    await bob2.goto(f"{base}/games")
    await bob2.locator(".my-games li").first.wait_for()
    await bob2.screenshot(path=SCREENSHOTS / "my-games-360x800.png", full_page=True)
