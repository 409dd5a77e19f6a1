"""The imports page (/imports) in Chromium against a real server with one analysis worker: a
guest is asked to sign in; a signed-in player uploads a .mat file, sees its game analysed (PR,
errors, luck of both players), shares it; a bad file is refused naming its line; phone (390x844)
and desktop (1440x900) screenshots go to artifacts/screenshots."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from harness.serverproc import ServerProcess
from tests.browser.conftest import NetPages

WAIT = 60_000
MAT = (b" 3 point match\n\n Game 1\n Ann : 0                        Bob : 0\n"
       b"  1) 31: 8/5 6/5                    42: 8/4 6/4\n"
       b"  2)  Doubles => 2                   Drops\n"
       b"      Wins 1 point\n\n Game 2\n Ann : 1                        Bob : 0\n"
       b"  1) 64: 24/18 13/9                  Doubles => 2\n"
       b"  2)  Drops                          Wins 1 point\n")


@pytest.fixture
def server(redis_url) -> Iterator[ServerProcess]:
    proc = ServerProcess(redis_url, FAIRGAMMON_ANALYSERS="1")
    proc.start()
    yield proc
    proc.stop()


async def test_imports_page(net: NetPages, server, tmp_path) -> None:
    page = await net.new(DESKTOP, who="desk")
    page.set_default_timeout(WAIT)
    await page.goto(f"{server.base}/imports")
    await page.get_by_text("Sign in (in the lobby) to import your matches.").wait_for()
    signed = await page.evaluate(
        "fetch('/api/account/signup', {method: 'POST', headers: {'Content-Type':"
        " 'application/json'}, body: JSON.stringify({username: 'importer', password:"
        " 'correct horse'})}).then(r => r.status)")
    assert signed == 201
    await page.reload()
    upload = page.locator("input.imp-file")
    good = tmp_path / "ann-bob.mat"
    good.write_bytes(MAT)
    await upload.set_input_files(str(good))
    card = page.locator(".imp-card")
    await card.first.wait_for()
    assert await card.locator("h2").text_content() == "Ann – Bob"
    await page.wait_for_function(
        "document.querySelectorAll('.imp-game.done').length === 2")
    cells = await card.locator(".imp-game td").all_inner_texts()
    assert len(cells) == 4 and all(c.startswith("PR ") for c in cells), cells
    assert "/imports#" in page.url
    await card.locator(".imp-share").click()
    await page.locator(".importlink input").wait_for()
    assert "shared" in await card.locator(".imp-meta").inner_text()
    await page.screenshot(path=SCREENSHOTS / "imports-1440x900.png")
    # A bad file: refused, naming the line.
    net.tolerate_network_errors = True
    bad = tmp_path / "bad.mat"
    bad.write_bytes(b" 1 point match\n\n Game 1\n Ann : 0   Bob : 0\n  1) 31: 8/5 6/9\n")
    await upload.set_input_files(str(bad))
    await page.locator(".imp-status.error").wait_for()
    assert "line 5" in await page.locator(".imp-status").inner_text()
    net.tolerate_network_errors = False
    # The shared link on a phone (signed out): the import, no horizontal overflow.
    link = await page.locator(".importlink input").input_value()
    phone = await net.new(PHONE, who="phone")
    phone.set_default_timeout(WAIT)
    await phone.goto(link)
    await phone.locator(".imp-card .imp-game.done").first.wait_for()
    assert await phone.locator(".imp-card h2").text_content() == "Ann – Bob"
    for width in (390, 360, 430):
        await phone.set_viewport_size({"width": width, "height": 844})
        assert await phone.evaluate("document.documentElement.scrollWidth") <= width
    await phone.set_viewport_size(PHONE)
    await phone.screenshot(path=SCREENSHOTS / "imports-390x844.png", full_page=True)
    # An imported game on the replay board, with its analysis and chart, like a game played
    # here: from the import's game link, on the phone (signed out: the import is shared).
    await phone.locator(".imp-card a.imp-replay").first.click()
    await phone.wait_for_url("**/imports/*/replay/1")
    await phone.locator(".analysis .analysis-summary").wait_for()
    await phone.locator(".analysis svg.analysis-chart").wait_for()
    header = await phone.locator(".analysis-summary thead th").all_inner_texts()
    assert header[1:] == ["Ann", "Bob"]
    steps = await phone.evaluate("window.fairgammon.replay.steps")
    assert steps >= 3
    await phone.locator(".replay-next").click()
    assert "#turn=1" in phone.url and "/imports/" in phone.url
    assert await phone.locator(".replay-games a", has_text="Back to the import").count() == 1
    assert await phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    await phone.screenshot(path=SCREENSHOTS / "imports-replay-390x844.png", full_page=True)
