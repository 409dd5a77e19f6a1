"""The trainer page (/trainer) in Chromium against a real server with one analysis worker: a
signed-in player who imported a badly played money game gets their errors as puzzles: the
position on the board, the roll's plays (or the cube answers) to choose from, a verdict naming
the best play, the streak and rating, the next puzzle; and, from a game of a match to 7, a cube
quiz asked at its match score with the two answers of the decision. Phone (390x844) and desktop
(1440x900) screenshots go to artifacts/screenshots. A guest (no account) whose browser holds
the seat of a finished, analysed match trains on that seat's errors, the progress kept in the
browser."""

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
from harness.srv_support import play_out
from protocol.client import MatchClient, create_match, join_match
from protocol.client.lobby import get
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
    await page.get_by_text("Play a game (or sign in, in the lobby) to practise").wait_for()
    made = await page.evaluate(
        """async (text) => {
          const j = {'Content-Type': 'application/json'};
          await fetch('/api/account/signup', {method: 'POST', headers: j,
            body: JSON.stringify({username: 'ann', password: 'correct horse'})});
          const r = await fetch('/api/imports?name=g.mat', {method: 'POST', body: text});
          return r.json();
        }""", text)
    # A game of a match to 7 with cube action, imported second: its cube quizzes come after
    # the money game's puzzles (analysed meanwhile, for the check of their wording below).
    quizzes, _ = constructed_game(("random", "random"), 4, Evaluator(), MatchOptions.match(7),
                                  0.3, 0.3)
    quiz_import = await page.evaluate(
        """async (text) => (await fetch('/api/imports?name=q.mat', {method: 'POST', body: text}))
          .json()""", matfile.export(replace(quizzes, names=("Ann", "Bob"))))
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

    # A cube quiz at the match score, as the page words it: the score and the two answers.
    path = f"/api/imports/{quiz_import['import']}/games/1/analysis.json"
    for _ in range(600):
        status = await page.evaluate(f"fetch('{path}').then(r => r.json()).then(b => b.status)")
        if status == "done":
            break
        await asyncio.sleep(0.1)
    quiz = await page.evaluate(
        """async () => {  // answer the puzzles before it wrongly: they come back in a minute
          for (let i = 0; i < 60; i++) {
            const doc = await (await fetch('/api/trainer')).json();
            if (!doc.puzzle || doc.puzzle.quiz) return doc.puzzle;
            await fetch('/api/trainer/answer', {method: 'POST',
              headers: {'Content-Type': 'application/json'},
              body: JSON.stringify({puzzle: doc.puzzle.id, answer: ''})});
          }
          return null;
        }""")
    assert quiz and quiz["quiz"] and quiz["kind"] == "cube", quiz
    await page.goto(f"{server.base}/trainer")
    await page.wait_for_function("window.fairgammon && window.fairgammon.trainer.puzzle()")
    assert (await page.evaluate("window.fairgammon.trainer.puzzle()"))["id"] == quiz["id"]
    state = quiz["state"]
    crawford = ", Crawford" if state["crawford"] else ""
    at = f"Cube quiz ({state['score'][0]}-{state['score'][1]} in a match to 7{crawford}): "
    await page.locator(".tr-choice").first.wait_for()
    # As the player reads it (inner text: a sentence, not the card's capitals of a heading).
    words = await page.locator(".tr-question").inner_text(), await page.locator(
        ".tr-choice").all_inner_texts()
    assert words in ((at + "You are doubled: take or pass?", ["Take", "Pass"]),
                     (at + "Double or not?", ["Double", "No double"])), words

    # A guest: a match played to the end, its seat kept by this browser as the client keeps it
    # (fairgammon.seat.<match>); the trainer shows that seat's errors, and keeps the progress.
    created = await create_match(server.base, mode="match", length=1, name="Guest")
    match_id = created["match"]
    joined = await join_match(server.base, match_id, name="Other")
    a = MatchClient(server.ws, match_id, created["token"])
    b = MatchClient(server.ws, match_id, joined["token"])
    async with a, b:
        await play_out(a, b, seed=21)
    for _ in range(600):
        report = await get(server.base, f"/api/matches/{match_id}/games/1/analysis.json")
        if report["status"] == "done":
            break
        await asyncio.sleep(0.1)
    errors = [t for t in report["turns"] if t["seat"] == created["seat"] and (
        ((t["equity_lost"] or 0) >= 0.04 and (t["best"] or t["best_action"]))
        or (t["cube_lost"] or 0) >= 0.04)]
    guest = await net.new(DESKTOP, who="guest")
    guest.set_default_timeout(WAIT)
    await guest.goto(f"{server.base}/")
    await guest.evaluate(
        "([m, r]) => localStorage.setItem('fairgammon.seat.' + m, JSON.stringify(r))",
        [match_id, {"seat": created["seat"], "token": created["token"]}])
    await guest.goto(f"{server.base}/trainer")
    await guest.locator(".tr-choice").first.wait_for()
    assert f"of {len(errors)}" in await guest.locator(".tr-stats").inner_text()
    shown = await guest.evaluate("window.fairgammon.trainer.puzzle()")
    assert shown["source"].startswith(f"m:{match_id}/1/")
    await guest.locator(".tr-choice").first.click()
    await guest.locator(".tr-next").wait_for()
    kept = await guest.evaluate("JSON.parse(localStorage.getItem('fairgammon.trainer'))")
    assert kept["answered"] == 1 and shown["id"] in kept["entries"]
