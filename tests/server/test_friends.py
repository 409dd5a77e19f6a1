"""Friends through a real server process and Redis (docs/friends.md): follow, unfollow, block,
privacy, and what a follower sees of a followed player (online, its live public games as
watch links)."""

from __future__ import annotations

from harness.accounts import Browser, signed_up
from harness.srv_support import server_fixture

server = server_fixture()


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
    assert row == {"name": "ben", "mutual": False, "online": True, "playing": []}
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
                                        "playing": []}  # fmt: skip
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
