"""Quick pairing through real server processes and Redis (server/web/seeks.py,
server/competition/quick.py): two guests on two processes are paired at once, the waiting one
hears it on its socket, both play the match with the tokens the API gave them; the match is
arranged (never open, no ordinary join); a browser never meets itself; closing the page takes
a seek out; a seek alone is offered the computer; rated seeks and ranges need an account; and a
process that dies right after pairing leaves the match to be created by another."""

from __future__ import annotations

import asyncio
import json
import random
import time

import websockets

from harness.accounts import Browser, signed_up
from harness.failure_kit import stack_fixture
from protocol.client import MatchClient, play_random

stack = stack_fixture()
CRASHED = 70


def ws_base(base: str) -> str:
    return base.replace("http://", "ws://")


async def next_state(socket, timeout: float = 5.0) -> dict:
    return json.loads(await asyncio.wait_for(socket.recv(), timeout))


async def test_two_guests_on_two_processes_are_paired_and_play(stack):
    one, two = stack.server(), stack.server()
    ann, bob = Browser(one.base, origin=one.base), Browser(two.base, origin=two.base)
    terms = {"mode": "single_game", "clock": 30}
    first = await ann.post("/api/seeks", {**terms, "name": "Ann"})
    assert first.status == 201 and first.body["state"] == "waiting", first.body
    assert "fg_browser" in ann.cookies
    seek_a = first.body["seek"]
    assert (await Browser(two.base).get("/api/seeks")).body["looking"] == [
        {"mode": "single_game", "length": 0, "clock": 30, "rated": False, "count": 1}
    ]
    url = f"{ws_base(one.base)}{first.body['socket']}"
    async with websockets.connect(url, origin=one.base) as socket:
        assert (await next_state(socket))["state"] == "waiting"
        started = time.monotonic()
        second = await bob.post("/api/seeks", {**terms, "name": "Ann"})
        assert second.status == 201 and second.body["state"] == "paired", second.body
        heard = await next_state(socket)
        waited = time.monotonic() - started
    assert heard["state"] == "paired" and heard["seat"] == 0, heard
    assert waited < 1.0, waited  # across processes, through the news channel
    match = heard["match"]
    assert second.body["match"] == match and second.body["seat"] == 1
    assert heard["page"].endswith(f"/m/{match}")
    # Any client reads the same answer again, with the same token.
    again = (await Browser(one.base).get(f"/api/seeks/{seek_a}")).body
    assert again == heard
    info = (await ann.get(f"/api/matches/{match}")).body
    assert info["arranged"] == "pairing" and info["names"] == ["Ann", "Ann 2"]
    assert info["phase"] == "commit"
    listed = (await ann.get("/api/matches?status=open")).body["matches"]
    assert match not in [m["id"] for m in listed]
    refused = await Browser(one.base).post(f"/api/matches/{match}/join", {"name": "Eve"})
    assert refused.status == 403 and refused.body["error"] == "forbidden", refused.body
    assert (await ann.get("/api/seeks")).body["looking"] == []
    # The two seats play it out with the tokens they were given.
    a = MatchClient(one.ws, match, heard["token"])
    b = MatchClient(two.ws, match, second.body["token"])
    async with a, b:
        outcomes = await asyncio.gather(
            play_random(a, random.Random(1)), play_random(b, random.Random(2))
        )
    assert outcomes[0] == outcomes[1] and outcomes[0].winner in (0, 1)
    # A paired seek cannot be taken back; it stays paired.
    gone = await ann.call("DELETE", f"/api/seeks/{seek_a}")
    assert gone.status == 200 and gone.body["state"] == "paired"


