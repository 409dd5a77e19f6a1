"""``fairgammon bots`` and ``fairgammon analyse``, the two commands of the one worker runner
(server/cli/workers.py), run as real processes: their flags, their refusals, and one worker in
the foreground that joins its queue and leaves it cleanly on SIGTERM. (The supervised form is
what ``fairgammon serve`` starts: tests/server/test_children.py.)"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
from pathlib import Path

import redis.asyncio as aioredis

from bots import queue as bot_queue
from server.work import analysis_queue

ROOT = Path(__file__).resolve().parents[2]


def env_without_redis() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k != "REDIS_URL"}


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "server.cli", *args], capture_output=True,
                          text=True, cwd=ROOT, timeout=60, check=False, env=env_without_redis())


def test_each_worker_command_has_the_shared_flags_around_its_own() -> None:
    usage = {name: " ".join(cli(name, "--help").stdout.split("\n\n")[0].split())
             for name in ("bots", "analyse")}
    assert usage["bots"] == (
        "usage: fairgammon bots [-h] [--workers WORKERS] [--redis-url REDIS_URL] "
        "[--server-url SERVER_URL] [--max-games MAX_GAMES] [--log-level LOG_LEVEL] "
        "[--supervise]")
    assert usage["analyse"] == (
        "usage: fairgammon analyse [-h] [--workers WORKERS] [--redis-url REDIS_URL] "
        "[--log-level LOG_LEVEL] [--supervise]")


def test_worker_commands_refuse_to_run_without_redis_or_workers() -> None:
    for name in ("bots", "analyse"):
        done = cli(name)
        assert (done.returncode, done.stderr) == (
            2, f"fairgammon {name}: no Redis: pass --redis-url or set REDIS_URL\n")
        done = cli(name, "--redis-url", "redis://127.0.0.1:1/0", "--workers", "0")
        assert (done.returncode, done.stderr) == (
            2, f"fairgammon {name}: --workers must be at least 1\n")


async def test_one_worker_runs_in_the_foreground_and_stops_cleanly_on_sigterm(redis_url) -> None:
    redis = aioredis.from_url(redis_url)
    commands = {
        "bots": ["--server-url", "ws://127.0.0.1:1/ws", "--max-games", "3"],
        "analyse": [],
    }
    try:
        for name, own in commands.items():
            child = subprocess.Popen(
                [sys.executable, "-m", "server.cli", name, "--redis-url", redis_url, *own],
                cwd=ROOT, env=env_without_redis(), stderr=subprocess.PIPE)
            try:
                # Joined: the bot worker says it is alive, the analysis worker has made its
                # group (after loading the nets).
                for _ in range(600):
                    if name == "bots" and await redis.zcard(bot_queue.ALIVE):
                        break
                    if name == "analyse" and await redis.exists(analysis_queue.JOBS):
                        break
                    assert child.poll() is None, child.stderr.read()  # type: ignore[union-attr]
                    await asyncio.sleep(0.05)
                else:
                    raise AssertionError(f"{name} never joined its queue")
                child.send_signal(signal.SIGTERM)
                assert await asyncio.to_thread(child.wait, 30) == 0
                assert b"Traceback" not in child.stderr.read()  # type: ignore[union-attr]
            finally:
                if child.poll() is None:
                    child.kill()
                    child.wait()
        assert await redis.zcard(bot_queue.ALIVE) == 0  # the bot worker left the alive set
        groups = await redis.xinfo_groups(analysis_queue.JOBS)
        assert [g["name"] for g in groups] == [b"analysers"]
    finally:
        await redis.aclose()
