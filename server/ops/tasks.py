"""Stopping background tasks for sure.

On Python 3.11 a cancellation can be lost: ``asyncio.wait_for`` (which redis-py wraps around
every socket write) returns the inner result instead of raising ``CancelledError`` when the
cancel arrives just as the write completes. A ``while True`` loop that talks to Redis (the
heartbeat, the deadline sweeper, the pub/sub listener) then simply runs on, and a shutdown
that awaits it after one ``cancel()`` never ends: the process hung on SIGTERM.

>>> import asyncio
>>> async def stubborn():
...     try:
...         await asyncio.sleep(10)
...     except asyncio.CancelledError:
...         pass  # a lost cancellation
...     while True:
...         await asyncio.sleep(0.01)
>>> async def main():
...     task = asyncio.create_task(stubborn())
...     await asyncio.sleep(0)
...     await cancel_all([task], patience=0.05)
...     return task.cancelled()
>>> asyncio.run(main())
True
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import Any


async def cancel_all(tasks: Iterable[asyncio.Task[Any]], patience: float = 0.25) -> None:
    """Cancel ``tasks`` and wait until every one has ended, cancelling again every
    ``patience`` seconds those that swallowed it. Their exceptions are retrieved (not raised)."""
    tasks = list(tasks)
    pending = {task for task in tasks if not task.done()}
    while pending:
        for task in pending:
            task.cancel()
        _, pending = await asyncio.wait(pending, timeout=patience)
    for task in tasks:
        if not task.cancelled():
            task.exception()  # retrieved: no "exception was never retrieved" warning
