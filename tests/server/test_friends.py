"""Friends through a real server process and Redis (docs/friends.md): follow, unfollow, block,
privacy, and what a follower sees of a followed player (online, its live public games as
watch links)."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
import redis.asyncio as aioredis
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from harness.accounts import Browser, signed_up
from harness.srv_support import store_at
from protocol.client import MatchClient
from server.players.notices import RATE_PER_MINUTE, Notices, UnknownKind, tournament_round
from tests.server.test_correspondence import my_row, visit

# ``server``: tests/conftest.py's, one server per test on an emptied Redis (the sign-up limit
# per address counts every account a test makes).


def row_of(body: dict, name: str) -> dict | None:
    return next((r for r in body["following"] if r["name"] == name), None)


async def test_following_blocking_and_privacy(server):
    ann, ben, cat = [await signed_up(server.base, n) for n in ("Ann", "ben", "cat")]
    assert (await ann.get("/api/my/friends")).status == 200
    anon = Browser(server.base, origin=server.base)
    assert (await anon.get("/api/my/friends")).status == 401

    # Ann follows Ben (any case of his name); not yet friends. Ben has been seen: online.
    await ben.get("/api/my/games")
    got = await ann.post("/api/my/friends", {"name": "BEN"})
    assert got.status == 200, got.body
    row = row_of(got.body, "ben")
    assert row == {"name": "ben", "mutual": False, "online": True, "playing": [], "tell": False,
                   "bot": False}
    assert (await ann.post("/api/my/friends", {"name": "nobody"})).status == 404
    refused = await ann.post("/api/my/friends", {"name": "ann"})
    assert (refused.status, refused.body["error"]) == (400, "bad_field")
    assert (await ann.post("/api/my/friends", {"name": 3})).status == 400

    # Ben plays a public match against Cat: Ann sees it with its watch link.
    created = await ben.post("/api/matches", {"mode": "single_game"})
    match = created.body["match"]
    assert (await cat.post(f"/api/matches/{match}/join", {})).status == 200
    row = row_of((await ann.get("/api/my/friends")).body, "ben")
    assert row is not None and [g["match"] for g in row["playing"]] == [match]
    assert row["playing"][0]["watch"].endswith(f"/m/{match}#watch")

    # Ben shows himself to friends only: Ann (not a friend) no longer sees it ...
    set_ = await ben.post("/api/my/privacy", {"show": "friends"})
    assert set_.body["privacy"] == {"show": "friends", "challenges": "everyone"}
    row = row_of((await ann.get("/api/my/friends")).body, "ben")
    assert row is not None and (row["online"], row["playing"]) == (None, None)
    # ... until Ben follows her back.
    back = await ben.post("/api/my/friends", {"name": "ann"})
    assert row_of(back.body, "Ann") == {"name": "Ann", "mutual": True, "online": True,
                                        "playing": [], "tell": False, "bot": False}  # fmt: skip
    row = row_of((await ann.get("/api/my/friends")).body, "ben")
    assert row is not None and row["mutual"] and [g["match"] for g in row["playing"]] == [match]
    bad = await ben.post("/api/my/privacy", {"show": "all"})
    assert (bad.status, bad.body["error"]) == (400, "bad_field")

    # Ben blocks Ann: both follows end, and to Ann he no longer exists.
    blocked = await ben.post("/api/my/blocks", {"name": "ann"})
    assert blocked.body["blocked"] == ["Ann"] and blocked.body["following"] == []
    assert (await ann.get("/api/my/friends")).body["following"] == []
    assert (await ann.post("/api/my/friends", {"name": "ben"})).status == 404
    # Unblocked, she may follow again; unfollowing ends it.
    assert (await ben.call("DELETE", "/api/my/blocks/ann")).body["blocked"] == []
    assert row_of((await ann.post("/api/my/friends", {"name": "ben"})).body, "ben") is not None
    assert (await ann.call("DELETE", "/api/my/friends/ben")).body["following"] == []


async def test_a_direct_challenge_is_accepted_declined_or_refused(server):
    dan, eve, fay = [await signed_up(server.base, n) for n in ("dan", "Eve", "fay")]
    # Dan challenges Eve to a correspondence match: an open match offered to her.
    made = await dan.post("/api/matches", {"mode": "match", "length": 3, "days": 2,
                                           "private": True})  # fmt: skip
    match = made.body["match"]
    offer = {"name": "eve", "match": match, "invite": made.body["invite"]}
    sent = await dan.post("/api/challenges", offer)
    assert sent.status == 201 and sent.body == {"match": match, "to": "Eve"}, sent.body
    got = (await eve.get("/api/my/challenges")).body
    (row,) = got["received"]
    assert (row["match"], row["from"], row["days"], row["length"]) == (match, "dan", 2, 3)
    assert [r["match"] for r in (await dan.get("/api/my/challenges")).body["sent"]] == [match]
    # Only Eve may accept it; Fay sees no such challenge; a match not Dan's cannot be offered.
    assert (await fay.post(f"/api/challenges/{match}/accept", {})).status == 404
    assert (await dan.post(f"/api/challenges/{match}/accept", {})).status == 404
    theirs = await fay.post("/api/challenges", offer)
    assert (theirs.status, theirs.body["error"]) == (404, "not_found")
    # Eve accepts: she holds seat 1, and Dan gets his seat token from any page.
    ok = await eve.post(f"/api/challenges/{match}/accept", {})
    assert ok.status == 200 and ok.body["seat"] == 1 and ok.body["token"], ok.body
    assert (await eve.get("/api/my/challenges")).body["received"] == []
    assert (await dan.post(f"/api/matches/{match}/seat", {})).status == 200
    info = (await dan.get(f"/api/matches/{match}")).body
    assert info["phase"] != "waiting" and info["days"] == 2, info
    assert (await eve.post(f"/api/challenges/{match}/accept", {})).status == 404

    # Fay takes challenges from friends only: Dan's is refused; a declined one is cancelled.
    await fay.post("/api/my/privacy", {"challenges": "friends"})
    made = await dan.post("/api/matches", {"mode": "single_game", "private": True})
    offer = {"name": "fay", "match": made.body["match"], "invite": made.body["invite"]}
    refused = await dan.post("/api/challenges", offer)
    assert (refused.status, refused.body["error"]) == (403, "forbidden")
    offer["name"] = "eve"
    assert (await dan.post("/api/challenges", offer)).status == 201
    no = await eve.post(f"/api/challenges/{offer['match']}/decline", {})
    assert no.status == 200 and no.body["declined"] is True
    info = (await dan.get(f"/api/matches/{offer['match']}")).body
    assert info["phase"] == "over", info
    assert (await eve.get("/api/my/challenges")).body["received"] == []

    # Fay takes challenges from the players she follows: once she follows Dan, his is offered
    # (he need not follow her back).
    assert (await fay.post("/api/my/privacy", {"challenges": "following"})).status == 200
    made = await dan.post("/api/matches", {"mode": "single_game", "private": True})
    offer = {"name": "fay", "match": made.body["match"], "invite": made.body["invite"]}
    refused = await dan.post("/api/challenges", offer)
    assert (refused.status, refused.body["error"]) == (403, "forbidden")
    assert (await fay.post("/api/my/friends", {"name": "dan"})).status == 200
    assert (await dan.post("/api/challenges", offer)).status == 201


async def test_notices_arrive_live_are_stored_and_marked_read(server):
    gus, hal = [await signed_up(server.base, n) for n in ("gus", "hal")]
    cookie = "; ".join(f"{k}={v}" for k, v in hal.cookies.items())
    url = server.base.replace("http", "ws", 1) + "/ws/notices"
    # A foreign page may not open it; a socket without a session is closed.
    with pytest.raises(InvalidStatus):
        await connect(
            url, origin="https://elsewhere.example", additional_headers={"Cookie": cookie}
        )
    async with connect(url) as anon:
        with pytest.raises(ConnectionClosed) as closed:
            await asyncio.wait_for(anon.recv(), 10)
        assert closed.value.rcvd is not None and closed.value.rcvd.code == 4401
    async with connect(url, additional_headers={"Cookie": cookie}) as ws:
        assert json.loads(await asyncio.wait_for(ws.recv(), 10)) == {"unread": 0}
        made = await gus.post("/api/matches", {"mode": "single_game", "days": 1,
                                               "private": True})  # fmt: skip
        match = made.body["match"]
        offer = {"name": "hal", "match": match, "invite": made.body["invite"]}
        assert (await gus.post("/api/challenges", offer)).status == 201
        note = json.loads(await asyncio.wait_for(ws.recv(), 10))
        assert (note["kind"], note["text"], note["data"]) == (
            "challenge",
            "gus challenges you (1 day a move)",
            {"match": match},
        )
        assert note["page"].endswith(f"/m/{match}")
    stored = (await hal.get("/api/my/notices")).body
    assert stored["unread"] == 1 and stored["notices"][0]["id"] == note["id"]
    assert (await hal.post(f"/api/challenges/{match}/accept", {})).status == 200
    told = (await gus.get("/api/my/notices")).body["notices"]
    assert [n["kind"] for n in told] == ["challenge_accepted"]
    read = await hal.post("/api/my/notices/read", {})
    assert read.body["unread"] == 0 and read.body["notices"][0]["read"] is True
    assert (await hal.post("/api/my/notices/read", {"upto": "x"})).status == 400
    assert (await Browser(server.base).get("/api/my/notices")).status == 401

    # Correspondence turns: whoever plays passes the turn, and the other is told (the bus).
    tokens = {"gus": (await gus.post(f"/api/matches/{match}/seat", {})).body["token"],
              "hal": (await hal.post(f"/api/matches/{match}/seat", {})).body["token"]}  # fmt: skip
    players = {"gus": gus, "hal": hal}
    rng, keep = random.Random(5), {"gus": {}, "hal": {}}  # each seat's secrets
    for name in ("gus", "hal"):  # both commit; the roll-off is deposited
        await visit(server.ws, match, tokens[name], keep[name], rng)
    turns = 0
    for _ in range(12):  # the dice decide how many visits pass a move or a roll decision
        if turns >= 2:
            break
        (owner,) = [
            n for n, b in players.items() if (await my_row(b, match) or {}).get("your_turn")
        ]
        await visit(server.ws, match, tokens[owner], keep[owner], rng)
        other = "hal" if owner == "gus" else "gus"
        row = await my_row(players[other], match)
        if row is None or not row["your_turn"] or row["decision"] not in ("decide", "move"):
            continue
        mine = (await players[other].get("/api/my/notices")).body["notices"]
        assert mine[0]["kind"] == "your_turn" and mine[0]["data"]["match"] == match, mine[0]
        assert mine[0]["text"] == f"Your turn against {owner}"
        turns += 1
    assert turns >= 2


async def test_notices_are_rate_limited_and_kept_bounded(redis_url):
    async with store_at(redis_url) as store:
        notes = Notices(store.redis)
        key = "rate-" + str(random.random())[2:10]
        got = [await notes.notify(key, "result", f"n{i}", i) for i in range(RATE_PER_MINUTE + 5)]
        assert sum(g is not None for g in got) == RATE_PER_MINUTE
        assert [g["id"] for g in got if g] == list(range(1, RATE_PER_MINUTE + 1))
        assert await notes.unread(key) == RATE_PER_MINUTE
        await notes.mark_read(key, 10)
        await notes.mark_read(key, 3)  # never moves back
        assert await notes.unread(key) == RATE_PER_MINUTE - 10
        with pytest.raises(UnknownKind):
            await notes.notify(key, "spam", "x", 0)
        hook = await tournament_round(notes, "t" + key, 5, "Winter cup", 2, "/t/1")
        assert hook is not None and hook["kind"] == "tournament_round"
        assert hook["data"] == {"tournament": "Winter cup", "round": 2}


async def notice_of(player: Browser, kind: str, match: str, tries: int = 200) -> dict:
    """The player's notice of ``kind`` about ``match``, once stored (told after the commit)."""
    for _ in range(tries):
        for n in (await player.get("/api/my/notices")).body["notices"]:
            if n["kind"] == kind and n["data"].get("match") == match:
                return n
        await asyncio.sleep(0.05)
    raise AssertionError(f"no {kind} notice of {match}")


