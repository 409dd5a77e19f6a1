"""The one runner behind the worker subcommands (``fairgammon bots``, ``fairgammon analyse``):
the flags they share, one worker in this process or several supervised child processes, and the
workers ``fairgammon serve`` starts alongside.

Each subcommand module describes its kind with a :class:`WorkerCommand` and exposes
``add_arguments = command.add_arguments`` and ``run = command.run``. Its flags read
``--workers N --redis-url URL <its own> --log-level L --supervise``. With one worker and no
``--supervise`` the worker runs here until SIGTERM or SIGINT; otherwise this process supervises
``N`` children (``python -m server.cli <name> --workers 1 ...``), each restarted when it dies
(its jobs are taken over by whichever worker claims them).
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio


def _no_flags(parser: argparse.ArgumentParser) -> None:
    pass


def _no_args(*_: Any) -> list[str]:
    return []


@dataclass(frozen=True)
class WorkerCommand:
    """One kind of worker on the command line.

    ``name``: the subcommand; ``what``: one worker in the log ("bot worker"); ``count_setting``:
    the environment variable with the number ``fairgammon serve`` starts (default 1);
    ``work(args, redis_url, stop)``: one worker until ``stop`` is set (it imports what it
    needs); ``own_arguments(parser)``: its own flags; ``passed_on(args)``: those flags for a
    child; ``with_server(port)``: the flags of the children of ``fairgammon serve``."""

    name: str
    what: str
    count_setting: str
    work: Callable[[argparse.Namespace, str, asyncio.Event], Awaitable[None]]
    own_arguments: Callable[[argparse.ArgumentParser], None] = _no_flags
    passed_on: Callable[[argparse.Namespace], list[str]] = _no_args
    with_server: Callable[[int], list[str]] = _no_args

    def add_arguments(self, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--workers", type=int, default=1,
                            help="worker processes (default 1)")
        parser.add_argument("--redis-url", help="the server's Redis (default: REDIS_URL)")
        self.own_arguments(parser)
        parser.add_argument("--log-level", help="debug, info, warning or error")
        parser.add_argument(
            "--supervise", action="store_true",
            help="run even one worker as a child process, restarted if it dies (serve does "
            "this)",
        )

    def run(self, args: argparse.Namespace) -> int:
        import asyncio
        import signal
        import sys

        from server.cli import UsageError
        from server.ops import logs
        from server.ops.children import supervise

        redis_url = args.redis_url or os.environ.get("REDIS_URL")
        if not redis_url:
            raise UsageError("no Redis: pass --redis-url or set REDIS_URL")
        if args.workers < 1:
            raise UsageError("--workers must be at least 1")
        own = self.passed_on(args)
        level = args.log_level or os.environ.get("FAIRGAMMON_LOG_LEVEL") or "info"
        log = logs.setup(level)

        if args.workers == 1 and not args.supervise:
            async def main() -> None:
                stop = asyncio.Event()
                loop = asyncio.get_running_loop()
                for sig in (signal.SIGTERM, signal.SIGINT):
                    loop.add_signal_handler(sig, stop.set)
                await self.work(args, redis_url, stop)

            asyncio.run(main())
            return 0

        # One process each (a worker keeps a core busy: the nets' searches and analyses),
        # supervised here: a worker that dies is restarted, and the jobs it held are taken over
        # by whichever worker claims them.
        command = [sys.executable, "-m", "server.cli", self.name, "--workers", "1",
                   "--redis-url", redis_url, *own, "--log-level", level]
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        supervise(command, args.workers, log, self.what)
        return 0

    def start_with_server(self, count: int | None, port: int):  # type: ignore[no-untyped-def]
        """``fairgammon serve``'s workers of this kind: ``count`` (None: the count setting,
        else 1) worker processes for the server on ``port``, started as one supervised child
        (None when 0). ``REDIS_URL`` must already be in the environment."""
        import sys

        from server.cli import UsageError
        from server.ops.children import spawn

        if count is None:
            raw = os.environ.get(self.count_setting, "1")
            try:
                count = int(raw)
            except ValueError:
                raise UsageError(f"{self.count_setting} must be a number, got {raw!r}") from None
        if count <= 0:
            return None
        return spawn([sys.executable, "-m", "server.cli", self.name, "--workers", str(count),
                      "--supervise", *self.with_server(port)])
