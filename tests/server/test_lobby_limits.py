"""The lobby under abuse (server/web/limits.py), against a real server and Redis: creation
rate and open matches capped per client address (the forwarded one only from a trusted proxy),
unjoined matches expiring on the server clock (moved by the test, not waited for), and a flood
that leaves a real open match findable and joinable."""

from __future__ import annotations

import asyncio
import json
import re

import pytest
import redis.asyncio as aioredis

from harness.proxy_process import ProxyProcess
from harness.serverproc import ServerProcess
from harness.srv_support import move_clock, server_fixture
from protocol.client import MatchClient
from protocol.client.lobby import get, get_text
from server.ops.redis_process import RedisProcess

LIFETIME = 900
LIMITS = {
    "FAIRGAMMON_CREATE_BURST": "5",
    "FAIRGAMMON_CREATE_PER_MINUTE": "10",
    "FAIRGAMMON_OPEN_PER_CREATOR": "3",
    "FAIRGAMMON_OPEN_MATCH_SECONDS": str(LIFETIME),
}


@pytest.fixture(scope="module")
def redis_process(tmp_path_factory):
    """This module's own Redis: the limits are kept per address in Redis, and every other
    module's clients come from 127.0.0.1 too."""
    proc = RedisProcess(tmp_path_factory.mktemp("redis-limits"))
    proc.start()
    yield proc
    proc.stop()


# The test client plays the documented proxy: it is on 127.0.0.1 and says who the client is.
server = server_fixture(FAIRGAMMON_TRUSTED_PROXIES="127.0.0.1", **LIMITS)


async def forget_limits(redis_url: str, address: str) -> None:
    r = aioredis.from_url(redis_url)
    await r.delete(f"fg:lim:create:{address}", f"fg:lim:open:{address}")
    await r.aclose()


