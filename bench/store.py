"""What durability costs: commit-script throughput and latency under each AOF fsync policy.

Starts private redis-servers (one per policy) in a temp dir and drives the real commit script
(:meth:`server.match.store.Store.commit`) from C concurrent writers, each on its own match, for D
seconds. Prints commits/s and latency p50/p99 for ``appendfsync always`` and ``everysec``.

    .venv/bin/python bench/store.py [--writers 64] [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import tempfile
import time
from pathlib import Path

from server.match.store import Store
from server.ops.redis_process import RedisProcess


async def drive(url: str, writers: int, seconds: float) -> tuple[int, list[float]]:
    store = Store.from_url(url)
    latencies: list[float] = []
    state = b"x" * 600  # about the size of a real match snapshot
    event = b"e" * 120
    stop_at = time.perf_counter() + seconds

    async def writer(i: int) -> None:
        match_id = f"{i:032x}"
        version = await store.commit(match_id, -1, state, b"summary", [event])
        while time.perf_counter() < stop_at:
            t0 = time.perf_counter()
            version = await store.commit(match_id, version, state, b"summary", [event])
            latencies.append(time.perf_counter() - t0)

    await asyncio.gather(*(writer(i) for i in range(writers)))
    await store.close()
    return len(latencies), latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--writers", type=int, default=64)
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
    print(f"commit script, {args.writers} concurrent writers, {args.seconds:.0f} s per policy")
    for policy in ("always", "everysec"):
        with tempfile.TemporaryDirectory() as tmp:
            redis = RedisProcess(Path(tmp), appendfsync=policy)
            redis.start()
            try:
                count, lat = asyncio.run(drive(redis.url, args.writers, args.seconds))
            finally:
                redis.stop()
        lat.sort()
        p50 = statistics.median(lat) * 1000
        p99 = lat[int(len(lat) * 0.99)] * 1000
        print(
            f"  appendfsync {policy:8s}: {count / args.seconds:8.0f} commits/s"
            f"   p50 {p50:6.2f} ms   p99 {p99:6.2f} ms"
        )


if __name__ == "__main__":
    main()
