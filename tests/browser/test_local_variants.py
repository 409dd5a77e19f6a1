"""The hot-seat page (/local) plays every variant to its end: the variant picked in the setup,
one turn tapped on the board (the top seat's places too: the board is kept from one side), then
the game played on quickly through the page's own game (`window.fairgammon.game`: its legal
plays, and the empty play of a roll that cannot be played) until it ends; plakoto's pinned
checkers drawn under their pinners, fevga's sides at diagonally opposite corners, a Tavli
match's first game (portes, the roll-off winner rolling again) and its second (plakoto, opened
by the first game's winner). On a 360 px phone, nothing overflows."""

from __future__ import annotations

import time
from typing import Any

from playwright.async_api import Page

from harness.browser import SCREENSHOTS
from tests.browser.conftest import NetPages, stored_settings

VIEW = "window.fairgammon.game.current()"
PHONE_360 = {"width": 360, "height": 780}

# Play on until the game ends: a legal play each turn (the empty play when there is none),
# noting how many pinned checkers the board draws while plakoto has some.
PLAY_OUT = """async (stopAtPin) => {
  const g = window.fairgammon.game;
  let pinnedDrawn = 0, pinnedSeen = 0, plays = 0;
  for (let i = 0; i < 4000; i++) {
    const v = g.current();
    if (v.pinned && (v.pinned[0] || v.pinned[1])) {
      pinnedSeen++;
      pinnedDrawn += document.querySelectorAll('svg.board .checker.pinned').length;
      if (stopAtPin && v.phase === 'moving') return { paused: true };
    }
    if (v.phase === 'gameover') return { pinnedDrawn, pinnedSeen, plays, result: v.result };
    if (v.phase === 'decide') g.roll();
    else if (v.phase === 'moving' && !v.pending) {
      const legal = g.legalPlays();
      g.play(legal.length ? legal[i % legal.length] : []);
      plays++;
    }
    await new Promise((r) => setTimeout(r, 0));
  }
  return null;
}"""


# Start the next game and answer its first dice (roll 1).
NEXT_GAME = """() => new Promise((resolve) => {
  const g = window.fairgammon.game;
  const stop = g.subscribe((v) => {
    if (v.dice && v.dice.k === 1) {
      stop();
      resolve(v.dice);
    }
  });
  g.next();
})"""


async def view(page: Page) -> dict[str, Any]:
    return await page.evaluate(VIEW)


async def tap_one_turn(page: Page) -> None:
    """Tap movable checkers until the turn has gone out (quick moves, sent by themselves)."""
    scene = "window.fairgammon.app.scene"
    await page.wait_for_function(f"{VIEW}.phase === 'moving' && {scene}.interactive")
    before = await view(page)
    for _ in range(4):
        movable = await page.evaluate(f"{scene}.movable")
        if not movable or await page.evaluate(f"{scene}.turnComplete"):
            break
        await page.click(f'rect.hit[data-place="{movable[0]}"]')
    # The roll's index moves on with the next roll (a forced play may go out by itself before
    # the taps, which then play the next turn: the index still moved on).
    await page.wait_for_function(
        f"({VIEW}.dice && {VIEW}.dice.k !== {before['dice']['k']}) || {VIEW}.phase === 'gameover'"
    )


async def setup(page: Page, base: str, variant: str, mode: str, length: int = 1) -> None:
    await page.goto(f"{base}/local")
    await page.evaluate("localStorage.removeItem('fairgammon.local.v1')")
    await page.goto(f"{base}/local")
    await page.select_option("select[name=variant]", variant)
    await page.click(f"label[for=local-mode-{mode}]")
    if mode == "match":
        await page.fill("input[name=length]", str(length))
    await page.check("input[name=fixedSide]")
    await page.click("button.start")
    await page.wait_for_function(f"{VIEW}.phase === 'moving'")
    assert (await view(page))["variant"] == ("portes" if variant == "tavli" else variant)


async def no_overflow(page: Page) -> None:
    width = await page.evaluate("document.documentElement.scrollWidth - window.innerWidth")
    assert width <= 0, f"the page is {width} px too wide"