async def call(
    port: int, method: str, path: str, body: dict | None = None, client: str | None = None
) -> tuple[int, dict[str, str], dict]:
    """One HTTP/1.1 request (``client``: the X-Forwarded-For a proxy would add)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    data = json.dumps(body).encode() if body is not None else b""
    head = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{port}", "Connection: close",
            "Content-Type: application/json", f"Content-Length: {len(data)}"]  # fmt: skip
    if client:
        head.append(f"X-Forwarded-For: {client}")
    writer.write(("\r\n".join(head) + "\r\n\r\n").encode() + data)
    raw = await reader.read()
    writer.close()
    header, _, payload = raw.partition(b"\r\n\r\n")
    lines = header.decode().split("\r\n")
    headers = {k.lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])}
    return int(lines[0].split()[1]), headers, json.loads(payload or b"{}")


async def create(port: int, client: str, **body) -> tuple[int, dict[str, str], dict]:
    return await call(port, "POST", "/api/matches", {"name": "Ann", **body}, client)


async def join(port: int, match_id: str, client: str) -> tuple[int, dict[str, str], dict]:
    return await call(port, "POST", f"/api/matches/{match_id}/join", {"name": "Bob"}, client)


async def open_ids(server) -> list[str]:
    return [m["id"] for m in (await get(server.base, "/api/matches?status=open"))["matches"]]


def refused(answer: tuple[int, dict[str, str], dict], code: str) -> int:
    """Check a typed 429 and return its Retry-After (seconds)."""
    status, headers, body = answer
    assert (status, body.get("error")) == (429, code), answer
    assert int(headers["retry-after"]) == body["retry_after"] >= 1
    return body["retry_after"]


async def test_a_flood_from_one_address_leaves_a_real_match_findable_and_joinable(server):
    spam = "198.51.100.66"
    answers: list[tuple[int, dict[str, str], dict]] = []
    for _ in range(6):  # 300 creations as fast as the server takes them, 50 at a time
        answers += await asyncio.gather(*(create(server.port, spam) for _ in range(50)))
    made = [a for a in answers if a[0] == 201]
    assert len(made) == 3  # the open-match cap (the burst of 5 would allow more)
    for answer in answers:
        if answer[0] != 201:
            refused(answer, answer[2]["error"])
            assert answer[2]["error"] in ("rate_limited", "too_many_open")
    real = await create(server.port, "203.0.113.7", mode="match", length=5)
    assert real[0] == 201
    listed = await open_ids(server)
    assert real[2]["match"] in listed
    assert len([m for m in listed if m in {a[2]["match"] for a in made}]) == 3
    status, _, joined = await join(server.port, real[2]["match"], "203.0.113.8")
    assert status == 200 and joined["seat"] == 1
    # The operator sees the flood.
    text = await get_text(server.base, "/metrics")
    pattern = r'^fairgammon_rejections_total\{code="(?:rate_limited|too_many_open)"\} (\S+)$'
    refusals = sum(float(v) for v in re.findall(pattern, text, re.M))
    assert refusals >= 297


async def test_open_matches_per_address_free_up_when_joined_and_the_rate_refills(
    server, redis_process
):
    creator = "192.0.2.10"
    ids = []
    for _ in range(3):
        status, _, body = await create(server.port, creator)
        assert status == 201
        ids.append(body["match"])
    wait = refused(await create(server.port, creator), "too_many_open")
    assert LIFETIME - 5 <= wait <= LIFETIME  # when the oldest one expires
    # Another address is not affected; IPv6 addresses count per /64.
    assert (await create(server.port, "192.0.2.11"))[0] == 201
    assert (await create(server.port, "2001:db8:0:1::1"))[0] == 201
    assert (await create(server.port, "2001:db8:0:1::2"))[0] == 201
    assert (await create(server.port, "2001:db8:0:1:ffff::3"))[0] == 201
    refused(await create(server.port, "2001:db8:0:1::4"), "too_many_open")
    # Joined matches no longer count: one more creation (the fifth attempt: the burst) ...
    for match_id in ids[:2]:
        assert (await join(server.port, match_id, "192.0.2.99"))[0] == 200
    assert (await create(server.port, creator))[0] == 201
    # ... then the rate (every attempt counts): one more every 6 s (10 a minute).
    wait = refused(await create(server.port, creator), "rate_limited")
    assert 1 <= wait <= 6
    await move_clock(server, redis_process.url, wait)
    assert (await create(server.port, creator))[0] == 201


async def test_an_unjoined_open_match_expires(server, redis_process):
    creator = "192.0.2.20"
    status, _, created = await create(server.port, creator)
    assert status == 201
    kept = await create(server.port, "192.0.2.21")  # joined before the time is up: kept
    assert (await join(server.port, kept[2]["match"], "192.0.2.22"))[0] == 200
    seat = MatchClient(server.ws, created["match"], created["token"])
    async with seat:
        await seat.wait_for(lambda t: t.version >= 2)
        await move_clock(server, redis_process.url, LIFETIME - 30)
        assert created["match"] in await open_ids(server)  # not yet
        await move_clock(server, redis_process.url, 31)
        await seat.wait_for(lambda t: t.over is not None, timeout=10)
        assert seat.tracker.over.reason == "cancelled" and seat.tracker.over.winner is None
    assert created["match"] not in await open_ids(server)
    status, _, answer = await join(server.port, created["match"], "192.0.2.23")
    assert status == 409 and answer["error"] == "match_over"
    # The joined one was left to its own clocks: nobody committed for 15 minutes, so it ended
    # abandoned (the match clock), not cancelled (the lobby's expiry).
    watcher = MatchClient(server.ws, kept[2]["match"])
    async with watcher:
        await watcher.wait_for(lambda t: t.over is not None)
        assert watcher.tracker.over.reason == "abandoned"


@pytest.fixture
def untrusting(redis_process):
    """A server with no trusted proxy: X-Forwarded-For means nothing."""
    proc = ServerProcess(redis_process.url, **LIMITS)
    proc.start()
    yield proc
    proc.stop()


async def test_a_forged_forwarded_address_is_ignored_without_a_trusted_proxy(
    untrusting, redis_process
):
    await forget_limits(redis_process.url, "127.0.0.1")
    answers = [await create(untrusting.port, f"203.0.113.{100 + i}") for i in range(4)]
    assert [a[0] for a in answers[:3]] == [201, 201, 201]
    refused(answers[3], "too_many_open")  # all four came from 127.0.0.1


async def test_behind_the_documented_proxy_the_client_cannot_choose_its_address(
    server, redis_process, tmp_path
):
    await forget_limits(redis_process.url, "127.0.0.1")
    proxy = ProxyProcess(tmp_path / "nginx", [server.port])
    await asyncio.to_thread(proxy.start)
    try:
        # deploy/nginx.conf replaces whatever X-Forwarded-For the client sent by its peer.
        answers = [await create(proxy.port, f"203.0.113.{100 + i}") for i in range(4)]
    finally:
        proxy.stop()
    assert [a[0] for a in answers[:3]] == [201, 201, 201]
    refused(answers[3], "too_many_open")
