"""The bare pub/sub connection (server/ops/lean_pubsub.py): its parser against any split of
the bytes, and the connection against a real redis-server — messages with any bytes in them,
the confirmations, a password, the health check, and a Redis that stops answering."""

from __future__ import annotations

import asyncio
import os
import signal

import pytest
import redis.asyncio as aioredis
from hypothesis import given, settings
from hypothesis import strategies as st
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import ResponseError

from server.ops.lean_pubsub import LeanPubSub, lean_pubsub
from server.ops.redis_process import RedisProcess
from server.ops.resp import Parser


def bulk(data: bytes) -> bytes:
    return b"$%d\r\n%s\r\n" % (len(data), data)


def array(*items: bytes) -> bytes:
    return b"*%d\r\n" % len(items) + b"".join(items)


payloads = st.binary(max_size=300)
replies = st.one_of(
    payloads.map(lambda d: ([b"message", b"ch", d], array(bulk(b"message"), bulk(b"ch"), bulk(d)))),
    st.integers(0, 9).map(
        lambda n: (
            [b"subscribe", b"c%d" % n, n],
            array(bulk(b"subscribe"), bulk(b"c%d" % n), b":%d\r\n" % n),
        )
    ),
    st.just(([b"pong", b""], array(bulk(b"pong"), bulk(b"")))),
    st.just((b"PONG", b"+PONG\r\n")),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(replies, max_size=12), st.lists(st.integers(1, 40), max_size=30))
def test_the_parser_gives_the_same_replies_whatever_pieces_the_bytes_come_in(stream, cuts):
    wire = b"".join(raw for _, raw in stream)
    parser, got, pos = Parser(), [], 0
    for cut in cuts:
        parser.feed(wire[pos : pos + cut])
        pos += cut
        got += parser.take()
    parser.feed(wire[pos:])
    got += parser.take()
    assert got == [value for value, _ in stream]
    parser.feed(b"")
    assert parser.take() == []  # nothing left over


def test_an_error_is_a_reply_and_garbage_is_refused():
    parser = Parser()
    parser.feed(b"-ERR unknown command\r\n")
    (error,) = parser.take()
    assert isinstance(error, ResponseError) and "unknown command" in str(error)
    parser.feed(b"?what\r\n")
    with pytest.raises(RedisConnectionError):
        parser.take()


def test_only_a_plain_redis_url_gets_the_bare_connection():
    timeouts = {"socket_connect_timeout": 2, "socket_timeout": 5, "health_check_interval": 10}
    assert isinstance(lean_pubsub("redis://127.0.0.1:6390/0", **timeouts), LeanPubSub)
    assert lean_pubsub("rediss://127.0.0.1:6390/0", **timeouts) is None
    assert lean_pubsub("unix:///tmp/redis.sock", **timeouts) is None


async def next_message(pubsub: LeanPubSub, kind: str, timeout: float = 5.0) -> dict:
    async with asyncio.timeout(timeout):
        while True:
            message = await pubsub.get_message(timeout=1.0)
            if message is not None and message["type"] == kind:
                return message


async def test_messages_reach_a_subscriber_as_published(redis_url):
    pubsub = lean_pubsub(redis_url, 2, 5, 10)
    assert pubsub is not None
    publisher = aioredis.Redis.from_url(redis_url)
    try:
        await pubsub.ping()
        await pubsub.subscribe("fg:a", "fg:b")
        assert (await next_message(pubsub, "subscribe"))["channel"] == b"fg:a"
        assert (await next_message(pubsub, "subscribe"))["channel"] == b"fg:b"
        sent = [bytes([i % 256]) * i + b"\r\n*3\r\n" for i in range(0, 3000, 7)]
        async with publisher.pipeline(transaction=False) as pipe:
            for i, data in enumerate(sent):
                pipe.publish("fg:a" if i % 2 else "fg:b", data)
            await pipe.execute()
        got = [await next_message(pubsub, "message") for _ in sent]
        assert [m["data"] for m in got] == sent
        assert [m["channel"] for m in got] == [
            b"fg:a" if i % 2 else b"fg:b" for i in range(len(sent))
        ]
        await pubsub.unsubscribe("fg:a")
        assert (await next_message(pubsub, "unsubscribe"))["channel"] == b"fg:a"
        await publisher.publish("fg:a", b"not heard")
        await publisher.publish("fg:b", b"heard")
        assert (await next_message(pubsub, "message"))["data"] == b"heard"
    finally:
        await pubsub.aclose()
        await publisher.aclose()