async def test_a_friend_starting_a_match_and_a_rematch_offer_are_told(server):
    # Abe follows bob without asking; ann asks to hear of bob's matches. Abe's key sorts before
    # ann's: a notice wrongly sent to abe would be stored before ann's (the handler tells them in
    # that order), so ann's arriving is the barrier after which abe's list is final.
    abe, ann, bob, dan = [await signed_up(server.base, n) for n in ("abe", "ann", "bob", "dan")]
    assert (await abe.post("/api/my/friends", {"name": "bob"})).status == 200
    told = await ann.post("/api/my/friends", {"name": "bob", "tell": True})
    assert row_of(told.body, "bob")["tell"] is True
    assert (await ann.post("/api/my/friends", {"name": "bob", "tell": "yes"})).status == 400
    # A private match of bob's first: nobody hears of it.
    private = await bob.post("/api/matches", {"mode": "single_game", "private": True})
    hidden = private.body["match"]
    joined = await dan.post(f"/api/matches/{hidden}/join", {"invite": private.body["invite"]})
    assert joined.status == 200, joined.body
    made = await bob.post("/api/matches", {"mode": "single_game"})
    match = made.body["match"]
    assert (await dan.post(f"/api/matches/{match}/join", {})).status == 200
    note = await notice_of(ann, "friend_playing", match)
    assert note["text"] == "bob started a match against dan"
    assert note["page"].endswith(f"/m/{match}#watch") and note["data"]["player"] == "bob"
    kinds = [n["kind"] for n in (await ann.get("/api/my/notices")).body["notices"]]
    assert kinds.count("friend_playing") == 1  # not the private one, joined before
    assert (await abe.get("/api/my/notices")).body["notices"] == []
    # Asking no more (the follow stays): no notice for the next one.
    quiet = await ann.post("/api/my/friends", {"name": "bob", "tell": False})
    assert row_of(quiet.body, "bob")["tell"] is False

    # The private match ends (bob leaves); dan offers a rematch: bob is told.
    seats = {"bob": private.body["token"], "dan": joined.body["token"]}
    quitter = MatchClient(server.ws, hidden, seats["bob"])
    async with quitter:
        await quitter.leave()
        await quitter.wait_for(lambda t: t.over is not None, timeout=10)
    offered = await dan.post(f"/api/matches/{hidden}/rematch", {"token": seats["dan"]})
    assert offered.status == 201, offered.body
    note = await notice_of(bob, "rematch", hidden)
    assert note["text"] == "dan offers you a rematch"
    assert note["data"]["rematch"] == offered.body["match"]
    assert note["page"].endswith(f"/m/{hidden}")
    # A match starting with ann's telling off: cy asks now, and cy's key sorts after ann's, so
    # cy's notice stored is the barrier after which ann's list is final.
    client = aioredis.from_url(server.redis_url)  # the sign-up limit per address: lifted
    async for key in client.scan_iter("fg:signup:*"):
        await client.delete(key)
    await client.aclose()
    cy = await signed_up(server.base, "cyd")
    assert (await cy.post("/api/my/friends", {"name": "bob", "tell": True})).status == 200
    again = (await bob.post("/api/matches", {"mode": "single_game"})).body["match"]
    assert (await dan.post(f"/api/matches/{again}/join", {})).status == 200
    await notice_of(cy, "friend_playing", again)
    kinds = [n["kind"] for n in (await ann.get("/api/my/notices")).body["notices"]]
    assert kinds.count("friend_playing") == 1


