"""Tournaments through a real server process and Redis (server/web/tournaments.py,
server/competition/tournaments.py), with bot players that use only the API and the wire
protocol (harness/tournament_players.py): the API's refusals and limits; a rated 4-player
knockout that starts when full and is played to the end (each player finds its match in
``me``, every match is an ordinary arranged match labelled with its tournament, round and
board, the winner is the one who won the final, each rating moved once per match); a
withdrawal that forfeits the running match; a no-show. (An arena is played to its end in
tests/failure/test_fail_tournaments.py, beside a knockout and a Swiss.)"""

from __future__ import annotations

import asyncio

import redis.asyncio as aioredis

from harness.accounts import Browser
from harness.failure_kit import metric, stack_fixture
from harness.tournament_players import Player, play_tournament
from protocol.client import MatchClient

stack = stack_fixture()


async def players_of(base: str, names: list[str]) -> list[Player]:
    out = [Player(name, [base]) for name in names]
    await asyncio.gather(*(p.signup() for p in out))
    return out


async def test_the_api_a_knockout_and_an_arena_played_to_the_end(stack):
    proc = stack.server(FAIRGAMMON_TOURNAMENTS_PER_ACCOUNT="2")
    base = proc.base
    ko = await players_of(base, ["kann", "kbob", "kcat", "kdan"])
    # Refusals: no account, bad terms (named), too many.
    anon = Browser(base, origin=base)
    knockout = {"kind": "knockout", "length": 1, "clock": 20, "max_players": 4, "rated": True,
                "no_show": 30, "name": "Spring <b>Cup</b>"}  # fmt: skip
    assert (await anon.post("/api/tournaments", knockout)).status == 401
    bad = await ko[0].call("POST", "/api/tournaments", {**knockout, "max_players": 3})
    assert bad.status == 400 and bad.body["error"] == "bad_config"
    assert "max_players" in bad.body["message"]
    bad = await ko[0].call("POST", "/api/tournaments", {**knockout, "start": "tomorrow"})
    assert bad.status == 400 and bad.body["error"] == "bad_field"
    made = await ko[0].call("POST", "/api/tournaments", knockout)
    assert made.status == 201, made.body
    tid = made.body["tournament"]
    assert made.body["name"] == "Spring <b>Cup</b>" and made.body["state"] == "open"
    assert made.body["terms"]["start"] == "when_full" and made.body["me"] is None
    arena = {"kind": "arena", "mode": "single_game", "clock": 20, "max_players": 10,
             "minutes": 1, "start": "when_full", "no_show": 30}  # fmt: skip
    made = await ko[1].call("POST", "/api/tournaments", arena)
    aid = made.body["tournament"]
    third = await ko[0].call("POST", "/api/tournaments", {**knockout, "private": True})
    assert third.status == 201
    fourth = await ko[0].call("POST", "/api/tournaments", knockout)
    assert fourth.status == 429 and fourth.body["error"] == "too_many_tournaments"
    listed = (await anon.get("/api/tournaments")).body
    assert {t["id"] for t in listed["open"]} == {tid, aid}  # the private one is not listed
    # Three join the knockout; one withdraws before the start and comes back.
    for p in ko[:3]:
        reply = await p.call("POST", f"/api/tournaments/{tid}/join", {})
        assert reply.status == 200 and reply.body["you"] is not None
    again = await ko[0].call("POST", f"/api/tournaments/{tid}/join", {})
    assert again.status == 200 and len(again.body["players"]) == 3
    out = await ko[2].call("POST", f"/api/tournaments/{tid}/withdraw", {})
    assert len(out.body["players"]) == 2
    await ko[2].call("POST", f"/api/tournaments/{tid}/join", {})
    before = {p.name: (await anon.get(f"/api/players/{p.name}")).body["rating"] for p in ko}
    # The fourth fills it: it starts. Everyone plays.
    assert (await ko[3].call("POST", f"/api/tournaments/{tid}/join", {})).status == 200
    late = await Player("klate", [base]).call("POST", f"/api/tournaments/{tid}/join", {})
    assert late.status == 401
    views = await asyncio.wait_for(
        asyncio.gather(*(play_tournament(p, tid, seed=i, quit_rate=0.1) for i, p in enumerate(ko))),
        120,
    )
    final = views[0]
    assert final["state"] == "finished" and final["end"] == "completed"
    rounds = {r["round"]: r["pairings"] for r in final["rounds"]}
    assert sorted(rounds) == [1, 2] and len(rounds[1]) == 2 and len(rounds[2]) == 1
    decider = rounds[2][0]
    assert final["winner"] == decider["players"][decider["outcome"]["winner"]]
    assert final["standings"][0]["name"] == final["winner"] and final["standings"][0]["points"] == 2
    # The final was paired once, when the second semi-final was counted: the operators'
    # histogram of pairing latency saw that one transition.
    assert await metric(base, "fairgammon_tournament_pairing_seconds_count") == 1
    # Each player was told of each round it was paired in ("a tournament round starting").
    for p in ko:
        listed = (await p.call("GET", "/api/my/notices")).body["notices"]
        told = sorted(n["data"]["round"] for n in listed if n["kind"] == "tournament_round")
        paired = sorted(r for r, ps in rounds.items() for x in ps if p.name in x["players"])
        assert told == paired and paired, (p.name, told, paired)
        note = next(n for n in listed if n["kind"] == "tournament_round")
        assert note["page"] == f"/t/{tid}" and "Spring <b>Cup</b>" in note["text"]
    # Every match was an ordinary match, arranged, labelled, rated; each rating moved once.
    matches = [p["match"] for r in final["rounds"] for p in r["pairings"]]
    assert len(set(matches)) == 3
    redis = aioredis.from_url(stack.redis.url)
    try:
        for r in final["rounds"]:
            for p in r["pairings"]:
                info = (await anon.get(f"/api/matches/{p['match']}")).body
                assert info["arranged"] == "tournament" and info["rated"] is True
                assert info["phase"] == "over"
                t, tr, tb = await redis.hmget(f"fg:{{m:{p['match']}}}:seats", "t", "tr", "tb")
                assert (t.decode(), int(tr), int(tb)) == (tid, r["round"], p["board"])
        for _ in range(100):
            if await redis.zcard("fg:idx:results") == 0 and await redis.zcard(
                "fg:idx:tournaments"
            ) == 0:
                break
            await asyncio.sleep(0.1)
        for p in ko:
            profile = (await anon.get(f"/api/players/{p.name}")).body
            played = sum(p.name in x["players"] for r in final["rounds"] for x in r["pairings"])
            assert profile["matches"] == played, (p.name, profile)
            assert profile["experience"] == played  # 1 point a match, once
            assert (profile["rating"] != before[p.name]) is (played > 0)
        assert await redis.zcard("fg:idx:tournaments") == 0
    finally:
        await redis.aclose()
    listed = (await anon.get("/api/tournaments")).body
    assert tid in {t["id"] for t in listed["finished"]}
    assert aid in {t["id"] for t in listed["open"]}
    mine = (await ko[1].call("GET", "/api/tournaments")).body["mine"]
    assert {t["id"] for t in mine} == {tid}  # joined (created is not joined)
    results = (await anon.get("/api/players/kbob")).body["tournaments"]
    assert [r["tournament"] for r in results] == [tid] and results[0]["players"] == 4
    # The Top Gamer boards: from the first rated match, each rated match's change once and
    # the tournament's points (the week's and the month's: the same, played just now).
    points = {line["name"]: line["points"] for line in final["standings"]}
    for period in ("week", "month"):
        board = (await anon.get(f"/api/top?period={period}")).body
        lines = {line["username"]: line for line in board["players"]}
        for p in ko:
            profile = (await anon.get(f"/api/players/{p.name}")).body
            changes = round(sum(h["change"] for h in profile["history"]), 2)
            line = lines[p.name]
            assert line["matches"] == profile["matches"] > 0, line
            assert abs(line["rating_change"] - changes) <= 0.01 * line["matches"], line
            assert line["tournament_points"] == points[p.name]
            assert abs(line["score"] - (line["rating_change"] + points[p.name])) < 1e-6
        scores = [line["score"] for line in board["players"]]
        assert scores == sorted(scores, reverse=True)
    assert (await anon.get("/api/top?period=year")).status == 400
    # The creator may create again now that one is finished.
    assert (await ko[0].call("POST", "/api/tournaments", knockout)).status == 201


