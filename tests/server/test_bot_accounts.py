"""Bot accounts (docs/accounts.md, "Bot accounts") through a real server process and Redis: one
account asks to be a bot, the operator marks another with ``fairgammon accounts bot``; a human
who played rated cannot ask; the two bots, driven by the public client library
(protocol/client), are paired by rated seeks and play a rated match that moves their ratings in
the bots' pool only (the humans' leaderboard and the Top Gamer board unchanged), while a
human's rated seek waits beside them unpaired; a rated match, a challenge or a rated tournament
across the pools is refused ``bot_pool`` (a human may challenge a bot); every name the API
gives carries its ``bot`` flag."""

from __future__ import annotations

import asyncio
import os
import random
import subprocess
import sys

from harness.accounts import Browser, signed_up
from harness.serverproc import ServerProcess
from protocol.client import MatchClient, play_random


async def play_out(ws: str, match: str, tokens: tuple[str, str], seed: int) -> None:
    a, b = MatchClient(ws, match, tokens[0]), MatchClient(ws, match, tokens[1])
    async with a, b:
        rng = random.Random(seed)
        seats = (play_random(c, random.Random(rng.random())) for c in (a, b))
        done = await asyncio.wait_for(asyncio.gather(*seats), 60)
    assert done[0] is not None and done[0].winner in (0, 1)


async def board(browser: Browser, pool: str) -> list[tuple[str, float, bool]]:
    body = (await browser.get(f"/api/leaderboard?pool={pool}")).body
    assert body["pool"] == pool
    return [(p["username"], p["rating"], p["bot"]) for p in body["players"]]


async def until(check, what: str) -> None:
    for _ in range(200):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(what)


async def test_bots_play_rated_in_their_own_pool(redis_url):
    proc = ServerProcess(redis_url, FAIRGAMMON_LEADERBOARD_EXPERIENCE="1")
    proc.start()
    try:
        await _scenario(proc, redis_url)
    finally:
        proc.stop()


