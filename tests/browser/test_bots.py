"""Playing the computer in Chromium, against a real server with its bot worker: one click from
the lobby (level and match options), the match page shows the level, the computer thinking and
the hint panel; a double is answered by the bot; a whole match to 1 against Easy with the quick
play feel, our double answered, its result on the page and its transcript verified; screenshots
on a phone and a desktop."""

from __future__ import annotations

import asyncio
import json
import re
import time

import pytest_asyncio
from playwright.async_api import Browser, Page

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from protocol.client.lobby import get, get_text
from protocol.fairdice import verify_json
from tests.browser.conftest import NetPages, served_pages
from tests.browser.net_support import Seat, leave_match, play, view


@pytest_asyncio.fixture
async def bot_net(dist, browser: Browser, redis_url):
    """A real server with its bot worker (a visible think time, so the page can show it)."""
    bots = {"FAIRGAMMON_BOTS": "1", "FAIRGAMMON_BOT_DELAY_MS": "400"}
    async with served_pages(browser, redis_url, **bots) as (_, pages):
        yield pages


async def play_the_computer(
    page: Page, base: str, name: str, mode: str, level: str, length: int | None = None
) -> str:
    await page.goto(f"{base}/")
    await page.fill("input[name=name]", name)
    await page.click(f"label[for=mode-{mode}]")
    if length is not None:
        await page.fill("input[name=length]", str(length))
    await page.click(f"label[for=level-{level}]")
    await page.click("button.play-bot")
    await page.wait_for_url(re.compile(r".*/m/[0-9a-f]{32}$"))
    await page.wait_for_function("window.fairgammon && window.fairgammon.session.caughtUp")
    return page.url.rsplit("/", 1)[1]


def my_move(views) -> bool:
    v = views[0]
    return v["phase"] == "moving" and v["turn"] == v["viewer"] and not v["pending"]


async def show_hint(page: Page) -> list[str]:
    await page.click(".hint-panel button.hint")
    await page.locator(".hint-plays li").first.wait_for()
    return await page.eval_on_selector_all(".hint-plays li", "els => els.map(e => e.innerText)")


async def test_play_the_computer_from_the_lobby(bot_net: NetPages) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    desk = await bot_net.new(DESKTOP, who="desktop")
    await desk.goto(f"{bot_net.base}/")
    await desk.locator(".bot-choice").wait_for()
    await desk.screenshot(path=SCREENSHOTS / "bots-lobby-1440x900.png")
    await play_the_computer(desk, bot_net.base, "Ann", "money", "easy")

    # The level, under the computer's name, and its seat taken at once.
    panel = desk.locator(".bot-panel")
    await panel.wait_for()
    assert await panel.locator(".bot-level").inner_text() == "Easy"
    await desk.wait_for_function(
        "window.fairgammon.session.tracker.names[1] === 'Computer (Easy)'")

    # Play until it is our move; the first time we may, we double (the bot must answer).
    ann = Seat(desk, double_next=True)
    await play([ann], my_move, timeout=60)
    plays = await show_hint(desk)
    assert 1 <= len(plays) <= 3 and all(re.search(r"[+−]\d\.\d{3}", p) for p in plays)
    await desk.screenshot(path=SCREENSHOTS / "bots-hint-1440x900.png")
    await ann.play_turn()
    # Now the computer thinks (its think time shows), then plays.
    await desk.locator(".bot-panel.thinking").wait_for()
    assert "Thinking" in await desk.locator(".bot-status").inner_text()
    await desk.screenshot(path=SCREENSHOTS / "bots-thinking-1440x900.png")

    # Our double, and the computer's answer (take, beaver, or drop: a new game).
    def answered(views) -> bool:
        v = views[0]
        return not ann.double_next and (v["cube"]["value"] > 1 or v["match"]["gameNo"] > 1)

    await play([ann], answered, timeout=90)
    await leave_match(desk)

    # On a phone: the lobby's choice, then a single game against Hard with the hint panel.
    phone = await bot_net.new(PHONE, who="phone")
    await phone.goto(f"{bot_net.base}/")
    await phone.locator(".bot-choice").scroll_into_view_if_needed()
    await phone.screenshot(path=SCREENSHOTS / "bots-lobby-390x844.png")
    await play_the_computer(phone, bot_net.base, "Bob", "single_game", "hard")
    assert await phone.locator(".bot-panel .bot-level").inner_text() == "Hard"
    bob = Seat(phone)
    await play([bob], my_move, timeout=60)
    await phone.locator(".hint-panel").scroll_into_view_if_needed()
    assert len(await show_hint(phone)) >= 1
    await phone.screenshot(path=SCREENSHOTS / "bots-hint-390x844.png")
    assert (await view(phone))["viewer"] == 0
    await leave_match(phone)


QUICK_FEEL = (
    "try { localStorage.setItem('fairgammon.settings.v1', JSON.stringify("
    "{autoConfirm: true, quickMove: true, autoRoll: false, pauseMs: 40})) } catch (e) {}"
)