async def test_many_notices_sockets_share_one_subscription(server):
    """A hundred pages of one account hold a hundred notices sockets: each is told its unread
    count and then the new notice, and the process follows the account's channel once (each
    socket once took a connection of the process's Redis pool: past 64 the next waited for
    ever, and every other request with it)."""
    ivy, jon = [await signed_up(server.base, n) for n in ("ivy", "jon")]
    cookie = "; ".join(f"{k}={v}" for k, v in jon.cookies.items())
    url = server.base.replace("http", "ws", 1) + "/ws/notices"
    sockets = []
    try:
        for _ in range(100):
            ws = await connect(url, additional_headers={"Cookie": cookie})
            sockets.append(ws)
            assert json.loads(await asyncio.wait_for(ws.recv(), 10)) == {"unread": 0}
        client = aioredis.from_url(server.redis_url)
        try:
            assert await client.pubsub_numsub("fg:note:jon") == [(b"fg:note:jon", 1)]
        finally:
            await client.aclose()
        assert (await jon.get("/api/my/games")).status == 200  # the process still answers
        made = await ivy.post("/api/matches", {"mode": "single_game", "private": True})
        offer = {"name": "jon", "match": made.body["match"], "invite": made.body["invite"]}
        assert (await ivy.post("/api/challenges", offer)).status == 201
        for ws in sockets:
            note = json.loads(await asyncio.wait_for(ws.recv(), 10))
            assert note["kind"] == "challenge" and note["data"] == {"match": offer["match"]}
    finally:
        for ws in sockets:
            await ws.close()
    # The last socket gone, the channel is followed no more.
    client = aioredis.from_url(server.redis_url)
    try:
        for _ in range(100):
            if await client.pubsub_numsub("fg:note:jon") == [(b"fg:note:jon", 0)]:
                break
            await asyncio.sleep(0.05)
        assert await client.pubsub_numsub("fg:note:jon") == [(b"fg:note:jon", 0)]
    finally:
        await client.aclose()