async def test_withdrawal_and_no_show(stack):
    proc = stack.server()
    base = proc.base
    ps = await players_of(base, ["wann", "wbob", "wcat", "wdan"])
    made = await ps[0].call(
        "POST", "/api/tournaments",
        {"kind": "swiss", "length": 3, "clock": 30, "max_players": 4, "rounds": 2,
         "no_show": 10, "break": 0},
    )  # fmt: skip
    tid = made.body["tournament"]
    for p in ps:
        await p.call("POST", f"/api/tournaments/{tid}/join", {})
    views = {p.name: (await p.call("GET", f"/api/tournaments/{tid}")).body for p in ps}
    assert all(v["state"] == "running" and v["me"] for v in views.values())
    # Ann withdraws mid-match: her opponent wins that match at once.
    ann = views["wann"]["me"]
    opponent_seat = 1 - ann["seat"]
    await ps[0].call("POST", f"/api/tournaments/{tid}/withdraw", {})
    info = (await ps[0].call("GET", f"/api/matches/{ann['match']}")).body
    assert info["phase"] == "over" and info["winner"] == opponent_seat
    # The other board: Cat connects and plays, Dan never comes: he loses it as a no-show
    # (10 s), and the match ends without being played.
    other = next(v["me"] for n, v in views.items() if v["me"]["match"] != ann["match"])
    mine = next(
        v["me"]
        for v in views.values()
        if v["me"]["match"] == other["match"] and v["me"]["seat"] == 0
    )
    client = MatchClient(base.replace("http", "ws") + "/ws", other["match"], mine["token"])
    async with client:
        await client.wait_for(lambda t: t.over is not None, 30)
    final = (await ps[1].call("GET", f"/api/tournaments/{tid}")).body
    round1 = final["rounds"][0]["pairings"]
    hows = sorted(p["outcome"]["how"] for p in round1 if p["outcome"])
    assert hows == ["no_show", "withdrew"], round1
    assert any(line["withdrawn"] for line in final["standings"])
