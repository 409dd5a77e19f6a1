"""The server on a real Redis Cluster (three masters of the system's redis-server, AOF with
``appendfsync always``): every script stays in one slot, match channels are sharded, and
matches played across two server processes lose nothing when one process is killed and a
cluster master is restarted under them."""

from __future__ import annotations

import asyncio
import random
import secrets
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import redis.asyncio as aioredis
from redis.crc import key_slot

from harness.redis_cluster import TestCluster
from harness.serverproc import ServerProcess
from harness.srv_support import (
    Recorder,
    assert_log_replays,
    check_barrier,
    check_stream,
    seat_two,
    store_at,
)
from protocol import messages as m
from protocol.client import play_random
from protocol.client.lobby import get
from server.cli import build_parser
from server.match import store as s
from server.ops.redis_link import RedisTarget, masters
from server.ops.settings import Settings, SettingsError
from server.players import chat


@pytest.fixture(scope="module")
def cluster(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TestCluster]:
    started = TestCluster(Path(tmp_path_factory.mktemp("cluster")))
    started.start()
    yield started
    started.stop()


def test_every_script_and_channel_of_a_match_is_one_slot() -> None:
    match_id = secrets.token_hex(16)
    keys = [
        s.state_key(match_id), s.log_key(match_id), s.seats_key(match_id),
        s.presence_key(match_id), s.takeover_key(match_id), s.watchers_key(match_id),
        s.channel(match_id), chat.stream_key(match_id, "players"), chat.counter_key(match_id),
        chat.allowance_key(match_id, "s0"), chat.allowance_key(match_id, "a:2001:db8::/64"),
    ]  # fmt: skip
    assert len({key_slot(k.encode()) for k in keys}) == 1
    clock = [s.HEARTBEAT, s.CLOCK_CREDIT, s.STOPPED]  # the heartbeat script's keys
    assert len({key_slot(k.encode()) for k in clock}) == 1


async def test_scripts_run_on_the_cluster_and_publish_on_the_shard(cluster: TestCluster) -> None:
    """A commit lands on the master of its slot and its events reach a sharded subscriber of
    that master only (SPUBLISH); a plain subscriber hears nothing."""
    target = RedisTarget(url=cluster.url, cluster=True)
    match_id = secrets.token_hex(16)
    owner = cluster.owner(s.channel(match_id))
    other = next(n for n in cluster.nodes if n is not owner)
    sharded = aioredis.Redis(port=owner.port).pubsub()
    plain = aioredis.Redis(port=other.port).pubsub()
    await sharded.ssubscribe(s.channel(match_id))
    await plain.subscribe(s.channel(match_id))
    for pubsub in (sharded, plain):
        assert (await pubsub.get_message(timeout=2))["type"] in ("ssubscribe", "subscribe")
    async with store_at(target) as store:
        assert await store.commit(match_id, -1, b"state", b"summary", [b"e1", b"e2"]) == 2
        assert await store.heartbeat(int(time.time() * 1000), 1000) == 0
        stored = await store.load(match_id)
        assert stored is not None and stored.version == 2
        # The rewind audit's read of many matches at once, across slots.
        others = [secrets.token_hex(16) for _ in range(20)]
        assert await store.versions([match_id, *others]) == [2] + [None] * 20
    got = [await sharded.get_message(timeout=2) for _ in range(2)]
    assert [(m["type"], s.split_published(m["data"])) for m in got] == [
        ("smessage", (1, b"e1")),
        ("smessage", (2, b"e2")),
    ]
    assert await plain.get_message(timeout=0.3) is None
    for pubsub in (sharded, plain):
        await pubsub.aclose()


async def test_chat_lines_go_out_on_the_match_s_shard(cluster: TestCluster) -> None:
    """A chat line is published on the match's sharded channel, as its events are: the other
    seat hears it (a plain PUBLISH would reach no sharded subscriber)."""
    server = ServerProcess(cluster.url, REDIS_CLUSTER="1")
    try:
        await asyncio.to_thread(server.start)
        seated = await seat_two(server.base, mode="single_game")
        ann, bob = await seated.peer(server.ws, 0), await seated.peer(server.ws, 1)
        await ann.send_msg(m.ChatSend("players", "Good luck", None))
        heard = await bob.next(m.Chat)
        assert (heard.n, heard.seat, heard.text) == (1, 0, "Good luck")
        for peer in (ann, bob):
            await peer.close()
    finally:
        server.stop()


async def test_matches_across_two_processes_survive_a_killed_process_and_a_master_restart(
    cluster: TestCluster,
) -> None:
    target = RedisTarget(url=cluster.url, cluster=True)
    env = {"REDIS_CLUSTER": "1"}
    doomed, survivor = ServerProcess(cluster.url, **env), ServerProcess(cluster.url, **env)
    try:
        await asyncio.gather(asyncio.to_thread(doomed.start), asyncio.to_thread(survivor.start))
        await _play_through_failures(cluster, target, doomed, survivor)
    finally:
        doomed.kill()
        survivor.stop()


async def _reached(seats: list, version: int, games: asyncio.Future) -> None:
    """Until every match is at ``version``; a player that fails meanwhile fails the test."""
    waiting = asyncio.gather(*(a.wait_for(lambda t: t.version >= version) for a, _ in seats))
    await asyncio.wait([waiting, games], return_when=asyncio.FIRST_COMPLETED, timeout=30)
    if games.done():
        games.result()  # raises what the player met
    assert waiting.done(), [(a.tracker.version, b.tracker.version, a.owes(), b.owes(),
                             a.welcomes, b.welcomes, a.tracker.clock) for a, b in seats]
    await waiting


