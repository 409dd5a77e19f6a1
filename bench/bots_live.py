"""The computer's response times with a real bot worker process serving many games at once.

Starts a private redis-server and one ``fairgammon serve`` of this checkout with its default
bot worker (a separate, supervised process; no think time: ``FAIRGAMMON_BOT_DELAY_MS=0``), then
keeps ``--concurrent`` games against the computer going at once: each is a single game (no cube)
created through the lobby, the human seat played over WebSocket by ``play_random`` answering at
once, so the one worker always has ``--concurrent`` games to serve. When a game ends its
transcript is fetched and verified, and a new game starts in its place, until ``--games`` games
per level are done (each of them played while the other lanes' games were going too; the games
still going then are abandoned: their clocks end them).

The figures come from the transcripts' server timestamps (``t``, milliseconds):

* **play**: from the bot's dice (its roll event) to its move being accepted: the roll reaching
  the worker, choosing the play on a thread, sending it, the server checking it;
* **roll**: from the human's move being accepted to the bot's roll (the worker's cube decision,
  which in a cubeless game is none, and the protocol's round trip).

So they include the worker's and the server's share of the machine, with the human clients on
it too; ``bench/bots.py`` times the decisions alone, in one process.

    .venv/bin/python bench/bots_live.py [--levels easy,normal,hard,expert] [--concurrent 10]
                                        [--games 30] [--seed 1]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
from pathlib import Path

# Run as a script, this file's folder comes first on sys.path: put the checkout it belongs to
# ahead of any installed copy of the project.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from loadgen import procs
from loadgen.site_lanes import create_bot_game, response_times

from protocol.client import MatchClient, play_random
from protocol.client.lobby import get_text
from protocol.fairdice import verify_json
from server.ops.redis_process import RedisProcess, free_port


async def run_level(base: str, level: str, concurrent: int, games: int, seed: int) -> dict:
    """Keep ``concurrent`` games going; time the first ``games`` that finish (each of them was
    played while all the others were going too), then abandon the rest."""
    plays: list[int] = []
    rolls: list[int] = []
    done = [0]
    enough = asyncio.Event()
    started = time.monotonic()

    async def lane(lane_no: int) -> None:
        rng = random.Random(seed * 1000 + lane_no)
        ws = base.replace("http://", "ws://") + "/ws"
        while True:
            created = await create_bot_game(base, level)
            async with MatchClient(ws, created["match"], created["token"]) as human:
                result = await asyncio.wait_for(
                    play_random(human, rng, double_rate=0.0, take_rate=1.0), 600
                )
            assert result is not None, "the game did not end"
            path = f"/api/matches/{created['match']}/games/1/transcript.json"
            text = await get_text(base, path)
            verify_json(text)  # raises unless it verifies
            if enough.is_set():
                return
            p, r = response_times(json.loads(text))
            plays.extend(p)
            rolls.extend(r)
            done[0] += 1
            if done[0] % max(1, games // 4) == 0 or done[0] == games:
                print(
                    f"  {level}: {done[0]}/{games} games, {len(plays)} plays, "
                    f"{time.monotonic() - started:.0f} s",
                    flush=True,
                )
            if done[0] >= games:
                enough.set()

    lanes = [asyncio.create_task(lane(i)) for i in range(concurrent)]
    waiter = asyncio.create_task(enough.wait())
    await asyncio.wait([waiter, *lanes], return_when=asyncio.FIRST_COMPLETED)
    seconds = time.monotonic() - started
    for task in lanes:
        task.cancel()
    outcomes = await asyncio.gather(*lanes, return_exceptions=True)
    errors = [
        o
        for o in outcomes
        if isinstance(o, BaseException) and not isinstance(o, asyncio.CancelledError)
    ]
    if errors:
        raise errors[0]
    return {"plays": plays, "rolls": rolls, "seconds": seconds}


def pct(values: list[int], q: float) -> int:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", default="easy,normal,hard,expert")
    parser.add_argument("--concurrent", type=int, default=10)
    parser.add_argument("--games", type=int, default=30, help="games per level")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)

    tmp = Path(tempfile.mkdtemp(prefix="fairgammon-bots-live-"))
    redis = RedisProcess(tmp / "redis")
    redis.start()
    env = {"FAIRGAMMON_BOTS": "1", "FAIRGAMMON_BOT_DELAY_MS": "0"}
    server = procs.Server(free_port(), redis.url, tmp, 1, env)
    figures: dict[str, dict] = {}
    try:
        server.start()
        server.wait_healthy()
        print(f"server {server.base} with one bot worker process; logs in {tmp}", flush=True)
        for level in args.levels.split(","):
            figures[level] = asyncio.run(
                run_level(server.base, level, args.concurrent, args.games, args.seed)
            )
    finally:
        server.stop()
        redis.stop()

    print()
    print(
        f"| level | games | plays | play p50 / p95 / max | roll p50 / p95 | "
        f"wall time, {args.concurrent} games at once |"
    )
    print("|---|---|---|---|---|---|")
    for level, f in figures.items():
        p, r = f["plays"], f["rolls"]
        print(
            f"| {level} | {args.games} | {len(p)} | {pct(p, 0.5)} / {pct(p, 0.95)} / {max(p)} ms"
            f" | {pct(r, 0.5)} / {pct(r, 0.95)} ms | {f['seconds']:.0f} s |"
        )


if __name__ == "__main__":
    main()
