"""Rated results in order, through a real server and Redis: a player whose two rated matches
end at the same moment has the second change computed from the rating the first left (one
after the other: 1519.92, never 1520.00 from the same starting rating twice), each once; and a
match abandoned before its first game (both seats silent) is in nobody's history or count."""

from __future__ import annotations

import asyncio

from harness.accounts import Browser, signed_up
from harness.srv_support import move_clock
from protocol.client import MatchClient
from server.players.ratings import Standing, rate


async def rated_match(base: str, ws: str, host: Browser, guest: Browser) -> tuple[str, MatchClient,
                                                                               MatchClient]:
    created = await host.post("/api/matches", {"mode": "match", "length": 1, "rated": True})
    assert created.status == 201, created.body
    match = created.body["match"]
    joined = await guest.post(f"/api/matches/{match}/join", {})
    assert joined.status == 200, joined.body
    return (match, MatchClient(ws, match, created.body["token"]),
            MatchClient(ws, match, joined.body["token"]))


async def profile(browser: Browser, name: str) -> dict:
    return (await browser.get(f"/api/players/{name}")).body


async def until(check, what: str) -> None:  # type: ignore[no-untyped-def]
    for _ in range(200):
        if await check():
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"never {what}")


async def test_two_rated_matches_ending_together_count_one_after_the_other(server) -> None:
    ann = await signed_up(server.base, "ann")
    bob = await signed_up(server.base, "bob")
    cat = await signed_up(server.base, "cat")
    first, a1, b1 = await rated_match(server.base, server.ws, ann, bob)
    second, a2, c2 = await rated_match(server.base, server.ws, ann, cat)
    async with a1, b1, a2, c2:
        await asyncio.gather(*(c.wait_for(lambda t: t.clock.phase != "waiting")
                               for c in (a1, b1, a2, c2)))
        # Bob and Cat leave at the same moment: Ann wins both matches together.
        await asyncio.gather(b1.leave(), c2.leave())
        await asyncio.gather(a1.wait_for(lambda t: t.over is not None),
                             a2.wait_for(lambda t: t.over is not None))

    async def recorded() -> bool:
        return (await profile(ann, "ann"))["matches"] == 2 and all(
            [(await profile(ann, n))["matches"] == 1 for n in ("bob", "cat")])

    await until(recorded, "recorded both matches")
    new = Standing(1500.0, 0)
    once = rate(new, new, 0, 1)
    after_first = Standing(1500.0 + once.deltas[0], 1)
    twice = rate(after_first, new, 0, 1)
    expected = round(after_first.rating + twice.deltas[0], 2)
    assert expected == 1519.92
    ann_now = await profile(ann, "ann")
    assert ann_now["rating"] == expected and ann_now["experience"] == 2
    # One of them lost to Ann at 1500, the other to Ann at 1510.
    losers = sorted([(await profile(ann, n))["rating"] for n in ("bob", "cat")])
    assert losers == sorted([round(1500 + once.deltas[1], 2), round(1500 + twice.deltas[1], 2)])
    assert [p["rating"] for p in ann_now["chart"]] == [round(after_first.rating, 2), expected]
    assert {h["match"] for h in ann_now["history"]} == {first, second}


async def test_a_match_nobody_started_is_in_nobody_s_record(server, redis_url) -> None:
    ann = await signed_up(server.base, "ann")
    bob = await signed_up(server.base, "bob")
    created = await ann.post("/api/matches", {"mode": "match", "length": 3, "rated": True})
    match = created.body["match"]
    assert (await bob.post(f"/api/matches/{match}/join", {})).status == 200
    # Neither seat ever connects: both owe their commitment when the clock runs out.
    await move_clock(server, redis_url, 3600)

    async def over() -> bool:
        return (await ann.get(f"/api/matches/{match}")).body["phase"] == "over"

    await until(over, "abandoned the match")
    info = (await ann.get(f"/api/matches/{match}")).body
    assert info["winner"] is None
    await asyncio.sleep(0.5)  # what recording there would be is done by now
    for browser, name in ((ann, "ann"), (bob, "bob")):
        body = await profile(browser, name)
        assert (body["rating"], body["experience"], body["matches"]) == (1500.0, 0, 0)
        assert body["history"] == []


async def test_results_recorded_at_once_are_computed_one_after_the_other(redis_url) -> None:
    """The same, with the two recordings interleaved at every await in one process (the bus
    runs each as a task): without the accounts' rating locks both would read 1500."""
    import redis.asyncio as aioredis

    from engine.match import MatchOptions
    from server.machine import core
    from server.machine.commands import Join, Leave
    from server.machine.state import Config
    from server.match.store import seats_key
    from server.players.accounts_store import AccountsStore
    from server.players.results import Results

    redis = aioredis.from_url(redis_url)
    store = AccountsStore(redis)
    states = {}
    try:
        for name in ("ann", "bob", "cat"):
            assert await store.create(name, f"id-{name}", "pw", 0, 1500.0)
        for match, loser in (("a1" * 16, "bob"), ("b2" * 16, "cat")):
            state, _ = core.create(match, Config(MatchOptions.match(1)), "ann", 1000)
            for command in (Join(1, name=loser), Leave(1, 1)):
                outcome = core.apply(state, command, 2000)
                assert isinstance(outcome, core.Accepted)
                state = outcome.state
            assert state.is_over and state.match.winner == 0
            states[match] = state
            await redis.hset(seats_key(match), mapping={
                "a0": "ann id-ann", "a1": f"{loser} id-{loser}", "rated": "1"})

        async def load(match_id: str):  # type: ignore[no-untyped-def]
            return states[match_id]

        results = Results(store, load, lambda: 5000)
        assert await asyncio.gather(*(results.record(m) for m in states)) == [True, True]
        assert await asyncio.gather(*(results.record(m) for m in states)) == [True, True]
        ann = await store.account("ann")
        assert ann is not None
        assert (round(float(ann["rating"]), 2), ann["exp"], ann["matches"]) == (1519.92, "2", "2")
        assert await redis.scard("fg:{u:ann}:rpending") == 0
        assert not await redis.exists("fg:{u:ann}:rlock")
    finally:
        await redis.aclose()