async def _play_through_failures(
    cluster: TestCluster, target: RedisTarget, doomed: ServerProcess, survivor: ServerProcess
) -> None:
    tables = [await seat_two(doomed.base, mode="single_game") for _ in range(3)]
    restarted = cluster.owner(s.channel(tables[0].match_id))
    rng = random.Random(47)
    seats, watchers, logs = [], [], []
    for seated in tables:
        log = [Recorder() for _ in range(4)]
        a = seated.client(doomed.ws, 0, on_event=log[0], fallback_urls=[survivor.ws])
        b = seated.client(survivor.ws, 1, on_event=log[1], fallback_urls=[doomed.ws])
        w1 = seated.client(doomed.ws, None, on_event=log[2], fallback_urls=[survivor.ws])
        w2 = seated.client(survivor.ws, None, on_event=log[3], fallback_urls=[doomed.ws])
        seats.append((a, b))
        watchers.append((w1, w2))
        logs.append(log)
    clients = [c for pair in seats + watchers for c in pair]
    await asyncio.gather(*(c.start() for c in clients))
    try:
        games = asyncio.gather(*(
            play_random(c, random.Random(rng.random()), timeout=60) for pair in seats for c in pair
        ))  # fmt: skip
        await _reached(seats, 20, games)
        # The lobby reads one index and the summaries of matches on every shard.
        live = await get(survivor.base, "/api/matches?status=live")
        assert {t.match_id for t in tables} <= {x["id"] for x in live["matches"]}, live
        doomed.kill()  # SIGKILL, mid-match: its clients carry on with the survivor
        await _reached(seats, 35, games)
        restarted.kill()  # a master crashes: its slots stop until it is back
        await asyncio.sleep(0.5)
        # Not in a worker thread: Linux stops redis-server when the thread that started it
        # ends (redis_process asks for that, so a crashed server leaves no Redis behind).
        restarted.start()
        await asyncio.to_thread(cluster.wait_ok)
        results = await asyncio.wait_for(games, 90)
        for pair in watchers:
            for w in pair:
                await w.wait_for(lambda t: t.over is not None)
    finally:
        await asyncio.gather(*(c.close() for c in clients))
    for i, (seated, (a, _), (w1, w2), log) in enumerate(
        zip(tables, seats, watchers, logs, strict=True)
    ):
        assert results[2 * i] == results[2 * i + 1] == w1.tracker.over == w2.tracker.over
        assert a.welcomes >= 2 and w1.welcomes >= 2  # they came back after the kill
        async with store_at(target) as store:
            stored = {v: f[b"e"] for v, f in await store.log_entries(seated.match_id)}
        for recorder in log:
            check_stream(recorder.messages, stored)
            check_barrier(recorder.messages)
        await assert_log_replays(target, seated.match_id)


async def test_a_single_redis_keeps_its_clock_credit_from_before_the_tagged_keys(redis_url):
    """The clock's keys gained the ``{clock}`` tag for the cluster: a Redis written before
    keeps its credit (losing it would move server time on and expire every deadline)."""
    async with store_at(redis_url) as store:
        now = int(time.time() * 1000)
        await store.redis.set("fg:clock:credit", 7000)
        await store.redis.set("fg:clock:alive", now - 100)
        assert await store.heartbeat(now, 1000) == 7000
        assert not await store.redis.exists("fg:clock:credit", "fg:clock:alive")
        assert int(await store.redis.get(s.CLOCK_CREDIT)) == 7000


async def test_masters_reaches_every_master_of_the_cluster(cluster: TestCluster) -> None:
    """For checks that must read each master (such as the durability settings)."""
    clients = await masters(RedisTarget(url=cluster.url, cluster=True))
    try:
        ports = {c.connection_pool.connection_kwargs["port"] for c in clients}
        assert ports == {n.port for n in cluster.nodes}
        for client in clients:
            assert await client.config_get("appendfsync") == {"appendfsync": "always"}
    finally:
        for client in clients:
            await client.aclose()


def test_the_store_is_chosen_by_flag_or_environment() -> None:
    args = build_parser().parse_args(
        ["serve", "--redis-url", "redis://node1:7000/0", "--redis-cluster"]
    )
    assert (args.redis_url, args.redis_cluster) == ("redis://node1:7000/0", True)
    env = {"REDIS_URL": "redis://node1:7000/0", "REDIS_CLUSTER": "1"}
    assert Settings.from_env(env).redis_target() == RedisTarget("redis://node1:7000/0", True)
    sentinel = {"REDIS_SENTINEL": "s1:26379,s2:26380", "REDIS_SENTINEL_MASTER": "fg"}
    assert Settings.from_env(sentinel).redis_target() == RedisTarget(
        sentinels=(("s1", 26379), ("s2", 26380)), sentinel_master="fg"
    )
    assert Settings.from_env({}).redis_target() is None  # serve starts its own Redis
    for bad in (
        {"REDIS_CLUSTER": "1"},  # which node?
        {"REDIS_URL": "redis://x/0", "REDIS_CLUSTER": "maybe"},
        {"REDIS_SENTINEL": "s1:26379"},  # which master?
        {"REDIS_SENTINEL": "s1", "REDIS_SENTINEL_MASTER": "fg"},  # no port
        {**sentinel, "REDIS_URL": "redis://x/0"},  # both
    ):
        with pytest.raises(SettingsError):
            Settings.from_env(bad)
