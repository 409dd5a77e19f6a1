"""The analysis board (/analyse) in Chromium against a real server with one analysis worker: a
position from a link (Position ID and dice) with every play ranked, a chosen play shown on the
board, the share link; a play rolled out and a long rollout cancelled while it runs (progress
bar, intervals, the rollout's link on a phone); an XGID at 3-ply (queued for the worker); the
cube decision with its doubling window; a bad ID refused with its code; the editor; the same
link on a phone without horizontal overflow; and "open in the analysis board" from a finished
game's replay. Phone (390x844) and desktop (1440x900) screenshots go to
artifacts/screenshots."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from harness.serverproc import ServerProcess
from harness.srv_support import play_out
from protocol.client import MatchClient, create_match, join_match
from protocol.client.lobby import get
from tests.browser.conftest import NetPages

WAIT = 60_000
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"


@pytest.fixture
def server(redis_url) -> Iterator[ServerProcess]:
    proc = ServerProcess(redis_url, FAIRGAMMON_ANALYSERS="1")
    proc.start()
    yield proc
    proc.stop()


async def test_analysis_board(net: NetPages, server) -> None:
    page = await net.new(DESKTOP, who="desk")
    page.set_default_timeout(WAIT)
    await page.goto(server.base)  # the lobby links to the board
    assert await page.locator(".lobby-links a[href='/analyse']").count() == 1
    await page.goto(f"{server.base}/analyse#pid=4HPwATDgc%2FABMA&dice=31&ply=2")
    plays = page.locator(".an-play")
    await plays.first.wait_for()
    texts = await page.locator(".an-play .an-text").all_inner_texts()
    assert texts[0] == "8/5 6/5" and len(texts) == 16
    assert "2-ply" in await page.locator(".an-status").inner_text()
    # A chosen play on the board: the board's status names it, the row is pressed, and its
    # two checker moves (3 and 1) are drawn as arrows (none before).
    arrows = page.locator("svg g.lastplay path.arrow")
    assert await arrows.count() == 0
    await plays.nth(1).click()
    await page.wait_for_function("document.querySelectorAll('svg g.lastplay path.arrow').length")
    assert await arrows.count() == 2
    assert await page.evaluate("window.fairgammon.analyse.chosen()") == 1
    assert await plays.nth(1).get_attribute("aria-pressed") == "true"
    assert texts[1] in await page.locator(".status").first.inner_text()
    link = await page.locator(".analyselink input").input_value()
    assert link.endswith("/analyse#pid=4HPwATDgc%2FABMA&dice=31&ply=2")
    await page.screenshot(path=SCREENSHOTS / "analyse-plays-1440x900.png")
    # The chosen play rolled out (short): a progress bar, then its equity with an interval.
    await page.locator(".ro-trials").select_option("36")
    await page.locator(".ro-trunc").select_option("7")
    await page.locator(".ro-start").click()
    await page.locator(".an-rollout .ro-bar").wait_for()
    await page.wait_for_function("window.fairgammon.analyse.rollout() && "
                                 "window.fairgammon.analyse.rollout().status === 'done'")
    assert texts[1] in await page.locator(".an-rollout h2").inner_text()
    assert "Equity (95%)" in await page.locator(".ro-figures th").all_inner_texts()
    rollout_link = await page.locator(".rolloutlink input").input_value()
    assert "/analyse#rollout=" in rollout_link
    # An XGID at 3-ply: queued for the worker, then ranked.
    await page.locator(".an-xgid").fill(XGID)
    await page.locator(".an-ply").select_option("3")
    await page.locator(".an-go").click()
    await page.wait_for_function("window.fairgammon.analyse.answer() && "
                                 "window.fairgammon.analyse.answer().ply === 3")
    assert (await page.locator(".an-play .an-text").all_inner_texts())[0] == "8/5 6/5"
    assert "xgid=XGID" in await page.locator(".analyselink input").input_value()
    # Without dice: the cube decision and the doubling window.
    await page.locator(".an-xgid").fill("")
    await page.locator(".an-pid").fill("4HPwATDgc/ABMA")
    await page.locator(".an-d1").select_option("")
    await page.locator(".an-ply").select_option("1")
    await page.locator(".an-go").click()
    cube = page.locator(".an-results .an-cube")
    await cube.wait_for()
    rows = await cube.locator("th").all_inner_texts()
    assert "Doubling window (winning chances)" in rows and "No double" in rows
    assert "No double" in await cube.locator("td").first.inner_text()
    # A long rollout of the cube decision, cancelled while it runs.
    await page.locator(".ro-trials").select_option("1296")
    await page.locator(".ro-trunc").select_option("0")
    await page.locator(".ro-start").click()
    await page.wait_for_function("window.fairgammon.analyse.rollout() && "
                                 "window.fairgammon.analyse.rollout().status === 'running'")
    assert "Rollout of the position" in await page.locator(".an-rollout h2").text_content()
    await page.locator(".an-rollout").scroll_into_view_if_needed()
    await page.screenshot(path=SCREENSHOTS / "analyse-rollout-1440x900.png")
    await page.locator(".ro-cancel").click()
    await page.wait_for_function("window.fairgammon.analyse.rollout().status === 'cancelled'")
    assert "Cancelled" in await page.locator(".an-rollout .ro-status").inner_text()
    # A bad Position ID: refused in words keyed by its code (translated), not the code.
    net.tolerate_network_errors = True
    await page.locator(".an-pid").fill("not an id")
    await page.locator(".an-go").click()
    await page.locator(".an-status.error").wait_for()
    refused = await page.locator(".an-status").inner_text()
    assert "That is not a Position ID." in refused and "bad_position_id" not in refused, refused
    net.tolerate_network_errors = False
    # The editor: a checker off the 6-point and back; the Position ID follows.
    await page.locator(".an-editor summary").click()
    await page.locator(".an-start").click()
    assert await page.locator(".an-pid").input_value() == "4HPwATDgc/ABMA"
    await page.locator(".an-point").select_option("6")
    await page.locator(".an-del-mine").click()
    edited = await page.locator(".an-pid").input_value()
    assert edited != "4HPwATDgc/ABMA"
    assert "Borne off: yours 1" in await page.locator(".an-edit-note").inner_text()
    await page.locator(".an-add-mine").click()
    assert await page.locator(".an-pid").input_value() == "4HPwATDgc/ABMA"
    # Dragging with the mouse (pointer events): the top checker of the 6-point to the 5-point
    # (4HPwATDQc/ABMA: engine.position_id of that position).
    tri = page.locator("polygon[data-point='6']")
    five = page.locator("polygon[data-point='5']")
    box6, box5 = await tri.bounding_box(), await five.bounding_box()
    assert box6 and box5
    bottom = box6["y"] + box6["height"] - box6["width"] / 2
    await page.mouse.move(box6["x"] + box6["width"] / 2, bottom)
    await page.mouse.down()
    await page.mouse.move(box5["x"] + box5["width"] / 2, bottom, steps=5)
    await page.mouse.up()
    assert await page.locator(".an-pid").input_value() == "4HPwATDQc/ABMA"
    await page.locator(".an-start").click()
    # The cube and the score: a 5-point match at 3-4 (the player on roll trails), a 2-cube
    # theirs; the position becomes an XGID (the engine's, tests/unit/test_xgid.py's vectors) and
    # the server analyses that state: the opponent's cube, so no double for the player on roll.
    await page.locator(".an-cube-value").select_option("2")
    await page.locator(".an-owner").select_option("opponent")
    await page.locator(".an-length").select_option("5")
    await page.locator(".an-score-mine").fill("3")
    await page.locator(".an-score-theirs").fill("4")
    await page.locator(".an-set-state").click()
    xgid = "XGID=-b----E-C---eE---c-e----B-:1:-1:1:00:3:4:0:5:10"
    assert await page.locator(".an-xgid").input_value() == xgid
    assert await page.locator(".an-pid").input_value() == ""
    await page.locator(".an-d1").select_option("")
    await page.locator(".an-go").click()
    await page.wait_for_function("window.fairgammon.analyse.answer() && "
                                 "window.fairgammon.analyse.answer().cube")
    answer = await page.evaluate("window.fairgammon.analyse.answer()")
    assert answer["xgid"] == xgid and answer["cube"]["available"] is False
    # A checker edit keeps that cube and score.
    await page.locator(".an-del-mine").click()
    kept = await page.locator(".an-xgid").input_value()
    assert kept.endswith(":1:-1:1:00:3:4:0:5:10") and kept != xgid
    # The share link on a phone: the same ranking, nothing wider than the screen.
    phone = await net.new(PHONE, who="phone")
    phone.set_default_timeout(WAIT)
    await phone.goto(link)
    await phone.locator(".an-play").first.wait_for()
    assert await phone.locator(".an-play .an-text").all_inner_texts() == texts
    await phone.locator(".an-editor summary").click()  # the editor open: still within the screen
    for width in (390, 360, 430):
        await phone.set_viewport_size({"width": width, "height": 844})
        assert await phone.evaluate("document.documentElement.scrollWidth") <= width
    await phone.set_viewport_size(PHONE)
    await phone.screenshot(path=SCREENSHOTS / "analyse-plays-390x844.png", full_page=True)
    # The rollout's link on the phone: its position and its figures.
    await phone.goto(rollout_link)
    await phone.wait_for_function("window.fairgammon.analyse.rollout() && "
                                  "window.fairgammon.analyse.rollout().status === 'done'")
    assert "Equity (95%)" in await phone.locator(".ro-figures th").all_inner_texts()
    assert await phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    await phone.locator(".an-rollout").scroll_into_view_if_needed()
    await phone.screenshot(path=SCREENSHOTS / "analyse-rollout-390x844.png")
    # From a finished game's replay: its turn on the analysis board.
    created = await create_match(server.base, name="Ann", mode="single_game")
    joined = await join_match(server.base, created["match"], name="Bob")
    match_id = created["match"]
    a = MatchClient(server.ws, match_id, created["token"])
    b = MatchClient(server.ws, match_id, joined["token"])
    async with a, b:
        await play_out(a, b, seed=5)
    await page.goto(f"{server.base}/m/{match_id}/replay/1#turn=4")
    await page.wait_for_function("window.fairgammon && window.fairgammon.replay")
    opener = page.locator("a.replay-analyse")
    href = await opener.get_attribute("href")
    assert href.startswith("/analyse#pid=") and "ply=2" in href
    # With the server's IDs of that decision: the score and cube come along (the Match ID).
    board = (await get(server.base, f"/api/matches/{match_id}/games/1/record.json"))[
        "turns"][4]["board"]
    assert "mid=" in href and board is not None
    await opener.click()
    await page.wait_for_function("window.fairgammon && window.fairgammon.analyse && "
                                 "window.fairgammon.analyse.answer()")
    answer = await page.evaluate("window.fairgammon.analyse.answer()")
    assert answer["plays"] or answer["passes"] or answer["cube"]
    assert (answer["position_id"], answer["match_id"]) == (board["position_id"],
                                                           board["match_id"])
    await page.screenshot(path=SCREENSHOTS / "analyse-from-replay-1440x900.png")
