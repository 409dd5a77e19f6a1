"""``fairgammon bots``: run bot worker processes (the computer opponent).

Each worker takes bot seats from the Redis work queue and plays them over the server's
WebSocket like any client (docs/bots.md). Run as many as you like, anywhere that reaches both
Redis and a server: they share the queue, and one that dies is replaced by the others.
``fairgammon serve`` already runs one (``--bots``).
"""

from __future__ import annotations

import argparse
import os


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--workers", type=int, default=1, help="worker processes (default 1)")
    parser.add_argument("--redis-url", help="the server's Redis (default: REDIS_URL)")
    parser.add_argument(
        "--server-url",
        help="the server's WebSocket URL (default: FAIRGAMMON_BOT_SERVER, else "
        "ws://127.0.0.1:<FAIRGAMMON_PORT or 8000>/ws)",
    )
    parser.add_argument("--max-games", type=int, default=200, help="games per worker at once")
    parser.add_argument("--log-level", help="debug, info, warning or error")
    parser.add_argument(
        "--supervise", action="store_true",
        help="run even one worker as a child process, restarted if it dies (serve does this)",
    )


def server_url(explicit: str | None = None) -> str:
    if explicit:
        return explicit
    if os.environ.get("FAIRGAMMON_BOT_SERVER"):
        return os.environ["FAIRGAMMON_BOT_SERVER"]
    return f"ws://127.0.0.1:{os.environ.get('FAIRGAMMON_PORT') or 8000}/ws"


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
    url = server_url(args.server_url)
    level = args.log_level or os.environ.get("FAIRGAMMON_LOG_LEVEL") or "info"
    log = logs.setup(level)

    if args.workers == 1 and not args.supervise:
        from bots.worker import Worker

        async def main() -> None:
            stop = asyncio.Event()
            loop = asyncio.get_running_loop()
            for sig in (signal.SIGTERM, signal.SIGINT):
                loop.add_signal_handler(sig, stop.set)
            await Worker(redis_url, url, max_games=args.max_games).run(stop)

        asyncio.run(main())
        return 0

    # One process each (the nets' searches want their own core), supervised here: a worker
    # that dies is restarted (and its games are resumed by whichever worker claims them).
    command = [sys.executable, "-m", "server.cli", "bots", "--workers", "1",
               "--redis-url", redis_url, "--server-url", url,
               "--max-games", str(args.max_games), "--log-level", level]
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    supervise(command, args.workers, log, "bot worker")
    return 0


def start_with_server(count: int | None, port: int):  # type: ignore[no-untyped-def]
    """``fairgammon serve``'s bot workers: ``count`` (None: ``FAIRGAMMON_BOTS``, else 1) worker
    processes playing against this server, started as one supervised child (None when 0).
    ``REDIS_URL`` must already be in the environment."""
    import sys

    from server.cli import UsageError
    from server.ops.children import spawn

    if count is None:
        raw = os.environ.get("FAIRGAMMON_BOTS", "1")
        try:
            count = int(raw)
        except ValueError:
            raise UsageError(f"FAIRGAMMON_BOTS must be a number, got {raw!r}") from None
    if count <= 0:
        return None
    return spawn(
        [sys.executable, "-m", "server.cli", "bots", "--workers", str(count), "--supervise",
         "--server-url", server_url(os.environ.get("FAIRGAMMON_BOT_SERVER")
                                    or f"ws://127.0.0.1:{port}/ws")],
    )
