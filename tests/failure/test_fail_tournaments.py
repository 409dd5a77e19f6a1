"""Tournaments survive their server processes: a rated 16-player knockout, a rated
12-player, 5-round Swiss and a 6-player, 1-minute arena, played to the end at the same time by
34 bot players (accounts that use only the API and the wire protocol:
harness/tournament_players.py; they resign a game now and then, so that matches are short) on
two server processes, while

1. the process that stores the knockout's start — its first eight pairings — dies before
   creating a single match (``after_tournament_store:Pair``): the other process's sweep, or a
   player asking for its match, creates them;
2. the process that stores the end of the knockout's final dies before telling anyone
   (``after_finish`` of that match only, ``FAIRGAMMON_CRASH_MATCH``): the result is marked due
   before the commit, and the other process's sweep counts it.

All three finish; every match is counted once (each pairing has one outcome, equal to its
match's result; the points are the wins, or in the arena the points the games gave); the
winners are right (the knockout's is the final's winner, the Swiss's the first of standings
recomputed here from the matches); the arena's decided pairings are in its history, not its
stored state; every account's rating moved exactly once per rated match it played (its
experience, history and chart count them once, and the changes sum to zero across all
accounts)."""

from __future__ import annotations

import asyncio
import time

import msgpack
import redis.asyncio as aioredis

from harness.failure_kit import stack_fixture
from harness.srv_support import move_clock
from harness.tournament_players import Player, play_tournament, sign_up_all
from server.competition.effects import match_id
from server.competition.state import Pairing
from server.machine import serial
from server.players.ratings import k_factor

CRASHED = 70
stack = stack_fixture()
QUIT_RATE = 0.15
"""The bots resign a game at a turn this often: short matches, real results."""
RATED_ONE_POINT = {"length": 1, "clock": 20, "rated": True, "no_show": 20}


