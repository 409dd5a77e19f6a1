"""Fan-out across processes: two hubs on one Redis, followers see every event once, in order."""

import asyncio

from server.match.hub import Follower, Hub
from server.match.store import Store


class ListSink:
    def __init__(self):
        self.frames = []

    def send(self, frame):
        self.frames.append(frame)
        return True

    async def room(self, frames):
        return True


async def wait_for(predicate, timeout=5.0):
    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while not predicate():
        assert loop.time() < end, "timed out"
        await asyncio.sleep(0.01)


async def test_events_reach_followers_on_both_hubs_in_order(redis_url):
    store = Store.from_url(redis_url)
    hubs = [Hub(store, redis_url), Hub(store, redis_url)]
    for hub in hubs:
        hub.start()
    m = "f" * 32
    sinks = [ListSink(), ListSink()]
    for hub, sink in zip(hubs, sinks, strict=True):
        await hub.follow(m, Follower(store, m, sink, next_version=1))  # subscribed on return
    v = await store.commit(m, -1, b"s", b"m", [b"e1", b"e2"])
    hubs[0].publish_local(m, 1, b"e1")  # the writer's fast path duplicates the channel copy
    hubs[0].publish_local(m, 2, b"e2")
    for i in range(3, 21):
        v = await store.commit(m, v, b"s", b"m", [f"e{i}".encode()])
    await wait_for(lambda: all(len(s.frames) >= 20 for s in sinks))
    # The barrier: one more event, published after every copy of the first 20 (the channel
    # keeps their order), so a duplicate of any of them would have arrived before it.
    await store.commit(m, v, b"s", b"m", [b"e21"])
    expected = [f"e{i}".encode() for i in range(1, 22)]
    await wait_for(lambda: all(s.frames[-1:] == [b"e21"] for s in sinks))
    assert sinks[0].frames == expected
    assert sinks[1].frames == expected
    for hub in hubs:
        await hub.stop()
    await store.close()


async def test_follower_fills_a_gap_from_the_log(redis_url):
    store = Store.from_url(redis_url)
    m = "9" * 32
    await store.commit(m, -1, b"s", b"m", [b"e1", b"e2", b"e3", b"e4"])
    sink = ListSink()
    follower = Follower(store, m, sink, next_version=2)
    follower.deliver(4, b"e4")  # 2 and 3 never arrived on this path
    follower.deliver(1, b"e1")  # older than wanted: ignored
    await wait_for(lambda: len(sink.frames) == 3)
    assert sink.frames == [b"e2", b"e3", b"e4"]
    follower.deliver(4, b"e4")
    # The barrier: the next event, after the copy that must be dropped.
    await store.commit(m, 4, b"s", b"m", [b"e5"])
    follower.deliver(5, b"e5")
    await wait_for(lambda: sink.frames[-1:] == [b"e5"])
    assert sink.frames == [b"e2", b"e3", b"e4", b"e5"]
    await store.close()


async def test_a_paused_follower_holds_events_until_started(redis_url):
    store = Store.from_url(redis_url)
    m = "8" * 32
    await store.commit(m, -1, b"s", b"m", [b"e1", b"e2", b"e3"])
    sink = ListSink()
    follower = Follower(store, m, sink)  # paused: the gateway has not sent its welcome yet
    follower.deliver(3, b"e3")
    # The control in the same window: a started follower given the same event fetches the
    # one before it from the log and sends both; the paused one sends nothing meanwhile.
    control = ListSink()
    Follower(store, m, control, next_version=2).deliver(3, b"e3")
    await wait_for(lambda: len(control.frames) == 2)
    assert control.frames == [b"e2", b"e3"]
    assert sink.frames == []
    sink.frames.append(b"welcome")
    follower.start(2, known_version=3)  # resume after version 1: 2 comes from the log
    await wait_for(lambda: len(sink.frames) == 3)
    assert sink.frames == [b"welcome", b"e2", b"e3"]
    await store.close()


async def test_a_catch_up_the_store_failed_is_tried_again_until_it_answers(tmp_path):
    """A follower that must fill a gap while Redis is away (a failover, a cluster master
    restarting) fetches it once Redis is back, although no further event comes to prompt it:
    the event its connection waits for may be the match's last for a while."""
    from server.ops.redis_process import RedisProcess

    redis = RedisProcess(tmp_path / "redis")
    redis.start()
    store = Store.from_url(redis.url)
    failures = []
    fetch = store.events_after

    async def counted(*args):
        try:
            return await fetch(*args)
        except Exception as exc:
            failures.append(exc)
            raise

    store.events_after = counted
    try:
        m = "7" * 32
        await store.commit(m, -1, b"s", b"m", [b"e1", b"e2", b"e3", b"e4"])
        redis.kill()  # (the AOF is written at every command: the log survives)
        sink = ListSink()
        follower = Follower(store, m, sink, next_version=2)
        follower.deliver(4, b"e4")  # 2 and 3 must come from the log, which is away
        await wait_for(lambda: failures)
        assert sink.frames == []
        redis.start()
        await wait_for(lambda: len(sink.frames) == 3, timeout=10)
        assert sink.frames == [b"e2", b"e3", b"e4"]
    finally:
        await store.close()
        redis.kill()
