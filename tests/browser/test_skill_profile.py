"""The profile's skill record and dice audit in Chromium against a real server with one
analysis worker: after a signed-in player's analysed match, their profile shows the PR chart
and the four tables of the lifetime dice audit with the number of rolls and matches (to the
player; "public matches" to a visitor); phone (390x844) and desktop
(1440x900) screenshots go to artifacts/screenshots."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from harness.serverproc import ServerProcess
from harness.srv_support import play_out
from protocol.client import MatchClient, join_match
from protocol.client.lobby import get
from tests.browser.conftest import NetPages

WAIT = 60_000


@pytest.fixture
def server(redis_url) -> Iterator[ServerProcess]:
    proc = ServerProcess(redis_url, FAIRGAMMON_ANALYSERS="1")
    proc.start()
    yield proc
    proc.stop()


async def test_profile_pr_chart_and_dice_audit(net: NetPages, server) -> None:
    page = await net.new(DESKTOP, who="desk")
    page.set_default_timeout(WAIT)
    await page.goto(f"{server.base}/rules")
    created = await page.evaluate(
        """async () => {
          const j = {'Content-Type': 'application/json'};
          await fetch('/api/account/signup', {method: 'POST', headers: j,
            body: JSON.stringify({username: 'skilled', password: 'correct horse'})});
          const r = await fetch('/api/matches', {method: 'POST', headers: j,
            body: JSON.stringify({mode: 'match', length: 1, name: 'x'})});
          return r.json();
        }""")
    match_id = created["match"]
    joined = await join_match(server.base, match_id, name="Bob")
    a = MatchClient(server.ws, match_id, created["token"])
    b = MatchClient(server.ws, match_id, joined["token"])
    async with a, b:
        await play_out(a, b, seed=21)
    for _ in range(600):
        body = await get(server.base, "/api/players/skilled/skill")
        if body["matches"] and body["matches"][0]["pr"] is not None:
            break
        await asyncio.sleep(0.1)
    await page.goto(f"{server.base}/u/skilled")
    await page.locator(".pr-chart circle.pr-dot").first.wait_for()
    # The luck-adjusted results as a series: one bar per match, titled with its figure.
    bars = page.locator(".luck-chart rect.luck-bar")
    assert await bars.count() == len(body["matches"])
    figure = body["matches"][-1]["luck_adjusted"]
    title = await bars.last.locator("title").text_content()
    assert title == f"Luck-adjusted {'+' if figure >= 0 else ''}{figure:.2f}"
    names = [n.split()[0] for n in await page.locator(".audit-table tr:first-child th:first-child")
             .all_inner_texts()]
    assert names == ["Faces", "Doubles", "Entering", "Chances"]
    # The lifetime audit: the player sees every match of theirs (here the one).
    rolls = body["dice"]["rolls"]
    assert (body["dice"]["matches"], body["dice"]["pending"]) == (1, 0)
    scope = await page.locator(".audit-card .audit-scope").inner_text()
    assert scope.startswith(f"Lifetime: {rolls} roll{'' if rolls == 1 else 's'} in 1 match (")
    faces = await page.locator(".audit-faces tr:nth-child(2) td").all_inner_texts()
    assert [int(f) for f in faces] == body["dice"]["tables"][0]["observed"]
    await page.locator(".skill-card").scroll_into_view_if_needed()
    await page.screenshot(path=SCREENSHOTS / "profile-skill-1440x900.png")
    phone = await net.new(PHONE, who="phone")
    phone.set_default_timeout(WAIT)
    await phone.goto(f"{server.base}/u/skilled")
    await phone.locator(".audit-faces").wait_for()
    # Not signed in there: the public matches' audit, said so (the match was public).
    scope = await phone.locator(".audit-card .audit-scope").inner_text()
    assert " in 1 public match (" in scope
    await phone.set_viewport_size(PHONE)
    assert await phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    # At 360 px the profile's own head is wider than the screen, and the column with it: the
    # new cards add nothing wider than that column.
    await phone.set_viewport_size({"width": 360, "height": 844})
    right = await phone.evaluate("Math.max(...[...document.querySelectorAll("
                                 "'.skill-card, .audit-card')].map(e => "
                                 "e.getBoundingClientRect().right))")
    head = await phone.evaluate("document.querySelector('.profile-head')"
                                ".getBoundingClientRect().right")
    assert right <= head
    await phone.set_viewport_size(PHONE)
    await phone.locator(".audit-card").scroll_into_view_if_needed()
    await phone.screenshot(path=SCREENSHOTS / "profile-audit-390x844.png")
