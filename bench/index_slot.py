"""How many writes per second the one slot of a global index takes (``fg:idx:deadlines``).

On a Redis Cluster each global index (open and live lists, deadlines, gone seats) is one key,
so one master takes all of its writes: this measures that ceiling with ``redis-benchmark``
against a private redis-server with the production settings (AOF, ``appendfsync always``).

    .venv/bin/python bench/index_slot.py [requests]

See docs/operations.md, "Redis Cluster", for what the figure means.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from server.ops.redis_process import RedisProcess


def main() -> int:
    requests = int(sys.argv[1]) if len(sys.argv) > 1 else 200_000
    benchmark = shutil.which("redis-benchmark")
    if benchmark is None:
        print("redis-benchmark not found (Debian: apt-get install redis-tools)", file=sys.stderr)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        redis = RedisProcess(Path(tmp))
        redis.start()
        try:
            print(f"{requests} ZADD to one key, 50 clients, 16 pipelined each ...", flush=True)
            out = subprocess.run(
                [benchmark, "-p", str(redis.port), "-q", "-n", str(requests), "-c", "50",
                 "-P", "16", "-r", "1000000",
                 "zadd", "fg:idx:deadlines", "__rand_int__", "m:__rand_int__"],
                capture_output=True, text=True, check=True,
            )  # fmt: skip
            lines = [x.strip() for x in out.stdout.replace("\r", "\n").splitlines()]
            print([x for x in lines if x][-1])
        finally:
            redis.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
