"""Redis Sentinel: the server finds the primary through Sentinel (``REDIS_SENTINEL``,
``REDIS_SENTINEL_MASTER``) and keeps serving through a failover (``SENTINEL FAILOVER``) in the
middle of a match: play goes on on the promoted replica, every client ends where the store is,
and the log replays."""

from __future__ import annotations

import asyncio
import contextlib
import random
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from harness.failure_kit import health, until
from harness.redis_cluster import command, info_field
from harness.serverproc import ServerProcess
from harness.srv_support import assert_log_replays, seat_two, store_at
from protocol import messages as m
from server.ops.redis_process import RedisProcess, find_redis_server, free_port
from tests.failure.test_fail_failover import play_on

NAME = "fgmain"


class SentinelProcess:
    """One ``redis-server --sentinel`` watching ``NAME`` on ``primary_port`` (quorum 1)."""

    def __init__(self, data_dir: Path, primary_port: int) -> None:
        self.port = free_port()
        self.dir = data_dir
        self.primary_port = primary_port
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self.dir.mkdir(parents=True, exist_ok=True)
        config = self.dir / "sentinel.conf"  # Sentinel rewrites it: its own, writable copy
        config.write_text(
            f"port {self.port}\nbind 127.0.0.1\ndir {self.dir}\n"
            f"sentinel monitor {NAME} 127.0.0.1 {self.primary_port} 1\n"
            f"sentinel down-after-milliseconds {NAME} 1000\n"
            f"sentinel failover-timeout {NAME} 10000\n"
        )
        self.process = subprocess.Popen(
            [find_redis_server(), str(config), "--sentinel", "--logfile", "sentinel.log"],
            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip

    def master_port(self) -> int | None:
        reply = command(self.port, "SENTINEL", "GET-MASTER-ADDR-BY-NAME", NAME)
        parts = reply.split(b"\r\n")
        return int(parts[4]) if len(parts) > 4 and parts[4].isdigit() else None

    def replicas(self) -> int:
        reply = command(self.port, "SENTINEL", "REPLICAS", NAME)
        return int(reply.split(b"\r\n")[0][1:]) if reply.startswith(b"*") else 0

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)


@pytest.fixture
def watched(tmp_path: Path) -> Iterator[tuple[RedisProcess, list[RedisProcess], SentinelProcess]]:
    """A primary, two replicas and a Sentinel. As docs/operations.md advises, a primary cut off
    from its replicas (the old one, after a failover) refuses writes within a second instead
    of accepting moves that the failover then throws away; the second replica lets the new
    primary take writes at once."""
    safe = ("--min-replicas-to-write", "1", "--min-replicas-max-lag", "1")
    primary = RedisProcess(tmp_path / "primary", extra_args=safe)
    primary.start()
    replicas = [
        RedisProcess(
            tmp_path / f"replica{i}",
            extra_args=(*safe, "--replicaof", "127.0.0.1", str(primary.port)),
        )
        for i in range(2)
    ]
    for replica in replicas:
        replica.start()
    sentinel = SentinelProcess(tmp_path / "sentinel", primary.port)
    sentinel.start()
    try:
        yield primary, replicas, sentinel
    finally:
        sentinel.stop()
        for replica in replicas:
            replica.stop()
        primary.stop()


async def test_the_server_keeps_serving_through_a_sentinel_failover(watched) -> None:
    _, replicas, sentinel = watched
    for replica in replicas:
        port = replica.port
        await until(lambda p=port: info_field(p, "replication", "master_link_status") == "up")
    await until(lambda: _quietly(sentinel.replicas) == 2, timeout=20, what="sentinel sees them")
    server = ServerProcess(
        "", REDIS_URL="", REDIS_SENTINEL=f"127.0.0.1:{sentinel.port}", REDIS_SENTINEL_MASTER=NAME
    )
    try:
        await asyncio.to_thread(server.start)
        seated = await seat_two(server.base, mode="single_game")
        a, b = seated.client(server.ws, 0), seated.client(server.ws, 1)
        w = seated.client(server.ws, None)
        rejected: list[m.Reject] = []
        async with a, b, w:
            rng = random.Random(8)
            # Like people, not machines: the game must outlast the failover (a few seconds).
            games = asyncio.gather(
                play_on(a, random.Random(rng.random()), rejected, pause=0.1),
                play_on(b, random.Random(rng.random()), rejected, pause=0.1),
            )
            await a.wait_for(lambda t: t.version >= 15)
            reply = command(sentinel.port, "SENTINEL", "FAILOVER", NAME)
            assert reply.startswith(b"+OK"), reply
            await until(lambda: sentinel.master_port() in [r.port for r in replicas], timeout=20)
            replica = next(r for r in replicas if r.port == sentinel.master_port())
            at_failover = a.tracker.version
            # Play goes on, on the new primary, well past where it was at the switch.
            await a.wait_for(lambda t: t.version >= at_failover + 20 or t.over is not None, 60)
            games.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await games
            async with store_at(replica.url) as store:

                async def settled() -> bool:
                    stored = await store.version(seated.match_id)
                    return stored == a.tracker.version == b.tracker.version == w.tracker.version

                for _ in range(100):  # the last decisions' events still on their way
                    if await settled():
                        break
                    await asyncio.sleep(0.05)
                assert await settled(), (a.tracker.version, b.tracker.version, w.tracker.version)
        assert a.tracker.version >= at_failover + 20 or a.tracker.over is not None
        assert info_field(replica.port, "replication", "role") == "master"
        await assert_log_replays(replica.url, seated.match_id)
        status, body = await health(server.base)
        assert status == 200, body
    finally:
        server.stop()


def _quietly(probe):  # Sentinel takes a moment to listen
    try:
        return probe()
    except OSError:
        return None
