"""Commits sent together in one pipeline keep their own outcome: each is still a
compare-and-set of its own, and a lost script cache (Redis restarted) is reloaded.

Both ways a batch goes are tried: through the bare connection of server/ops/lean_link.py
(``Store.from_url`` on one plain Redis) and through redis-py's pool (a Store given only a
client: what a cluster or Sentinel uses)."""

import asyncio
import uuid

import pytest
import redis.asyncio as aioredis

from server.match.store import Conflict, Store


@pytest.fixture(params=["lean", "pool"])
def make_store(request, redis_url):
    def make() -> Store:
        if request.param == "lean":
            store = Store.from_url(redis_url)
            assert store._link is not None
            return store
        return Store(aioredis.Redis.from_url(redis_url))

    return make


async def test_concurrent_commits_share_a_trip_but_not_their_outcome(make_store):
    store = make_store()
    ids = [f"{i:032x}" for i in range(20)]
    versions = await asyncio.gather(*(store.commit(m, -1, b"s", b"m", [b"e1"]) for m in ids))
    assert versions == [1] * 20

    # Two writers race on ids[0] from version 1 in the same batch: exactly one wins.
    results = await asyncio.gather(
        *(store.commit(m, 1, b"s2", b"m", [b"e2"]) for m in ids),
        store.commit(ids[0], 1, b"loser", b"m", [b"x"]),
        return_exceptions=True,
    )
    assert results[:20] == [2] * 20
    assert isinstance(results[20], Conflict) and results[20].current == 2
    assert await store.events_after(ids[0], 0, 10) == [(1, b"e1"), (2, b"e2")]

    await store.redis.script_flush()  # what a restarted Redis looks like to the client
    again = await asyncio.gather(*(store.commit(m, 2, b"s3", b"m", [b"e3"]) for m in ids[:5]))
    assert again == [3] * 5
    assert (await store.load(ids[4])).state == b"s3"
    await store.close()


async def test_a_batch_after_its_connection_broke_is_sent_again_once(make_store):
    # The batcher keeps its connection between batches; Redis closing it (as a restart does)
    # costs the next batch one retry on a fresh connection, not an error.
    store = make_store()
    ids = [f"{i:032x}" for i in range(3)]
    assert await asyncio.gather(*(store.commit(m, -1, b"s", b"m", [b"e"]) for m in ids)) == [1] * 3
    killed = await store.redis.client_kill_filter(_type="normal", skipme=True)
    assert killed >= 1  # the batcher's kept connection among them
    assert await asyncio.gather(*(store.commit(m, 1, b"s", b"m", [b"e"]) for m in ids)) == [2] * 3
    assert [(await store.load(m)).version for m in ids] == [2] * 3
    await store.close()


async def test_a_silent_store_times_the_batch_out_and_the_late_reply_is_never_read(redis_url):
    # One timeout covers a batch's write and replies. After it the connection is closed: the
    # reply that comes late must not be taken for the next batch's.
    import redis.asyncio as aioredis
    from redis.exceptions import TimeoutError as RedisTimeoutError

    store = Store(aioredis.Redis.from_url(redis_url, socket_timeout=0.2))
    other = aioredis.Redis.from_url(redis_url)
    ids = [f"{i:032x}" for i in range(2)]
    assert await store.commit(ids[0], -1, b"s", b"m", [b"e"]) == 1
    await other.client_pause(600)  # Redis answers no client for 0.6 s
    started = asyncio.get_running_loop().time()
    try:
        await store.commit(ids[0], 1, b"s2", b"m", [b"e2"])
        raise AssertionError("a silent store must time the batch out")
    except RedisTimeoutError:
        assert asyncio.get_running_loop().time() - started < 0.5
    await other.ping()  # answered once the pause is over
    # The next batches read their own replies, not the timed-out one's.
    assert await store.commit(ids[1], -1, b"t", b"m", [b"f"]) == 1
    # (Whether the timed-out commit ran is what its sender cannot know: the compare-and-set
    # decides. Redis drops what a closed connection sent and it had not read yet.)
    stored = (await store.load(ids[0])).version
    assert stored in (1, 2)
    assert await store.commit(ids[0], stored, b"s3", b"m", [b"e3"]) == stored + 1
    assert (await store.events_after(ids[0], stored, 10)) == [(stored + 1, b"e3")]
    await other.aclose()
    await store.close()


async def test_overlapping_batches_give_every_connection_back(redis_url):
    # A batch that waits for a pooled connection while the batch before it ends (and keeps
    # its connection for the next one) must not lose that connection: lost ones drained a
    # pool of 64 under 2,000 matches on two processes until every commit waited for ever.
    pool = aioredis.BlockingConnectionPool.from_url(redis_url, max_connections=3, timeout=None)
    store = Store(aioredis.Redis(connection_pool=pool))
    ids = [f"{i:032x}" for i in range(300)]

    async def overlapping() -> list[int]:
        tasks = []
        for m in ids:  # a commit per loop iteration: each batch starts while others are out
            tasks.append(asyncio.create_task(store.commit(m, -1, b"s", b"m", [b"e"])))
            await asyncio.sleep(0)
        return await asyncio.gather(*tasks)

    assert await asyncio.wait_for(overlapping(), 20) == [1] * len(ids)
    # Every connection is back: a pool of 3 still serves three batches out at once.
    async with asyncio.timeout(5):
        again = await asyncio.gather(*(store.commit(m, 1, b"t", b"m", [b"f"]) for m in ids))
    assert again == [2] * len(ids)
    await store.close()


