"""The hot-seat demo in a real Chromium: loading, moving by clicks, the move list, the keyboard,
undo/redo, route choices, the dice alarm, and screenshots on a phone and a desktop viewport."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote

from playwright.async_api import Page

from engine.position import Position
from engine.position_id import encode
from harness.browser import DESKTOP, PHONE, SCREENSHOTS, OpenDemo


async def state(page: Page) -> dict[str, Any]:
    """The GameView the board renders (the local driver's view)."""
    return await page.evaluate("window.fairgammon.game.current()")


async def targets(page: Page) -> list[int]:
    places = await page.eval_on_selector_all(
        "rect.hit.is-target", "els => els.map(e => Number(e.dataset.place))"
    )
    return sorted(places)


async def tap(page: Page, place: int) -> None:
    await page.click(f'rect.hit[data-place="{place}"]')


async def options(page: Page) -> list[str]:
    return await page.eval_on_selector_all(
        ".movelist button.opt", "els => els.map(e => e.textContent.replace(/\\s+/g, ' ').trim())"
    )


async def test_demo_loads_with_verified_fair_dice(open_demo: OpenDemo) -> None:
    page = await open_demo("clock=0")
    await page.wait_for_selector(".check.verified")
    view = await state(page)
    assert view["phase"] == "moving"
    assert view["dice"]["check"] == "verified"
    assert len(view["fairness"]["commitments"][0]) == 64
    assert await page.locator("svg.board .checker").count() == 30
    assert await page.locator(".badge.spectating").is_hidden()
    assert await page.locator(".pips").all_inner_texts() == ["167 pips", "167 pips"]
    # The player on roll has a move list, each option naming its die.
    assert all(" die " in f" {o} " for o in await options(page))


async def test_a_full_turn_by_tapping_source_then_destination(open_demo: OpenDemo) -> None:
    page = await open_demo("dice=31,52&clock=0")
    assert (await state(page))["turn"] == 0
    await tap(page, 8)
    assert await targets(page) == [4, 5, 7]
    await tap(page, 5)
    await tap(page, 6)
    await tap(page, 5)
    end = page.locator("button.end")
    assert await end.is_enabled()
    await end.click()
    view = await state(page)
    assert view["boards"][0][5] == 2 and view["boards"][0][8] == 2 and view["boards"][0][6] == 4
    # Copper's turn in a match with the cube centred: double or roll. The board turns to Copper.
    assert view["turn"] == 1 and view["phase"] == "decide" and view["viewer"] == 1
    await page.click("button.roll")
    await page.wait_for_function("window.fairgammon.game.current().phase === 'moving'")
    assert (await state(page))["dice"]["values"] == [5, 2]
    await tap(page, 13)
    await tap(page, 8)
    await tap(page, 13)
    await tap(page, 11)
    await page.keyboard.press("e")
    view = await state(page)
    assert view["turn"] == 0
    assert view["boards"][1][13] == 3 and view["boards"][1][8] == 4 and view["boards"][1][11] == 1


async def test_move_list_names_dice_bar_and_off(open_demo: OpenDemo) -> None:
    page = await open_demo("dice=31&clock=0")
    assert await options(page) == [
        "24/21 die 3",
        "24/23 die 1",
        "13/10 die 3",
        "8/5 die 3",
        "8/7 die 1",
        "6/3 die 3",
        "6/5 die 1",
    ]
    await page.click(".movelist button.opt >> text=13/10")
    assert await page.locator('.movelist button[aria-pressed="true"]').count() == 1
    assert await targets(page) == [9, 10]  # 12 is blocked; 9 goes over the open 10
    await page.click("button.play")
    assert (await state(page))["phase"] == "moving"
    assert await page.locator(".movelist button.opt").count() > 0
    assert all(o.endswith("die 1") for o in await options(page))

    entering = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 12: 11})
    page = await open_demo(f"position={encode(entering)}&dice=65&clock=0&mode=single")
    assert await options(page) == ["Bar/19 die 6", "Bar/20 die 5"]
    bearing = Position.from_points({6: 2, 5: 3, 2: 1}, {24: 5})
    page = await open_demo(f"position={encode(bearing)}&dice=64&clock=0&mode=single")
    listed = await options(page)
    assert "6/Off die 6" in listed and "6/2 die 4" in listed