async def test_messages_are_pushed_as_read_when_asked_and_a_failing_taker_stops_nothing(
    redis_url,
):
    # With on_message set, each message is handed on as it is parsed, in order, and never comes
    # out of get_message; the confirmations still do. A taker that raises costs its message
    # only: the connection reads on.
    pubsub = lean_pubsub(redis_url, 2, 5, 10)
    assert pubsub is not None
    publisher = aioredis.Redis.from_url(redis_url)
    pushed: list[tuple[bytes, bytes]] = []
    arrived = asyncio.Event()

    def take(channel: bytes, data: bytes) -> None:
        if data == b"poison":
            raise ValueError("a taker's own fault")
        pushed.append((channel, data))
        if data == b"last":
            arrived.set()

    pubsub.on_message = take
    try:
        await pubsub.ping()
        await pubsub.subscribe("fg:a", "fg:b")
        assert (await next_message(pubsub, "subscribe"))["channel"] == b"fg:a"
        assert (await next_message(pubsub, "subscribe"))["channel"] == b"fg:b"
        sent = [b"%d\r\n*3\r\n" % i * (i % 50) for i in range(400)] + [b"poison", b"last"]
        async with publisher.pipeline(transaction=False) as pipe:
            for i, data in enumerate(sent):
                pipe.publish("fg:a" if i % 2 else "fg:b", data)
            await pipe.execute()
        await asyncio.wait_for(arrived.wait(), 5)
        expected = [(b"fg:a" if i % 2 else b"fg:b", d) for i, d in enumerate(sent)]
        assert pushed == [e for e in expected if e[1] != b"poison"]
        assert await pubsub.get_message(timeout=0.05) is None  # none left for get_message
        await pubsub.unsubscribe("fg:a")
        assert (await next_message(pubsub, "unsubscribe"))["channel"] == b"fg:a"
    finally:
        await pubsub.aclose()
        await publisher.aclose()


async def test_a_password_is_sent_and_a_wrong_one_refused(redis_url):
    admin = aioredis.Redis.from_url(redis_url)
    await admin.execute_command("ACL", "SETUSER", "lean", "on", ">s3cret", "&*", "+@all")
    base = redis_url.split("//", 1)[1]
    try:
        pubsub = lean_pubsub(f"redis://lean:s3cret@{base}", 2, 5, 10)
        assert pubsub is not None
        await pubsub.subscribe("fg:x")
        assert (await next_message(pubsub, "subscribe"))["channel"] == b"fg:x"
        await pubsub.aclose()
        wrong = lean_pubsub(f"redis://lean:nope@{base}", 2, 5, 10)
        assert wrong is not None
        with pytest.raises(ResponseError):
            await wrong.subscribe("fg:x")
        await wrong.aclose()
    finally:
        await admin.execute_command("ACL", "DELUSER", "lean")
        await admin.aclose()


async def test_a_quiet_connection_is_checked_and_a_frozen_redis_is_noticed(tmp_path):
    server = RedisProcess(tmp_path / "redis")
    server.start()
    assert server.process is not None
    pubsub = LeanPubSub("127.0.0.1", server.port, None, None, 2, 1.0, 0.3)
    try:
        await pubsub.subscribe("fg:q")
        await next_message(pubsub, "subscribe")
        # Quiet, but alive: the health check's pongs keep it so for longer than the timeout
        # (the positive control for what follows).
        heard = pubsub._heard
        for _ in range(5):
            assert await pubsub.get_message(timeout=0.3) is None
        assert pubsub._heard > heard  # a pong came back
        os.kill(server.process.pid, signal.SIGSTOP)
        try:
            with pytest.raises(RedisConnectionError, match="silent"):
                async with asyncio.timeout(10):
                    while True:
                        await pubsub.get_message(timeout=0.3)
        finally:
            os.kill(server.process.pid, signal.SIGCONT)
    finally:
        await pubsub.aclose()
        server.stop()