async def test_the_hot_seat_page_plays_every_variant(net: NetPages) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    page = await net.new(viewport=PHONE_360, who="phone", classic=False)
    # Fast play: a turn goes out 0.3 s after its last step (the default feel otherwise); the
    # home board on the left (the player's chosen direction mirrors every variant's board).
    await page.context.add_init_script(stored_settings({"fast": True, "homeLeft": True}))

    # The setup offers the variants; no money session without a cube, Tavli always a match.
    await page.goto(f"{net.base}/local")
    options = await page.locator("select[name=variant] option").evaluate_all(
        "os => os.map(o => o.value)"
    )
    assert options == [
        "backgammon", "nackgammon", "hypergammon", "portes", "plakoto", "fevga", "tavli"]
    await page.select_option("select[name=variant]", "plakoto")
    assert await page.locator("#local-mode-money").is_disabled()
    await page.select_option("select[name=variant]", "tavli")
    assert await page.locator("#local-mode-single").is_disabled()
    assert await page.locator("#local-mode-match").is_checked()
    await no_overflow(page)

    # Portes is played below as a Tavli match's first game.
    for variant, checkers in (("nackgammon", 15), ("hypergammon", 3), ("plakoto", 15),
                              ("fevga", 15)):
        began = time.monotonic()
        await setup(page, net.base, variant, "single")
        # Each side's checkers, all drawn: on the points, on the bar and borne off.
        totals = await page.evaluate(
            """() => { const s = window.fairgammon.app.scene;
              return [0, 1].map((seat) => s.points.reduce((n, st) => n + (st && st.seat === seat
                ? st.count : 0), 0) + s.bar[seat] + s.off[seat]); }"""
        )
        assert totals == [checkers, checkers]
        first = await view(page)
        # No cube in a single game; in the Greek games the roll-off winner rolled again (so the
        # first play is roll 2 or later).
        assert first["cube"]["enabled"] is False
        # (Which dice the first play has is Vitest's: a forced play may already have gone out.)
        if variant in ("plakoto", "fevga"):
            assert first["dice"]["k"] >= 2
        if variant == "fevga":
            # Diagonally opposite corners: the bottom seat on its 24 (top right), the top seat
            # on its 24 = the bottom's 12 (bottom left), drawn from seat 0's side.
            scene = await page.evaluate("window.fairgammon.app.scene.points")
            assert scene[24]["seat"] == 0 and scene[24]["count"] >= 13
            assert scene[12]["seat"] == 1 and scene[12]["count"] >= 13
            assert await page.evaluate(
                "document.querySelector('.fg-app').classList.contains('home-left')")
            await page.locator("svg.board").screenshot(path=SCREENSHOTS / "local-fevga-360.png")
        await tap_one_turn(page)
        if variant == "plakoto":  # a look at a pinned checker under its pinner
            assert (await page.evaluate(PLAY_OUT, True))["paused"]
            await page.locator("svg.board").screenshot(path=SCREENSHOTS / "local-plakoto-360.png")
        end = await page.evaluate(PLAY_OUT, False)
        assert end is not None, f"{variant}: the game did not end"
        if variant == "plakoto":
            assert end["pinnedSeen"] > 0 and end["pinnedDrawn"] >= end["pinnedSeen"]
        else:
            assert end["pinnedSeen"] == 0
        result = end["result"]
        status = await page.locator(".status").first.text_content()
        if result["winner"] is None:
            assert result["reason"] == "mothers" and "draw" in status
        else:
            assert 1 <= result["points"] <= (3 if variant in ("nackgammon", "hypergammon") else 2)
        await no_overflow(page)
        print(f"\n{variant}: {end['plays']} plays, {result}, {time.monotonic() - began:.1f} s")

    # A Tavli match: its first game is portes (played out), the next plakoto, opened by the
    # first game's winner rolling both dice (no roll-off).
    began = time.monotonic()
    await setup(page, net.base, "tavli", "match", 3)
    current = await view(page)
    assert current["variant"] == "portes" and current["match"]["variant"] == "tavli"
    assert current["dice"]["k"] >= 2  # the roll-off's winner rolled again
    await tap_one_turn(page)
    end = await page.evaluate(PLAY_OUT, False)
    result = end["result"]
    assert (result["points"] in (1, 2) and not result["matchOver"]) or max(result["score"]) >= 3
    first_dice = await page.evaluate(NEXT_GAME)
    assert first_dice["seat"] == result["winner"], (first_dice, result)
    await page.wait_for_function(f"{VIEW}.phase === 'moving'")
    second = await view(page)
    assert second["variant"] == "plakoto" and second["match"]["gameNo"] == 2
    assert second["match"]["score"] == result["score"]
    header = await page.locator(".matchinfo").first.text_content()
    assert "Tavli" in header and "Plakoto" in header, header
    print(f"tavli: portes {result['score']}, then plakoto, {time.monotonic() - began:.1f} s")
    await no_overflow(page)
