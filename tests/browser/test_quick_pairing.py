"""Quick pairing in the lobby (web-client/src/pages/quickPair.ts) in Chromium against a real
server and Redis: Ann (desktop) asks for a match to 3 and, alone for 5 s, is offered the
computer while she waits; Bob's lobby (phone) counts her among those looking; Bob asks for the
same and both pages move to the same match at once, each with its own seat. Under "Other
terms" a guest picks any game and clock but no rating terms, and two signed-in players are
paired into a rated match to 7 within ±400. Screenshots of the lobby on a phone and of the
offer on a desktop; no horizontal overflow on the phone."""

from __future__ import annotations

import re

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from tests.browser.conftest import NetPages
from tests.browser.test_players import sign_up

MATCH_TO_3 = ".seek-format[data-format='match/3/30']"


async def test_seek_wait_see_the_computer_offered_then_pair_and_play(net: NetPages) -> None:
    ann = await net.new(DESKTOP, who="ann")
    bob = await net.new(PHONE, who="bob")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await ann.goto(f"{net.base}/")
    await bob.goto(f"{net.base}/")
    await bob.locator(".quick-pairing").wait_for()
    assert await bob.locator(".seek-format").count() == 4
    assert await bob.locator(f"{MATCH_TO_3} .seek-count").inner_text() == "0 looking"
    width = await bob.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    await bob.locator(".quick-pairing").scroll_into_view_if_needed()
    await bob.screenshot(path=SCREENSHOTS / "quick-pairing-390x844.png")

    await ann.click(MATCH_TO_3)
    await ann.locator(".seek-status:has-text('Looking for Match to 3')").wait_for()
    offer = ann.locator(".seek-offer")
    assert await offer.is_hidden()
    await offer.locator("text=play the computer while you wait?").wait_for(timeout=12_000)
    await ann.screenshot(path=SCREENSHOTS / "quick-pairing-offer-1440x900.png")
    # Bob's lobby counts her (its counts refresh every 4 s), then he asks for the same.
    await bob.locator(f"{MATCH_TO_3} .seek-count:has-text('1 looking')").wait_for(timeout=10_000)
    await bob.click(MATCH_TO_3)
    await ann.wait_for_url(re.compile(r"/m/[0-9a-f]{32}$"), timeout=10_000)
    await bob.wait_for_url(re.compile(r"/m/[0-9a-f]{32}$"), timeout=10_000)
    assert ann.url == bob.url
    match = ann.url.rsplit("/", 1)[1]
    info = await ann.evaluate(f"fetch('/api/matches/{match}').then(r => r.json())")
    assert info["arranged"] == "pairing" and info["length"] == 3
    assert all(info["names"]) and info["phase"] != "over"  # both seats taken, playing


async def test_other_terms_rated_with_a_range_for_accounts_only(net: NetPages) -> None:
    """"Other terms": a guest chooses any game and clock but sees no Rated box or range; two
    signed-in players seek a rated match to 7 at 60 s within ±400 and are paired into it."""
    guest = await net.new(PHONE, who="guest")
    await guest.goto(f"{net.base}/")
    await guest.locator(".seek-custom summary").click()
    assert await guest.locator(".seek-custom select[name=seek_mode]").is_visible()
    assert await guest.locator(".seek-custom .seek-account").is_hidden()
    await guest.locator(".seek-custom select[name=seek_mode]").select_option("match")
    assert await guest.locator(".seek-custom input[name=seek_length]").is_visible()
    width = await guest.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    await guest.screenshot(path=SCREENSHOTS / "quick-pairing-terms-390x844.png")
    pages = []
    for who in ("cara_q", "dave_q"):
        page = await net.new(DESKTOP, who=who)
        await sign_up(page, net.base, who)
        await page.locator(".seek-custom summary").click()
        await page.locator(".seek-custom .seek-account").wait_for()
        await page.locator(".seek-custom select[name=seek_mode]").select_option("match")
        await page.fill(".seek-custom input[name=seek_length]", "7")
        await page.fill(".seek-custom input[name=seek_clock]", "60")
        await page.locator(".seek-custom input[name=seek_rated]").check()
        await page.locator(".seek-custom select[name=seek_range]").select_option("400")
        pages.append(page)
    await pages[0].click(".seek-custom-go")
    await pages[0].locator(".seek-status:has-text('Looking for')").wait_for()
    await pages[1].click(".seek-custom-go")
    for page in pages:
        await page.wait_for_url(re.compile(r"/m/[0-9a-f]{32}$"), timeout=10_000)
    assert pages[0].url == pages[1].url
    match = pages[0].url.rsplit("/", 1)[1]
    info = await pages[0].evaluate(f"fetch('/api/matches/{match}').then(r => r.json())")
    assert info["arranged"] == "pairing" and info["length"] == 7 and info["rated"] is True, info
    assert sorted(info["names"]) == ["cara_q", "dave_q"], info
