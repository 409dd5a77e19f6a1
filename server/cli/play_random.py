"""``fairgammon play-random``: a bot that plays random legal moves.

Without a match it creates one on the server, prints the invite link for a person (or a second
bot) and waits; with ``--match`` and ``--token`` it plays that seat; with ``--match`` and
``--join`` it takes the free seat (``--invite`` for a private match). ``--both`` creates a match
and plays both seats (a quick way to watch a whole game in the browser).
"""

from __future__ import annotations

import argparse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--server", default="http://127.0.0.1:8000", help="server base URL")
    parser.add_argument("--match", help="match id to play in")
    parser.add_argument("--token", help="seat token (from creating or joining the match)")
    parser.add_argument("--join", action="store_true", help="take the free seat of --match")
    parser.add_argument("--invite", help="invite code of a private match")
    parser.add_argument("--both", action="store_true", help="create a match and play both seats")
    parser.add_argument("--mode", default="single_game", choices=["single_game", "match", "money"])
    parser.add_argument("--length", type=int, default=3, help="points to win (mode match)")
    parser.add_argument(
        "--variant",
        default="backgammon",
        help="what the match plays: backgammon, nackgammon, hypergammon, portes, plakoto, "
        "fevga or tavli",
    )
    parser.add_argument("--name", default="RandomBot")
    parser.add_argument("--seed", type=int, help="random seed (reproducible choices)")
    parser.add_argument("--think", type=float, default=0.5, help="most seconds to think per move")


def run(args: argparse.Namespace) -> int:
    import asyncio

    return asyncio.run(_play(args))


async def _play(args: argparse.Namespace) -> int:
    import asyncio
    import random
    import sys

    from protocol.client import LobbyError, MatchClient, create_match, join_match, play_random
    from protocol.client.lobby import ws_url
    from server.cli import UsageError

    base = args.server.rstrip("/")
    rng = random.Random(args.seed)
    options = {"mode": args.mode, "name": args.name, "variant": args.variant}
    if args.mode == "match":
        options["length"] = args.length
    try:
        if args.match and args.join:
            joined = await join_match(base, args.match, args.name, args.invite)
            seats = [(args.match, joined["token"])]
        elif args.match:
            if not args.token:
                raise UsageError("--match needs --token (or --join)")
            seats = [(args.match, args.token)]
        else:
            created = await create_match(base, **options)
            print(f"match {created['match']}", flush=True)
            print(f"watch: {created['watch']}", flush=True)
            seats = [(created["match"], created["token"])]
            if args.both:
                joined = await join_match(base, created["match"], args.name + " 2")
                seats.append((created["match"], joined["token"]))
            else:
                print(f"invite: {created['invite']}", flush=True)
    except LobbyError as exc:
        print(f"fairgammon play-random: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"fairgammon play-random: cannot reach {base}: {exc}", file=sys.stderr)
        return 1

    async def one(match_id: str, token: str) -> object:
        async with MatchClient(ws_url(base), match_id, token, name=args.name) as client:
            return await play_random(
                client, random.Random(rng.random()), think=(0.0, args.think), timeout=3600,
                stop_money_after=1 if args.mode == "money" else None,
            )  # fmt: skip

    results = await asyncio.gather(*(one(m, t) for m, t in seats))
    print(f"result: {results[0]}", flush=True)
    return 0
