"""The computer opponent through real processes: a server started by ``fairgammon serve`` with
its embedded bot worker, Redis, and the asyncio client playing the human seat."""

from __future__ import annotations

import asyncio
import json
import random
import urllib.error
import urllib.request

import pytest

from engine.movegen import legal_plays
from engine.notation import play_text
from harness.srv_support import server_fixture
from protocol.client import LobbyError, MatchClient, create_match, join_match, play_random
from protocol.client.lobby import get, get_text, offer_rematch
from protocol.fairdice import verify_json
from protocol.messages import Event

# One server for the module, with serve's default bot worker, playing without think time; a
# worker silent for 1.5 s has its games claimed by another.
bot_server = server_fixture(
    FAIRGAMMON_BOTS="1", FAIRGAMMON_BOT_DELAY_MS="0", FAIRGAMMON_BOT_CLAIM_IDLE_MS="1500"
)


async def _create_bot_match(base: str, **options):
    for _ in range(100):  # the worker announces itself within a second of starting
        try:
            return await create_match(base, name="Ann", **options)
        except LobbyError as exc:
            if exc.code != "no_bots":
                raise
            await asyncio.sleep(0.1)
    raise AssertionError("the bot worker never came up")


async def _verify_all(base: str, match_id: str) -> int:
    bundle = json.loads(await get_text(base, f"/api/matches/{match_id}/transcript.json"))
    for game in bundle["games"]:
        verdict = verify_json(json.dumps(game))  # raises unless it verifies
        assert verdict.rolls > 0 and verdict.plays_replayed
    return len(bundle["games"])


@pytest.mark.parametrize(
    ("level", "options"),
    [
        ("easy", {"mode": "single_game"}),
        ("normal", {"mode": "match", "length": 2}),
        ("hard", {"mode": "match", "length": 2}),
        ("expert", {"mode": "single_game"}),
    ],
)
async def test_complete_match_against_each_level(bot_server, level, options):
    created = await _create_bot_match(bot_server.base, bot=level, **options)
    match_id = created["match"]
    assert created["seat"] == 0 and created["bot"] == level and "invite" not in created
    seen: list[object] = []
    human = MatchClient(bot_server.ws, match_id, created["token"],
                        on_event=seen.append)
    async with human:
        # The bot took the other seat at once, under its level's name.
        await human.wait_for(lambda t: t.names[1] is not None, timeout=10)
        assert human.tracker.names[1] == f"Computer ({level.capitalize()})"
        # The lobby's live list labels it a match against the computer, never rated.
        live = (await get(bot_server.base, "/api/matches?status=live"))["matches"]
        assert [(m["bot"], m["rated"]) for m in live if m["id"] == match_id] == [(level, False)]
        result = await asyncio.wait_for(
            play_random(human, random.Random(12), double_rate=0.3, take_rate=1.0), 120)
    assert result is not None and result.reason != "forfeit"
    assert human.rejects == []
    assert await _verify_all(bot_server.base, match_id) >= 1
    info = await get(bot_server.base, f"/api/matches/{match_id}")
    assert info["bot"] == level and info["phase"] == "over"
    if options["mode"] == "match":
        cube = [e.data for e in seen if isinstance(e, Event)
                and type(e.data).__name__ in ("Doubled", "Taken", "Dropped")]
        assert cube, "the human doubles often: the bot must have answered a double"


@pytest.mark.parametrize("variant", ["plakoto", "fevga"])
async def test_a_game_of_plakoto_or_fevga_against_the_computer(bot_server, variant):
    """The worker plays the heuristic (the nets play nackgammon, hypergammon and portes through
    the same path as backgammon): the game ends, its transcript verifies, nothing refused."""
    level = "easy"
    created = await _create_bot_match(bot_server.base, bot=level, variant=variant,
                                      mode="single_game")
    match_id = created["match"]
    played: list[str] = []

    def seen(message: object) -> None:
        if isinstance(message, Event) and type(message.data).__name__ == "GameStarted":
            played.append(message.data.variant)

    human = MatchClient(bot_server.ws, match_id, created["token"], on_event=seen)
    async with human:
        result = await asyncio.wait_for(play_random(human, random.Random(5)), 120)
    assert result is not None and result.reason != "forfeit"
    assert human.rejects == []
    assert await _verify_all(bot_server.base, match_id) == 1
    assert played == [variant]
    info = await get(bot_server.base, f"/api/matches/{match_id}")
    assert (info["bot"], info["variant"], info["phase"]) == (level, variant, "over")


