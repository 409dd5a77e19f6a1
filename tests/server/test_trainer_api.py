"""The trainer through a real server with one analysis worker: a signed-in player imports a
money game they played badly (random plays and cube actions); once analysed, its errors of
their side come as puzzles (the analysis board sets each up); a wrong answer brings the puzzle
back, right answers count the streak and, twice, retire it; guests are refused."""

from __future__ import annotations

import asyncio
import json
import urllib.request
from dataclasses import replace

from analysis.board import setup_from_ids
from analysis.equity import Evaluator
from engine import matfile
from engine.match import MatchOptions
from harness.accounts import Browser, signed_up
from harness.analysis import constructed_game
from harness.srv_support import server_fixture

server = server_fixture(FAIRGAMMON_ANALYSERS="1")


def _upload(browser: Browser, data: bytes) -> dict:
    headers = {"Content-Type": "text/plain", "Origin": browser.origin or "",
               "Cookie": "; ".join(f"{k}={v}" for k, v in browser.cookies.items())}
    request = urllib.request.Request(f"{browser.base}/api/imports?name=g.mat", data, headers,
                                     method="POST")
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())


async def test_puzzles_from_your_own_errors(server) -> None:
    assert (await Browser(server.base).get("/api/trainer")).status == 401
    record, _ = constructed_game(("random", "random"), 1, Evaluator(), MatchOptions.money(),
                                 0.3, 0.4)
    text = matfile.export(replace(record, names=("Ann", "Bob"))).encode()
    ann = await signed_up(server.base, "ann")
    made = await asyncio.to_thread(_upload, ann, text)
    path = f"/api/imports/{made['import']}/games/1/analysis.json"
    for _ in range(600):
        if (await ann.get(path)).body.get("status") == "done":
            break
        await asyncio.sleep(0.1)
    first = (await ann.get("/api/trainer")).body
    assert first["total"] >= 5 and first["due"] == first["total"], first
    puzzle = first["puzzle"]
    assert "best" not in puzzle and puzzle["error"] >= 0.04
    setup_from_ids(puzzle["position_id"], puzzle["match_id"])  # the board sets it up
    # A wrong answer: it comes back (after a minute); the next new puzzle is first now.
    wrong = (await ann.post("/api/trainer/answer",
                            {"puzzle": puzzle["id"], "answer": "nonsense"})).body
    assert wrong["right"] is False and wrong["streak"] == 0 and wrong["best"]
    second = (await ann.get("/api/trainer")).body
    assert second["puzzle"]["id"] != puzzle["id"] and second["due"] == first["due"] - 1
    # The right answer: the streak starts, the rating rises.
    right = (await ann.post("/api/trainer/answer",
                            {"puzzle": second["puzzle"]["id"], "answer": ""})).body
    best = right["best"]
    assert right["right"] is False
    again = (await ann.post("/api/trainer/answer",
                            {"puzzle": second["puzzle"]["id"], "answer": best})).body
    assert again["right"] is True and again["streak"] == 1 and again["answered"] == 3
    # Not yours: 404; another player gets no puzzles from Ann's import.
    assert (await ann.post("/api/trainer/answer", {"puzzle": "x", "answer": "double"})).status \
        == 404
    bob = await signed_up(server.base, "bob")
    assert (await bob.get("/api/trainer")).body["total"] == 0
