"""A SIGKILLed server leaves nothing running: its bot and analysis workers (and their
supervisors' workers) die with it; a supervisor restarts a worker that exits and ends its
workers when it stops (server/ops/children.py)."""

from __future__ import annotations

import logging
import os
import secrets
import signal
import sys
import threading
import time
from pathlib import Path

from harness.serverproc import ServerProcess
from server.ops.children import supervise


def descendants(pid: int) -> set[int]:
    """Every living process below ``pid`` (read from /proc)."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        ppid = int(stat.rsplit(")", 1)[1].split()[1])
        children.setdefault(ppid, []).append(int(entry.name))
    found: set[int] = set()
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def server_with_workers(redis_process) -> tuple[ServerProcess, list[int]]:
    """A server with two bot workers and an analysis worker, all started; their pids."""
    if not redis_process.alive():
        redis_process.start()
    proc = ServerProcess(redis_process.url, FAIRGAMMON_BOTS="2", FAIRGAMMON_ANALYSERS="1")
    proc.start()
    assert proc.process is not None
    # serve -> bots supervisor -> 2 workers, and the analysis worker.
    deadline = time.monotonic() + 20
    while len(below := descendants(proc.process.pid)) < 4 and time.monotonic() < deadline:
        time.sleep(0.1)
    if len(below) < 4:
        proc.kill()
        raise AssertionError(f"workers not started: {below}")
    return proc, below


def test_workers_die_with_a_killed_server(redis_process):
    proc, below = server_with_workers(redis_process)
    try:
        proc.kill()
        deadline = time.monotonic() + 20
        while any(alive(p) for p in below) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not [p for p in below if alive(p)], [
            (p, Path(f"/proc/{p}/cmdline").read_bytes().replace(b"\0", b" ")) for p in below
            if alive(p)
        ]
    finally:
        proc.kill()


def test_a_stopped_server_ends_its_workers_and_exits_cleanly(redis_process):
    proc, below = server_with_workers(redis_process)
    try:
        assert proc.process is not None
        proc.process.send_signal(signal.SIGTERM)
        assert proc.process.wait(15) == 0  # not killed, no error on the way out
        assert not [p for p in below if alive(p)]
    finally:
        proc.kill()


def test_supervisor_restarts_an_exited_worker_and_ends_all_when_stopped():
    marker = f"fg-supervise-test-{secrets.token_hex(4)}"
    command = [sys.executable, "-c", "import time; time.sleep(120)", marker]

    def workers() -> set[int]:
        found = set()
        for pid in descendants(os.getpid()):
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if marker.encode() in cmdline and alive(pid):
                found.add(pid)
        return found

    def wait_for(predicate) -> set[int]:  # type: ignore[no-untyped-def]
        deadline = time.monotonic() + 20
        while not predicate(found := workers()) and time.monotonic() < deadline:
            time.sleep(0.05)
        return found

    stop = threading.Event()
    thread = threading.Thread(
        target=supervise, args=(command, 2, logging.getLogger("test"), "test worker", stop),
        kwargs={"every": 0.1}, daemon=True,
    )
    thread.start()
    try:
        first = wait_for(lambda found: len(found) == 2)
        assert len(first) == 2, first
        victim = min(first)
        os.kill(victim, signal.SIGKILL)
        second = wait_for(lambda found: len(found) == 2 and victim not in found)
        assert len(second) == 2 and victim not in second, (victim, second)
        assert first - {victim} <= second  # the other worker was left alone
    finally:
        stop.set()
        thread.join(30)
    assert not thread.is_alive()
    assert not workers()
