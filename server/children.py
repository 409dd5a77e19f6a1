"""Child processes that never outlive their parent: the private Redis of ``fairgammon serve``,
its bot and analysis workers, and the workers of their supervisors. Linux is asked to SIGTERM a
child when the process that started it dies, however it dies (a SIGKILLed server leaves nothing
running)."""

from __future__ import annotations

import contextlib
import ctypes
import signal
import subprocess
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
