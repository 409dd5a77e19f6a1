"""The processes under test: starting a private Redis and server processes, finding the
processes behind a port, and reading their CPU time and memory from ``/proc``."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
TICK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time of ``pid`` so far (0 once it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def rss_bytes(pid: int) -> int:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def children(pid: int) -> list[int]:
    """Direct children of ``pid`` (uvicorn's worker processes)."""
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(c) for c in (task / "children").read_text().split()]
        except OSError:
            continue
    return found


def family(pid: int) -> list[int]:
    """``pid`` and all its descendants."""
    out = [pid]
    for child in children(pid):
        out += family(child)
    return out


def pids_listening(port: int) -> list[int]:
    """Processes holding a listening TCP socket on ``port`` of this machine (an external
    server given by URL), found through the socket's inode in ``/proc``."""
    inodes = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            cols = line.split()
            if cols[3] == "0A" and int(cols[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(cols[9])
    pids = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            links = {os.readlink(fd) for fd in (proc / "fd").iterdir()}
        except OSError:
            continue
        if any(f"socket:[{inode}]" in links for inode in inodes):
            pids.append(int(proc.name))
    return sorted(pids)


@dataclass
class Usage:
    """CPU seconds and RSS of a group of processes at one instant."""

    cpu: float
    rss: int

    @classmethod
    def of(cls, pids: list[int]) -> Usage:
        return cls(sum(cpu_seconds(p) for p in pids), sum(rss_bytes(p) for p in pids))


def healthy(base: str, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{base}/healthz", timeout=1) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"{base} did not become healthy")


def listening(port: int, timeout: float = 30.0) -> None:
    """Wait until something accepts connections on ``port`` of loopback."""
    import socket

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), 0.2).close()
            return
        except OSError:
            time.sleep(0.05)
    raise TimeoutError(f"nothing listens on port {port}")


@dataclass
class Server:
    """A ``fairgammon serve`` process (from this checkout) we started."""

    port: int
    redis_url: str
    log_dir: Path
    workers: int = 1
    env: dict[str, str] = field(default_factory=dict)
    process: subprocess.Popen[bytes] | None = None

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {
            **os.environ,
            "FAIRGAMMON_LOG_LEVEL": "warning",
            # All simulated players come from one address: lift the lobby's per-address limits.
            "FAIRGAMMON_CREATE_BURST": "1000000",
            "FAIRGAMMON_CREATE_PER_MINUTE": "100000000",
            "FAIRGAMMON_OPEN_PER_CREATOR": "1000000",
            **self.env,
        }
        command = [sys.executable, "-m", "server.cli", "serve", "--port", str(self.port),
                   "--redis-url", self.redis_url, "--workers", str(self.workers)]  # fmt: skip
        log = (self.log_dir / f"server-{self.port}.log").open("ab")
        self.process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=log)

    def wait_healthy(self, timeout: float = 30.0) -> None:
        healthy(self.base, timeout)
        if self.workers > 1:  # every worker up, not just the first
            deadline = time.monotonic() + timeout
            while len(self.pids()) < self.workers + 1 and time.monotonic() < deadline:
                time.sleep(0.05)

    def pids(self) -> list[int]:
        return family(self.process.pid) if self.process else []

    def signal(self, sig: int = signal.SIGTERM) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(sig)

    def wait(self, timeout: float = 30.0) -> None:
        if self.process:
            try:
                self.process.wait(timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def stop(self) -> None:
        self.signal(signal.SIGTERM)
        self.wait(20)
