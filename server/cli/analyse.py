"""``fairgammon analyse``: run analysis worker processes.

Each worker takes finished games from the Redis work queue (``fg:analysis:jobs``), analyses them
with the nets at 1-ply (docs/analysis.md) and stores the reports that
``/api/matches/<id>/games/<n>/analysis.json`` serves; with no 1-ply work waiting, each worker
analyses those games again deeper and replaces their reports (``FAIRGAMMON_ANALYSIS_DEEP=0``:
not). Run as many as you like anywhere that
reaches Redis: they share the queue, and a game left by a worker that died is taken over.
``fairgammon serve`` already runs one (``--analysers``).
"""

from __future__ import annotations

import argparse
import os


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--redis-url", help="the server's Redis (default: REDIS_URL)")
    parser.add_argument("--log-level", help="debug, info, warning or error")
    parser.add_argument(
        "--supervise", action="store_true",
        help="run even one worker as a child process, restarted if it dies (serve does this)",
    )


def run(args: argparse.Namespace) -> int:
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
    level = args.log_level or os.environ.get("FAIRGAMMON_LOG_LEVEL") or "info"
    log = logs.setup(level)

    if args.workers == 1 and not args.supervise:
        from server.work.analysis_worker import AnalysisWorker

        async def main() -> None:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, stop.set)
            await AnalysisWorker(redis_url).run(stop)

        asyncio.run(main())
        return 0

    # Several: one process each (an analysis keeps a core busy), supervised here: a worker that
    # dies is restarted (and the game it held is taken over once its claim lapses).
    command = [sys.executable, "-m", "server.cli", "analyse", "--workers", "1",
               "--redis-url", redis_url, "--log-level", level]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    supervise(command, args.workers, log, "analysis worker")
    return 0


def start_with_server(count: int | None):  # type: ignore[no-untyped-def]
    """``fairgammon serve``'s analysis workers: ``count`` (None: ``FAIRGAMMON_ANALYSERS``,
    else 1) worker processes, started as one supervised child (None when 0). ``REDIS_URL`` must
    already be in the environment."""
    import sys

    from server.cli import UsageError
    from server.ops.children import spawn

    if count is None:
        raw = os.environ.get("FAIRGAMMON_ANALYSERS", "1")
        try:
            count = int(raw)
        except ValueError:
            raise UsageError(f"FAIRGAMMON_ANALYSERS must be a number, got {raw!r}") from None
    if count <= 0:
        return None
    return spawn(
        [sys.executable, "-m", "server.cli", "analyse", "--workers", str(count), "--supervise"]
    )
