"""Fair-dice costs: chain building, link checks, roll derivation, transcript verification.

    .venv/bin/python bench/fairdice.py

Prints figures only (the tests check behaviour, never timings).
"""

from __future__ import annotations

import time
import tracemalloc

from protocol.fairdice import GameId, HashChain, derive_dice, link_ok, verify_json
from protocol.fairdice.simulate import simulate_game

GAME = GameId(bytes(range(16)), 1)
SECRET = bytes(range(32))


def per_call(fn, n: int) -> float:
    start = time.perf_counter()
    for _ in range(n):
        fn()
    return (time.perf_counter() - start) / n


def main() -> None:
    build = per_call(lambda: HashChain(SECRET, GAME, 0), 200)
    print(f"build a 1024-link chain:            {build * 1e3:8.3f} ms")
    for stride in (1, 32):
        tracemalloc.start()
        chain = HashChain(SECRET, GAME, 0, stride=stride)
        size, _ = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        cost = per_call(lambda c=chain: [c.link(k) for k in range(1, 101)], 20) / 100
        print(
            f"chain stride {stride:2}: memory {size / 1024:7.1f} KiB, link(k) {cost * 1e6:7.2f} µs"
        )
    chain = HashChain(SECRET, GAME, 0)
    check = per_call(lambda: link_ok(GAME, 0, 5, chain.link(5), chain.link(4)), 100_000)
    print(f"verify one reveal (link_ok):        {check * 1e6:8.2f} µs")
    a, b = chain.link(7), chain.link(8)
    derive = per_call(lambda: derive_dice(GAME, 7, a, b), 100_000)
    print(f"derive one roll:                    {derive * 1e6:8.2f} µs")
    transcript = simulate_game(5)
    text = transcript.to_json()
    for replay in (False, True):
        cost = per_call(lambda r=replay: verify_json(text, replay=r), 5)
        print(
            f"verify a {len(transcript.rolls)}-roll game ({len(text) // 1024} KiB), "
            f"replay={replay!s:5}: {cost * 1e3:8.1f} ms"
        )


if __name__ == "__main__":
    main()
