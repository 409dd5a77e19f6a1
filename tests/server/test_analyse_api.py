"""``POST /api/analyse`` and ``GET /api/analyse/{job}`` through a real server with one analysis
worker: 1- and 2-ply answered at once and equal to the board's core run here; 3-ply queued to
the worker, polled until done, then answered from the stored result; every bad input a typed
400, an unknown job a 404, a failed one a 500."""

from __future__ import annotations

import asyncio
import json
import urllib.error
import urllib.request
from typing import Any

import pytest

from analysis.board import analyse_position, setup_from_ids, setup_from_xgid, to_json
from engine import position_id
from engine.position import Position
from harness.srv_support import server_fixture, store_at
from server.work import board_queue

START = "4HPwATDgc/ABMA"
XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"

server = server_fixture(FAIRGAMMON_ANALYSERS="1")


def _call(base: str, method: str, path: str, body: Any = None) -> tuple[int, dict]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"{base}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=60) as answer:
            return answer.status, json.loads(answer.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def call(base: str, method: str, path: str, body: Any = None) -> tuple[int, dict]:
    return await asyncio.to_thread(_call, base, method, path, body)


async def test_ranked_plays_cube_and_queued_deeper_plies(server, redis_url) -> None:
    base = server.base
    status, one = await call(base, "POST", "/api/analyse",
                             {"position_id": START, "dice": [3, 1], "ply": 1})
    assert status == 200
    assert one == to_json(analyse_position(setup_from_ids(START, None, (3, 1)), 1))
    assert one["plays"][0]["play"] == "8/5 6/5" and one["plays"][0]["loss"] == 0.0
    assert [p["equity"] for p in one["plays"]] == sorted(
        (p["equity"] for p in one["plays"]), reverse=True)
    status, two = await call(base, "POST", "/api/analyse", {"xgid": XGID, "ply": 2})
    assert status == 200
    assert two == to_json(analyse_position(setup_from_xgid(XGID), 2))
    assert two["dice"] == [3, 1] and two["plays"][0]["ply"] == 2
    status, cube = await call(base, "POST", "/api/analyse", {"position_id": START})
    assert status == 200 and cube["plays"] == [] and cube["cube"]["action"] == "no_double"
    assert cube["cube"]["window"] is not None
    # 3-ply: queued, polled, then answered from the stored result.
    request = {"position_id": START, "match_id": "cAkAAAAAAAAA", "dice": [6, 4], "ply": 3}
    status, queued = await call(base, "POST", "/api/analyse", request)
    assert status == 202 and queued["status"] == "pending", queued
    assert queued["poll"] == f"/api/analyse/{queued['job']}"
    for _ in range(600):
        status, polled = await call(base, "GET", queued["poll"])
        if status == 200:
            break
        assert status == 202 and polled["status"] == "pending"
        await asyncio.sleep(0.1)
    assert status == 200, polled
    expected = to_json(analyse_position(setup_from_ids(START, "cAkAAAAAAAAA", (6, 4)), 3))
    assert polled["seconds"] >= 0
    del polled["seconds"]
    assert polled == expected
    status, again = await call(base, "POST", "/api/analyse", request)
    assert status == 200 and again["plays"] == expected["plays"]
    # A job the workers could not do, and jobs that do not exist.
    async with store_at(redis_url) as store:
        await board_queue.store(store.redis, "f" * 24, {"status": "failed", "message": "x"})
    assert (await call(base, "GET", "/api/analyse/" + "f" * 24))[0] == 500
    assert (await call(base, "GET", "/api/analyse/" + "e" * 24))[0] == 404
    assert (await call(base, "GET", "/api/analyse/not-a-job"))[0] == 404


OVER = position_id.encode(Position((15,) + (0,) * 25, Position.start().opponent))


@pytest.mark.parametrize("body, code", [
    ({"position_id": "not an id!"}, "bad_position_id"),
    ({}, "bad_position_id"),
    ({"position_id": START, "xgid": XGID}, "bad_position_id"),
    ({"match_id": "cAkAAAAAAAAA"}, "bad_position_id"),
    ({"position_id": START, "match_id": "zzz"}, "bad_match_id"),
    ({"xgid": XGID, "match_id": "cAkAAAAAAAAA"}, "bad_match_id"),
    ({"xgid": "XGID=nonsense"}, "bad_xgid"),
    ({"position_id": START, "dice": [7, 1]}, "bad_dice"),
    ({"position_id": START, "dice": [1]}, "bad_dice"),
    ({"position_id": START, "dice": [True, 1]}, "bad_dice"),
    ({"position_id": START, "dice": ["3", "1"]}, "bad_dice"),
    ({"position_id": START, "dice": "31"}, "bad_field"),
    ({"position_id": START, "ply": 4}, "bad_field"),
    ({"position_id": START, "ply": "2"}, "bad_field"),
    ({"position_id": START, "depth": 2}, "bad_field"),
    ({"position_id": OVER}, "game_over"),
])
async def test_bad_input_gets_a_typed_error(server, body, code) -> None:
    status, answer = await call(server.base, "POST", "/api/analyse", body)
    assert (status, answer["error"]) == (400, code), answer
    assert answer["message"]
