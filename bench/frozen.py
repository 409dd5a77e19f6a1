"""A server process frozen (SIGSTOP) under its clients: how many leave it for the other
process, and when (docs/protocol.md, "Slow readers and dead links").

    .venv/bin/python bench/frozen.py                    # 17 matches, frozen 25 s
    .venv/bin/python bench/frozen.py --no-dead-link     # the clients as they were before

It starts a private redis-server and two ``fairgammon serve`` processes, seats ``--matches``
single games (two :class:`protocol.client.MatchClient` seats each, ``fallback_urls`` naming the
other process) on the first one, freezes it for ``--seconds`` (SIGCONT at the end, whatever
happens) and prints how many seats resumed on the second process within that time, and after
how long (first, median, last). Exit status 0 when every seat left.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from harness.failure_kit import Stack  # noqa: E402
from harness.srv_support import seat_two  # noqa: E402
from protocol.client import MatchClient  # noqa: E402
from protocol.client.seat import DEAD_LINK  # noqa: E402


async def run(matches: int, seconds: float, dead_link: float | None) -> int:
    stack = Stack(Path(tempfile.mkdtemp(prefix="fg-frozen-")))
    stack.start()
    try:
        frozen, other = await asyncio.gather(
            asyncio.to_thread(stack.server), asyncio.to_thread(stack.server)
        )
        clients: list[MatchClient] = []
        for _ in range(matches):
            seated = await seat_two(frozen.base, mode="single_game")
            for seat in (0, 1):
                clients.append(
                    seated.client(frozen.ws, seat, fallback_urls=[other.ws], dead_link=dead_link)
                )
        await asyncio.gather(*(c.start() for c in clients))
        assert frozen.process is not None
        left: dict[int, float] = {}
        frozen.process.send_signal(signal.SIGSTOP)
        stopped = time.monotonic()
        try:
            while time.monotonic() - stopped < seconds and len(left) < len(clients):
                for i, c in enumerate(clients):
                    if i not in left and c.url == other.ws and c.core.welcomed:
                        left[i] = time.monotonic() - stopped
                await asyncio.sleep(0.02)
        finally:
            frozen.process.send_signal(signal.SIGCONT)
        times = sorted(left.values())
        what = f"{DEAD_LINK:g} s" if dead_link else "off"
        line = f"dead link {what}: {len(times)} of {len(clients)} seats resumed on the other "
        line += f"process within {seconds:g} s of SIGSTOP"
        if times:
            line += f"; first {times[0]:.2f} s, median {times[len(times) // 2]:.2f} s, "
            line += f"last {times[-1]:.2f} s"
        print(line)
        await asyncio.gather(*(c.close() for c in clients))
        return 0 if len(times) == len(clients) else 1
    finally:
        stack.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=17)
    parser.add_argument("--seconds", type=float, default=25.0)
    parser.add_argument("--no-dead-link", action="store_true")
    args = parser.parse_args()
    dead_link = None if args.no_dead_link else DEAD_LINK
    return asyncio.run(run(args.matches, args.seconds, dead_link))


if __name__ == "__main__":
    raise SystemExit(main())
