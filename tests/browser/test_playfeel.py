"""The play feel in a real Chromium with the player's default settings: taps per turn over a
whole game, a double that asks first, and nothing (offer, notice, result) over the board on a
phone and on a desktop."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from playwright.async_api import Page

from engine.position import Position
from engine.position_id import encode
from harness.browser import DESKTOP, NEXT_TAP, PHONE, SCREENSHOTS

Opener = Callable[..., Awaitable[Page]]


@pytest.fixture
def feel(open_demo: Opener) -> Opener:
    """Open demo.html?QUERY with the default play feel, a few settings overridden."""

    async def opener(query: str, viewport: dict[str, int] | None = None, **settings: Any) -> Page:
        return await open_demo(query, viewport, settings=settings)

    return opener


async def tap(page: Page, place: int) -> None:
    await page.click(f'rect.hit[data-place="{place}"]')


def overlaps(a: dict[str, float], b: dict[str, float]) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


async def assert_beside_board(page: Page, selector: str) -> None:
    box = await page.locator(selector).bounding_box()
    board = await page.locator("svg.board").bounding_box()
    assert box is not None and board is not None, selector
    assert not overlaps(box, board), f"{selector} {box} covers the board {board}"


async def test_a_whole_game_costs_at_most_three_taps_a_turn(feel: Opener) -> None:
    """Two players tap a movable checker, the furthest back (one tap a step; a race keeps the
    game short), until the game is over; each turn goes out by itself and the dice roll by
    themselves (the cube stays centred: money)."""
    page = await feel("mode=money&clock=0", pauseMs=40)
    # Where each place is on the screen (the board does not move during the game): a tap is
    # then one mouse click, which keeps this whole game quick.
    centre: dict[int, tuple[float, float]] = {}
    for rect in await page.locator("rect.hit").all():
        box = await rect.bounding_box()
        assert box is not None
        place = int(await rect.get_attribute("data-place") or -1)
        centre[place] = (box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.75)
    taps = turns = steps = decisions = 0
    seen: set[tuple[int, int]] = set()
    for _ in range(2000):
        s = await page.evaluate(NEXT_TAP)
        decisions += s["decisions"]  # Roll/Double questions nobody had to answer
        if s["phase"] == "gameover":
            break
        if (s["k"], s["turn"]) not in seen:
            seen.add((s["k"], s["turn"]))
            turns += 1
        x, y = centre[s["movable"][0]]
        await page.mouse.click(x, y)
        taps += 1
        steps += 1
    assert s["phase"] == "gameover", f"no result after {turns} turns"
    assert s["off"][s["winner"]] == 15
    per_turn = taps / turns
    # The same plays the classic way: 2 taps a step, End turn, and Roll at every cube question.
    classic = (2 * steps + turns + decisions) / turns
    print(f"\ntaps per turn: {per_turn:.2f} ({taps} taps, {turns} turns; classic {classic:.2f})")
    assert turns >= 20
    assert per_turn <= 3


async def test_double_asks_first_and_nothing_covers_the_board(feel: Opener) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    last_checker = Position.from_points({2: 1}, {1: 13, 6: 2})
    for name, viewport in (("390x844", PHONE), ("1440x900", DESKTOP)):
        page = await feel("dice=31,52&clock=30&mode=match", viewport, autoRoll=False, pauseMs=300)
        # The opening roll's notice sits in the status line, not over the checkers or the cube.
        await page.locator(".toast.show").wait_for()
        assert "opening roll" in await page.locator(".toast").inner_text()
        await assert_beside_board(page, ".toast.show")
        await tap(page, 8)
        await tap(page, 6)  # 8/5 6/5: two taps, sent by itself
        await page.wait_for_function("window.fairgammon.game.current().turn === 1")
        # Copper: Double is smaller than Roll and asks before anything is offered.
        double, roll = page.locator("button.double"), page.locator("button.roll")
        dbox, rbox = await double.bounding_box(), await roll.bounding_box()
        assert dbox and rbox and dbox["height"] < rbox["height"]
        await double.click()
        assert (await page.evaluate("window.fairgammon.game.current().phase")) == "decide"
        assert await roll.is_hidden()
        await page.click("button.cancel-double")
        assert await roll.is_visible()
        await double.click()
        await page.click("button.confirm-double")
        offer = page.locator(".offer")
        await offer.wait_for()
        await assert_beside_board(page, ".offer")
        assert await page.locator("svg.board .cube.offered").is_visible()
        await page.screenshot(path=SCREENSHOTS / f"playfeel-offer-{name}.png")
        await page.click(".offer button.take")
        await page.wait_for_function("window.fairgammon.game.current().phase === 'moving'")
        await page.context.close()

        # The result: beside the board too, and it folds away with Next game at hand.
        page = await feel(f"position={encode(last_checker)}&dice=21", viewport, pauseMs=100)
        await tap(page, 0)  # the tray: 2/1/Off, the one way there, in one tap; sent by itself
        result = page.locator(".result")
        await result.wait_for()
        await assert_beside_board(page, ".result")
        await page.screenshot(path=SCREENSHOTS / f"playfeel-result-{name}.png")
        await page.click(".result button.close")
        assert await page.locator(".result .points").is_hidden()
        assert await page.locator(".result button.next").is_visible()
        assert await page.evaluate("document.documentElement.scrollWidth") <= viewport["width"]
        await page.context.close()


async def test_phone_layout_board_options_and_a_board_kept_from_one_side(feel: Opener) -> None:
    # A phone: the board edge to edge, the header in at most two lines with a badge showing.
    page = await feel("dice=31&clock=30&mode=money&watchers=3", PHONE)
    board = await page.locator("svg.board").bounding_box()
    header = await page.locator("header.topbar").bounding_box()
    assert board and header
    point = board["width"] * 64 / 964  # a point's width on screen (geometry.ts: W = 964)
    print(f"\nphone 390 px: point {point:.1f} px, checker {point * 58 / 64:.1f} px wide")
    assert board["width"] >= 380 and point >= 25
    assert header["height"] <= 64, header  # two lines at most
    await page.screenshot(path=SCREENSHOTS / "playfeel-board-390x844.png")
    await page.context.close()

    # Home board on the left: the board is mirrored, taps still land where they are drawn.
    page = await feel("dice=31&clock=0&mode=single", DESKTOP, homeLeft=True, swapColours=True)
    one = await page.locator('rect.hit[data-place="1"]').bounding_box()
    board = await page.locator("svg.board").bounding_box()
    assert one and board and one["x"] < board["x"] + board["width"] / 2
    await tap(page, 8)
    steps = "window.fairgammon.app.ui.turn.steps.map(s => [s.from, s.to, s.die])"
    assert await page.evaluate(steps) == [[8, 5, 3]]
    stop = "getComputedStyle(document.querySelector('.board .c0-b')).stopColor"
    assert await page.evaluate(stop) == "rgb(180, 95, 44)"  # ivory's checkers drawn copper
    await page.screenshot(path=SCREENSHOTS / "playfeel-homeleft-1440x900.png")
    await page.context.close()

    # Two players on one device, the board kept from Ivory's side: Copper plays from the top.
    page = await feel("dice=13,52&clock=0&mode=single&side=0", PHONE)
    await page.wait_for_function("window.fairgammon.game.current().turn === 1")
    assert await page.locator(".player.bottom .pname").inner_text() == "Ivory"
    await tap(page, 17)  # Copper's 8-point, drawn at Ivory's 17
    assert await page.evaluate(steps) == [[8, 5, 3]]
    await page.context.close()

    # A spectator may see the board from the second player's side.
    page = await feel("spectate=1&dice=31&clock=0", DESKTOP, flipSpectator=True)
    assert await page.locator(".player.bottom .pname").inner_text() == "Copper"
    await page.context.close()
