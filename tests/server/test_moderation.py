"""Reports, the moderators' queue and each sanction through a real server process and Redis
(docs/moderation.md): every sanction is enforced on the server, and the same action succeeds
before it and after its lift (the positive controls)."""

from __future__ import annotations

import asyncio
import json
import random

import msgpack
import pytest
import redis.asyncio as aioredis

from harness.accounts import Browser, signed_up
from harness.serverproc import ServerProcess
from harness.srv_support import Peer, Seated
from protocol import codec
from protocol import messages as m
from protocol.client import play_random
from protocol.errors import ErrorCode
from server.match.store import seats_key
from server.players.accounts_store import history_key
from server.work.analysis_queue import report_key


@pytest.fixture
async def server(redis_url):
    """A server whose operator named ``Mia`` a moderator."""
    proc = ServerProcess(redis_url, FAIRGAMMON_MODERATORS="Mia")
    proc.start()
    yield proc
    proc.stop()


async def say(peer: Peer, text: str) -> m.Chat | m.Reject:
    """A players' chat line: the line as everyone hears it, or the server's refusal."""
    start = len(peer.messages)
    await peer.send(codec.encode(m.ChatSend("players", text, None)))
    return await peer.next(
        (m.Chat, m.Reject), lambda x: isinstance(x, m.Reject) or x.text == text, start=start
    )


async def rated(browser: Browser) -> int:
    """Create a rated match to 3 points: the status (201 when it may)."""
    terms = {"mode": "match", "length": 3, "rated": True}
    return (await browser.post("/api/matches", terms)).status


async def act(mia: Browser, name: str, action: str, reason: str, **kw) -> dict:
    got = await mia.post("/api/moderation/actions", {"name": name, "action": action,
                                                     "reason": reason, **kw})  # fmt: skip
    assert got.status == 200, got.body
    return got.body["sanctions"]