async def test_on_the_connected_link_a_batch_costs_no_task_and_a_break_is_retried_once(redis_url):
    # The usual way: the link is up, the batch is written by a callback and its replies handed
    # out as they arrive (no task). A link that breaks with a batch on it: that batch is
    # finished the long way, sent again once on a fresh connection, and answered.
    store = Store.from_url(redis_url)
    batcher = store._commit
    long_way: list[int] = []
    finish = batcher._finish

    def counted(batch, calls, sent):  # type: ignore[no-untyped-def]
        long_way.append(len(calls))
        finish(batch, calls, sent)

    batcher._finish = counted  # type: ignore[method-assign]
    other = aioredis.Redis.from_url(redis_url)
    ids = [f"{i:032x}" for i in range(5)]
    assert await store.commit(ids[0], -1, b"s", b"m", [b"e"]) == 1
    assert long_way == [1]  # the first batch connects the link
    firsts = await asyncio.gather(*(store.commit(m, -1, b"s", b"m", [b"e"]) for m in ids[1:]))
    assert firsts == [1] * 4
    assert long_way == [1]  # (one batch of four, the link up: no task)

    await other.client_pause(5000, all=False)  # scripts wait; other commands go on
    pending = asyncio.gather(*(store.commit(m, 1, b"s2", b"m", [b"e2"]) for m in ids))
    link = store._link
    assert link is not None
    while not (link.ready() and link.ready().waiting):  # type: ignore[union-attr]
        await asyncio.sleep(0.01)  # the batch is on the link, held by the pause
    await other.client_kill_filter(_type="normal", skipme=True)  # the link breaks under it
    await other.client_unpause()
    assert await asyncio.wait_for(pending, 5) == [2] * 5  # sent again once, and stored once
    assert long_way == [1, 5]
    assert [(await store.load(m)).version for m in ids] == [2] * 5
    await other.aclose()
    await store.close()


@pytest.mark.parametrize("kind", ["lean", "pool"])
async def test_a_call_redis_cannot_take_fails_its_batch_instead_of_hanging_it(redis_url, kind):
    # An argument the protocol cannot carry (a bug in a caller) fails every call of its batch
    # at once, on either way a batch goes; the next batch is sent as usual.
    lean = kind == "lean"
    store = Store.from_url(redis_url) if lean else Store(aioredis.Redis.from_url(redis_url))
    ids = [f"{i:032x}" for i in range(2)]
    assert await store.commit(ids[0], -1, b"s", b"m", [b"e"]) == 1  # (the link is up)
    results = await asyncio.wait_for(
        asyncio.gather(
            store.commit(ids[1], -1, b"s", b"m", [b"e"]),
            store._commit.call([ids[0]], [True]),  # not a Redis argument
            return_exceptions=True,
        ),
        5,
    )
    assert [type(r) for r in results] == [TypeError, TypeError], results
    assert await store.commit(ids[1], -1, b"s", b"m", [b"e"]) == 1  # nothing of it stored
    await store.close()


@pytest.mark.parametrize("kind", ["lean", "pool"])
async def test_a_commit_window_gathers_the_commits_of_later_iterations(redis_url, kind):
    """``commit_window_ms``: a batch waits that long after its first call, so commits made a
    few loop iterations later share its round trip, and none is answered before the window
    is over. Without a window (the control) each iteration's commits go on their own."""

    async def batches(window: float) -> tuple[list[int], float, list[int]]:
        if kind == "lean":
            store = Store.connect(redis_url, window=window)
        else:
            store = Store(aioredis.Redis.from_url(redis_url), window=window)
        sizes: list[int] = []
        batcher = store._commit
        send = batcher._send_all if kind == "pool" else batcher._send_at_once

        def counted(calls, *rest):  # type: ignore[no-untyped-def]
            sizes.append(len(calls))
            return send(calls, *rest)

        if kind == "pool":
            batcher._send_all = counted  # type: ignore[method-assign]
        else:
            batcher._send_at_once = counted  # type: ignore[method-assign]
        ids = [uuid.uuid4().hex for _ in range(3)]
        await store.commit(ids[0], -1, b"s", b"m", [b"e"])  # connects the link
        sizes.clear()
        loop = asyncio.get_running_loop()
        started = loop.time()
        first = asyncio.ensure_future(store.commit(ids[1], -1, b"s", b"m", [b"e"]))
        for _ in range(3):
            await asyncio.sleep(0)  # a few iterations later
        second = asyncio.ensure_future(store.commit(ids[2], -1, b"s", b"m", [b"e"]))
        versions = await asyncio.gather(first, second)
        waited = loop.time() - started
        await store.close()
        return sizes, waited, versions

    sizes, waited, versions = await batches(0.0)
    assert versions == [1, 1] and sizes == [1, 1]  # the control: one batch each
    await asyncio.sleep(0)
    sizes, waited, versions = await batches(0.3)
    assert versions == [1, 1] and sizes == [2], sizes
    assert waited >= 0.3
