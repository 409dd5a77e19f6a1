"""The store's bare pipelined connection (server/ops/lean_link.py) against a real Redis: its
batches in flight at once each get their own replies on one connection, a caller that gave
up does not shift anyone's replies, a silent store times out and its late replies are never
read, a password and a database are used, and the store on one plain Redis goes through it.
(The batcher's own behaviour over it — compare-and-set per commit, a lost script cache, a
broken connection sent again once — is in tests/server/test_batch.py.)"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from typing import Any

import pytest
import redis.asyncio as aioredis
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.match.store import Store
from server.ops.lean_link import LeanLink, lean_link
from server.ops.redis_link import RedisTarget, open_link
from server.ops.resp import command


def link_to(redis_url: str, **options: float) -> LeanLink:
    link = lean_link(redis_url, options.get("connect", 2.0), options.get("timeout", 5.0))
    assert link is not None
    return link


@contextlib.asynccontextmanager
async def linked(redis_url: str, timeout: float = 5.0) -> AsyncIterator[tuple[Any, LeanLink]]:
    """A client to watch and steer the Redis, and a link to it (both closed after)."""
    admin = aioredis.Redis.from_url(redis_url)
    link = link_to(redis_url, timeout=timeout)
    try:
        yield admin, link
    finally:
        await link.aclose()
        await admin.aclose()


async def in_flight(link: LeanLink, count: int) -> None:
    """Until ``count`` batches wait on the link's connection (written, not yet answered)."""
    while link._protocol is None or len(link._protocol.waiting) < count:
        await asyncio.sleep(0)


async def clients(admin: aioredis.Redis) -> int:
    return len(await admin.client_list(_type="normal"))


async def test_batches_in_flight_at_once_share_one_connection_and_keep_their_replies(redis_url):
    async with linked(redis_url) as (admin, link):
        before = await clients(admin)  # (the link connects on its first batch)
        # 200 batches written one behind the other before any reply is read.
        batches = [command("INCRBY", "n", i) + command("ECHO", b"b%d" % i) for i in range(200)]
        replies = await asyncio.gather(*(link.exchange(b, 2) for b in batches))
        totals = [r[0] for r in replies]
        assert [r[1] for r in replies] == [b"b%d" % i for i in range(200)]
        assert totals == [sum(range(i + 1)) for i in range(200)]  # in the order written
        assert await clients(admin) == before + 1  # all of them on one connection
        # An error Redis answers is that command's reply; the others are unaffected.
        out = await link.exchange(command("INCR", "n") + command("LPUSH", "n", "x"), 2)
        assert out[0] == sum(range(200)) + 1 and isinstance(out[1], ResponseError)


async def test_a_caller_that_gave_up_does_not_shift_the_replies_of_the_others(redis_url):
    async with linked(redis_url) as (admin, link):
        assert await link.exchange(command("PING"), 1) == [b"PONG"]
        await admin.client_pause(300)  # the replies wait: both batches are in flight
        first = asyncio.create_task(link.exchange(command("ECHO", "first"), 1))
        second = asyncio.create_task(link.exchange(command("ECHO", "second"), 1))
        await asyncio.wait_for(in_flight(link, 2), 2)
        assert not first.done() and not second.done()
        first.cancel()
        assert await second == [b"second"]
        assert first.cancelled()
        assert await link.exchange(command("ECHO", "third"), 1) == [b"third"]


async def test_a_silent_store_times_out_and_its_late_replies_are_never_read(redis_url):
    async with linked(redis_url, timeout=0.2) as (admin, link):
        assert await link.exchange(command("SET", "k", "1"), 1) == [b"OK"]
        silent = link._protocol
        await admin.client_pause(600, all=False)  # (WRITE pause: reads still answered)
        started = asyncio.get_running_loop().time()
        with pytest.raises(RedisTimeoutError):
            await link.exchange(command("INCR", "k"), 1)
        assert asyncio.get_running_loop().time() - started < 0.5
        assert silent is not None and silent.lost  # given up: a half-open link is not kept
        await admin.client_unpause()
        # A fresh connection: its reply is its own, not the late INCR's.
        assert await link.exchange(command("ECHO", "mine"), 1) == [b"mine"]
        assert link._protocol is not silent
        assert await link.exchange(command("GET", "k"), 1) in ([b"1"], [b"2"])


