"""Rated matches between two accounts through real server processes and Redis: the server
process dies right after storing a match's final transition, or half-way through recording
the result; a fresh process takes over. Each match moves both ratings exactly once, by the
FIBS formula, and a match lost by leaving counts as a loss."""

from __future__ import annotations

import asyncio
import random

import msgpack
import redis.asyncio as aioredis

from harness.accounts import Browser, signed_up
from harness.failure_kit import Table, stack_fixture
from protocol.client import play_random
from protocol.client.connection import ClientClosed
from server.players.ratings import Standing, rate

CRASHED = 70

stack = stack_fixture()


async def rated_table(proc, alice: Browser, bob: Browser, length: int) -> Table:
    created = await alice.post("/api/matches", {"mode": "match", "length": length, "rated": True})
    assert created.status == 201, created.body
    match = created.body["match"]
    joined = await bob.post(f"/api/matches/{match}/join", {})
    assert joined.status == 200, joined.body
    return Table(proc.ws, match, (created.body["token"], joined.body["token"]))


async def standing(browser: Browser, name: str) -> tuple[float, int, int]:
    body = (await browser.get(f"/api/players/{name}")).body
    return body["rating"], body["experience"], body["matches"]


async def recorded(redis_url: str, name: str) -> list[dict]:
    redis = aioredis.from_url(redis_url)
    try:
        raw = await redis.lrange(f"fg:{{u:{name}}}:hist", 0, -1)
        return [msgpack.unpackb(r, raw=False) for r in raw]
    finally:
        await redis.aclose()


async def exact(redis_url: str, name: str) -> Standing:
    """An account's stored rating (full precision) and experience."""
    redis = aioredis.from_url(redis_url)
    try:
        rating, experience = await redis.hmget(f"fg:{{u:{name}}}:acct", "rating", "exp")
    finally:
        await redis.aclose()
    return Standing(float(rating), int(experience))


async def play_out(table: Table, seed: int) -> None:
    """Both seats play at random to the end. A client that sees the match end just before its
    server dies does not reconnect (nothing is left to play): its session ends with the
    connection, which is fine here, as the server's own record is checked afterwards."""
    rng = random.Random(seed)
    outcomes = await asyncio.wait_for(
        asyncio.gather(
            play_random(table.a, random.Random(rng.random())),
            play_random(table.b, random.Random(rng.random())),
            return_exceptions=True,
        ),
        120,
    )
    for client, outcome in zip(table.seats, outcomes, strict=True):
        if isinstance(outcome, BaseException):
            assert isinstance(outcome, ClientClosed) and client.tracker.over, outcome


async def winner_of(browser: Browser, match: str) -> int:
    info = (await browser.get(f"/api/matches/{match}")).body
    assert info["phase"] == "over" and info["rated"] is True, info
    return info["winner"]


async def test_ratings_move_exactly_once_whatever_crashes(stack):
    proc = stack.server(FAIRGAMMON_CRASH_AT="after_finish:Any")
    alice = await signed_up(proc.base, "alice")
    bob = await signed_up(proc.base, "bob")

    # 1. The process dies right after storing the final transition, before anything is
    #    recorded. The next process finds the match due and dies half-way through recording
    #    it (one account has it, the other not yet); a third one finishes the job.
    table = await rated_table(proc, alice, bob, 1)
    async with table:
        playing = asyncio.create_task(play_out(table, 1))
        assert await stack.exited(proc) == CRASHED
        proc = await stack.restart(proc, FAIRGAMMON_CRASH_AT="mid_record:Any")
        # The second process may die before a client that missed the end has resumed (its
        # sweep is quick on a busy machine): the clients finish against the third.
        assert await stack.exited(proc) == CRASHED
        half = [len(await recorded(stack.redis.url, n)) for n in ("alice", "bob")]
        assert sorted(half) == [0, 1], half
        proc = await stack.restart(proc)
        await playing
    winner = await winner_of(alice, table.match_id)
    names = ("alice", "bob")
    first = {names[winner]: (1510.00, 1, 1), names[1 - winner]: (1490.00, 1, 1)}

    async def settled(expected: dict[str, tuple[float, int, int]]) -> None:
        async def both() -> bool:
            return all([await standing(alice, n) == v for n, v in expected.items()])

        for _ in range(200):
            if await both():
                return
            await asyncio.sleep(0.1)
        raise AssertionError({n: await standing(alice, n) for n in expected})

    await settled(first)

    # 2. Leaving a rated match loses it (no crash this time); the formula now works on the
    #    ratings and experience the first match left.
    before = {n: await exact(stack.redis.url, n) for n in names}
    assert before["alice"].experience == before["bob"].experience == 1
    table = await rated_table(proc, alice, bob, 3)
    async with table:
        await table.b.leave()
        await table.a.wait_for(lambda t: t.over is not None)
    assert await winner_of(alice, table.match_id) == 0
    change = rate(before["alice"], before["bob"], 0, 3)
    second = {n: (round(before[n].rating + change.deltas[i], 2), 4, 2) for i, n in enumerate(names)}
    await settled(second)
    for i, n in enumerate(names):
        now = await exact(stack.redis.url, n)
        assert abs(now.rating - (before[n].rating + change.deltas[i])) < 1e-9

    # Each account's history has each match once, newest first, with its rated change.
    for i, name in enumerate(names):
        history = await recorded(stack.redis.url, name)
        assert len(history) == 2 and len({h["match"] for h in history}) == 2
        assert history[0]["won"] is (i == 0) and history[0]["rated"] is True
        assert history[0]["change"] == round(change.deltas[i], 2)
        assert history[0]["opponent"] == names[1 - i] and history[0]["length"] == 3
    profile = (await Browser(proc.base).get("/api/players/alice")).body
    assert [p["rating"] for p in profile["chart"]] == [first["alice"][0], second["alice"][0]]
    # Nothing is left due, however long the sweepers run.
    redis = aioredis.from_url(stack.redis.url)
    try:
        assert await redis.zcard("fg:idx:results") == 0
    finally:
        await redis.aclose()