async def test_keyboard_only_turn(open_demo: OpenDemo) -> None:
    page = await open_demo("dice=31,52&clock=0")
    await page.keyboard.press("Tab")  # the board's roving focus starts on point 1
    assert await page.evaluate("document.activeElement.dataset.place") == "1"
    for _ in range(7):
        await page.keyboard.press("ArrowLeft")
    assert await page.evaluate("document.activeElement.dataset.place") == "8"
    await page.keyboard.press("Enter")
    assert await targets(page) == [4, 5, 7]
    for _ in range(3):
        await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Enter")  # 8/5
    await page.keyboard.press("ArrowLeft")
    await page.keyboard.press(" ")  # select 6
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Enter")  # 6/5
    await page.keyboard.press("ArrowUp")
    assert await page.evaluate("document.activeElement.dataset.place") == "20"
    await page.keyboard.press("e")
    view = await state(page)
    assert view["turn"] == 1 and view["boards"][0][5] == 2
    await page.keyboard.press("d")  # Copper rolls
    await page.wait_for_function("window.fairgammon.game.current().phase === 'moving'")
    # Escape clears a selection; B selects the bar (nothing there: no selection).
    await page.keyboard.press("Tab")
    await page.keyboard.press("Escape")
    assert await page.locator(".checker.sel").count() == 0


async def test_keys_b_for_the_bar_and_o_to_bear_off(open_demo: OpenDemo) -> None:
    entering = Position.from_points({25: 1, 6: 14}, {1: 2, 2: 2, 12: 11})
    page = await open_demo(f"position={encode(entering)}&dice=65&clock=0&mode=single")
    await page.keyboard.press("b")
    assert await page.locator(".checker.sel").count() == 1
    assert await targets(page) == [14, 19, 20]
    for _ in range(4):  # from point 1 along the bottom row, then up: 20 is above 5
        await page.keyboard.press("ArrowLeft")
    await page.keyboard.press("ArrowUp")
    assert await page.evaluate("document.activeElement.dataset.place") == "20"
    await page.keyboard.press("Enter")
    assert await page.locator(".sr-only").inner_text() == "Moved Bar/20 with the 5"
    assert (await state(page))["phase"] == "moving"

    bearing = Position.from_points({6: 1, 4: 2, 1: 1}, {23: 5})
    page = await open_demo(f"position={encode(bearing)}&dice=64&clock=0&mode=single")
    await page.keyboard.press("Tab")
    for _ in range(5):
        await page.keyboard.press("ArrowLeft")
    await page.keyboard.press("Enter")  # select the 6-point
    await page.keyboard.press("o")
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("ArrowRight")
    await page.keyboard.press("Enter")  # select the 4-point
    await page.keyboard.press("o")
    assert await page.locator(".player.bottom .pips").inner_text() == "5 pips"
    assert await page.locator("svg.board .slab.s0").count() == 13


async def test_undo_and_redo_within_the_turn(open_demo: OpenDemo) -> None:
    page = await open_demo("dice=42&clock=0")
    undo, redo = page.locator("button.undo"), page.locator("button.redo")
    assert not await undo.is_enabled()
    await tap(page, 8)
    await tap(page, 4)
    await tap(page, 6)
    await tap(page, 4)
    pips = page.locator(".player.bottom .pips")
    assert await pips.inner_text() == "161 pips"
    await undo.click()
    assert await pips.inner_text() == "163 pips"
    await page.keyboard.press("u")
    assert await pips.inner_text() == "167 pips"
    assert not await undo.is_enabled()
    assert await redo.is_enabled()
    await redo.click()
    await page.keyboard.press("r")
    assert await pips.inner_text() == "161 pips"
    assert await page.locator("button.end").is_enabled()
    # Nothing was sent: the turn is still Ivory's until End turn.
    assert (await state(page))["turn"] == 0


