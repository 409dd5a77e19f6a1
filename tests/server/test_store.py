"""The Redis store against a real redis-server: compare-and-set, the log, durability."""

import asyncio

import pytest
import redis.asyncio as aioredis

from server.match.store import Conflict, Store, split_published
from server.ops.redis_process import RedisProcess


async def test_commit_is_compare_and_set(redis_url):
    store = Store.from_url(redis_url)
    m = "a" * 32
    fields = {"0": b"h0", "invite": b"hi"}
    assert await store.commit(m, -1, b"s1", b"sum", [b"e1", b"e2"], seat_fields=fields) == 2
    with pytest.raises(Conflict) as exc:
        await store.commit(m, -1, b"again", b"sum", [b"x"])
    assert exc.value.current == 2
    assert await store.commit(m, 2, b"s2", b"sum2", [b"e3"]) == 3
    with pytest.raises(Conflict):
        await store.commit(m, 2, b"stale", b"sum", [b"e3-bis"])
    stored = await store.load(m)
    assert (stored.version, stored.state, stored.summary) == (3, b"s2", b"sum2")
    assert await store.events_after(m, 0, 100) == [(1, b"e1"), (2, b"e2"), (3, b"e3")]
    assert await store.events_after(m, 2, 100) == [(3, b"e3")]
    assert await store.events_after(m, 3, 100) == []
    assert await store.seat_hash(m, "0") == b"h0"
    assert await store.seat_hash(m, "invite") == b"hi"
    assert await store.seat_hash(m, "1") is None
    assert await store.seat_hashes(m) == (b"h0", None)
    assert await store.load("b" * 32) is None
    assert await store.seat_hashes("b" * 32) is None  # no such match
    await store.close()


async def test_racing_writers_exactly_one_wins(redis_url):
    stores = [Store.from_url(redis_url) for _ in range(8)]
    m = "c" * 32
    await stores[0].commit(m, -1, b"s", b"m", [b"e1"])
    results = await asyncio.gather(
        *(s.commit(m, 1, f"s{i}".encode(), b"m", [f"e{i}".encode()]) for i, s in enumerate(stores)),
        return_exceptions=True,
    )
    assert sum(1 for r in results if r == 2) == 1
    assert sum(1 for r in results if isinstance(r, Conflict)) == 7
    assert len(await stores[0].events_after(m, 0, 100)) == 2
    for s in stores:
        await s.close()


async def test_commit_publishes_events_in_order(redis_url):
    store = Store.from_url(redis_url)
    m = "d" * 32
    sub = aioredis.from_url(redis_url).pubsub()
    await sub.subscribe(f"fg:{{m:{m}}}:events")
    await store.commit(m, -1, b"s", b"m", [b"e1", b"e2"])
    await store.commit(m, 2, b"s", b"m", [b"e3"])
    got = []
    loop = asyncio.get_running_loop()
    deadline = loop.time() + 5
    while len(got) < 3 and loop.time() < deadline:
        # None also stands for the consumed subscribe confirmation: keep reading.
        msg = await sub.get_message(ignore_subscribe_messages=True, timeout=1)
        if msg is not None:
            got.append(split_published(msg["data"]))
    assert got == [(1, b"e1"), (2, b"e2"), (3, b"e3")]
    await store.publish(m, b"presence")
    msg = None
    while msg is None:
        msg = await sub.get_message(ignore_subscribe_messages=True, timeout=1)
    assert split_published(msg["data"]) == (0, b"presence")
    await sub.aclose()
    await store.close()


async def test_acknowledged_commits_survive_sigkill(tmp_path):
    server = RedisProcess(tmp_path / "r")
    server.start()
    try:
        store = Store.from_url(server.url)
        m = "e" * 32
        version = await store.commit(m, -1, b"s0", b"m", [b"e1"])
        for i in range(50):
            version = await store.commit(m, version, f"s{i}".encode(), b"m", [f"x{i}".encode()])
        await store.close()
        server.kill()  # no shutdown: only what was fsynced survives
        server.start()
        store = Store.from_url(server.url)
        stored = await store.load(m)
        assert stored.version == 51 and stored.state == b"s49"
        assert len(await store.events_after(m, 0, 1000)) == 51
        await store.close()
    finally:
        server.stop()


