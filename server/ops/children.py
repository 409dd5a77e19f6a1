"""Child processes that never outlive their parent: the private Redis of ``fairgammon serve``,
its bot and analysis workers, and the workers of their supervisors (:func:`supervise`). Linux is
asked to SIGTERM a child when the process that started it dies, however it dies (a SIGKILLed
server leaves nothing running)."""

from __future__ import annotations

import contextlib
import ctypes
import logging
import signal
import subprocess
import threading
from typing import Any

PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """In the child before exec: SIGTERM me when my parent dies (no-op where prctl is
    missing)."""
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)


def spawn(command: list[str], **kwargs: Any) -> subprocess.Popen:  # type: ignore[type-arg]
    """``subprocess.Popen(command)`` for a child that dies with this process."""
    return subprocess.Popen(command, preexec_fn=die_with_parent, **kwargs)  # noqa: PLW1509 (only prctl)


def supervise(command: list[str], count: int, log: logging.Logger, what: str,
              stop: threading.Event | None = None, every: float = 0.5) -> None:
    """Run ``count`` copies of ``command``, each restarted when it exits, until ``stop`` is set
    or this process is told to exit (SystemExit, KeyboardInterrupt); then end them all (SIGTERM,
    SIGKILL after 10 s). ``what`` names one copy in the log ("bot worker")."""
    stop = stop or threading.Event()
    children = [spawn(command) for _ in range(count)]
    log.info("started %d %s processes", count, what)
    try:
        while not stop.wait(every):
            for i, child in enumerate(children):
                if child.poll() is not None:
                    log.warning("%s %d exited (%s); restarting", what, child.pid,
                                child.returncode)
                    children[i] = spawn(command)
    finally:
        end(children)


def end(children: list[subprocess.Popen], grace: float = 10) -> None:  # type: ignore[type-arg]
    """SIGTERM every child still running, then wait for them all; SIGKILL one still running
    ``grace`` seconds later."""
    for child in children:
        if child.poll() is None:
            child.terminate()
    for child in children:
        try:
            child.wait(grace)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()
