"""Codec throughput: frames per second to decode and encode typical frames, on one core.

    .venv/bin/python bench/codec.py [--seconds 1.0]

Prints, for a client ``move`` frame, a server ``moved`` event and a ``dice`` event: the frame
size, decode and encode rates, and plain ``msgpack.unpackb`` on the same bytes for scale; then
how fast the server-side decoder refuses a few hostile frames.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import msgpack

# Run as a script, this file's folder comes first on sys.path: put the checkout it belongs to
# ahead of any installed copy of the project.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from protocol.codec import DecodeError, decode_from_client, decode_from_server, encode
from protocol.events import Dice, Moved
from protocol.messages import Event, Move


def rate(fn: Callable[[], object], seconds: float) -> float:
    """Calls per second of ``fn``, measured in batches for about ``seconds``."""
    batch = 1000
    calls = 0
    start = time.perf_counter()
    while (elapsed := time.perf_counter() - start) < seconds:
        for _ in range(batch):
            fn()
        calls += batch
    return calls / elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=1.0, help="per measurement")
    seconds = parser.parse_args().seconds

    cases = [
        ("move (client)", Move(seq=41, game=3, turn=17, moves=((24, 18), (13, 11))), True),
        (
            "event moved",
            Event(1234, Moved(3, 0, 17, ((24, 18), (13, 11)), "4HPwATDgc/ABMA")),
            False,
        ),
        (
            "event dice",
            Event(1235, Dice(3, 18, "turn", 1, bytes(range(32)), bytes(range(32, 64)), 6, 2)),
            False,
        ),
    ]
    print(f"{'frame':<16}{'bytes':>6}{'decode/s':>12}{'encode/s':>12}{'unpackb/s':>12}")
    for label, msg, from_client in cases:
        frame = encode(msg)
        decode = decode_from_client if from_client else decode_from_server
        assert decode(frame) == msg
        dec = rate(lambda frame=frame, decode=decode: decode(frame), seconds)
        enc = rate(lambda msg=msg: encode(msg), seconds)
        raw = rate(lambda frame=frame: msgpack.unpackb(frame), seconds)
        print(f"{label:<16}{len(frame):>6}{dec:>12,.0f}{enc:>12,.0f}{raw:>12,.0f}")

    # Hostile frames the server must refuse: the cost of refusing each, in frames per second.
    print(f"\n{'hostile frame (refused)':<30}{'bytes':>6}{'refused/s':>12}")
    for label, frame in hostile_frames():
        rate_refused = rate(lambda frame=frame: refuse(frame), seconds)
        print(f"{label:<30}{len(frame):>6}{rate_refused:>12,.0f}")


def refuse(frame: bytes) -> None:
    try:
        decode_from_client(frame)
    except DecodeError:
        return
    raise AssertionError("a hostile frame was accepted")


def hostile_frames() -> list[tuple[str, bytes]]:
    def tree(depth: int, fan: int, leaf: object) -> object:
        return leaf if depth == 0 else [tree(depth - 1, fan, leaf) for _ in range(fan)]

    return [
        ("array claiming 2**32-1 items", b"\xdd\xff\xff\xff\xff"),
        ("6**5 nested empty maps", msgpack.packb(tree(5, 6, {}))),
        ("6**5 nested empty arrays", msgpack.packb(tree(5, 6, []))),
        ("1000-deep array", b"\x91" * 1000 + b"\x80"),
        ("16 KiB of nils in arrays", msgpack.packb(tree(3, 15, [None] * 4))[:16384]),
        ("map + 5000 trailing bytes", msgpack.packb({"t": "ping"}) + bytes(5000)),
    ]


if __name__ == "__main__":
    main()
