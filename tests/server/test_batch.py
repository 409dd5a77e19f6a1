"""Commits sent together in one pipeline keep their own outcome: each is still a
compare-and-set of its own, and a lost script cache (Redis restarted) is reloaded."""

import asyncio

from server.match.store import Conflict, Store


async def test_concurrent_commits_share_a_trip_but_not_their_outcome(redis_url):
    store = Store.from_url(redis_url)
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
