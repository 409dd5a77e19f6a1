"""Reviewing games in Chromium against a real server (with an analysis worker) and Redis: the
live move record beside the board (a spectator watches two random-playing clients finish a
game), the game's analysis after it (summary and chart, mistakes marked in the record), and the
replay board of the finished game: stepping with the buttons and the arrow keys, jumping by a
click on a turn, a link that opens at a turn, the best play on request. Phone (390x844) and
desktop (1440x900) screenshots go to artifacts/screenshots."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.async_api import Page

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from harness.serverproc import ServerProcess
from harness.srv_support import play_out
from protocol.client import MatchClient, create_match, join_match
from tests.browser.conftest import NetPages
from tests.browser.net_support import watch_on_desktop_and_phone

LOADED = 60_000
"""Waits (ms) that depend on the server's and the analysis worker's work: generous, because the
test machine is shared; reached only when something is wrong."""


@pytest.fixture
def server(redis_url) -> Iterator[ServerProcess]:
    """This module's server runs one analysis worker."""
    proc = ServerProcess(redis_url, FAIRGAMMON_ANALYSERS="1")
    proc.start()
    yield proc
    proc.stop()


async def finished_game(base: str, ws: str, net: NetPages, seed: int) -> tuple[str, Page, Page]:
    """A single game played to the end by two random clients while a desktop page and a phone
    page watch it (from the start: a page opened on a long finished game resumes through the
    server's catch-up, which is not what this test is about)."""
    created = await create_match(base, name="Ann", mode="single_game")
    joined = await join_match(base, created["match"], name="Bob")
    match_id = created["match"]
    desk, phone = await watch_on_desktop_and_phone(net, match_id, LOADED)
    a = MatchClient(ws, match_id, created["token"])
    b = MatchClient(ws, match_id, joined["token"])
    async with a, b:
        await play_out(a, b, seed=seed)
    return match_id, desk, phone


