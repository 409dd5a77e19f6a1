"""Rematch in Chromium against a real server and Redis: after a match (ended the fastest way, a
forfeit), one player clicks Rematch and lands on the new match; the opponent sees the offer
(also after a reload) and accepts it with one click; a spectator is offered a link to watch;
both players end on the new match's board, seated, and its first game starts. Declined, the
rematch ends unplayed and the player who offered it, waiting there, is told."""

from __future__ import annotations

import json
import urllib.request

from playwright.async_api import Page

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from tests.browser.conftest import NetPages
from tests.browser.net_support import (
    ask_for_rematch,
    create_match,
    join_match,
    leave_match,
    view,
)


async def test_rematch_offered_accepted_and_watched(net: NetPages) -> None:
    ann_page = await net.new(DESKTOP, who="Ann")
    bob_page = await net.new(PHONE, who="Bob")
    watcher = await net.new(DESKTOP, who="spectator")
    match_id, invite, watch = await create_match(ann_page, net.base, "Ann", "match", 3, 60)
    await join_match(bob_page, invite, "Bob")
    await watcher.goto(watch)
    await watcher.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")

    # The fastest end of a match: Bob leaves it (a forfeit), confirming the browser's dialog.
    await leave_match(bob_page)
    for page in (ann_page, bob_page, watcher):
        await page.wait_for_function("window.fairgammon.game.current().phase === 'gameover'")
    assert await bob_page.locator(".rematch-offer").is_hidden()

    # Bob (the loser) asks for a rematch and goes to it, waiting for Ann.
    rematch = await ask_for_rematch(bob_page, net.base, match_id)
    await bob_page.locator(".invite .rematch-wait").wait_for()

    # Ann hears of it live, and so does the spectator, whose offer is a link to watch.
    offer = ann_page.locator(".rematch-offer")
    await offer.locator("button.accept-rematch").wait_for()
    assert "Bob offers a rematch" in await offer.inner_text()
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await ann_page.screenshot(path=SCREENSHOTS / "rematch-offer-1440x900.png")
    await bob_page.screenshot(path=SCREENSHOTS / "rematch-wait-390x844.png")
    link = watcher.locator(".rematch-offer a.watch-rematch")
    await link.wait_for()
    assert await link.inner_text() == "Rematch: watch"
    assert (await link.get_attribute("href")) == f"/m/{rematch}#watch"

    # The offer survives a reload (it comes with the snapshot); Ann accepts with one click.
    await ann_page.reload()
    await ann_page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    await offer.locator("button.accept-rematch").click()
    await ann_page.wait_for_url(f"{net.base}/m/{rematch}")

    # Both on the rematch's board, seated, and its first game under way.
    for page, seat in ((bob_page, 0), (ann_page, 1)):
        await page.wait_for_function(
            "window.fairgammon && window.fairgammon.session.caughtUp"
            " && window.fairgammon.game.current().phase !== 'waiting'"
            " && window.fairgammon.session.tracker.onRoll !== null",
            timeout=20_000,
        )
        v = await view(page)
        assert v["viewer"] == seat
        assert [p["name"] for p in v["players"]] == ["Bob", "Ann"]
        assert await page.locator(".invite").is_hidden()
    with urllib.request.urlopen(f"{net.base}/api/matches/{rematch}") as r:
        summary = json.loads(r.read())
    assert (summary["mode"], summary["length"], summary["clock"]) == ("match", 3, 60)
    assert summary["names"] == ["Bob", "Ann"] and summary["rematch_of"] == match_id

    # The spectator's link leads to the rematch, as a spectator.
    await link.click()
    await watcher.wait_for_url(f"{net.base}/m/{rematch}#watch")
    await watcher.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    assert (await view(watcher))["viewer"] is None


async def forfeited_then_rematch_asked(net: NetPages) -> tuple[Page, Page, str]:
    """Ann and Bob play a single game that Bob leaves (a forfeit); Bob then asks for a rematch
    and goes to it: (Ann's page, Bob's page, the rematch's id)."""
    ann_page = await net.new(DESKTOP, who="Ann")
    bob_page = await net.new(PHONE, who="Bob")
    match_id, invite, _ = await create_match(ann_page, net.base, "Ann", "single_game", clock=60)
    await join_match(bob_page, invite, "Bob")
    await leave_match(bob_page)
    await bob_page.wait_for_function("window.fairgammon.game.current().phase === 'gameover'")
    rematch = await ask_for_rematch(bob_page, net.base, match_id)
    return ann_page, bob_page, rematch


async def test_a_declined_rematch_is_told_to_the_player_who_offered_it(net: NetPages) -> None:
    ann_page, bob_page, rematch = await forfeited_then_rematch_asked(net)
    await bob_page.locator(".invite .rematch-wait").wait_for()

    offer = ann_page.locator(".rematch-offer")
    await offer.locator("button.decline-rematch").click()
    await offer.wait_for(state="hidden")
    # Bob, waiting on the rematch, is told; the rematch is over, unplayed.
    await bob_page.wait_for_function(
        "document.body.innerText.includes('Your opponent declined the rematch')"
    )
    await bob_page.locator(".invite").wait_for(state="hidden")
    assert bob_page.url.rsplit("/", 1)[1] == rematch
    with urllib.request.urlopen(f"{net.base}/api/matches/{rematch}") as r:
        assert json.loads(r.read())["phase"] == "over"
    # Ann's page does not offer it again after a reload.
    await ann_page.reload()
    await ann_page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    assert await offer.is_hidden()


async def test_an_offer_whose_rematch_was_left_is_dropped(net: NetPages) -> None:
    ann_page, bob_page, rematch = await forfeited_then_rematch_asked(net)
    offer = ann_page.locator(".rematch-offer")
    await offer.locator("button.accept-rematch").wait_for()
    # Bob thinks better of it and leaves the rematch before Ann answers: it is cancelled.
    await leave_match(bob_page)
    await bob_page.wait_for_function("window.fairgammon.session.tracker.over !== null")
    assert bob_page.url.rsplit("/", 1)[1] == rematch
    await ann_page.reload()
    await ann_page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    # Her page looks the rematch up, finds it over and drops the offer for good.
    await ann_page.wait_for_function(
        f"localStorage.getItem('fairgammon.rematch-dismissed.{rematch}') === 'true'"
    )
    assert await offer.is_hidden()
