"""The trainer page (/trainer) in Chromium against a real server with one analysis worker: a
signed-in player who imported a badly played money game gets their errors as puzzles: the
position on the board, the roll's plays (or the cube answers) to choose from, a verdict naming
the best play, the streak and rating, the next puzzle. Phone (390x844) and desktop (1440x900)
screenshots go to artifacts/screenshots."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from dataclasses import replace

import pytest

from analysis.equity import Evaluator
from engine import matfile
from engine.match import MatchOptions
from harness.analysis import constructed_game
from harness.browser import DESKTOP, PHONE, SCREENSHOTS
from harness.serverproc import ServerProcess
from tests.browser.conftest import NetPages

WAIT = 60_000


@pytest.fixture
def server(redis_url) -> Iterator[ServerProcess]:
    proc = ServerProcess(redis_url, FAIRGAMMON_ANALYSERS="1")
    proc.start()
    yield proc
    proc.stop()


async def test_trainer_page(net: NetPages, server) -> None:
    record, _ = constructed_game(("random", "random"), 1, Evaluator(), MatchOptions.money(),
                                 0.3, 0.4)
    text = matfile.export(replace(record, names=("Ann", "Bob")))
    page = await net.new(DESKTOP, who="desk")
    page.set_default_timeout(WAIT)
    await page.goto(f"{server.base}/trainer")
    await page.get_by_text("Sign in (in the lobby) to practise").wait_for()
    made = await page.evaluate(
        """async (text) => {
          const j = {'Content-Type': 'application/json'};
          await fetch('/api/account/signup', {method: 'POST', headers: j,
            body: JSON.stringify({username: 'ann', password: 'correct horse'})});
          const r = await fetch('/api/imports?name=g.mat', {method: 'POST', body: text});
          return r.json();
        }""", text)
    path = f"/api/imports/{made['import']}/games/1/analysis.json"
    for _ in range(600):
        status = await page.evaluate(f"fetch('{path}').then(r => r.json()).then(b => b.status)")
        if status == "done":
            break
        await asyncio.sleep(0.1)
    await page.goto(f"{server.base}/trainer")
    await page.wait_for_function("window.fairgammon && window.fairgammon.trainer.puzzle()")
    puzzle = await page.evaluate("window.fairgammon.trainer.puzzle()")
    choices = page.locator(".tr-choice")
    await choices.first.wait_for()
    assert await choices.count() >= 2
    stats = await page.locator(".tr-stats").inner_text()
    assert stats.startswith("Streak 0") and "puzzle rating 1500" in stats
    await page.screenshot(path=SCREENSHOTS / "trainer-1440x900.png")
    # A wrong answer (through the API): the puzzle is due again in a minute, not now.
    answer = await page.evaluate(
        """async (id) => {
          const r = await fetch('/api/trainer/answer', {method: 'POST',
            headers: {'Content-Type': 'application/json'},
            body: JSON.stringify({puzzle: id, answer: ''})});
          return r.json();
        }""", puzzle["id"])
    await page.reload()  # that puzzle is due again in a minute: the next one is shown
    await page.wait_for_function("window.fairgammon && window.fairgammon.trainer.puzzle()")
    second = await page.evaluate("window.fairgammon.trainer.puzzle()")
    assert second["id"] != puzzle["id"]
    assert answer["right"] is False and answer["best_text"]
    await page.locator(".tr-choice").first.wait_for()
    labels = await page.locator(".tr-choice").all_inner_texts()
    await page.locator(".tr-choice").first.click()
    verdict = page.locator(".tr-verdict")
    await page.locator(".tr-next").wait_for()
    said = await verdict.inner_text()
    if said.startswith("Right:"):
        assert labels[0].lower() in said.lower()
        assert "Streak 1" in await page.locator(".tr-stats").inner_text()
    else:
        assert said.startswith("Not quite. Best: ") and labels[0] not in said.split(".")[1]
        assert "Streak 0" in await page.locator(".tr-stats").inner_text()
    # The phone: no horizontal overflow.
    phone = await page.context.new_page()
    await phone.set_viewport_size(PHONE)
    await phone.goto(f"{server.base}/trainer")
    await phone.locator(".tr-choice").first.wait_for(timeout=WAIT)
    assert await phone.evaluate("document.documentElement.scrollWidth") <= PHONE["width"]
    await phone.screenshot(path=SCREENSHOTS / "trainer-390x844.png", full_page=True)