async def test_no_self_pairing_closing_the_page_the_computer_and_accounts(stack):
    proc = stack.server()
    base = proc.base
    me = Browser(base, origin=base)
    terms = {"mode": "match", "length": 3, "clock": 20}
    first = await me.post("/api/seeks", terms)
    second = await me.post("/api/seeks", terms)  # the same browser: the same person
    assert first.body["state"] == second.body["state"] == "waiting"
    assert (await me.get("/api/seeks")).body["looking"][0]["count"] == 2
    # Its socket closes (the page closed): that seek leaves the pool at once.
    url = f"{ws_base(base)}/ws/seeks/{first.body['seek']}"
    async with websockets.connect(url, origin=base) as socket:
        assert (await next_state(socket))["state"] == "waiting"
    for _ in range(50):
        state = (await me.get(f"/api/seeks/{first.body['seek']}")).body
        if state["state"] != "waiting":
            break
        await asyncio.sleep(0.05)
    assert state == {"seek": first.body["seek"], "state": "gone", "why": "cancelled"}
    # Alone for 5 s (nobody else seeks a match to 3 at 20 s): the computer is offered, and a
    # socket opened meanwhile hears it.
    url = f"{ws_base(base)}/ws/seeks/{second.body['seek']}"
    async with websockets.connect(url, origin=base) as socket:
        assert (await next_state(socket))["computer"] is False
        offered = await next_state(socket, timeout=8)
    assert offered["state"] == "waiting" and offered["computer"] is True
    deleted = await me.call("DELETE", f"/api/seeks/{second.body['seek']}")
    assert deleted.body == {"seek": second.body["seek"], "state": "gone", "why": "cancelled"}
    # A foreign page may not open a seek's socket; a malformed id is no seek.
    try:
        async with websockets.connect(url, origin="https://evil.example"):
            raise AssertionError("a foreign origin was let in")
    except websockets.InvalidStatus as exc:
        assert exc.response.status_code == 403
    assert (await me.get("/api/seeks/not-a-seek")).status == 404
    # Rated play and ranges need an account; bad terms are named.
    refused = await Browser(base, origin=base).post("/api/seeks", {**terms, "rated": True})
    assert refused.status == 401 and refused.body["error"] == "needs_account"
    refused = await Browser(base, origin=base).post("/api/seeks", {**terms, "range": 100})
    assert refused.status == 401 and refused.body["error"] == "needs_account"
    bad = await me.post("/api/seeks", {"mode": "match", "clock": 20})
    assert bad.status == 400 and "length" in bad.body["message"]
    bad = await me.post("/api/seeks", {"mode": "money", "clock": 2})
    assert bad.status == 400 and "clock" in bad.body["message"]
    # Two accounts: a rated seek with a range pairs the other account, rated.
    ann, bob = await signed_up(base, "annseek"), await signed_up(base, "bobseek")
    rated = {"mode": "match", "length": 1, "clock": 20, "rated": True}
    waiting = await ann.post("/api/seeks", {**rated, "range": 0})
    assert waiting.body["state"] == "waiting"
    paired = await bob.post("/api/seeks", rated)
    assert paired.body["state"] == "paired", paired.body
    info = (await ann.get(f"/api/matches/{paired.body['match']}")).body
    assert info["rated"] is True and info["accounts"] == [True, True]
    assert info["names"] == ["annseek", "bobseek"]
    # The same account on another browser does not meet itself.
    again = Browser(base, origin=base, cookies={"fg_session": ann.cookies["fg_session"]})
    one = await ann.post("/api/seeks", rated)
    two = await again.post("/api/seeks", rated)
    assert one.body["state"] == two.body["state"] == "waiting"


async def test_a_process_that_dies_after_pairing_leaves_the_match_to_another(stack):
    doomed = stack.server(FAIRGAMMON_CRASH_AT="after_pairing:Any")
    other = stack.server()
    ann, bob = Browser(other.base, origin=other.base), Browser(doomed.base, origin=doomed.base)
    terms = {"mode": "single_game", "clock": 30}
    first = await ann.post("/api/seeks", terms)
    url = f"{ws_base(other.base)}{first.body['socket']}"
    async with websockets.connect(url, origin=other.base) as socket:
        assert (await next_state(socket))["state"] == "waiting"
        try:
            await bob.post("/api/seeks", terms)  # pairs, then the process dies
            raise AssertionError("the process answered")
        except OSError:  # the connection closed without an answer
            pass
        assert await stack.exited(doomed) == CRASHED
        heard = await next_state(socket, timeout=10)  # the other process's sweep made it
    assert heard["state"] == "paired" and heard["seat"] == 0
    info = (await ann.get(f"/api/matches/{heard['match']}")).body
    assert info["phase"] == "commit" and info["arranged"] == "pairing"
