"""``fairgammon accounts``: the operator's account commands.

    fairgammon accounts bot NAME          mark NAME a bot account (docs/accounts.md, "Bot accounts")
    fairgammon accounts bot NAME --off    make it a human account again

It reaches the server's Redis as the server does (``REDIS_URL``, ``REDIS_CLUSTER`` or
``REDIS_SENTINEL`` and ``REDIS_SENTINEL_MASTER``; ``--redis-url`` overrides). Unlike the
account's own request (``POST /api/my/bot``), the operator may mark an account that played
rated matches against humans: its rating moves with it to the bots' pool (and back).
"""

from __future__ import annotations

import argparse
import asyncio


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--redis-url", help="the server's Redis (default: REDIS_URL)")
    sub = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    bot = sub.add_parser("bot", help="mark an account a bot account (or not, with --off)")
    bot.add_argument("name", help="the account's username (any case)")
    bot.add_argument("--off", action="store_true", help="make it a human account again")


def run(args: argparse.Namespace) -> int:
    from server.cli import UsageError
    from server.ops.redis_link import RedisTarget
    from server.ops.settings import Settings, SettingsError

    try:
        settings = Settings.from_env()
    except SettingsError as exc:
        raise UsageError(str(exc)) from None
    target = RedisTarget(url=args.redis_url) if args.redis_url else settings.redis_target()
    if target is None:
        raise UsageError("no Redis: pass --redis-url or set REDIS_URL")
    return asyncio.run(_bot(target, args.name, not args.off))


async def _bot(target: object, name: str, on: bool) -> int:
    from server.ops.redis_link import connect
    from server.players.accounts import is_username
    from server.players.accounts_store import AccountsStore

    redis = connect(target)  # type: ignore[arg-type]
    try:
        store = AccountsStore(redis)
        row = await store.account(name) if is_username(name) else None
        if row is None or await store.mark_bot(name, row["id"], on, only_fresh=False) != 1:
            print(f"fairgammon accounts: no account is named {name!r}")
            return 1
        print(f"{row['name']} is {'a bot' if on else 'a human'} account")
        return 0
    finally:
        await redis.aclose()