async def test_drag_a_checker_on_desktop(open_demo: OpenDemo) -> None:
    page = await open_demo("dice=31&clock=0")

    async def centre(place: int) -> tuple[float, float]:
        box = await page.locator(f'rect.hit[data-place="{place}"]').bounding_box()
        assert box is not None
        return box["x"] + box["width"] / 2, box["y"] + box["height"] * 0.75

    x, y = await centre(13)
    await page.mouse.move(x, y)
    await page.mouse.down()
    tx, ty = await centre(10)
    await page.mouse.move((x + tx) / 2, (y + ty) / 2, steps=4)
    assert await page.locator("svg.board.dragging").count() == 1
    assert await targets(page) == [9, 10]
    await page.mouse.move(tx, ty, steps=4)
    await page.mouse.up()
    assert await page.locator("svg.board.dragging").count() == 0
    assert await page.locator(".player.bottom .pips").inner_text() == "164 pips"
    # A drop on a point that is not a destination changes nothing.
    x, y = await centre(6)
    await page.mouse.move(x, y)
    await page.mouse.down()
    tx, ty = await centre(1)
    await page.mouse.move(tx, ty, steps=6)
    await page.mouse.up()
    assert await page.locator(".player.bottom .pips").inner_text() == "164 pips"


async def test_checkers_slide_unless_motion_is_reduced(open_demo: OpenDemo) -> None:
    # Count the checker animations started (robust to how fast the machine runs them).
    spy = """() => {
        window.slides = 0;
        const animate = Element.prototype.animate;
        Element.prototype.animate = function (...args) {
            if (this.classList.contains('checker')) window.slides++;
            return animate.apply(this, args);
        };
    }"""
    page = await open_demo("dice=31&clock=0", motion="no-preference")
    await page.evaluate(spy)
    await tap(page, 8)
    await tap(page, 5)
    assert await page.evaluate("window.slides") == 1
    calm = await open_demo("dice=31&clock=0")
    await calm.evaluate(spy)
    await tap(calm, 8)
    await tap(calm, 5)
    assert await calm.evaluate("window.slides") == 0


async def test_auto_confirm_setting_ends_the_turn(open_demo: OpenDemo) -> None:
    page = await open_demo("dice=31&clock=0&mode=single")
    await page.click("details.settings summary")
    await page.check('input[name="autoConfirm"]')
    assert await page.locator("button.end").is_hidden()
    await tap(page, 8)
    await tap(page, 5)
    assert (await state(page))["turn"] == 0
    await tap(page, 6)
    await tap(page, 5)
    await page.wait_for_function("window.fairgammon.game.current().turn === 1")
    stored = await page.evaluate("localStorage.getItem('fairgammon.settings.v1')")
    assert '"autoConfirm":true' in stored


async def test_a_sent_play_waits_for_the_answer_and_a_refusal_restores(
    open_demo: OpenDemo,
) -> None:
    page = await open_demo("dice=31&clock=0&mode=single&latency=1500&refuse=1")
    pips = page.locator(".player.bottom .pips")
    for place in (8, 5, 6, 5):
        await tap(page, place)
    await page.click("button.end")
    assert await page.locator(".status").inner_text() == "Sending your move…"
    assert await page.locator("button.undo").is_hidden()  # input frozen while pending
    assert (await state(page))["turn"] == 0
    await page.wait_for_function("!window.fairgammon.game.current().pending")
    assert "refused" in await page.locator(".toast").inner_text()
    assert await pips.inner_text() == "167 pips"  # the board is back where the server has it
    for place in (8, 5, 6, 5):
        await tap(page, place)
    await page.keyboard.press("e")
    await page.wait_for_function("window.fairgammon.game.current().turn === 1")
    assert (await state(page))["boards"][0][5] == 2


async def test_spectator_view_is_read_only_with_presence_and_watchers(
    open_demo: OpenDemo,
) -> None:
    page = await open_demo("spectate=1&watchers=3&presence=online,reconnecting&dice=31&clock=30")
    await page.wait_for_function("window.fairgammon.game.current().phase === 'moving'")
    assert await page.locator(".badge.watchers").inner_text() == "3 watching"
    assert await page.locator(".badge.spectating").is_visible()
    away = await page.locator(".player.top .presence").inner_text()
    assert re.fullmatch(r"reconnecting · forfeits in (1:00|0:5\d)", away), away
    assert await page.locator(".player.bottom .pname").inner_text() == "Ivory"
    assert await page.locator(".movelist button.opt").count() == 0
    assert await page.locator("section.moves").is_hidden()
    assert await page.locator("button.end").is_hidden()
    await tap(page, 8)
    assert await page.locator(".checker.sel").count() == 0
    assert await page.locator(".player.bottom .clock.running").count() == 1
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await page.screenshot(path=SCREENSHOTS / "spectator-1440x900.png")