async def test_one_watch_times_the_oldest_batch_and_never_one_answered_in_time(redis_url):
    async with linked(redis_url, timeout=0.2) as (admin, link):
        # Steady traffic for three timeouts: every batch answered, none timed out (the watch
        # is set again for whichever batch is the oldest when it fires).
        loop = asyncio.get_running_loop()
        end = loop.time() + 0.6
        answered = 0
        while loop.time() < end:
            assert await link.exchange(command("ECHO", "x"), 1) == [b"x"]
            answered += 1
            await asyncio.sleep(0.01)
        assert answered > 20
        # Silent: the oldest batch fails as silent at its time, one sent later as broken.
        await admin.client_pause(500, all=False)
        first = asyncio.create_task(link.exchange(command("INCR", "a"), 1))
        await asyncio.sleep(0.1)
        second = asyncio.create_task(link.exchange(command("INCR", "b"), 1))
        started = loop.time()
        with pytest.raises(RedisTimeoutError):
            await first
        with pytest.raises(RedisConnectionError):
            await second
        assert loop.time() - started < 0.2
        await admin.client_unpause()
        assert await link.exchange(command("ECHO", "y"), 1) == [b"y"]


async def test_a_store_that_closes_the_connection_is_noticed_before_the_next_batch(redis_url):
    async with linked(redis_url) as (admin, link):
        assert await link.exchange(command("PING"), 1) == [b"PONG"]
        protocol = link._protocol
        assert protocol is not None and not protocol.lost
        waiting = asyncio.create_task(link.exchange(command("BLPOP", "never", 0), 1))
        await asyncio.wait_for(in_flight(link, 1), 2)
        assert await admin.client_kill_filter(_type="normal", skipme=True) >= 1
        with pytest.raises(RedisConnectionError):
            await asyncio.wait_for(waiting, 2)  # the batch waiting on it fails at once
        assert protocol.lost
        assert await link.exchange(command("PING"), 1) == [b"PONG"]  # connected again


async def test_a_password_and_a_database_are_used_and_a_wrong_password_refused(redis_url):
    admin = aioredis.Redis.from_url(redis_url)
    await admin.execute_command("ACL", "SETUSER", "linked", "on", ">s3cret", "~*", "&*", "+@all")
    host = redis_url.split("//", 1)[1].split("/", 1)[0]
    db5 = aioredis.Redis.from_url(f"redis://{host}/5")
    try:
        link = link_to(f"redis://linked:s3cret@{host}/5")
        assert await link.exchange(command("SET", "in5", "yes"), 1) == [b"OK"]
        assert await db5.get("in5") == b"yes" and await admin.get("in5") is None
        await link.aclose()
        wrong = link_to(f"redis://linked:nope@{host}/5")
        with pytest.raises(RedisConnectionError, match="refused"):
            await wrong.exchange(command("PING"), 1)
        await wrong.aclose()
    finally:
        await db5.flushdb()
        await db5.aclose()
        await admin.execute_command("ACL", "DELUSER", "linked")
        await admin.aclose()


async def test_the_store_on_one_plain_redis_commits_through_it(redis_url):
    assert open_link(RedisTarget(url=redis_url)) is not None
    assert open_link(RedisTarget(url=redis_url.replace("redis://", "rediss://"))) is None
    assert open_link(RedisTarget(url=redis_url, cluster=True)) is None
    assert open_link(RedisTarget(sentinels=(("127.0.0.1", 1),), sentinel_master="m")) is None
    store = Store.from_url(redis_url)
    try:
        assert store._link is not None
        assert await store.commit(f"{1:032x}", -1, b"s", b"m", [b"e"]) == 1
        assert store._link._protocol is not None  # the commit went through the link
        joining = await store.joining(f"{1:032x}", 0)  # so did the handshake's reads
        assert joining.stored is not None and joining.stored.version == 1
    finally:
        await store.close()
