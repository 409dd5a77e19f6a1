"""Real server processes for integration tests: ``python -m server.cli serve`` under uvicorn,
on a free port, talking to a test Redis. They can be stopped, killed and restarted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

from server.ops.redis_process import free_port

ROOT = Path(__file__).resolve().parent.parent


def wait_healthy(
    process: subprocess.Popen[bytes], base: str, timeout: float, log: Callable[[], str]
) -> None:
    """Wait until ``base``/healthz answers 200; fail with ``log()`` if ``process`` exits."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"{process.args[0]} exited: {log()}")
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"{base} did not become healthy: {log()}")


class ServerProcess:
    def __init__(self, redis_url: str, port: int | None = None, **env: str) -> None:
        self.redis_url = redis_url
        self.port = port or free_port()
        self.env = env
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path: Path | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    def start(self, timeout: float = 20.0) -> None:
        env = {
            **os.environ,
            "REDIS_URL": self.redis_url,
            "FAIRGAMMON_LOG_LEVEL": "warning",
            # Bots play at machine speed: far faster than the per-connection limit for people.
            "FAIRGAMMON_RATE_BURST": "500",
            "FAIRGAMMON_RATE_PER_SECOND": "500",
            # Every test client comes from 127.0.0.1: lift the lobby's per-address limits
            # (tests/server/test_lobby_limits.py sets its own).
            "FAIRGAMMON_CREATE_BURST": "100000",
            "FAIRGAMMON_CREATE_PER_MINUTE": "1000000",
            "FAIRGAMMON_OPEN_PER_CREATOR": "100000",
            # No bot worker unless a test asks for one (FAIRGAMMON_BOTS=1): it would only cost.
            "FAIRGAMMON_BOTS": "0",
            # Nor an analysis worker (FAIRGAMMON_ANALYSERS=1 to have one).
            "FAIRGAMMON_ANALYSERS": "0",
            # And one that does, only 1-ply (FAIRGAMMON_ANALYSIS_DEEP=1 for the deeper pass).
            "FAIRGAMMON_ANALYSIS_DEEP": "0",
            # The rules against rating farming off (server/players/farming.py): most tests end
            # rated matches by leaving at once, or play one pair many times, to test other
            # things; tests/server/test_farming.py runs the production defaults.
            "FAIRGAMMON_RATED_MIN_PLAYS": "0",
            "FAIRGAMMON_RATED_PAIR_DAILY": "0",
        }
        env.update(self.env)
        log_dir = Path(os.environ.get("FAIRGAMMON_TEST_LOGS", "/tmp"))
        self.log_path = log_dir / f"fairgammon-test-server-{self.port}.log"
        # The child keeps its own copy of the descriptor; ours is closed at once.
        with self.log_path.open("ab") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "server.cli", "serve", "--port", str(self.port)],
                cwd=ROOT,
                env=env,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        log_path = self.log_path
        wait_healthy(self.process, self.base, timeout, lambda: log_path.read_text()[-2000:])

    def stop(self, timeout: float = 15.0) -> None:
        """SIGTERM: a graceful shutdown."""
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.kill()

    def kill(self) -> None:
        """SIGKILL: a crash."""
        if self.process and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None
