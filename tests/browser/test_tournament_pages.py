"""The tournament pages (web-client/src/pages/tournaments.ts) in Chromium against a real
server and Redis: Ann signs up, creates a private rated Swiss starting at a time she picks in
her local time (the API shows that time, rated and private, and does not list it), then a
4-player knockout from /tournaments (desktop),
joins it from its page and withdraws again; four bot players (harness/tournament_players.py:
accounts that use only the API and the wire protocol) join and play it to the end while Bob,
a visitor on a phone, watches its page: the standings and the bracket move as matches end,
and the page names the winner of the final. Screenshots on a phone and a desktop; no
horizontal overflow on the phone."""

from __future__ import annotations

import asyncio
import re

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from harness.tournament_players import Player, play_tournament
from tests.browser.conftest import NetPages
from tests.browser.test_players import sign_up


async def test_create_join_withdraw_and_watch_a_knockout_to_its_end(net: NetPages) -> None:
    ann = await net.new(DESKTOP, who="ann")
    bob = await net.new(PHONE, who="bob")
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await sign_up(ann, net.base, "ann_t")
    # A private, rated Swiss at a set time (the browser's local time, sent with its zone).
    await ann.goto(f"{net.base}/tournaments")
    form = ann.locator("form.create-tournament-form")
    await form.locator("select[name=kind]").select_option("swiss")
    assert await form.locator("input[name=start_at]").is_hidden()
    await form.locator("select[name=starts]").select_option("at")
    local = await ann.evaluate(
        "() => { const d = new Date(Date.now() + 2 * 3600e3); d.setSeconds(0, 0);"
        " const p = (n) => String(n).padStart(2, '0');"
        " return [`${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T"
        "${p(d.getHours())}:${p(d.getMinutes())}`, d.toISOString()]; }"
    )
    await form.locator("input[name=start_at]").fill(local[0])
    await form.locator("input[name=rated]").check()
    await form.locator("input[name=private]").check()
    await ann.fill("input[name=tname]", "Night Swiss")
    await ann.click("button.create-tournament")
    await ann.wait_for_url(re.compile(r"/t/[0-9a-f]{32}$"))
    night = ann.url.rsplit("/", 1)[1]
    visitor = Player("visitor", [net.base])
    view = (await visitor.call("GET", f"/api/tournaments/{night}")).body
    assert view["kind"] == "swiss" and view["state"] == "open", view
    assert view["terms"]["rated"] is True and view["terms"]["private"] is True
    start = view["terms"]["start"].replace("+00:00", "Z")
    assert start[:16] == local[1][:16], (start, local)
    listed = (await visitor.call("GET", "/api/tournaments")).body
    assert night not in [t["id"] for t in listed["open"]]  # private: by its link only
    await ann.goto(f"{net.base}/tournaments")
    await ann.locator("form.create-tournament-form select[name=kind]").select_option("knockout")
    await ann.fill("input[name=length]", "1")
    await ann.fill("input[name=max_players]", "4")
    await ann.fill("input[name=tname]", "Spring <b>Cup</b>")
    await ann.click("button.create-tournament")
    await ann.wait_for_url(re.compile(r"/t/[0-9a-f]{32}$"))
    tid = ann.url.rsplit("/", 1)[1]
    await ann.locator("h1:has-text('Spring <b>Cup</b>')").wait_for()  # text, not markup
    await ann.click("button.join-tournament")
    await ann.locator(".entrants li:has-text('ann_t')").wait_for()
    await ann.click("button.withdraw-tournament")
    await ann.locator("button.join-tournament").wait_for()
    assert await ann.locator(".entrants li:has-text('ann_t')").count() == 0
    await ann.goto(f"{net.base}/tournaments")
    await ann.locator(f".upcoming li[data-tournament='{tid}']").wait_for()
    await ann.screenshot(path=SCREENSHOTS / "tournaments-1440x900.png", full_page=True)

    bots = [Player(name, [net.base]) for name in ("tbot1", "tbot2", "tbot3", "tbot4")]
    await asyncio.gather(*(p.signup() for p in bots))
    for p in bots:
        assert (await p.call("POST", f"/api/tournaments/{tid}/join", {})).status == 200
    await bob.goto(f"{net.base}/t/{tid}")
    await bob.locator(".bracket .round h3:has-text('Round 1')").wait_for()
    assert await bob.locator(".bracket .round").first.locator(".pairing").count() == 2
    await bob.screenshot(path=SCREENSHOTS / "tournament-running-390x844.png", full_page=True)
    views = await asyncio.wait_for(
        asyncio.gather(
            *(play_tournament(p, tid, seed=i, quit_rate=0.2) for i, p in enumerate(bots))
        ),
        120,
    )
    winner = views[0]["winner"]
    # Bob's page moved on its own: the final decided, the winner named, first in standings.
    await bob.locator(f".tstate:has-text('won by {winner}')").wait_for(timeout=10_000)
    await bob.locator(".bracket .round h3:has-text('Round 2')").wait_for()
    first = await bob.locator("table.standings tbody tr").first.inner_text()
    assert winner in first
    width = await bob.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, width
    await bob.screenshot(path=SCREENSHOTS / "tournament-finished-390x844.png", full_page=True)
    # The winner's profile lists the tournament: first of 4.
    await bob.goto(f"{net.base}/u/{winner}")
    line = bob.locator(f".tournament-results li:has(a[href='/t/{tid}'])")
    await line.wait_for()
    assert "Won · 1 of 4" in await line.inner_text()
    await ann.goto(f"{net.base}/t/{tid}")
    await ann.locator(".tstate.finished").wait_for()
    await ann.screenshot(path=SCREENSHOTS / "tournament-finished-1440x900.png", full_page=True)
