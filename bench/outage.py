"""Redis away for a long time while a reveal is owed: the client library's reveal goes through
once Redis is back, and nobody forfeits.

    .venv/bin/python bench/outage.py                 # 40 s outage
    .venv/bin/python bench/outage.py --seconds 90

It starts a private redis-server (AOF, ``appendfsync always``) and one ``fairgammon serve``
process, plays a single game with two :class:`protocol.client.MatchClient` seats (10-second move
clock) up to a roll, and kills Redis just as the roll is stored, so that the opponent's
automatic reveal meets ``retry_later`` for the whole outage. Redis is started again from its
AOF after ``--seconds``. It prints how often the reveal was refused, how long after Redis came
back it was acknowledged, and the match's end; exit status 0 when the reveal went through and
the game ended without a forfeit. (The suite proves the same property in fake time:
tests/unit/test_client_seat.py, ten minutes of ``retry_later``.)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this checkout first (bench/ holds an engine.py of its own)
sys.path.append(str(ROOT / "bench"))

from loadgen.procs import Server  # noqa: E402

from engine.movegen import legal_plays  # noqa: E402
from protocol import events as pe  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.client import MatchClient, create_match, join_match, play_random  # noqa: E402
from server.match.history import read_log  # noqa: E402
from server.match.store import Store  # noqa: E402
from server.ops.redis_process import RedisProcess, free_port  # noqa: E402


def health(base: str) -> int:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=2) as r:
            json.load(r)
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


async def decide(client: MatchClient, rng: random.Random) -> bool:
    t, seat = client.tracker, client.seat
    assert seat is not None
    owed = t.owes(seat)
    if owed == "decide":
        await client.roll()
    elif owed == "move":
        assert t.dice is not None
        plays = legal_plays(t.position(seat), *t.dice)
        await client.move(rng.choice(plays).moves if plays else ())
    elif owed == "take":
        await client.take()
    elif owed == "resign":
        await client.answer_resignation(False)
    else:
        return False
    return True


async def run(seconds: float, seed: int) -> int:
    rng = random.Random(seed)
    with tempfile.TemporaryDirectory(prefix="fairgammon-outage-") as tmp:
        redis = RedisProcess(Path(tmp) / "redis")
        redis.start()
        server = Server(free_port(), redis.url, Path(tmp))
        server.start()
        try:
            await asyncio.to_thread(server.wait_healthy, 30)
            created = await create_match(server.base, name="Ann", mode="single_game", clock=10)
            joined = await join_match(server.base, created["match"], name="Bob")
            ws = f"ws://127.0.0.1:{server.port}/ws"
            a = MatchClient(ws, created["match"], created["token"])
            b = MatchClient(ws, created["match"], joined["token"])
            async with a, b:
                seats = (a, b)
                while not (a.tracker.k > 3 and any(c.owes() == "decide" for c in seats)):
                    if not any([await decide(c, rng) for c in seats]):
                        await asyncio.sleep(0.02)
                roller = next(c for c in seats if c.owes() == "decide")
                other = b if roller is a else a
                other.auto_reveal = False  # hold the reveal until Redis is gone
                k = roller.tracker.k
                assert isinstance(await roller.roll(), m.Ack)
                await other.wait_for(lambda t: t.owes(other.seat) == "reveal")
                redis.kill()
                stopped = time.monotonic()
                while await asyncio.to_thread(health, server.base) != 503:
                    await asyncio.sleep(0.05)
                refused_before = len(other.rejects)
                other.auto_reveal = True  # the reveal is owed now, and the store is away
                print(f"Redis killed with the reveal of roll {k} owed; away for {seconds:.0f} s",
                      flush=True)  # fmt: skip
                await asyncio.sleep(max(0.0, stopped + seconds - time.monotonic()))
                refused = [r for r in other.rejects[refused_before:] if r.code == "retry_later"]
                await asyncio.to_thread(redis.start)
                back = time.monotonic()
                await other.wait_for(lambda t: t.k > k, timeout=60)
                through = time.monotonic() - back
                print(f"reveal refused retry_later {len(refused)} times during the outage "
                      f"(the same seq: {len({r.seq for r in refused}) == 1}); acknowledged and "
                      f"rolled {through:.2f} s after Redis came back", flush=True)  # fmt: skip
                results = await asyncio.wait_for(
                    asyncio.gather(
                        play_random(a, random.Random(rng.random())),
                        play_random(b, random.Random(rng.random())),
                    ),
                    180,
                )
            store = Store.from_url(redis.url)
            try:
                log = await read_log(store, created["match"])
            finally:
                await store.close()
            forfeits = [e.data for e in log if isinstance(e.data, pe.Forfeit)]
            print(f"game over: {results[0].reason}, winner seat {results[0].winner}; "
                  f"forfeits: {len(forfeits)} {forfeits or ''}")  # fmt: skip
            ok = bool(refused) and not forfeits and results[0].reason == "completed"
            print("OK" if ok else "FAILED")
            return 0 if ok else 1
        finally:
            server.stop()
            redis.stop()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seconds", type=float, default=40.0, help="how long Redis stays away")
    p.add_argument("--seed", type=int, default=1)
    args = p.parse_args(argv)
    return asyncio.run(run(args.seconds, args.seed))


if __name__ == "__main__":
    sys.exit(main())