async def test_live_record_and_replay_board(net: NetPages, server) -> None:
    match_id, watcher, small = await finished_game(server.base, server.ws, net, seed=5)
    # The spectator's record has every play of the game, ending with the result.
    record = watcher.locator(".live-record .record")
    await record.locator("tr.record-end").wait_for()
    cells = record.locator("td.cell[data-i]")
    count = await cells.count()
    assert count > 10
    texts = [t.rstrip("?") for t in await cells.all_inner_texts()]
    assert texts[-1].startswith("wins ")
    moves = [t for t in texts if t[:2].isdigit()]
    assert moves and all(":" in t for t in moves)
    # The box scrolled itself to the newest turn.
    scrolled = await watcher.evaluate(
        "() => { const b = document.querySelector('.live-record .record-scroll');"
        " return b.scrollTop + b.clientHeight >= b.scrollHeight - 2; }"
    )
    assert scrolled
    # After the game: the analysis summary and chart for both players, the mistakes marked.
    summary = watcher.locator(".live-analysis .analysis-summary")
    await summary.wait_for(timeout=60_000)
    header = await summary.locator("thead th").all_inner_texts()
    assert header[1:] == ["Ann", "Bob"]
    rows = await summary.locator("tbody th").all_inner_texts()
    assert {"Error rate", "PR", "Errors · blunders", "Luck", "Luck-adjusted"} <= set(rows)
    chart = watcher.locator(".live-analysis svg.analysis-chart")
    assert await chart.locator("path.chart-equity").count() == 1
    assert await chart.locator("path.chart-luck").count() == 1
    dots = await chart.locator("circle.chart-mark").count()
    marks = await record.locator(".mark").count()
    assert marks > 0 and dots == marks  # random play blunders, and each is marked twice
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    await watcher.screenshot(path=SCREENSHOTS / "record-live-1440x900.png")
    # On a phone the board comes first, the record and the analysis below it.
    await small.locator(".live-analysis .analysis-summary").wait_for()
    board = await small.locator("svg.board").bounding_box()
    rec = await small.locator(".live-record .record").bounding_box()
    assert board and rec and board["y"] + board["height"] <= rec["y"]
    await small.screenshot(path=SCREENSHOTS / "record-live-390x844.png", full_page=True)
    link = watcher.locator("a.replay-link")
    assert await link.get_attribute("href") == f"/m/{match_id}/replay/1"
    result_link = watcher.locator(".result a", has_text="Replay and analysis")
    assert await result_link.get_attribute("href") == f"/m/{match_id}/replay/1"

    # The replay board: step, arrows, click, shareable link.
    page = await net.new(DESKTOP, who="replay")
    page.set_default_timeout(LOADED)
    await page.goto(f"{server.base}/m/{match_id}/replay/1")
    await page.wait_for_function("window.fairgammon && window.fairgammon.replay")
    steps = await page.evaluate("window.fairgammon.replay.steps")
    assert steps == count + 1
    at = "window.fairgammon.replay.at()"
    assert await page.evaluate(at) == 0
    await page.locator("button.replay-next").click()
    await page.locator("button.replay-next").click()
    assert await page.evaluate(at) == 2
    await page.keyboard.press("ArrowRight")
    assert await page.evaluate(at) == 3
    await page.keyboard.press("ArrowLeft")
    await page.keyboard.press("ArrowLeft")
    assert await page.evaluate(at) == 1
    assert page.url.endswith("#turn=1")
    # The status names the shown turn as the record writes it, and the record highlights it.
    current = page.locator(".record td.current")
    assert (await current.inner_text()).rstrip("?") == texts[0].rstrip("?")
    await page.locator(".record td.cell[data-i='9']").click()
    assert await page.evaluate(at) == 10
    assert await page.locator(".record td.current").get_attribute("data-i") == "9"
    assert texts[9] in await page.locator(".status").inner_text()
    # A blunder: its verdict names the best play, which the board shows on request.
    await page.locator(".analysis-summary").wait_for()
    blunder = page.locator(".record td.mark-blunder").first
    index = int(await blunder.get_attribute("data-i"))
    await blunder.click()
    assert await page.evaluate(at) == index + 1
    verdict = page.locator(".analysis-turn .verdict")
    assert "Blunder" in await verdict.inner_text() and "best " in await verdict.inner_text()
    board_before = await page.locator("svg.board").inner_html()
    await page.locator("button.show-best").click()
    assert (await page.locator(".status").inner_text()).startswith("Best play")
    assert await page.locator("svg.board").inner_html() != board_before
    await page.locator("button.show-best").click()
    assert not (await page.locator(".status").inner_text()).startswith("Best play")
    await page.locator("button.show-best").click()
    await page.screenshot(path=SCREENSHOTS / "replay-best-1440x900.png")
    await page.keyboard.press("End")
    assert await page.evaluate(at) == steps - 1
    await page.screenshot(path=SCREENSHOTS / "replay-1440x900.png")

    # A link at turn 12 opens there, on a phone, with the board first.
    phone = await net.new(PHONE, who="phone")
    phone.set_default_timeout(LOADED)
    await phone.goto(f"{server.base}/m/{match_id}/replay/1#turn=12")
    await phone.wait_for_function("window.fairgammon && window.fairgammon.replay")
    assert await phone.evaluate(at) == 12
    board = await phone.locator("svg.board").bounding_box()
    rec = await phone.locator(".record").bounding_box()
    assert board and rec and board["y"] < rec["y"]
    assert board["width"] <= PHONE["width"]
    pips = await phone.locator(".player .pips").all_inner_texts()
    assert all(p.endswith(" pips") for p in pips) and len(pips) == 2
    await phone.locator(".analysis svg.analysis-chart").wait_for()
    chart_box = await phone.locator(".analysis svg.analysis-chart").bounding_box()
    assert chart_box and chart_box["width"] <= PHONE["width"]
    await phone.screenshot(path=SCREENSHOTS / "replay-390x844.png", full_page=True)

    # Next to the fairness proof: the match's dice statistics against expectation.
    await phone.goto(f"{server.base}/verify?match={match_id}")
    card = phone.locator(".dice-stats")
    await card.locator(".dice-faces").wait_for()
    came = await card.locator(".dice-faces tbody tr").first.locator("td").all_inner_texts()
    rolls = int((await card.locator(".sub").inner_text()).split()[0])
    assert len(came) == 6 and sum(int(n) for n in came) == 2 * rolls
    moves_after_opening = len([t for t in texts if t[:2].isdigit()]) - 1
    assert rolls == moves_after_opening
    assert "χ²" in await card.locator(".dice-verdict").inner_text()
    await card.scroll_into_view_if_needed()
    await phone.screenshot(path=SCREENSHOTS / "dice-stats-390x844.png")
