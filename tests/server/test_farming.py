"""Rating farming through a real server process (docs/fairplay.md): two accounts from one address
play four rated 3-point matches, each thrown at the first decision. Before the rules this took
the farmer to 1565 (+65) and first place on the leaderboard; now each is abandoned (no rating,
no history line, no count) and flagged for the moderators with the shared address. A match
really played between them still moves both ratings (the positive control), and one past the
pair's daily cap is recorded as played, unrated."""

from __future__ import annotations

import asyncio
import json
import random
import subprocess
import sys

import pytest
import redis.asyncio as aioredis

from harness.accounts import Browser, signed_up
from harness.serverproc import ServerProcess
from protocol.client import MatchClient, play_random
from protocol.events import PLAYER_DECISIONS
from server.players.accounts_store import AccountsStore


@pytest.fixture
async def farm_server(redis_url):
    proc = ServerProcess(
        redis_url,
        FAIRGAMMON_RATED_MIN_PLAYS="3",  # the production default (the harness turns it off)
        FAIRGAMMON_RATED_PAIR_DAILY="1",  # (3 by default) the cap shows with two matches
        FAIRGAMMON_LEADERBOARD_EXPERIENCE="3",
    )
    proc.start()
    yield proc
    proc.stop()


async def rated(proc: ServerProcess, owner: Browser, joiner: Browser, length: int):
    created = await owner.post("/api/matches", {"mode": "match", "length": length, "rated": True})
    assert created.status == 201, created.body
    match = created.body["match"]
    joined = await joiner.post(f"/api/matches/{match}/join", {})
    assert joined.status == 200, joined.body
    return (
        match,
        MatchClient(proc.ws, match, created.body["token"]),
        MatchClient(proc.ws, match, joined.body["token"]),
    )


async def results_stored(redis: aioredis.Redis, matches: list[str]) -> None:
    """Wait until every match's result is computed and nothing is left to record."""
    for _ in range(300):
        stored = [await redis.exists(f"fg:{{m:{m}}}:result") for m in matches]
        if all(stored) and await redis.zcard("fg:idx:results") == 0:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("results not recorded")


async def test_two_accounts_from_one_address_cannot_farm_a_rating(farm_server, redis_url):
    proc = farm_server
    farmer = await signed_up(proc.base, "farmer")
    mule = await signed_up(proc.base, "mule")  # same address: 127.0.0.1
    thrown = []
    for _ in range(4):
        match, a, b = await rated(proc, farmer, mule, 3)
        async with a, b:
            await a.wait_for(lambda t: any(t.owes(s) in PLAYER_DECISIONS for s in (0, 1)))
            await b.leave()  # the mule throws the match at the first decision
            await a.wait_for(lambda t: t.over is not None)
        info = (await farmer.get(f"/api/matches/{match}")).body
        assert info["winner"] == 0 and info["rated"] is True, info
        thrown.append(match)
    redis = aioredis.from_url(redis_url)
    try:
        await results_stored(redis, thrown)
        for name in ("farmer", "mule"):
            body = (await farmer.get(f"/api/players/{name}")).body
            assert (body["rating"], body["experience"], body["matches"]) == (1500.0, 0, 0), body
            assert body["history"] == [] and body["chart"] == []
        board = (await Browser(proc.base).get("/api/leaderboard")).body
        assert board["players"] == []
        # Each thrown match is flagged for the moderators: one address, abandoned early.
        flagged = await AccountsStore(redis).flagged()
        assert sorted(f["match"] for f in flagged) == sorted(thrown)
        for f in flagged:
            assert f["flags"] == ["same_address"] and f["shared"] == ["127.0.0.1"], f
            assert f["accounts"] == ["farmer", "mule"] and f["void"] == "early"
        assert [f["match"] for f in await AccountsStore(redis).flagged(name="mule")] == [
            f["match"] for f in flagged
        ]

        # The positive control: a 1-point match played out moves both ratings (and is flagged).
        # The thrown matches did not count toward the pair's daily cap (1 here): the next one
        # played out is past it, recorded as played, unrated, and flagged repeat_pair.
        for n in (1, 2):
            match, a, b = await rated(proc, farmer, mule, 1)
            async with a, b:
                await asyncio.wait_for(
                    asyncio.gather(  # no cube: a double dropped at once would end it early
                        play_random(a, random.Random(n), double_rate=0),
                        play_random(b, random.Random(n + 9), double_rate=0),
                    ),
                    60,
                )
            await results_stored(redis, [match])
            if n == 1:
                winner = (await farmer.get(f"/api/matches/{match}")).body["winner"]
        ratings = [(await farmer.get(f"/api/players/{n}")).body for n in ("farmer", "mule")]
        assert ratings[winner]["rating"] == 1510.0, (winner, ratings)
        assert ratings[1 - winner]["rating"] == 1490.0
        assert [(r["matches"], r["experience"]) for r in ratings] == [(2, 1), (2, 1)]
        for r in ratings:
            newest, first = r["history"]
            assert (first["rated"], first["void"]) == (True, None) and first["change"] != 0
            assert (newest["rated"], newest["void"], newest["change"]) == (False, "repeat", None)
        flagged = await AccountsStore(redis).flagged()
        assert len(flagged) == 6
        assert flagged[0]["flags"] == ["same_address", "repeat_pair"]
        assert flagged[0]["void"] == "repeat" and flagged[1]["void"] is None
        # The operator reads the same flags from the command line.
        printed = await asyncio.to_thread(
            subprocess.run,
            [sys.executable, "-m", "server.cli", "flags", "--redis-url", redis_url,
             "--account", "farmer"],
            capture_output=True, text=True, timeout=60,
        )  # fmt: skip
        assert printed.returncode == 0, printed.stderr
        assert [json.loads(line) for line in printed.stdout.splitlines()] == flagged
    finally:
        await redis.aclose()
