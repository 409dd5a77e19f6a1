"""Rollouts through a real server with one analysis worker: a bear-off whose equity is known
exactly lands in its interval, with the progress going batch by batch; a long rollout is
cancelled while it runs and keeps its batches; the per-player limit; another player's rollout
played between the batches of long ones (the fair share); only the owner cancels;
every bad input a typed error; the caller's rollouts listed."""

from __future__ import annotations

import asyncio

from engine import position_id
from engine.position import Position
from harness.accounts import Browser, signed_up
from harness.srv_support import server_fixture

server = server_fixture(FAIRGAMMON_ANALYSERS="1")

# The roller wins only with 3-3, 4-4, 5-5 or 6-6 (two checkers on its 6-point, the opponent one
# on its 1-point): cubeless equity 2 * 4/36 - 1.
LAST_ROLL = position_id.encode(Position.from_points({6: 2}, {1: 1}))
EQUITY = 2 * 4 / 36 - 1
START = "4HPwATDgc/ABMA"


async def wait_for(guest: Browser, poll: str, *statuses: str) -> dict:
    seen = []
    for _ in range(600):
        body = (await guest.get(poll)).body
        seen.append((body["status"], body["progress"]["trials"]))
        if body["status"] in statuses:
            return body
        await asyncio.sleep(0.1)
    raise AssertionError(f"never {statuses}: {seen[-5:]}")


async def test_rollout_progress_cancel_limit_and_errors(server) -> None:
    guest = Browser(server.base, origin=None)
    started = await guest.post("/api/rollouts", {"position_id": LAST_ROLL, "trials": 108})
    assert started.status == 202, started.body
    poll = started.body["poll"]
    trials_seen = set()
    for _ in range(600):
        body = (await guest.get(poll)).body
        trials_seen.add(body["progress"]["trials"])
        if body["status"] == "done":
            break
        await asyncio.sleep(0.05)
    assert body["status"] == "done" and body["mine"] is True
    assert trials_seen <= {0, 36, 72, 108} and 108 in trials_seen
    figures = body["figures"]
    assert figures["trials"] == figures["of"] == 108
    cubeless = figures["cubeless"]
    assert cubeless["low"] - 1e-4 <= EQUITY <= cubeless["high"] + 1e-4, cubeless
    assert figures["action"] in ("no_double", "double_take", "double_pass", "too_good")
    # A play rolled out: 8/5 6/5 after the opening 3-1, for its mover.
    play = await guest.post("/api/rollouts", {"position_id": START, "dice": [3, 1],
                                              "play": "4HPwATCwZ/ABMA", "trials": 36,
                                              "truncation": 7})
    assert play.status == 202, play.body
    done = await wait_for(guest, play.body["poll"], "done")
    assert done["figures"]["subject"] == "play"
    assert 0.0 < done["figures"]["equity"]["mean"] < 0.5  # 8/5 6/5 is good for the mover
    # Two long rollouts: the limit, and a cancel while it runs that keeps its batches.
    long = {"position_id": START, "trials": 1296, "truncation": 7}  # 36 short batches
    first = await guest.post("/api/rollouts", long)
    second = await guest.post("/api/rollouts", long)
    assert first.status == second.status == 202
    third = await guest.post("/api/rollouts", long)
    assert (third.status, third.body["error"]) == (429, "too_many_rollouts")
    # Only the owner cancels.
    other = await signed_up(server.base, "rollcaller")
    assert (await other.post(f"{first.body['poll']}/cancel")).status == 403
    running = await wait_for(guest, first.body["poll"], "running")
    assert running["progress"]["of"] == 1296
    # A fair share: another player's short rollout, queued behind the two long ones, is played
    # between their batches (each rollout rejoins the queue's end after a batch) and ends while
    # they still run (a whole one takes some 10 s on the one worker, 36 batches).
    short = await other.post("/api/rollouts", {"position_id": LAST_ROLL, "trials": 72})
    assert short.status == 202
    await wait_for(other, short.body["poll"], "done")
    for answer in (first, second):
        still = (await guest.get(answer.body["poll"])).body
        assert still["status"] in ("queued", "running") and still["progress"]["trials"] < 1296
    cancelled = await guest.post(f"{first.body['poll']}/cancel")
    assert cancelled.status == 200 and cancelled.body["cancel"] is True
    assert (await guest.post(f"{second.body['poll']}/cancel")).status == 200
    for answer in (first, second):
        ended = await wait_for(guest, answer.body["poll"], "cancelled")
        assert ended["progress"]["trials"] % 36 == 0 and ended["progress"]["trials"] < 1296
    # The place is free again.
    again = await guest.post("/api/rollouts", {"position_id": LAST_ROLL, "trials": 36})
    assert again.status == 202
    await wait_for(guest, again.body["poll"], "done")
    listed = (await guest.get("/api/rollouts")).body["rollouts"]
    assert [r["rollout"] for r in listed][:2] == [again.body["rollout"], second.body["rollout"]]
    assert [r["rollout"] for r in (await other.get("/api/rollouts")).body["rollouts"]] == [
        short.body["rollout"]]
    # Bad input.
    for body, code in [
        ({"position_id": START, "dice": [3, 1], "play": START}, "bad_play"),
        ({"position_id": START, "play": "4HPwATCwZ/ABMA"}, "bad_play"),
        ({"position_id": START, "dice": [3, 1], "play": "nonsense"}, "bad_play"),
        ({"position_id": START, "trials": 40}, "bad_field"),
        ({"position_id": START, "truncation": -1}, "bad_field"),
        ({"position_id": START, "variance_reduction": 1}, "bad_field"),
        ({"position_id": "???"}, "bad_position_id"),
        ({"xgid": "XGID=1"}, "bad_xgid"),
        ({"position_id": START, "depth": 1}, "bad_field"),
    ]:
        reply = await guest.post("/api/rollouts", body)
        assert (reply.status, reply.body["error"]) == (400, code), (body, reply.body)
    assert (await guest.get("/api/rollouts/" + "0" * 24)).status == 404
    assert (await guest.get("/api/rollouts/nope")).status == 404