# The human's next thing to do in the page, with the quick play feel (a tap moves a checker, the
# turn goes out by itself): wait (in the page) until it is there; one round trip an action.
NEXT_ACTION = """(acted) => new Promise((resolve) => {
  const check = () => {
    const v = window.fairgammon.game.current();
    const s = window.fairgammon.app.scene;
    const fresh = !v.pending && v.version !== acted;
    if (v.phase === 'gameover' && v.result && v.result.matchOver) resolve({what: 'over'});
    else if (fresh && v.phase === 'decide' && v.turn === v.viewer)
      resolve({what: 'decide', version: v.version});
    else if (fresh && v.phase === 'offer' && v.offer && v.offer.by !== v.viewer)
      resolve({what: 'answer', version: v.version});
    else if (!v.pending && v.phase === 'moving' && v.turn === v.viewer && s.interactive
             && s.movable.length && !s.turnComplete)
      resolve({what: 'tap', place: s.movable[0]});
    else setTimeout(check, 5);
  };
  check();
})"""


async def play_to_the_end(page: Page, timeout: float = 90.0) -> dict[str, int]:
    """Play the page's seat to the end of the match: double at the first cube decision, then
    roll; take every double; tap a movable checker for each step. Returns what was done."""
    done = {"doubled": 0, "rolled": 0, "answered": 0, "taps": 0}
    acted = -1
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        left = deadline - time.monotonic()
        nxt = await asyncio.wait_for(page.evaluate(NEXT_ACTION, acted), max(left, 0.1))
        if nxt["what"] == "over":
            return done
        if nxt["what"] == "decide":
            acted = nxt["version"]
            if not done["doubled"]:
                await page.click("button.double")
                await page.click("button.confirm-double")
                done["doubled"] += 1
            else:
                await page.click("button.roll")
                done["rolled"] += 1
        elif nxt["what"] == "answer":
            acted = nxt["version"]
            await page.click(".offer button.take, .offer button.accept")
            done["answered"] += 1
        else:
            await page.click(f'rect.hit[data-place="{nxt["place"]}"]')
            done["taps"] += 1
    raise AssertionError(f"the match did not end in {timeout} s: {await view(page)}")


@pytest_asyncio.fixture
async def quick_bot_net(dist, browser: Browser, redis_url):
    """A real server with its bot worker playing at once (no think time)."""
    bots = {"FAIRGAMMON_BOTS": "1", "FAIRGAMMON_BOT_DELAY_MS": "0"}
    async with served_pages(browser, redis_url, **bots) as (_, pages):
        yield pages


async def test_a_whole_match_against_the_computer(quick_bot_net: NetPages) -> None:
    """A match to 1 against Easy, played in the page to its end: we double at our first cube
    decision (the bot answers), the page shows the result, and the transcript verifies."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # The default quick play feel, sending a turn 40 ms after its last step; we roll by hand
    # (the quick feel's roll by itself would leave the double to a race).
    desk = await quick_bot_net.new(DESKTOP, who="desktop", classic=False)
    await desk.context.add_init_script(QUICK_FEEL)
    match_id = await play_the_computer(desk, quick_bot_net.base, "Ann", "match", "easy", 1)
    started = time.monotonic()
    done = await play_to_the_end(desk)
    took = time.monotonic() - started
    assert done["doubled"] == 1, done
    end = await view(desk)
    result = end["result"]
    assert result["reason"] in ("single", "gammon", "backgammon", "drop")
    said = "You win" if result["winner"] == 0 else "Computer (Easy) wins"
    await desk.locator(".result h2").wait_for()
    assert (await desk.locator(".result h2").inner_text()).startswith(said)
    checks = (await view(desk))["rolls"]
    assert checks and set(checks) == {"verified"}, checks
    await desk.screenshot(path=SCREENSHOTS / "bots-match-over-1440x900.png")
    await desk.set_viewport_size(PHONE)
    await desk.locator(".result").scroll_into_view_if_needed()
    await desk.screenshot(path=SCREENSHOTS / "bots-match-over-390x844.png")

    # The server agrees, and every game's transcript verifies; the cube was turned and answered.
    bundle = json.loads(
        await get_text(quick_bot_net.base, f"/api/matches/{match_id}/transcript.json")
    )
    kinds = []
    for game in bundle["games"]:
        verdict = verify_json(json.dumps(game))  # raises unless it verifies
        assert verdict.rolls > 0 and verdict.plays_replayed
        kinds += [a["type"] for a in game["actions"]]
    assert "double" in kinds and ("take" in kinds or "drop" in kinds), kinds
    info = await get(quick_bot_net.base, f"/api/matches/{match_id}")
    assert info["phase"] == "over" and info["winner"] == result["winner"]
    assert info["bot"] == "easy"
    won = "we" if result["winner"] == 0 else "the computer"
    print(f"\nthe match: {won} won {result['points']} ({result['reason']}), {done}, {took:.1f} s")
