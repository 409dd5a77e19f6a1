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
