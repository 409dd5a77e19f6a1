"""Two players on one device at /local, served by a real server: the setup, a turn played with
quick taps, pause, the game saved in the browser (reload → Resume), the same offline through
the service worker, the installable manifest, /rules, achievements and the storage warning."""

from __future__ import annotations

from typing import Any

from playwright.async_api import Page

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from tests.browser.conftest import NetPages

VIEW = "window.fairgammon.game.current()"


async def view(page: Page) -> dict[str, Any]:
    return await page.evaluate(VIEW)


async def play_one_turn(page: Page) -> None:
    """Tap the furthest movable checker until the turn is complete (it goes out by itself)."""
    scene = "window.fairgammon.app.scene"
    await page.wait_for_function(f"{VIEW}.phase === 'moving' && {scene}.interactive")
    turn = (await view(page))["turn"]
    for _ in range(4):
        movable = await page.evaluate("window.fairgammon.app.scene.movable")
        if not movable or await page.evaluate("window.fairgammon.app.scene.turnComplete"):
            break
        await page.click(f'rect.hit[data-place="{movable[0]}"]')
    await page.wait_for_function(f"{VIEW}.turn !== {turn} && {VIEW}.phase !== 'rolling'")


async def test_hot_seat_setup_play_pause_reload_resume_and_offline(net: NetPages) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = await net.new(viewport=PHONE, who="phone", classic=False)
    await page.goto(f"{net.base}/local")
    await page.fill("input[name=name0]", "Ann")
    await page.fill("input[name=name1]", "Ann")  # the same name twice: told apart
    await page.check("#local-mode-match")
    await page.fill("input[name=length]", "3")
    assert await page.locator("select[name=clock]").input_value() == "0"  # no clock by default
    await page.screenshot(path=SCREENSHOTS / "local-setup-390x844.png")
    await page.click("button.start")
    await page.wait_for_function(f"{VIEW}.phase === 'moving'")
    names = [p["name"] for p in (await view(page))["players"]]
    assert names == ["Ann", "Ann 2"]
    # Both players sit at this screen: their bars say nothing of being online.
    assert [await p.is_visible() for p in await page.locator(".player .presence").all()] == [
        False, False]
    assert await page.locator(".player .clock").first.is_hidden()
    await play_one_turn(page)
    await page.wait_for_function(f"['decide', 'moving'].includes({VIEW}.phase)")
    assert await page.locator(".achievements li.earned[data-id=first-move]").count() == 1

    # Pause hides the position; P again brings it back.
    await page.keyboard.press("p")
    assert await page.locator(".paused-cover").is_visible()
    hidden = "e => getComputedStyle(e).visibility === 'hidden'"
    assert await page.locator("svg.board").evaluate(hidden)
    await page.screenshot(path=SCREENSHOTS / "local-paused-390x844.png")
    await page.keyboard.press("p")
    assert await page.locator(".paused-cover").is_hidden()
    # Play goes on by itself (a cube question paused on rolls by itself after Resume).
    await page.wait_for_function(f"{VIEW}.phase === 'moving'")

    # The manifest passes Chromium's checks and the service worker controls the page.
    cdp = await page.context.new_cdp_session(page)
    manifest = await cdp.send("Page.getAppManifest")
    assert manifest["errors"] == [], manifest["errors"]
    assert '"short_name": "fairgammon"' in manifest["data"]
    await page.wait_for_function("navigator.serviceWorker.controller !== null")
    installability = await cdp.send("Page.getInstallabilityErrors")
    print("\ninstallability errors:", installability["installabilityErrors"])
    blocking = [e for e in installability["installabilityErrors"] if e["errorId"] != "in-incognito"]
    assert blocking == [], blocking

    # A reload comes back to the same game, waiting for Resume.
    await page.wait_for_function(f"['decide', 'moving'].includes({VIEW}.phase)")
    saved = await view(page)
    await page.reload()
    await page.locator("button.resume").wait_for()
    assert "Ann vs Ann 2 · match to 3" in await page.locator(".local-resume").inner_text()
    await page.click("button.resume")
    await page.wait_for_function("window.fairgammon && window.fairgammon.game")
    again = await view(page)
    assert again["boards"] == saved["boards"] and again["turn"] == saved["turn"]
    assert again["dice"] == saved["dice"] and again["phase"] == saved["phase"]

    # Offline: the service worker serves the shell; the game resumes and goes on.
    net.tolerate_network_errors = True
    await page.context.set_offline(True)
    await page.reload()
    await page.locator("button.resume").wait_for()
    await page.click("button.resume")
    await page.wait_for_function(f"['decide', 'moving'].includes({VIEW}.phase)")
    before = (await view(page))["turn"]
    if (await view(page))["phase"] == "decide":
        await page.click("button.roll")
    await play_one_turn(page)
    assert (await view(page))["turn"] != before
    await page.screenshot(path=SCREENSHOTS / "local-offline-390x844.png")
    await page.goto(f"{net.base}/rules")  # offline too
    assert await page.locator("h1").inner_text() == "How to play backgammon"
    await page.context.set_offline(False)
    await page.goto(f"{net.base}/")  # the lobby offers the saved game back
    assert await page.locator("a[href='/local']").inner_text() == "Resume the game on this device"


async def test_rules_page_and_the_storage_warning(net: NetPages) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    for name, viewport in (("390x844", PHONE), ("1440x900", DESKTOP)):
        page = await net.new(viewport=viewport, who=name)
        await page.goto(f"{net.base}/rules")
        text = await page.locator("main").inner_text()
        for words in (
            "doubling cube",
            "64",
            "gammon",
            "Crawford",
            "Jacoby",
            "beaver",
            "30 seconds",
            "forfeit",
            "nobody can fix our dice",
            "Verify the dice",
        ):
            assert words.lower() in text.lower(), words
        assert await page.locator(".storage-warning").count() == 0
        await page.screenshot(path=SCREENSHOTS / f"rules-{name}.png")
        await page.goto(f"{net.base}/")
        await page.click("a[href='/rules']")
        await page.wait_for_url("**/rules")
        await page.context.close()
    # A browser that refuses site data: every page says so.
    page = await net.new(who="nostorage")
    await page.context.add_init_script(
        "Storage.prototype.setItem = function () {"
        " throw new DOMException('denied', 'SecurityError'); }"
    )
    for path in ("/", "/local", "/rules"):
        await page.goto(f"{net.base}{path}")
        await page.locator(".storage-warning").wait_for()