async def test_two_tournaments_finish_exactly_once_through_two_crashes(stack):
    started = time.monotonic()
    setup = stack.server()
    names = [f"ko{i:02d}" for i in range(16)] + [f"sw{i:02d}" for i in range(12)]
    names += [f"ar{i:02d}" for i in range(6)]
    players = [Player(name, [setup.base]) for name in names]
    await sign_up_all(players, stack.redis.url)
    ko, sw, ar = players[:16], players[16:28], players[28:]
    made = await ko[0].call("POST", "/api/tournaments", {"kind": "knockout", "max_players": 16,
                                                        **RATED_ONE_POINT})  # fmt: skip
    assert made.status == 201, made.body
    kid = made.body["tournament"]
    made = await sw[0].call("POST", "/api/tournaments", {"kind": "swiss", "max_players": 12,
                                                        "rounds": 5, "break": 0,
                                                        **RATED_ONE_POINT})  # fmt: skip
    sid = made.body["tournament"]
    made = await ar[0].call("POST", "/api/tournaments", {"kind": "arena", "max_players": 6,
                                                        "mode": "single_game", "minutes": 1,
                                                        "clock": 20, "no_show": 20})  # fmt: skip
    aid = made.body["tournament"]
    tids = {"ko": kid, "sw": sid, "ar": aid}
    final = match_id(kid, 4, 1)
    # The processes of the test: A crashes if it stores the end of the final; B crashes when
    # it stores a transition that pairs matches, before creating them.
    setup.stop()
    at_final = {"FAIRGAMMON_CRASH_AT": "after_finish:Any", "FAIRGAMMON_CRASH_MATCH": final}
    a = await stack.restart(setup, **at_final)
    b = stack.server(FAIRGAMMON_CRASH_AT="after_tournament_store:Pair")
    for i, p in enumerate(players):
        p.bases = [a.base, b.base] if i % 2 else [b.base, a.base]
        p.at = 0
    # Everyone joins through A but the knockout's sixteenth player, whose join B stores with
    # the eight pairings of round 1, and dies.
    for p in ko[:15] + sw + ar:
        p.bases, saved = [a.base], p.bases
        reply = await p.call("POST", f"/api/tournaments/{tids[p.name[:2]]}/join", {})
        assert reply.status == 200, reply.body
        p.bases = saved
    last = ko[15]
    last.bases = [b.base, a.base]
    joined = await last.call("POST", f"/api/tournaments/{kid}/join", {})  # B dies; A answers
    assert joined.status == 200 and joined.body["state"] == "running", joined.body
    assert await stack.exited(b) == CRASHED
    b = await stack.restart(b, **at_final)

    def play(group: list[Player]) -> asyncio.Future:
        return asyncio.gather(
            *(
                play_tournament(p, tids[p.name[:2]], seed=players.index(p), quit_rate=QUIT_RATE)
                for p in group
            )
        )

    rounds, arena = play(ko + sw), play(ar)
    # The final's end kills whichever process stores it; the other one carries on.
    dead = await asyncio.wait_for(died(a, b), 240)
    assert dead.process is not None and dead.process.returncode == CRASHED
    revived = await stack.restart(dead)
    await asyncio.wait_for(rounds, 240)
    # The knockout and the Swiss are over in seconds; the arena lasts its minute of server
    # time: the test moves the server clock on, a little at a time (each step well inside a
    # decision's 20 s), rather than wait a minute.
    while not arena.done():
        await move_clock(revived, stack.redis.url, 3)
        await asyncio.sleep(0.2)
    await asyncio.wait_for(arena, 240)

    redis = aioredis.from_url(stack.redis.url)
    try:
        await settled(redis, (kid, sid, aid))
        matches = {}
        for tid, expected_matches in ((kid, 15), (sid, 30)):
            view = (await players[0].call("GET", f"/api/tournaments/{tid}")).body
            assert view["state"] == "finished" and view["end"] == "completed", view["end"]
            pairings = [p for r in view["rounds"] for p in r["pairings"] if p["match"]]
            assert len(pairings) == expected_matches
            wins: dict[str, int] = {}
            for p in pairings:
                info = (await players[0].call("GET", f"/api/matches/{p['match']}")).body
                assert info["phase"] == "over" and info["arranged"] == "tournament"
                assert p["outcome"]["how"] == "played" and p["outcome"]["winner"] == info["winner"]
                winner = p["players"][info["winner"]]
                wins[winner] = wins.get(winner, 0) + 1
                matches[p["match"]] = (p["players"], info["winner"])
            for line in view["standings"]:
                byes = sum(
                    1
                    for r in view["rounds"]
                    for x in r["pairings"]
                    if not x["match"] and won_by(x, line["name"])
                )
                assert line["points"] == wins.get(line["name"], 0) + byes, line
            if tid == kid:
                names_, seat = matches[final]
                assert view["winner"] == names_[seat]
                assert len(view["rounds"]) == 4
            else:
                assert len(view["rounds"]) == 5 and view["winner"] == view["standings"][0]["name"]
            assert await redis.hlen(f"fg:{{t:{tid}}}:fx") == 0
        # The arena: finished at its hour; its points are what its games gave; its decided
        # pairings are in its history, its stored state keeps none.
        view = (await players[0].call("GET", f"/api/tournaments/{aid}")).body
        assert view["state"] == "finished" and view["winner"] == view["standings"][0]["name"]
        decided = [p for r in view["rounds"] for p in r["pairings"] if p["outcome"]]
        assert len(decided) >= 6
        for p in decided:  # the page shows the last 60 (server/web/tournaments.py, HISTORY)
            info = (await players[0].call("GET", f"/api/matches/{p['match']}")).body
            assert info["phase"] == "over" and p["outcome"]["winner"] == info["winner"]
        history = [serial.load(Pairing, msgpack.unpackb(raw, raw=False))
                   for raw in await redis.lrange(f"fg:{{t:{aid}}}:hist", 0, -1)]  # fmt: skip
        assert len(history) >= len(decided) and len({p.match for p in history}) == len(history)
        assert [p.match for p in history[-len(decided):]] == [p["match"] for p in decided]
        points = sum(line["points"] for line in view["standings"])
        assert points == sum(sum(p.outcome.awarded) for p in history if p.outcome) > 0
        stored = msgpack.unpackb(await redis.hget(f"fg:{{t:{aid}}}:state", "s"), raw=False)
        assert all(p["outcome"] is None for p in stored["pairings"])
        # Ratings: once per rated match, for every account (the arena was not rated).
        names = names[:28]
        played = dict.fromkeys(names, 0)
        for (seat_names, _) in matches.values():
            for n in seat_names:
                played[n] += 1
        base: dict[str, list[float]] = {}  # match -> each side's change before its K factor
        for name in names:
            account = f"fg:{{u:{name}}}:acct"
            rating, exp, count = await redis.hmget(account, "rating", "exp", "matches")
            history = [msgpack.unpackb(h, raw=False)
                       for h in await redis.lrange(f"fg:{{u:{name}}}:hist", 0, -1)]  # fmt: skip
            assert int(exp) == int(count) == len(history) == played[name], name
            assert len({h["match"] for h in history}) == len(history)
            assert all(h["rated"] for h in history)
            assert await redis.llen(f"fg:{{u:{name}}}:chart") == played[name]
            changes = sum(h["change"] for h in history)
            assert abs(float(rating) - 1500 - changes) <= 0.005 * len(history) + 1e-9
            # The list is newest first: a player's experience before a one-point match is the
            # number of rated matches applied before it.
            for before, h in enumerate(reversed(history)):
                base.setdefault(h["match"], []).append(h["change"] / k_factor(before))
        # Not zero-sum (a newcomer's K is larger), but each match moved both sides by one amount
        # before their own K factors (changes are stored rounded to the hundredth).
        assert len(base) == len(matches)
        for pair in base.values():
            assert len(pair) == 2 and pair[0] * pair[1] < 0 and abs(pair[0] + pair[1]) < 0.01, pair
        # The week's Top Gamer board counted each rated match once too, through the crashes.
        board = (await players[0].call("GET", "/api/top?period=week")).body
        lines = {line["username"]: line for line in board["players"]}
        for name in names:
            history = [msgpack.unpackb(h, raw=False)
                       for h in await redis.lrange(f"fg:{{u:{name}}}:hist", 0, -1)]  # fmt: skip
            line = lines[name]
            assert line["matches"] == played[name], (name, line)
            change = sum(h["change"] for h in history)
            assert abs(line["rating_change"] - change) <= 0.01 * played[name], (name, line)
    finally:
        await redis.aclose()
    print(f"two tournaments through two crashes in {time.monotonic() - started:.1f} s")