async def test_reports_queue_sanctions_audit_and_lifts(server):
    ann, bob, mia = [await signed_up(server.base, n) for n in ("ann", "bob", "Mia")]

    # Ann and Bob play a match of accounts; both chat (positive control).
    created = await ann.post("/api/matches", {"mode": "match", "length": 3})
    match = created.body["match"]
    joined = await bob.post(f"/api/matches/{match}/join", {})
    seats = Seated(match, (created.body["token"], joined.body["token"]))
    a, b = await seats.peer(server.ws, 0), await seats.peer(server.ws, 1)
    try:
        assert isinstance(await say(a, "good luck"), m.Chat)
        rude = await say(b, "you are <b>bad</b>")
        assert isinstance(rude, m.Chat) and rude.n == 2

        # Ann reports Bob's line; the report keeps the line with its context.
        anon = Browser(server.base, origin=server.base)
        body = {"name": "bob", "reason": "insults", "match": match, "room": "players", "line": 2}
        assert (await anon.post("/api/reports", body)).status == 401
        bad = await ann.post("/api/reports", {**body, "line": 1})  # Ann's own line, not Bob's
        assert (bad.status, bad.body["error"]) == (400, "bad_field")
        assert (await ann.post("/api/reports", {**body, "name": "ann"})).status == 400
        assert (await ann.post("/api/reports", {**body, "match": "x" * 22})).status == 404
        filed = await ann.post("/api/reports", body)
        assert filed.status == 201, filed.body
        number = filed.body["id"]

        # Only a moderator sees the queue.
        assert (await ann.get("/api/moderation/reports")).body["error"] == "not_moderator"
        q = (await mia.get("/api/moderation/reports")).body["reports"]
        assert [r["id"] for r in q] == [number]
        report = q[0]
        who = (report["reporter"], report["target"], report["link"])
        assert who == ("ann", "bob", f"/m/{match}")
        said = [(c["n"], c["name"], c["text"]) for c in report["chat"]["context"]]
        assert said == [(1, "ann", "good luck"), (2, "bob", "you are <b>bad</b>")]
        chat = (await mia.get(f"/api/moderation/chat/{match}")).body
        assert [c["text"] for c in chat["players"]] == ["good luck", "you are <b>bad</b>"]
        evidence = (await mia.get("/api/moderation/players/bob")).body
        assert evidence["sanctions"] == {} and [r["id"] for r in evidence["reports"]] == [number]

        # Mute: Bob's lines are refused on the server, Ann's are not; the report is closed.
        bad = await mia.post("/api/moderation/actions", {"name": "bob", "action": "gag",
                                                         "reason": "insults"})  # fmt: skip
        assert (bad.status, bad.body["error"]) == (400, "bad_field")
        assert "mute" in await act(mia, "bob", "mute", "insults in chat", report=number)
        refused = await say(b, "still here")
        assert isinstance(refused, m.Reject) and refused.code is ErrorCode.FORBIDDEN
        assert refused.message.startswith("muted")
        assert isinstance(await say(a, "thanks"), m.Chat)
        assert (await mia.get("/api/moderation/reports")).body["reports"] == []
        again = await mia.post("/api/moderation/actions", {"name": "bob", "action": "mute",
                                                           "reason": "twice"})  # fmt: skip
        assert (again.status, again.body["error"]) == (409, "sanction_conflict")
        # A mute does not stop rated play.
        assert await rated(bob) == 201
        assert await act(mia, "bob", "lift", "served", sanction="mute") == {}
        assert isinstance(await say(b, "sorry"), m.Chat)
    finally:
        await a.close()
        await b.close()

    # Suspend: no rated match created, joined or sought; unrated play goes on.
    assert await rated(ann) == 201
    await act(mia, "ann", "suspend", "farming rating with a second account")
    got = await ann.post("/api/matches", {"mode": "match", "length": 3, "rated": True})
    assert (got.status, got.body["error"]) == (403, "rating_suspended")
    open_rated = await bob.post("/api/matches", {"mode": "match", "length": 3, "rated": True})
    joining = await ann.post(f"/api/matches/{open_rated.body['match']}/join", {})
    assert (joining.status, joining.body["error"]) == (403, "rating_suspended")
    seek = await ann.post("/api/seeks", {"mode": "match", "length": 3, "rated": True})
    assert (seek.status, seek.body["error"]) == (403, "rating_suspended")
    assert (await ann.post("/api/matches", {"mode": "match", "length": 3})).status == 201
    await act(mia, "ann", "lift", "appeal accepted", sanction="suspend")
    assert await rated(ann) == 201

    # Ban: no rated play, no chat, no reports; lifted, all three work again.
    await act(mia, "bob", "ban", "engine use confirmed")
    assert (await bob.post("/api/matches", {"mode": "match", "length": 3, "rated": True})
            ).body["error"] == "banned"  # fmt: skip
    refused = await bob.post("/api/reports", {"name": "ann", "reason": "revenge"})
    assert (refused.status, refused.body["error"]) == (403, "banned")
    created = await ann.post("/api/matches", {"mode": "match", "length": 3})
    joined = await bob.post(f"/api/matches/{created.body['match']}/join", {})  # unrated: allowed
    seats = Seated(created.body["match"], (created.body["token"], joined.body["token"]))
    b = await seats.peer(server.ws, 1)
    try:
        refused = await say(b, "hello")
        assert isinstance(refused, m.Reject) and refused.message.startswith("banned")
        await act(mia, "bob", "lift", "ban reviewed", sanction="ban")
        assert isinstance(await say(b, "hello"), m.Chat)
    finally:
        await b.close()
    assert await rated(bob) == 201
    assert (await bob.post("/api/reports", {"name": "ann", "reason": "slow play"})).status == 201

    # The audit log: every action, newest first, with who, when, what and why.
    entries = (await mia.get("/api/moderation/audit")).body["entries"]
    assert [(e["action"], e["target"], e["sanction"]) for e in entries] == [
        ("lift", "bob", "ban"), ("ban", "bob", None), ("lift", "ann", "suspend"),
        ("suspend", "ann", None), ("lift", "bob", "mute"), ("mute", "bob", None),
    ]  # fmt: skip
    assert all(e["moderator"] == "Mia" and e["at"] > 0 and e["reason"] for e in entries)
    assert entries[-1]["report"] == number
    assert len((await mia.get("/api/moderation/audit?name=ann")).body["entries"]) == 2

    # A report dismissed leaves the queue, and the dismissal is audited.
    q = (await mia.get("/api/moderation/reports")).body["reports"]
    (last,) = q
    assert (await mia.post(f"/api/moderation/reports/{last['id']}/dismiss", {"reason": "no"})
            ).status == 400  # fmt: skip
    done = await mia.post(f"/api/moderation/reports/{last['id']}/dismiss", {"reason": "no case"})
    assert done.status == 200 and (await mia.get("/api/moderation/reports")).body["reports"] == []
    assert (await mia.get("/api/moderation/audit")).body["entries"][0]["action"] == "dismiss"


async def test_reports_are_rate_limited_per_reporter(server):
    from server.players.moderation import REPORT_BURST

    ann, _, cat = [await signed_up(server.base, n) for n in ("ann", "bob", "cat")]
    for _ in range(REPORT_BURST):
        assert (await ann.post("/api/reports", {"name": "bob", "reason": "spam"})).status == 201
    over = await ann.post("/api/reports", {"name": "bob", "reason": "spam"})
    assert (over.status, over.body["error"]) == (429, "rate_limited")
    assert int(over.headers["retry-after"]) > 0
    # Another reporter has an allowance of its own.
    assert (await cat.post("/api/reports", {"name": "bob", "reason": "spam"})).status == 201


async def play_rated_point(server, ann: Browser, bob: Browser) -> str:
    """A rated match to 1 point between Ann (seat 0) and Bob, created, joined and played out."""
    created = await ann.post("/api/matches", {"mode": "match", "length": 1, "rated": True})
    joined = await bob.post(f"/api/matches/{created.body['match']}/join", {})
    seats = Seated(created.body["match"], (created.body["token"], joined.body["token"]))
    a, b = seats.client(server.ws, 0), seats.client(server.ws, 1)
    async with a, b:
        await asyncio.wait_for(asyncio.gather(
            play_random(a, random.Random(1), double_rate=0.0),
            play_random(b, random.Random(2), double_rate=0.0)), 60)  # fmt: skip
    return created.body["match"]


