"""Playing the computer in Chromium, against a real server with its bot worker: one click from
the lobby (level and match options), the match page shows the level, the computer thinking and
the hint panel; a double is answered by the bot; a whole match to 1 against Easy with the quick
play feel, our double answered, its result on the page and its transcript verified; screenshots
on a phone and a desktop."""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import time
from collections.abc import Awaitable, Callable

import msgpack
from playwright.async_api import Page, WebSocket

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from protocol.client.lobby import get, get_text
from protocol.fairdice import verify_json
from tests.browser.conftest import NetPages
from tests.browser.net_support import (
    Seat,
    leave_match,
    no_overflow,
    play,
    play_the_computer,
    view,
)


def my_move(views) -> bool:
    v = views[0]
    return v["phase"] == "moving" and v["turn"] == v["viewer"] and not v["pending"]


async def show_hint(page: Page) -> list[str]:
    """Ask for the hint of this roll: the button is on the screen as the page is (no scrolling
    to it), and the answer shows on the screen without the page moving."""
    size = page.viewport_size
    assert size is not None
    before = await page.evaluate("scrollY")
    hint = page.locator(".actions button.hint")
    box = await hint.bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= size["height"], box
    await hint.click()
    await page.locator(".hint-plays li").first.wait_for()
    assert await page.evaluate("scrollY") == before
    out = await page.locator(".hint-out").bounding_box()
    assert out is not None and out["y"] + out["height"] <= size["height"], (out, size)
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
    # In the move record's notation (paths like 13/7 or bar/20*/16, 8/5(2)), and the best
    # play drawn on the board as arrows of their own, one a checker path of it at least.
    notation = r"^(bar|\d+)(/(\d+|off)\*?)+(\(\d\))?( (bar|\d+)(/(\d+|off)\*?)+(\(\d\))?)*$"
    texts = await desk.eval_on_selector_all(".hint-plays .hint-moves",
                                            "els => els.map(e => e.textContent)")
    assert all(re.match(notation, t) for t in texts), texts
    hinted = desk.locator("svg.board g.hintplay path.arrow")
    assert await hinted.count() >= 1
    await desk.screenshot(path=SCREENSHOTS / "bots-hint-1440x900.png")
    await ann.play_turn()
    await hinted.first.wait_for(state="detached")  # the hint belonged to that roll
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


async def play_to_the_end(
    page: Page, timeout: float = 90.0, first_double: Callable[[], Awaitable[None]] | None = None
) -> dict[str, int]:
    """Play the page's seat to the end of the match: double at the first cube decision (by
    ``first_double`` if given), then roll; take every double; tap a movable checker for each
    step. Returns what was done."""
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
                if first_double is not None:
                    await first_double()
                else:
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


def sent_actions(page: Page) -> list[str]:
    """The type of every frame the page sends over its WebSocket, as they go."""
    sent: list[str] = []

    def on_socket(socket: WebSocket) -> None:
        def frame(payload: str | bytes) -> None:
            if isinstance(payload, bytes):
                sent.append(msgpack.unpackb(payload, raw=False).get("t"))

        socket.on("framesent", frame)

    page.on("websocket", on_socket)
    return sent


# A visible panel's title, once each: two different panels never share one.
TITLES = """() => [...document.querySelectorAll('main h2')]
  .filter((e) => e.offsetParent !== null).map((e) => e.textContent.trim().toLowerCase())"""