def won_by(pairing: dict, name: str) -> bool:
    winner = pairing["outcome"]["winner"]
    return winner is not None and pairing["players"][winner] == name


async def died(*procs):
    """The first of ``procs`` to exit."""
    while True:
        for proc in procs:
            if proc.process is not None and proc.process.poll() is not None:
                return proc
        await asyncio.sleep(0.05)


async def settled(redis, tids) -> None:
    """Until no result is due anywhere and no effect waits (the sweeps' work done). Up to 60 s:
    a result left to the sweepers waits for its lease (3 s) and the rating locks, and on a
    loaded 2-core machine dozens of rated results end together (20 s once fell short in CI)."""
    for _ in range(600):
        busy = await redis.zcard("fg:idx:results") + await redis.zcard("fg:idx:tournaments")
        for tid in tids:
            busy += await redis.hlen(f"fg:{{t:{tid}}}:fx")
        if not busy:
            return
        await asyncio.sleep(0.1)
    due = {
        key: await redis.zrange(key, 0, -1, withscores=True)
        for key in ("fg:idx:results", "fg:idx:tournaments")
    }
    fx = {tid: await redis.hgetall(f"fg:{{t:{tid}}}:fx") for tid in tids}
    raise AssertionError(f"results or effects still due at {time.time():.3f}: {due} {fx}")