async def test_route_choice_between_hitting_and_not(open_demo: OpenDemo) -> None:
    position = Position.from_points({24: 1, 6: 14}, {7: 1, 2: 14})
    page = await open_demo(f"position={encode(position)}&dice=65&clock=0&mode=single")
    await tap(page, 24)
    assert 13 in await targets(page)
    await tap(page, 13)
    choice = page.locator(".choice button.choose")
    assert sorted(await choice.all_inner_texts()) == [
        "24/18*/13\ndie 6 then 5",
        "24/19/13\ndie 5 then 6",
    ]
    await page.click(".choice button.choose >> text=24/18*/13")
    await page.click("button.end")
    view = await state(page)
    assert view["boards"][1][25] == 1  # Copper's blot was hit


async def test_dice_mismatch_raises_the_alarm(open_demo: OpenDemo) -> None:
    page = await open_demo("tamper=1&clock=0")
    await page.wait_for_selector(".check.alarm")
    assert "ALARM" in await page.locator(".check").inner_text()
    assert await page.locator("svg.board .dicecheck.alarm").count() == 1


async def test_screenshots_phone_and_desktop(open_demo: OpenDemo) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    midgame = Position.from_points(
        {25: 1, 24: 1, 13: 3, 8: 2, 6: 6, 5: 2}, {22: 2, 13: 4, 8: 3, 6: 3, 4: 1}
    )
    last_checker = Position.from_points({2: 1}, {1: 13, 6: 2})
    for name, viewport in (("390x844", PHONE), ("1440x900", DESKTOP)):
        page = await open_demo("dice=31&clock=60", viewport=viewport)
        await tap(page, 8)
        await page.screenshot(path=SCREENSHOTS / f"board-{name}.png")
        page = await open_demo(
            f"position={encode(midgame)}&dice=44&clock=45", viewport=viewport, scheme="dark"
        )
        await page.keyboard.press("b")
        await page.screenshot(path=SCREENSHOTS / f"board-dark-{name}.png")
        width = await page.evaluate("document.documentElement.scrollWidth")
        assert width <= viewport["width"], "the page scrolls sideways"
        box = await page.locator("svg.board").bounding_box()
        share = 0.9 if viewport is PHONE else 0.5
        assert box is not None and box["width"] >= viewport["width"] * share
        assert (SCREENSHOTS / f"board-{name}.png").stat().st_size > 10_000

        page = await open_demo(f"position={encode(last_checker)}&dice=21", viewport=viewport)
        await tap(page, 2)
        await tap(page, 0)
        await page.keyboard.press("e")
        result = page.locator(".result")
        await result.wait_for()
        assert await result.locator("h2").inner_text() == "Ivory wins a gammon"
        assert "2 points" in await result.inner_text()
        assert await page.locator(".matchbox .score").inner_text() == "Ivory 2 – 0 Copper"
        await page.screenshot(path=SCREENSHOTS / f"result-{name}.png")


async def test_no_sideways_scrolling_at_common_sizes(open_demo: OpenDemo) -> None:
    for width, height in ((360, 740), (844, 390), (1024, 768), (1920, 1080)):
        page = await open_demo("dice=31&clock=30", viewport={"width": width, "height": height})
        assert await page.evaluate("document.documentElement.scrollWidth") <= width
        board = await page.locator("svg.board").bounding_box()
        assert board is not None and board["x"] >= 0 and board["x"] + board["width"] <= width
        if width > height:  # landscape: the whole board fits on the screen without scrolling
            assert board["y"] + board["height"] <= height
        await page.context.close()