async def test_claim_due_hands_each_deadline_to_one_claimant(redis_url):
    store = Store.from_url(redis_url)
    await store.index("m1", open_since=None, live_since=1, deadline=1000)
    await store.index("m2", open_since=None, live_since=1, deadline=5000)
    assert await store.claim_due(now=2000, lease_ms=500) == ["m1"]
    assert await store.claim_due(now=2000, lease_ms=500) == []  # leased
    assert await store.claim_due(now=2600, lease_ms=500) == ["m1"]  # lease ran out
    assert sorted(await store.claim_due(now=9000, lease_ms=500)) == ["m1", "m2"]
    await store.close()


async def test_heartbeat_credits_outages(redis_url):
    store = Store.from_url(redis_url)
    assert await store.heartbeat(10_000, outage_ms=1500) == 0
    assert await store.heartbeat(10_500, outage_ms=1500) == 0
    assert await store.heartbeat(20_500, outage_ms=1500) == 10_000  # 10 s with no heartbeat
    assert await store.heartbeat(21_000, outage_ms=1500) == 10_000
    await store.close()


async def test_each_process_keeps_its_last_beat_in_server_time_until_it_stops(redis_url):
    store = Store.from_url(redis_url)
    assert await store.heartbeat(10_000, outage_ms=1500, process="p1") == 0
    assert await store.process_beat("p1") == 10_000
    # An outage of every process: credited to the server clock, and the record is in server
    # time (the outage does not count again as time since p1's last beat).
    assert await store.heartbeat(20_000, outage_ms=1500, process="p2") == 10_000
    assert await store.process_beat("p2") == 10_000 and await store.process_beat("p1") == 10_000
    assert await store.heartbeat(20_250, outage_ms=1500, process="p2") == 10_000
    assert await store.process_beat("p2") == 10_250
    assert await store.process_beat("nobody") is None
    await store.mark_stopped("p2")  # its seats are moved, not lost: no record
    assert await store.process_beat("p2") is None and await store.process_beat("p1") == 10_000
    await store.close()


async def test_each_process_learns_how_many_others_beat_lately(redis_url):
    """What a stopping process's drain asks (server/match/gateway.py): whether a process at
    another address beat within the last 2 s, to move its clients to (the workers of one
    server share its address and stop together: they do not count)."""
    p1, p2, w2 = (Store.from_url(redis_url) for _ in range(3))
    await p1.heartbeat(10_000, outage_ms=1500, process="p1", address="host:8001")
    assert p1.peers == 0  # alone
    await w2.heartbeat(10_100, outage_ms=1500, process="w2", address="host:8002")
    await p2.heartbeat(10_250, outage_ms=1500, process="p2", address="host:8002")
    assert p2.peers == 1  # p1 beat 250 ms ago; w2, a worker beside it, does not count
    await p2.heartbeat(13_000, outage_ms=5000, process="p2", address="host:8002")
    assert p2.peers == 0  # p1 has not beaten for 3 s (and w2 neither)
    await p1.heartbeat(13_100, outage_ms=5000, process="p1", address="host:8001")
    # p2, stopping, takes itself out and learns who else is alive; p1 then sees nobody.
    assert await p2.other_processes(13_200, 2_000) == ["host:8001"]
    assert await p1.other_processes(13_200, 2_000) == []
    await w2.heartbeat(13_250, outage_ms=5000, process="w2", address="host:8002")
    assert w2.peers == 0  # p1 took itself out
    await p1.heartbeat(13_260, outage_ms=5000, process="p1", address="host:8001")
    await w2.heartbeat(13_270, outage_ms=5000, process="w2", address="host:8002")
    assert w2.peers == 1  # p1 is back in the index
    await p1.mark_stopped("p1")  # a graceful stop leaves the index too
    await w2.heartbeat(13_300, outage_ms=5000, process="w2", address="host:8002")
    assert w2.peers == 0
    for store in (p1, p2, w2):
        await store.close()


async def test_a_graceful_stop_credits_even_a_short_restart(redis_url):
    store = Store.from_url(redis_url)
    assert await store.heartbeat(10_000, outage_ms=1000, beat_ms=250) == 0
    await store.mark_stopped()
    # back 600 ms later: under the outage threshold, but the stop was announced
    assert await store.heartbeat(10_600, outage_ms=1000, beat_ms=250) == 350
    # the marker is used once: normal beats credit nothing
    assert await store.heartbeat(10_850, outage_ms=1000, beat_ms=250) == 350
    # another process that kept beating while one stopped: no credit
    await store.mark_stopped()
    assert await store.heartbeat(11_100, outage_ms=1000, beat_ms=250) == 350
    await store.close()
