"""The skill record and dice audit through a real server with one analysis worker: a signed-in
player's finished match appears with the PR of its analysis, and the dice audit counts exactly
the player's rolls of the move record (the opening roll left out), which are the rolls of the
game's transcript, verified (commit-reveal chains and the plays replayed) and counted here
independently; the player's errors in that match are their trainer puzzles, and the guest's
errors theirs, proven by the seat token their browser keeps."""

from __future__ import annotations

import asyncio

from harness.accounts import Browser, signed_up
from harness.srv_support import play_out, server_fixture
from protocol.client import MatchClient, join_match
from protocol.client.lobby import get
from protocol.fairdice import RollKind, verify_json

server = server_fixture(FAIRGAMMON_ANALYSERS="1")


async def test_skill_record_and_dice_audit(server) -> None:
    ann = await signed_up(server.base, "skilled")
    created = (await ann.post("/api/matches", {"mode": "match", "length": 1, "name": "x"})).body
    match_id = created["match"]
    joined = await join_match(server.base, match_id, name="Bob")
    a = MatchClient(server.ws, match_id, created["token"])
    b = MatchClient(server.ws, match_id, joined["token"])
    async with a, b:
        await play_out(a, b, seed=21)
    base = f"/api/matches/{match_id}/games/1"
    for _ in range(600):
        report = await get(server.base, f"{base}/analysis.json")
        body = (await ann.get("/api/players/skilled/skill")).body
        if report["status"] == "done" and body["matches"] and body["matches"][0]["games"]:
            break
        await asyncio.sleep(0.1)
    assert [m["match"] for m in body["matches"]] == [match_id]
    seat = created["seat"]
    mine = next(p for p in report["players"] if p["seat"] == seat)
    assert body["matches"][0]["pr"] == round(mine["pr"], 2) == body["rolling"]
    assert body["matches"][0]["luck_adjusted"] == round(mine["luck_adjusted"], 3)
    # The dice: the player's rolls in the move record, but the first (the opening roll).
    record = await get(server.base, f"{base}/record.json")
    rolled = [t for t in record["turns"] if t["dice"] and t["action"] in ("move", "pass")]
    dice = [t["dice"] for t in rolled[1:] if t["seat"] == seat]
    tables = {t["name"]: t for t in body["dice"]["tables"]}
    assert body["dice"]["rolls"] == len(dice) > 0  # a short game (a double dropped) has few
    faces = [0] * 6
    for d1, d2 in dice:
        faces[d1 - 1] += 1
        faces[d2 - 1] += 1
    assert tables["faces"]["observed"] == faces
    assert tables["doubles"]["observed"][0] == sum(d1 == d2 for d1, d2 in dice)
    assert 0.0 <= tables["faces"]["p"] <= 1.0
    # The same figures from the game's transcript, verified: the player's turn rolls (the
    # roll-off's rolls, whose dice make the opening move, are nobody's roll of both dice).
    transcript = await get(server.base, f"{base}/transcript.json")
    verdict = verify_json(transcript)
    assert verdict.plays_replayed and verdict.plays_replayed > 5
    turns = [r for r in transcript["rolls"] if r["kind"] == RollKind.TURN and r["roller"] == seat]
    verified = [0] * 6
    for r in turns:
        verified[r["d1"] - 1] += 1
        verified[r["d2"] - 1] += 1
    assert body["dice"]["rolls"] == len(turns)
    assert tables["faces"]["observed"] == verified
    assert tables["doubles"]["observed"][0] == sum(r["d1"] == r["d2"] for r in turns)
    assert (await ann.get("/api/players/nobody_here/skill")).status == 404
    # The trainer: the player's errors in this played match are their puzzles, set up from it.
    errors = [i for i, t in enumerate(report["turns"]) if t["seat"] == seat and (
        ((t["equity_lost"] or 0) >= 0.04 and (t["best"] or t["best_action"]))
        or (t["cube_lost"] or 0) >= 0.04)]
    trainer = (await ann.get("/api/trainer")).body
    assert trainer["total"] == len(errors) > 0, (trainer, errors)
    assert trainer["puzzle"]["source"] == f"m:{match_id}/1/{errors[0]}"
    wrong = (await ann.post("/api/trainer/answer",
                            {"puzzle": trainer["puzzle"]["id"], "answer": "nonsense"})).body
    turn = report["turns"][errors[0]]
    assert wrong["right"] is False and wrong["best"] in (turn["best"], turn["best_action"])

    # The guest (Bob, no account): the seat token proves the seat; the puzzles are exactly the
    # guest's errors, progress comes back for the browser to keep.
    other = 1 - seat
    guest_errors = [i for i, t in enumerate(report["turns"]) if t["seat"] == other and (
        ((t["equity_lost"] or 0) >= 0.04 and (t["best"] or t["best_action"]))
        or (t["cube_lost"] or 0) >= 0.04)]
    bob = Browser(server.base)
    seats = [{"match": match_id, "token": joined["token"]}]
    first = (await bob.post("/api/trainer/guest", {"seats": seats, "progress": None})).body
    assert first["total"] == len(guest_errors) > 0, (first, guest_errors)
    assert first["progress"]["answered"] == 0
    assert first["puzzle"]["source"] == f"m:{match_id}/1/{guest_errors[0]}"
    turn = report["turns"][guest_errors[0]]
    best = turn["best"] or turn["best_action"]
    good = (await bob.post("/api/trainer/guest/answer", {
        "seats": seats, "progress": first["progress"], "puzzle": first["puzzle"]["id"],
        "answer": best})).body
    assert good["right"] is True and good["streak"] == 1
    assert good["progress"]["answered"] == 1
    # Ann's token gives Ann's puzzles to whoever holds it; a wrong token gives nothing, a
    # malformed item is refused.
    again = (await bob.post("/api/trainer/guest",
                            {"seats": [{"match": match_id, "token": created["token"]}]})).body
    assert again["total"] == len(errors)
    wrong_token = [{"match": match_id, "token": "not-the-token"}]
    assert (await bob.post("/api/trainer/guest", {"seats": wrong_token})).body["total"] == 0
    for bad in ([{"match": "zz", "token": "x"}],
                ["nonsense"], [{"match": match_id, "token": joined["token"]}] * 51):
        refused = await bob.post("/api/trainer/guest", {"seats": bad})
        assert refused.status == 400 and refused.body["error"] == "bad_field", refused
    refused = await bob.post("/api/trainer/guest", {"seats": seats, "progress": {"streak": "x"}})
    assert refused.status == 400
