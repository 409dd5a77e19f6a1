"""Every page on a phone, 360 and 430 px wide (390 px: the pages' own tests): nothing wider
than the screen — the profile of a player with rated matches in its history (signed in), the
lobby (with a match against the computer live in its "Live now": its line, which does not
wrap, once widened the page to 372 px at 360), that match and a finished match watched, a
replay, the dice check, the leaderboard, the rules, the hot-seat board (and a game under way
on it) and the demo."""

from __future__ import annotations

import asyncio
import random

from harness.accounts import signed_up
from harness.browser import DESKTOP, SCREENSHOTS
from protocol.client import MatchClient, play_random
from tests.browser.conftest import NetPages
from tests.browser.net_support import no_overflow, play_the_computer


async def test_every_page_fits_a_phone(bot_net: NetPages) -> None:
    desk = await bot_net.new(DESKTOP, who="desktop", classic=False)
    match_id = await play_the_computer(desk, bot_net.base, "Ann", "money", "easy")
    await every_page_fits(bot_net, match_id)


async def every_page_fits(net: NetPages, bot_match: str) -> None:
    """Every page at 360 and 430 px wide, nothing wider than the screen: the profile of a
    player with a rated match (their own, signed in) first, then the lobby, a match watched,
    its replay, the dice check, the leaderboard, the rules, the hot-seat board and the demo."""
    ann = await signed_up(net.base, "annabel_longname")
    bob = await signed_up(net.base, "bob")
    created = await ann.post("/api/matches", {"mode": "match", "length": 1, "rated": True})
    rated = created.body["match"]
    joined = await bob.post(f"/api/matches/{rated}/join", {})
    ws = net.base.replace("http", "ws", 1) + "/ws"
    a = MatchClient(ws, rated, created.body["token"])
    b = MatchClient(ws, rated, joined.body["token"])
    async with a, b:
        await asyncio.gather(play_random(a, random.Random(1)), play_random(b, random.Random(2)))
    # And a rated hypergammon game: its rating is kept apart, in its own table on the profile.
    created = await ann.post(
        "/api/matches", {"mode": "match", "length": 1, "rated": True, "variant": "hypergammon"})
    joined = await bob.post(f"/api/matches/{created.body['match']}/join", {})
    a = MatchClient(ws, created.body["match"], created.body["token"])
    b = MatchClient(ws, created.body["match"], joined.body["token"])
    async with a, b:
        await asyncio.gather(play_random(a, random.Random(3)), play_random(b, random.Random(4)))
    for _ in range(100):
        if (await ann.get("/api/players/annabel_longname")).body["variants"]:
            break
        await asyncio.sleep(0.05)
    paths = [
        "/u/annabel_longname", "/", f"/m/{bot_match}#watch", f"/m/{rated}#watch",
        f"/m/{rated}/replay/1", f"/verify?match={rated}", "/leaderboard", "/rules", "/local",
        "/demo.html",
    ]
    for width in (360, 430):  # the narrowest and the widest phone (390 is checked above)
        page = await net.new({"width": width, "height": 844}, who=f"{width}px", classic=False)
        await page.context.add_cookies(
            [{"name": k, "value": v, "url": net.base} for k, v in ann.cookies.items()])
        for path in paths:
            await page.goto(f"{net.base}{path}")
            await page.locator("main").first.wait_for()
            await page.wait_for_load_state("networkidle")
            await no_overflow(page, width)
            if path == "/local":  # and a hot-seat game under way
                await page.click("button.start")
                await page.locator("svg.board").wait_for()
                await no_overflow(page, width)
        await page.goto(f"{net.base}{paths[0]}")
        await page.locator(".history-card").wait_for()
        row = page.locator(".variant-ratings tr[data-variant=hypergammon] td")
        cells = await row.all_inner_texts()
        assert cells[0] == "Hypergammon" and cells[2] == "1", cells
        assert float(cells[1]) in (1490.0, 1510.0), cells  # two newcomers, one point
        # The history names the variant in its match column (hidden on a phone's narrow table).
        assert "Hypergammon · " in (await page.locator(".history-card").text_content() or "")
        await page.screenshot(path=SCREENSHOTS / f"profile-history-{width}x844.png", full_page=True)
        # The history fits its card too (it would scroll inside it, cutting the Replay link).
        sizes = await page.locator(".history-card").evaluate(
            "e => [e.scrollWidth, e.clientWidth, e.querySelector('table').scrollWidth]")
        assert sizes[0] <= sizes[1], (width, sizes)
        await page.context.close()
