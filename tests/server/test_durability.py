"""The server checks Redis's persistence settings (server/ops/durability.py) against real
redis-servers configured each way: it refuses to start when acknowledged writes could be lost
on a machine crash, runs loudly degraded when told to, reports a change made at runtime on
/healthz, and the embedded Redis of ``fairgammon serve`` (``make serve``) passes."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import redis.asyncio as aioredis

from harness.serverproc import ROOT, ServerProcess, wait_healthy
from server.ops.redis_process import RedisProcess, free_port


def health(base: str) -> tuple[int, dict]:
    import json

    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=5) as r:
            return r.status, json.loads(r.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


@contextmanager
def redis_server(tmp_path, appendfsync: str = "always", *extra: str) -> Iterator[RedisProcess]:
    proc = RedisProcess(tmp_path / f"redis-{appendfsync}", appendfsync=appendfsync,
                        extra_args=extra)  # fmt: skip
    proc.start()
    try:
        yield proc
    finally:
        proc.stop()


@pytest.mark.parametrize(
    ("appendfsync", "extra", "problem"),
    [
        ("everysec", (), "appendfsync is everysec"),
        ("no", (), "appendfsync is no"),
        ("always", ("--appendonly", "no"), "appendonly is no"),
    ],
    ids=["everysec", "fsync-no", "no-aof"],
)
def test_an_unsafe_redis_stops_the_server_at_start(tmp_path, appendfsync, extra, problem):
    with redis_server(tmp_path, appendfsync, *extra) as redis:
        proc = ServerProcess(redis.url)
        with pytest.raises(RuntimeError, match="exited"):
            proc.start()
        log = proc.log_path.read_text()
        assert "refusing to start" in log and problem in log
        assert "FAIRGAMMON_DURABILITY=degraded" in log


def test_degraded_runs_and_says_so(tmp_path):
    with redis_server(tmp_path, "everysec") as redis:
        proc = ServerProcess(redis.url, FAIRGAMMON_DURABILITY="degraded")
        proc.start()
        try:
            status, body = health(proc.base)
            assert status == 200 and body["ok"] is True
            assert body["durability"] == "degraded"
            assert body["persistence"] == {
                "appendonly": "yes", "appendfsync": "everysec", "safe": False
            }  # fmt: skip
        finally:
            proc.stop()
        assert "redis can lose acknowledged writes" in proc.log_path.read_text()


async def test_a_change_at_runtime_shows_on_healthz(tmp_path):
    with redis_server(tmp_path) as redis:
        proc = ServerProcess(redis.url)
        proc.start()
        r = aioredis.from_url(redis.url)
        try:
            status, body = await asyncio.to_thread(health, proc.base)
            assert (status, body["durability"]) == (200, "ok")
            assert body["persistence"]["safe"] is True
            await r.config_set("appendfsync", "everysec")
            status, body = await asyncio.to_thread(health, proc.base)
            assert (status, body["ok"], body["durability"]) == (503, False, "unsafe")
            await r.config_set("appendfsync", "always")
            status, body = await asyncio.to_thread(health, proc.base)
            assert (status, body["durability"]) == (200, "ok")
        finally:
            await r.aclose()
            proc.stop()


def test_the_embedded_redis_of_fairgammon_serve_passes(tmp_path):
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    env["FAIRGAMMON_LOG_LEVEL"] = "warning"
    log_path = tmp_path / "serve.log"
    command = [sys.executable, "-m", "server.cli", "serve", "--port", str(port),
               "--data-dir", str(tmp_path / "var")]  # fmt: skip
    with log_path.open("ab") as log:
        process = subprocess.Popen(
            command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT
        )
    base = f"http://127.0.0.1:{port}"
    try:
        wait_healthy(process, base, 30, lambda: log_path.read_text()[-2000:])
        status, body = health(base)
        assert (status, body["durability"]) == (200, "ok")
        assert body["persistence"] == {"appendonly": "yes", "appendfsync": "always", "safe": True}
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(20)


async def test_read_without_config_falls_back_to_info_and_an_unreachable_redis_raises(tmp_path):
    from redis.exceptions import ConnectionError as RedisConnectionError

    from server.ops.durability import read

    # A managed Redis that disables CONFIG: INFO still tells the AOF is on, the fsync policy is
    # unknown, and that counts as unsafe.
    with redis_server(tmp_path, "always", "--rename-command", "CONFIG", '""') as redis:
        r = aioredis.from_url(redis.url)
        try:
            found = await read(r)
        finally:
            await r.aclose()
    assert (found.appendonly, found.appendfsync, found.safe) == ("yes", None, False)
    assert "cannot be read" in (found.problem or "")
    dead = aioredis.from_url(f"redis://127.0.0.1:{free_port()}")
    try:
        with pytest.raises(RedisConnectionError):
            await read(dead)
    finally:
        await dead.aclose()