async def test_a_whole_match_against_the_computer(quick_bot_net: NetPages) -> None:
    """A match to 1 against Easy on a phone, played in the page to its end. At our first cube
    decision the Double button is there (a dead cube may be turned: the engine's rule) and the
    hint, asked beside the dice controls and shown without moving the page, agrees: no double,
    the cube is dead. A double click on "Double to 2" sends one double. The page shows the
    result and the match score, never beyond 1 (a doubled gammon is 4 points: the record says
    so); a finished match has no Leave button, no empty panel, no chat with the computer, no two
    panels of one title; the transcript verifies."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    # The default quick play feel, sending a turn 40 ms after its last step; we roll by hand
    # (the quick feel's roll by itself would leave the double to a race).
    phone = await quick_bot_net.new(PHONE, who="phone", classic=False)
    await phone.context.add_init_script(QUICK_FEEL)
    sent = sent_actions(phone)
    match_id = await play_the_computer(phone, quick_bot_net.base, "Ann", "match", "easy", 1)
    assert await phone.locator(".chat-panel").count() == 0  # nobody to talk to

    async def hint_then_double_click() -> None:
        assert await phone.locator("button.double").is_visible()
        before = await phone.evaluate("scrollY")
        hint = phone.locator(".actions button.hint")
        box = await hint.bounding_box()
        assert box is not None and box["y"] + box["height"] <= PHONE["height"]  # within reach
        await hint.click()
        await phone.locator(".hint-out .hint-dead").wait_for()
        advice = await phone.locator(".hint-out").inner_text()
        assert "No double" in advice and "cannot double" not in advice, advice
        # The hint is under the controls, in view, and the page did not move.
        assert await phone.evaluate("scrollY") == before
        out = await phone.locator(".hint-out").bounding_box()
        assert out is not None and out["y"] + out["height"] <= PHONE["height"]
        await phone.screenshot(path=SCREENSHOTS / "bots-dead-cube-hint-390x844.png")
        await no_overflow(phone, PHONE["width"])  # a player's page in play, the hint shown
        await phone.click("button.double")
        await phone.dblclick("button.confirm-double")

    started = time.monotonic()
    done = await play_to_the_end(phone, first_double=hint_then_double_click)
    took = time.monotonic() - started
    assert done["doubled"] == 1, done
    assert sent.count("double") == 1, sent
    end = await view(phone)
    result = end["result"]
    assert result["reason"] in ("single", "gammon", "backgammon", "drop")
    said = "You win" if result["winner"] == 0 else "You lose"
    await phone.locator(".result h2").wait_for()
    assert (await phone.locator(".result h2").inner_text()).startswith(said)
    # The match score: 1-0 whatever the game was worth (its points are in the record).
    won = [1, 0] if result["winner"] == 0 else [0, 1]
    score = f"Ann {won[0]} – {won[1]} Computer (Easy)"
    assert await phone.locator(".topbar .score").inner_text() == score
    assert await phone.locator(".result .final").inner_text() == score
    points = result["points"]
    assert (await phone.locator(".result .points").inner_text()).startswith(
        f"{points} point")
    record = await phone.locator(".live-record").inner_text()
    assert f"wins {points} point" in record
    # A finished match: nothing left to leave, no empty panel, no title twice.
    assert not await phone.locator("button.leave").is_visible()
    assert await phone.locator(".moves").is_hidden()
    titles = await phone.evaluate(TITLES)
    assert len(titles) == len(set(titles)), titles
    assert not any("_" in n for n in await phone.locator(".toast").all_inner_texts())
    checks = (await view(phone))["rolls"]
    assert checks and set(checks) == {"verified"}, checks
    await phone.locator(".result").scroll_into_view_if_needed()
    await phone.screenshot(path=SCREENSHOTS / "bots-match-over-390x844.png")
    await phone.set_viewport_size(DESKTOP)
    await phone.evaluate("scrollTo(0, 0)")
    await phone.screenshot(path=SCREENSHOTS / "bots-match-over-1440x900.png")

    # The server agrees, and every game's transcript verifies; the cube was turned and answered.
    bundle = json.loads(
        await get_text(quick_bot_net.base, f"/api/matches/{match_id}/transcript.json")
    )
    assert bundle["left_out"] == []
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


# My next thing to do in a money session with the default play feel (the dice roll by themselves,
# a turn goes out by itself a moment after its last step): tap a checker, take a double, start
# the next game; when my turn begins, its time in the page (performance.now, ms).
MY_TURN = """(acted) => new Promise((resolve) => {
  const check = () => {
    const v = window.fairgammon.game.current();
    const s = window.fairgammon.app.scene;
    const fresh = !v.pending && v.version !== acted;
    if (fresh && v.phase === 'offer' && v.offer && v.offer.by !== v.viewer)
      resolve({what: 'answer', version: v.version});
    else if (fresh && v.phase === 'gameover' && v.canStop)
      resolve({what: 'next', version: v.version});
    else if (!v.pending && v.phase === 'moving' && v.turn === v.viewer && s.interactive
             && s.movable.length && !s.turnComplete)
      resolve({what: 'tap', place: s.movable[0], turn: `${v.match.gameNo}:${v.dice.k}`,
               at: performance.now()});
    else setTimeout(check, 5);
  };
  check();
})"""


async def round_times(page: Page, rounds: int, timeout: float = 90.0) -> list[float]:
    """Play ``rounds`` rounds and return each one's time (s): from the start of my turn to the
    start of my next one in the same game (my taps, the page's pauses, the computer's turn)."""
    starts: dict[str, float] = {}
    times: list[float] = []
    last: tuple[str, float] | None = None
    acted = -1
    deadline = time.monotonic() + timeout
    while len(times) < rounds:
        assert time.monotonic() < deadline, f"{len(times)} rounds in {timeout} s"
        nxt = await page.evaluate(MY_TURN, acted)
        if nxt["what"] == "answer":
            acted = nxt["version"]
            await page.click(".offer button.take")
        elif nxt["what"] == "next":
            acted = nxt["version"]
            last = None  # a round never spans two games
            await page.click(".result button.next")
        else:
            turn = nxt["turn"]
            if turn not in starts:
                starts[turn] = nxt["at"]
                game = turn.split(":")[0]
                if last is not None and last[0] == game:
                    times.append((nxt["at"] - last[1]) / 1000)
                last = (game, nxt["at"])
            await page.click(f'rect.hit[data-place="{nxt["place"]}"]')
    return times


async def test_fast_play_a_stopped_session_and_time_on_a_phone(
    bot_net: NetPages,
) -> None:
    """A money session against the computer at its normal pace, then fast (the page's pauses
    shortened and the computer's think time gone: the round time measured both ways); a
    resignation, confirmed first; the session stopped says who won how much and links its
    games, and fits a phone. A game lost on time says so to its loser."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    desk = await bot_net.new(DESKTOP, who="desktop", classic=False)  # the default play feel
    match_id = await play_the_computer(desk, bot_net.base, "Ann", "money", "easy")
    await desk.locator(".bot-panel .fast-play").wait_for()
    normal = await round_times(desk, 3)
    await desk.check(".bot-panel .fast-play")
    assert await desk.evaluate("JSON.parse(localStorage.getItem('fairgammon.settings.v1')).fast")
    await round_times(desk, 1)  # the computer hears of it at its next decision
    fast = await round_times(desk, 3)
    # The median: a round with a cube decision, or a busy machine, is one outlier.
    mid = (statistics.median(normal), statistics.median(fast))
    print(f"\nround time against Easy (median): normal {mid[0]:.2f} s "
          f"{[round(t, 2) for t in normal]}, fast {mid[1]:.2f} s {[round(t, 2) for t in fast]}")
    assert mid[1] < mid[0] - 1.0, (normal, fast)

    # Resign: it asks first; the computer answers (it may refuse a single game when it has
    # gammon chances: then we offer the worst result still possible, which it accepts).
    for attempt in range(3):
        await desk.wait_for_function(
            "(() => { const v = window.fairgammon.game.current();"
            " return v.phase === 'moving' && v.turn === v.viewer && !v.pending; })()")
        await desk.click("details.more summary")
        offered = desk.locator("details.more button[class*=resign-]:visible")
        level = "resign-1" if attempt == 0 else (await offered.last.get_attribute("class"))
        level = re.search(r"resign-\d", level or "").group(0)
        await desk.click(f"button.{level}")
        if attempt == 0:
            assert "Resign a single game?" in await desk.locator(".resign-ask").inner_text()
        before = (await view(desk))["version"]
        await desk.click("button.confirm-resign")
        # Offered (phase 'offer'), then answered: the game over, or play on.
        await desk.wait_for_function(
            "(before) => { const v = window.fairgammon.game.current();"
            " return v.version > before && v.phase !== 'offer'; }", arg=before)
        if (await view(desk))["phase"] == "gameover":
            break
    await desk.locator(".result button.stop").wait_for()
    await desk.click(".result button.stop")
    await desk.wait_for_function("window.fairgammon.session.tracker.over !== null")
    over = await view(desk)
    result = over["result"]
    assert result["reason"] == "stopped" and result["matchOver"], result
    headline = await desk.locator(".result h2").inner_text()
    if result["winner"] is None:
        assert headline == "The session ended level"
    else:
        assert headline in ("You win the session", "You lose the session"), headline
        margin = abs(result["score"][0] - result["score"][1])
        assert await desk.locator(".result .points").inner_text() == (
            f"by {margin} point{'s' if margin != 1 else ''} · session over")
    links = await desk.eval_on_selector_all(".result .links a", "as => as.map(a => a.href)")
    games = over["match"]["gameNo"]
    assert [re.sub(r"^https?://[^/]+", "", h) for h in links] == [
        f"/m/{match_id}/replay/{games}", f"/verify?match={match_id}",
        f"/api/matches/{match_id}/transcript.json", f"/api/matches/{match_id}/match.mat"]
    bundle = json.loads(await get_text(bot_net.base, f"/api/matches/{match_id}/transcript.json"))
    assert len(bundle["games"]) == games
    assert not await desk.locator("button.leave").is_visible()
    await desk.evaluate("scrollTo(0, 0)")  # the result beside the board, as the page opens
    await desk.screenshot(path=SCREENSHOTS / "bots-session-stopped-1440x900.png")
    for width in (360, 430, PHONE["width"]):  # the player's page, as narrow as phones go
        await desk.set_viewport_size({"width": width, "height": PHONE["height"]})
        await no_overflow(desk, width)
    await desk.locator(".result").scroll_into_view_if_needed()
    await desk.screenshot(path=SCREENSHOTS / "bots-session-stopped-390x844.png")

    # A single game with 5 s a move, never played: its loser reads that they lost on time.
    late = await bot_net.new(PHONE, who="late", classic=False)
    await play_the_computer(late, bot_net.base, "Bea", "single_game", "easy", clock=5)
    await late.locator(".result h2").wait_for(timeout=30_000)
    assert await late.locator(".result h2").inner_text() == "You lost on time"
    await no_overflow(late, PHONE["width"])
    await late.screenshot(path=SCREENSHOTS / "bots-lost-on-time-390x844.png")
    # (Every other page on a phone: tests/browser/test_phone_pages.py.)