async def _scenario(proc: ServerProcess, redis_url: str) -> None:
    base = proc.base
    ann, bob = await signed_up(base, "ann"), await signed_up(base, "bob")
    zed, ray = await signed_up(base, "Zed_bot"), await signed_up(base, "ray_bot")

    # Two humans play one rated match: the humans' leaderboard has them.
    created = await ann.post("/api/matches", {"mode": "match", "length": 1, "rated": True})
    joined = await bob.post(f"/api/matches/{created.body['match']}/join", {})
    await play_out(proc.ws, created.body["match"], (created.body["token"], joined.body["token"]), 1)
    await until(lambda: _count(ann, "humans", 2), "the humans' match was not recorded")
    humans = await board(ann, "humans")
    assert {n for n, _, bot in humans if not bot} == {"ann", "bob"}

    # A bot by its own request; a human who played rated cannot ask (a rated match of a
    # variant counts too: it moves no backgammon experience); the operator's CLI.
    mine = await zed.post("/api/my/bot", {})
    assert mine.status == 200 and mine.body["bot"] is True, mine.body
    refused = await ann.post("/api/my/bot", {})
    assert (refused.status, refused.body["error"]) == (409, "bot_refused"), refused.body
    cat, dan = await signed_up(base, "cat"), await signed_up(base, "dan")
    created = await cat.post(
        "/api/matches", {"mode": "match", "length": 1, "rated": True, "variant": "hypergammon"})
    joined = await dan.post(f"/api/matches/{created.body['match']}/join", {})
    await play_out(proc.ws, created.body["match"], (created.body["token"], joined.body["token"]), 3)

    async def counted() -> bool:
        return (await cat.get("/api/players/cat")).body["variants"].get("hypergammon") is not None

    await until(counted, "the hypergammon match was not recorded")
    assert (await cat.get("/api/players/cat")).body["experience"] == 0
    refused = await cat.post("/api/my/bot", {})
    assert (refused.status, refused.body["error"]) == (409, "bot_refused"), refused.body
    cli = operator(redis_url, "RAY_BOT")
    assert cli.returncode == 0 and "ray_bot is a bot account" in cli.stdout, cli
    assert (await ray.get("/api/account")).body["bot"] is True
    assert (await ann.get("/api/players/ann")).body["bot"] is False

    # Seeks: the human's rated seek is older, yet the bots pair with each other, not with it.
    terms = {"mode": "match", "length": 1, "clock": 20, "rated": True}
    human = await ann.post("/api/seeks", {**terms, "bots": True})
    assert human.status == 201 and human.body["state"] == "waiting", human.body
    first = await zed.post("/api/seeks", terms)
    assert first.body["state"] == "waiting", first.body  # not paired with ann
    second = await ray.post("/api/seeks", terms)
    assert second.body["state"] == "paired", second.body
    paired = (await zed.get(f"/api/seeks/{first.body['seek']}")).body
    match = second.body["match"]
    assert paired["state"] == "paired" and paired["match"] == match
    tokens = (paired["token"], second.body["token"]) if paired["seat"] == 0 else (
        second.body["token"], paired["token"])
    info = (await ann.get(f"/api/matches/{match}")).body
    assert info["rated"] is True and info["bot_accounts"] == [True, True], info

    await play_out(proc.ws, match, tokens, 2)
    await until(lambda: _count(ann, "bots", 2), "the bots' match was not recorded")
    bots = await board(ann, "bots")
    assert {n for n, _, _ in bots} == {"Zed_bot", "ray_bot"} and all(b for _, _, b in bots)
    assert sorted(r for _, r, _ in bots) == [1490.0, 1510.0], bots  # moved, in their pool
    assert await board(ann, "humans") == humans  # unchanged, and no bot on it
    top = (await ann.get("/api/top?period=week")).body["players"]
    assert {p["username"] for p in top} == {"ann", "bob"}, top
    still = (await ann.get(f"/api/seeks/{human.body['seek']}")).body
    assert still["state"] == "waiting", still  # the human was never paired with a bot
    profile = (await ann.get("/api/players/ray_bot")).body
    assert profile["bot"] is True and profile["experience"] == 1 and profile["history"][0]["rated"]
    line = profile["history"][0]  # its opponent, the other bot, is tagged in its history
    assert line["opponent"] == "Zed_bot" and line["opponent_bot"] is True, line
    for name in ("ray_bot", "bob"):  # followed: the friends page's list says which is a bot
        assert (await ann.post("/api/my/friends", {"name": name})).status in (200, 201)
    following = (await ann.get("/api/my/friends")).body["following"]
    assert {f["name"]: f["bot"] for f in following} == {"ray_bot": True, "bob": False}

    # Across the pools: a rated join and a bot's challenge to a human are refused.
    own = await zed.post("/api/matches", {"mode": "match", "length": 1, "rated": True})
    cross = await bob.post(f"/api/matches/{own.body['match']}/join", {})
    assert (cross.status, cross.body["error"]) == (403, "bot_pool"), cross.body
    casual = await zed.post("/api/matches", {"mode": "match", "length": 1})
    offer = {"name": "bob", "match": casual.body["match"], "invite": casual.body["invite"]}
    dare = await zed.post("/api/challenges", offer)
    assert (dare.status, dare.body["error"]) == (403, "bot_pool"), dare.body
    mine = await bob.post("/api/matches", {"mode": "match", "length": 1})
    offer = {"name": "Zed_bot", "match": mine.body["match"], "invite": mine.body["invite"]}
    assert (await bob.post("/api/challenges", offer)).status == 201  # anyone challenges a bot
    sent = (await bob.get("/api/my/challenges")).body["sent"]
    got = (await zed.get("/api/my/challenges")).body["received"]
    assert [(c["to"], c["bot"]) for c in sent] == [("zed_bot", True)], sent
    assert [(c["from"], c["bot"]) for c in got] == [("bob", False)], got
    cup = {"kind": "knockout", "length": 1, "clock": 20, "max_players": 4, "rated": True}
    made = await bob.post("/api/tournaments", cup)
    assert made.status == 201, made.body
    entry = await zed.post(f"/api/tournaments/{made.body['tournament']}/join", {})
    assert (entry.status, entry.body["error"]) == (403, "bot_pool"), entry.body
    friendly = await bob.post("/api/tournaments", {**cup, "rated": False})
    tid = friendly.body["tournament"]
    assert (await zed.post(f"/api/tournaments/{tid}/join", {})).status == 200
    assert (await bob.post(f"/api/tournaments/{tid}/join", {})).status == 200
    entrants = (await ann.get(f"/api/tournaments/{tid}")).body["players"]
    assert [(p["name"], p["bot"]) for p in entrants] == [("Zed_bot", True), ("bob", False)]
    listed = (await bob.get("/api/matches?status=open")).body["matches"]
    assert {m["id"]: m["bot_accounts"] for m in listed}[casual.body["match"]] == [True, False]
    # A person's open match in the lobby does not take a bot, but with its invite it does.
    lobbied = await bob.post("/api/matches", {"mode": "match", "length": 1})
    path = f"/api/matches/{lobbied.body['match']}/join"
    uninvited = await zed.post(path, {})
    assert (uninvited.status, uninvited.body["error"]) == (403, "bot_pool"), uninvited.body
    assert (await zed.post(path, {"invite": lobbied.body["invite"]})).status == 200

    # The operator moves a human to the bots' pool and back: the rating goes with the account,
    # and a bot is on no Top Gamer board whatever points it had.
    assert operator(redis_url, "bob").returncode == 0
    assert [n for n, _, _ in await board(ann, "humans")] == ["ann"]
    assert "bob" in [n for n, _, _ in await board(ann, "bots")]
    assert [p["username"] for p in (await ann.get("/api/top?period=week")).body["players"]] == [
        n for n, _, _ in humans if n == "ann"
    ]
    assert operator(redis_url, "bob", "--off").returncode == 0
    assert await board(ann, "humans") == humans
    assert operator(redis_url, "nobody_here").returncode == 1


def operator(redis_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``fairgammon accounts bot ARGS`` on the test's Redis."""
    return subprocess.run(
        [sys.executable, "-m", "server.cli", "accounts", "bot", *args],
        env={**os.environ, "REDIS_URL": redis_url},
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )


async def _count(browser: Browser, pool: str, n: int) -> bool:
    return len(await board(browser, pool)) == n