async def test_the_levels_of_each_variant_are_served_and_checked(bot_server):
    levels = (await get(bot_server.base, "/api/bots"))["levels"]
    assert levels["plakoto"] == ["easy"] and levels["tavli"] == ["easy"]
    assert levels["nackgammon"] == ["easy", "normal", "hard", "expert"]
    with pytest.raises(LobbyError) as refused:
        await create_match(bot_server.base, bot="expert", variant="fevga")
    assert refused.value.code == "bad_field" and refused.value.status == 400
    assert "fevga at easy only" in str(refused.value)
    # Nothing was created: the open list has no fevga match.
    open_ = (await get(bot_server.base, "/api/matches?status=open"))["matches"]
    assert all(m.get("variant") != "fevga" for m in open_)


async def test_no_hints_in_plakoto(bot_server):
    created = await _create_bot_match(bot_server.base, bot="easy", variant="plakoto",
                                      mode="single_game")
    human = MatchClient(bot_server.ws, created["match"], created["token"])
    async with human:  # once the game is under way (before it, no decision: 409)
        await human.wait_for(lambda t: t.clock.phase in ("move", "decide"), timeout=10)
        status, body = await hint(bot_server.base, created["match"], created["token"])
    assert (status, body["error"]) == (403, "hints_unavailable"), body
    assert "plakoto" in body["message"]


async def test_bot_field_is_checked_and_people_matches_say_no_bot(bot_server):
    with pytest.raises(LobbyError) as bad:
        await create_match(bot_server.base, bot="grandmaster")
    assert bad.value.code == "bad_field"
    created = await create_match(bot_server.base, name="Ann")
    await join_match(bot_server.base, created["match"], name="Bob")
    info = await get(bot_server.base, f"/api/matches/{created['match']}")
    assert info["bot"] is None



