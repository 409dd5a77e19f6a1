"""``fairgammon bots``: run bot worker processes (the computer opponent).

Each worker takes bot seats from the Redis work queue and plays them over the server's
WebSocket like any client (docs/bots.md). Run as many as you like, anywhere that reaches both
Redis and a server: they share the queue, and one that dies is replaced by the others.
``fairgammon serve`` already runs one (``--bots``). The flags and processes are those of every
worker command (:mod:`server.cli.workers`), plus ``--server-url`` and ``--max-games``.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from server.cli.workers import WorkerCommand

if TYPE_CHECKING:
    import asyncio


def own_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--server-url",
        help="the server's WebSocket URL (default: FAIRGAMMON_BOT_SERVER, else "
        "ws://127.0.0.1:<FAIRGAMMON_PORT or 8000>/ws)",
    )
    parser.add_argument("--max-games", type=int, default=200, help="games per worker at once")


def server_url(explicit: str | None = None) -> str:
    if explicit:
        return explicit
    if os.environ.get("FAIRGAMMON_BOT_SERVER"):
        return os.environ["FAIRGAMMON_BOT_SERVER"]
    return f"ws://127.0.0.1:{os.environ.get('FAIRGAMMON_PORT') or 8000}/ws"


async def work(args: argparse.Namespace, redis_url: str, stop: asyncio.Event) -> None:
    from bots.worker import Worker

    await Worker(redis_url, server_url(args.server_url), max_games=args.max_games).run(stop)


COMMAND = WorkerCommand(
    name="bots",
    what="bot worker",
    count_setting="FAIRGAMMON_BOTS",
    work=work,
    own_arguments=own_arguments,
    passed_on=lambda args: ["--server-url", server_url(args.server_url),
                            "--max-games", str(args.max_games)],
    with_server=lambda port: ["--server-url", server_url(os.environ.get("FAIRGAMMON_BOT_SERVER")
                                                         or f"ws://127.0.0.1:{port}/ws")],
)
add_arguments = COMMAND.add_arguments
run = COMMAND.run
