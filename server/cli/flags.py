"""``fairgammon flags [--account NAME] [--count N]``: the newest matches flagged for fair play
(docs/fairplay.md), one JSON object a line, newest first — what the operator and the
moderators review until the moderator pages show them."""

from __future__ import annotations

import argparse
import asyncio
import json
import os

from server.cli import UsageError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--redis-url", help="the server's Redis (default: REDIS_URL)")
    parser.add_argument("--account", help="only the matches of this account")
    parser.add_argument("--count", type=int, default=50, help="how many (default 50)")


def run(args: argparse.Namespace) -> int:
    import redis.asyncio as aioredis

    from server.players.accounts_store import AccountsStore

    redis_url = args.redis_url or os.environ.get("REDIS_URL")
    if not redis_url:
        raise UsageError("no Redis: pass --redis-url or set REDIS_URL")
    if not 1 <= args.count <= 10_000:
        raise UsageError("--count is 1..10000")

    async def read() -> list[dict[str, object]]:
        redis = aioredis.from_url(redis_url)
        try:
            return await AccountsStore(redis).flagged(args.count, args.account)
        finally:
            await redis.aclose()

    for flag in asyncio.run(read()):
        print(json.dumps(flag, sort_keys=True))
    return 0