def _post(base: str, path: str, body: dict) -> tuple[int, dict]:
    request = urllib.request.Request(f"{base}{path}", data=json.dumps(body).encode(),
                                     method="POST", headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def hint(base: str, match_id: str, token: str) -> tuple[int, dict]:
    return await asyncio.to_thread(_post, base, f"/api/matches/{match_id}/hint", {"token": token})


async def test_hints_for_moves_and_cube_only_against_the_computer(bot_server):
    created = await _create_bot_match(bot_server.base, bot="normal", mode="money")
    match_id, token = created["match"], created["token"]
    assert await hint(bot_server.base, match_id, "not-a-token") == (
        403, {"error": "forbidden", "message": "that token holds no seat of this match"})
    human = MatchClient(bot_server.ws, match_id, token)
    hinted = {"move": 0, "decide": 0}
    async with human:
        while hinted["move"] < 2 or hinted["decide"] < 2:
            await human.wait_for(lambda t: t.owes(0) in ("decide", "move", "take") or t.over, 30)
            t = human.tracker
            assert t.over is None
            owed = t.owes(0)
            status, body = await hint(bot_server.base, match_id, token)
            assert status == 200 and body["phase"] == owed and body["seat"] == 0
            version = t.version
            if owed == "decide":
                cube = body["cube"]
                assert cube["action"] in ("double", "no_double") and 0 <= cube["win"] <= 1
                assert cube["take"] is None and cube["pass"] is None
                reply = await human.roll()
            elif owed == "take":  # the bot doubled
                cube = body["cube"]
                assert cube["action"] in ("take", "drop", "beaver")
                # The figures of the player who must decide: theirs after taking and passing.
                assert (cube["take"], cube["pass"]) == (-cube["double_take"], -cube["double_pass"])
                if cube["action"] == "drop":
                    assert cube["pass"] >= cube["take"]
                else:
                    assert cube["take"] >= cube["pass"]
                reply = await human.take()
            else:
                plays = body["plays"]
                legal = {p.moves for p in legal_plays(t.position(0), *t.dice)}
                assert 1 <= len(plays) <= 3 and len(plays) == min(3, len(legal))
                equities = [p["equity"] for p in plays]
                assert equities == sorted(equities, reverse=True)
                assert all(tuple(map(tuple, p["moves"])) in legal for p in plays)
                # Each also in the move record's notation.
                before = t.position(0)
                assert [p["play"] for p in plays] == [
                    play_text(before, tuple(map(tuple, p["moves"]))) for p in plays]
                reply = await human.move(tuple(map(tuple, plays[0]["moves"])))
            assert type(reply).__name__ == "Ack"
            hinted[owed] = hinted.get(owed, 0) + 1
            await human.wait_for(lambda t, v=version: t.version > v, 10)
        await human.leave()
        await human.wait_for(lambda t: t.over is not None, 10)
    # Once the match is over there is nothing to advise.
    status, body = await hint(bot_server.base, match_id, token)
    assert (status, body["error"]) == (409, "no_decision")

    people = await create_match(bot_server.base, name="Ann")
    await join_match(bot_server.base, people["match"], name="Bob")
    status, body = await hint(bot_server.base, people["match"], people["token"])
    assert (status, body["error"]) == (403, "hints_unavailable")

    # A match to 1: the cube may be turned (the tracker's Double), and the hint says why not to.
    created = await _create_bot_match(bot_server.base, bot="easy", mode="match", length=1)
    async with MatchClient(bot_server.ws, created["match"], created["token"]) as human:
        await human.wait_for(lambda t: t.owes(0) in ("decide", "move"), 30)
        if human.owes() == "move":  # we won the opening roll: play it first
            t = human.tracker
            await human.move(legal_plays(t.position(0), *t.dice)[0].moves)
            await human.wait_for(lambda t: t.owes(0) == "decide", 30)
        assert human.tracker.may_double(0)
        status, body = await hint(bot_server.base, created["match"], created["token"])
        assert status == 200 and body["phase"] == "decide"
        cube = body["cube"]
        assert (cube["action"], cube["dead"], cube["no_double"], cube["double_take"]) == (
            "no_double", True, None, None)
        assert 0 < cube["win"] < 1
        await human.leave()



async def test_the_computer_accepts_a_rematch(bot_server):
    created = await _create_bot_match(bot_server.base, bot="easy", mode="single_game")
    first, token = created["match"], created["token"]
    async with MatchClient(bot_server.ws, first, token) as human:
        await human.wait_for(lambda t: t.names[1] is not None, timeout=10)
        await human.leave()  # the quickest end of a match: a forfeit
        await human.wait_for(lambda t: t.over is not None, timeout=10)
    offer = await offer_rematch(bot_server.base, first, token)
    rematch = offer["match"]
    for _ in range(100):
        info = await get(bot_server.base, f"/api/matches/{rematch}")
        if info["names"][1] is not None and info["bot"] is not None:
            break
        await asyncio.sleep(0.1)
    assert info["names"] == ["Ann", "Computer (Easy)"] and info["bot"] == "easy"
    assert info["rematch_of"] == first
    async with MatchClient(bot_server.ws, rematch, offer["token"]) as human:
        await human.wait_for(lambda t: t.clock.phase not in ("waiting",), timeout=10)
        await human.leave()


async def test_killed_worker_is_replaced_and_the_game_finishes(bot_server, redis_process):
    """SIGKILL the worker playing the bot seat mid-game: serve's supervisor starts another,
    which claims the job and resumes the seat from the secrets kept in Redis (no new chain, no
    forfeit). Runs last in this module: it kills the module server's worker."""
    import os
    import signal

    import redis.asyncio as aioredis

    from bots import queue

    created = await _create_bot_match(bot_server.base, bot="hard", mode="single_game")
    match_id = created["match"]
    seen: list[object] = []
    human = MatchClient(bot_server.ws, match_id, created["token"], on_event=seen.append)
    redis = aioredis.from_url(redis_process.url)
    try:
        async with human:
            playing = asyncio.create_task(
                play_random(human, random.Random(5), double_rate=0.0))
            await human.wait_for(lambda t: t.turn >= 6, timeout=60)
            (job,) = [entry for entry, fields in await redis.xrange(queue.JOBS)
                      if fields[b"match"] == match_id.encode()]
            (entry,) = await redis.xpending_range(queue.JOBS, queue.GROUP, job, job, 1)
            first = entry["consumer"].decode()
            os.kill(int(first.split("-")[-2]), signal.SIGKILL)
            result = await asyncio.wait_for(playing, 120)
        # Another worker (another consumer) holds the job now: it claimed it and played on.
        # (It keeps the job a while after the match, in case a rematch is offered.)
        (after,) = await redis.xpending_range(queue.JOBS, queue.GROUP, job, job, 1)
    finally:
        await redis.aclose()
    assert result is not None and result.reason != "forfeit"
    assert human.rejects == []
    assert after["consumer"].decode() != first and after["times_delivered"] == 2
    # The bot kept revealing from the chain it committed to: no re-commitment was needed.
    recommits = [e for e in seen if isinstance(e, Event)
                 and type(e.data).__name__ == "Recommitted"]
    assert recommits == []
    assert await _verify_all(bot_server.base, match_id) == 1


async def test_a_hint_is_searched_once_per_decision_however_often_it_is_asked():
    from server.web.hints import Answers

    searches = 0
    release = asyncio.Event()

    async def search() -> dict:
        nonlocal searches
        searches += 1
        await release.wait()
        return {"plays": searches}

    answers = Answers(size=2)
    asks = [asyncio.create_task(answers.get(("m", 0, 7), search)) for _ in range(5)]
    await asyncio.sleep(0)
    release.set()
    assert [await a for a in asks] == [{"plays": 1}] * 5
    assert await answers.get(("m", 0, 7), search) == {"plays": 1}  # kept
    await answers.get(("m", 0, 8), search)  # the match moved on: a new search
    await answers.get(("m", 1, 8), search)
    assert searches == 3
    await answers.get(("m", 0, 7), search)  # the oldest was let go (size 2)
    assert searches == 4


async def test_the_pace_of_a_match_against_the_computer(bot_server):
    """The page's fast setting reaches the bot worker: kept for the match while fast, gone at
    the normal pace; only a seat of a match against the computer sets it."""
    import redis.asyncio as aioredis

    from bots import queue

    created = await _create_bot_match(bot_server.base, bot="easy", mode="money")
    match_id, token = created["match"], created["token"]
    path = f"/api/matches/{match_id}/pace"
    redis = aioredis.from_url(bot_server.redis_url)
    try:
        assert await asyncio.to_thread(_post, bot_server.base, path,
                                       {"token": token, "fast": True}) == (
            200, {"match": match_id, "fast": True})
        assert await redis.get(queue.pace_key(match_id)) == queue.FAST
        assert 0 < await redis.ttl(queue.pace_key(match_id)) <= queue.PACE_TTL_S
        assert (await asyncio.to_thread(_post, bot_server.base, path,
                                        {"token": token, "fast": False}))[0] == 200
        assert await redis.get(queue.pace_key(match_id)) is None
    finally:
        await redis.aclose()
    refused = [
        ({"token": "not-a-token", "fast": True}, 403, "forbidden"),
        ({"token": token}, 400, "bad_field"),
        ({"token": token, "fast": 1}, 400, "bad_field"),
    ]
    for body, status, code in refused:
        answer = await asyncio.to_thread(_post, bot_server.base, path, body)
        assert (answer[0], answer[1]["error"]) == (status, code), body
    people = await create_match(bot_server.base, name="Ann")
    answer = await asyncio.to_thread(_post, bot_server.base, f"/api/matches/{people['match']}/pace",
                                     {"token": people["token"], "fast": True})
    assert (answer[0], answer[1]["error"]) == (403, "hints_unavailable")
    answer = await asyncio.to_thread(_post, bot_server.base, f"/api/matches/{'0' * 32}/pace",
                                     {"token": token, "fast": True})
    assert (answer[0], answer[1]["error"]) == (404, "not_found")