async def recorded(browser: Browser, name: str, match: str) -> dict:
    """The history entry of ``match`` on ``name``'s profile, once the result is recorded."""
    for _ in range(200):
        history = (await browser.get(f"/api/players/{name}")).body["history"]
        entry = next((e for e in history if e["match"] == match), None)
        if entry is not None:
            return entry
        await asyncio.sleep(0.05)
    raise AssertionError(f"{match} was never recorded for {name}")


async def plant_analysed_rated_games(redis_url: str, name: str) -> None:
    """Eight earlier rated matches of ``name`` in its history, each with a stored analysis in
    which every non-trivial play of its seat was the engine's best (25 decisions a game)."""
    redis = aioredis.from_url(redis_url)
    try:
        account_id = (await redis.hget(f"fg:{{u:{name}}}:acct", "id")).decode()
        turns = [{"seat": 0, "action": "move", "plays": 6, "forced": False, "equity_lost": 0.0}
                 for _ in range(25)]  # fmt: skip
        for i in range(8):
            match = f"{i:032x}"
            entry = {"match": match, "at": i, "opponent": "x", "opponent_account": True,
                     "mode": "match", "length": 3, "score": [3, 0], "won": True,
                     "rated": True, "change": 1.0, "private": False}  # fmt: skip
            await redis.rpush(history_key(name), msgpack.packb(entry))
            await redis.hset(seats_key(match), mapping={"a0": f"{name} {account_id}"})
            body = {"status": "done", "match": match, "game": 1, "turns": turns}
            await redis.set(report_key(match, 1), json.dumps(body))
    finally:
        await redis.aclose()


async def test_an_engine_like_account_is_flagged_for_review_when_a_rated_match_ends(
    server, redis_url
):
    ann, bob, mia = [await signed_up(server.base, n) for n in ("ann", "bob", "Mia")]
    await plant_analysed_rated_games(redis_url, "ann")
    # Before any rated match ends, nobody is flagged; the evidence shows the verdict already.
    assert (await mia.get("/api/moderation/reports")).body["flags"] == []
    evidence = (await mia.get("/api/moderation/players/ann")).body["assist"]
    assert evidence["flagged"] and evidence["decisions"] == 200 and evidence["pr"] == 0
    assert not (await mia.get("/api/moderation/players/bob")).body["assist"]["flagged"]

    # A rated match of Ann's ends: she is flagged for review (Bob, the control, is not).
    match = await play_rated_point(server, ann, bob)
    assert (await recorded(ann, "ann", match))["rated"] is True  # it counted

    async def flags() -> list[dict]:
        return (await mia.get("/api/moderation/reports")).body["flags"]

    for _ in range(200):  # the listener runs after the commit: wait for its flag
        if await flags():
            break
        await asyncio.sleep(0.05)
    (flag,) = await flags()
    assert flag["name"] == "ann" and flag["pr"] == 0 and len(flag["games"]) == 8
    assert flag["games"][0]["link"] == f"/m/{0:032x}"
    assert "PR 0.00 over 200" in flag["summary"]
    # Never a sanction: Ann still plays rated. A moderator clears the flag after review.
    assert (await ann.post("/api/matches", {"mode": "match", "length": 3, "rated": True})
            ).status == 201  # fmt: skip
    assert (await mia.call("DELETE", "/api/moderation/flags/bob", {"reason": "none"})).status == 404
    cleared = await mia.call("DELETE", "/api/moderation/flags/ann", {"reason": "reviewed: ok"})
    assert cleared.status == 200 and await flags() == []
    entry = (await mia.get("/api/moderation/audit")).body["entries"][0]
    assert (entry["action"], entry["sanction"], entry["target"]) == ("dismiss", "flag", "ann")


async def test_a_rated_match_under_way_ends_unrated_when_a_rating_is_suspended(server):
    ann, bob, mia = [await signed_up(server.base, n) for n in ("ann", "bob", "Mia")]
    created = await ann.post("/api/matches", {"mode": "match", "length": 1, "rated": True})
    joined = await bob.post(f"/api/matches/{created.body['match']}/join", {})
    match = created.body["match"]
    # Joined and rated; then a moderator suspends Bob's rating before it ends.
    await act(mia, "bob", "suspend", "under review for rating farming")
    seats = Seated(match, (created.body["token"], joined.body["token"]))
    a, b = seats.client(server.ws, 0), seats.client(server.ws, 1)
    async with a, b:
        await asyncio.wait_for(asyncio.gather(
            play_random(a, random.Random(1), double_rate=0.0),
            play_random(b, random.Random(2), double_rate=0.0)), 60)  # fmt: skip
    entry = await recorded(ann, "ann", match)
    assert entry["rated"] is False and entry["change"] is None
    assert (await ann.get("/api/players/ann")).body["rating"] == 1500