async def test_a_whole_game_through_the_move_list(open_demo: OpenDemo) -> None:
    """Both players always play the first listed step until someone has borne off all 15."""
    page = await open_demo("mode=single&clock=0")
    turns = 0
    while turns < 400:
        await page.wait_for_function(
            "['moving', 'gameover'].includes(window.fairgammon.game.current().phase)"
            " && !window.fairgammon.game.current().pending"
        )
        view = await state(page)
        if view["phase"] == "gameover":
            break
        if await page.locator(".movelist button.opt").count() == 0:
            # No legal move: the turn passes by itself after a short notice.
            await page.wait_for_function(
                f"window.fairgammon.game.current().dice?.k !== {view['dice']['k']}"
                " || window.fairgammon.game.current().phase === 'gameover'"
            )
            continue
        while await page.locator(".movelist button.opt").count():
            first = page.locator(".movelist button.opt").first
            await first.click()  # pick
            await first.click()  # play
        assert await page.locator("button.end").is_enabled()
        await page.keyboard.press("e")
        turns += 1
    view = await state(page)
    assert view["phase"] == "gameover", f"no result after {turns} turns"
    result = view["result"]
    assert view["boards"][result["winner"]][0] == 15
    assert result["reason"] in ("single", "gammon", "backgammon")
    assert result["matchOver"] is True
    await page.locator(".result h2").wait_for()
    assert "wins" in await page.locator(".result h2").inner_text()


async def test_a_forced_play_goes_by_itself_and_resigning_asks_first(open_demo: OpenDemo) -> None:
    """A roll with one legal play goes out by itself with the default feel and with fast play
    (nothing to choose, nothing to wait for), never with End turn by hand. Resigning asks first,
    and warns when the game cannot be lost that badly; Cancel sends nothing."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # Bar/20/14 is the only play of 6-5: the 19-point is blocked, and 20/14 then the only 6.
    forced = quote(encode(Position.from_points({25: 1, 6: 14}, {6: 2, 1: 2, 2: 2, 12: 9})), safe="")
    query = f"position={forced}&dice=65,31&clock=0&mode=single"
    passed = "window.fairgammon.game.current().turn === 1"
    for settings in ({}, {"autoConfirm": False, "fast": True}):
        page = await open_demo(query, settings=settings)
        await page.wait_for_function(passed, timeout=5_000)
        ivory = (await state(page))["boards"][0]
        assert ivory[25] == 0 and ivory[14] == 1, (settings, ivory)
        await page.context.close()
    page = await open_demo(query)  # the classic feel: End turn by hand
    await page.wait_for_timeout(800)
    assert (await state(page))["turn"] == 0 and await page.locator(".movelist button.opt").count()
    await page.context.close()

    # One checker left against fifteen on the 6-point: Ivory cannot lose.
    sure = quote(encode(Position.from_points({1: 1}, {6: 15})), safe="")
    phone = await open_demo(f"position={sure}&dice=21&clock=0&mode=single", viewport=PHONE)
    await phone.click("details.more summary")
    await phone.click("button.resign-1")
    ask = phone.locator(".resign-ask")
    assert "Resign a single game? Copper wins 1 point." in await ask.inner_text()
    assert "You cannot lose this game" in await ask.locator(".warn").inner_text()
    await ask.scroll_into_view_if_needed()
    await phone.screenshot(path=SCREENSHOTS / "resign-warning-390x844.png")
    await phone.click(".resign-ask button.cancel-resign")
    assert await ask.is_hidden()
    after = await state(phone)
    assert after["phase"] == "moving" and after["offer"] is None

    # Fifteen checkers home against three: a single game may be lost, a gammon cannot.
    race = quote(encode(Position.from_points({1: 15}, {6: 3})), safe="")
    desk = await open_demo(f"position={race}&dice=21&clock=0&mode=single")
    await desk.click("details.more summary")
    await desk.click("button.resign-2")
    warn = await desk.locator(".resign-ask .warn").inner_text()
    assert warn.startswith("You cannot lose a gammon here"), warn
    await desk.screenshot(path=SCREENSHOTS / "resign-warning-1440x900.png")
    assert (await state(desk))["offer"] is None  # nothing is sent before the confirmation
    await desk.click(".resign-ask button.confirm-resign")
    await desk.wait_for_function("window.fairgammon.game.current().offer !== null")
    assert (await state(desk))["offer"]["level"] == 2
