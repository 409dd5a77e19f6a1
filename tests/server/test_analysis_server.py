"""Analysis of every finished game through real processes: ``fairgammon serve`` with one
analysis worker, a real Redis, two random-playing clients. The game is queued when it ends
(before anyone asks), the worker analyses it, and ``analysis.json`` serves the report, turn for
turn the same game as ``record.json``."""

from __future__ import annotations

import asyncio
import json

import pytest

from engine.position_id import decode
from harness.serverproc import ServerProcess
from harness.srv_support import play_out, store_at
from protocol.client import MatchClient, create_match, join_match
from protocol.client.lobby import LobbyError, get
from server.work import analysis_queue as queue


async def test_finished_game_is_queued_analysed_and_served(redis_url) -> None:
    server = ServerProcess(redis_url, FAIRGAMMON_ANALYSERS="1")
    server.start()
    try:
        created = await create_match(server.base, name="Ann", mode="match", length=1)
        joined = await join_match(server.base, created["match"], name="Bob")
        match_id = created["match"]
        base = f"/api/matches/{match_id}/games/1"
        # Not finished: no analysis, a clear 404.
        with pytest.raises(LobbyError) as err:
            await get(server.base, f"{base}/analysis.json")
        assert err.value.status == 404
        a = MatchClient(server.ws, match_id, created["token"])
        b = MatchClient(server.ws, match_id, joined["token"])
        async with a, b:
            await play_out(a, b, seed=21)
        # Queued by the server when the game ended, without any request.
        async with store_at(redis_url) as store:
            for _ in range(50):
                if await queue.status(store.redis, match_id, 1) is not None:
                    break
                await asyncio.sleep(0.05)
            assert await queue.status(store.redis, match_id, 1) is not None
        seen = []
        for _ in range(300):
            answer = await get(server.base, f"{base}/analysis.json")
            seen.append(answer["status"])
            if answer["status"] == "done":
                break
            assert answer["status"] == "pending"
            await asyncio.sleep(0.1)
        assert seen[-1] == "done", seen
        record = await get(server.base, f"{base}/record.json")
        assert answer["level"] == "1-ply" and answer["game"] == 1
        assert [p["seat"] for p in answer["players"]] == [0, 1]
        for p in answer["players"]:
            assert p["decisions"] > 0 and p["error_rate"] >= 0
            assert p["error_rate"] > 0  # random play is never perfect
        winner = record["result"]["winner"]
        assert answer["players"][winner]["result"] > 0 > answer["players"][1 - winner]["result"]
        assert len(answer["turns"]) == len(record["turns"])
        ties = mistakes = 0
        for t, r in zip(answer["turns"], record["turns"], strict=True):
            assert (t["seat"], t["action"], t["dice"]) == (r["seat"], r["action"], r["dice"])
            if t["action"] == "move":
                assert t["played"] == r["position"]
                decode(t["best"])  # a Position ID
                assert t["equity_lost"] >= 0 and t["luck"] is not None
                # The best play loses nothing; another play loses something, which the report
                # rounds to 0.0001 (so a loss under 0.00005 shows as 0: seen in a full run).
                if t["played"] == t["best"]:
                    assert t["equity_lost"] == 0
                ties += t["played"] != t["best"] and t["equity_lost"] == 0
                mistakes += t["equity_lost"] > 0
        assert mistakes > ties  # random play: mistakes, and such near-ties only now and then
        # Asking again gives the same stored report.
        assert json.dumps(await get(server.base, f"{base}/analysis.json")) == json.dumps(answer)
        for bad in ("/api/matches/zz/games/1/analysis.json",
                    f"/api/matches/{match_id}/games/7/analysis.json"):
            with pytest.raises(LobbyError) as err:
                await get(server.base, bad)
            assert err.value.status == 404
    finally:
        server.stop()
