"""Write hand-checkable fair-dice values for the TypeScript tests, straight from hashlib.

This is an independent, minimal statement of scheme v1 (docs: fairness) in a dozen lines of
Python, used only to produce ``web-client/test/fixtures/fairdice-hashlib.json``: a short chain
from a fixed secret, a full 1024-link commitment, roll seeds and dice, a dice block with bytes
>= 252 (rejected) and an opening roll-off tie. Run from the repository root::

    .venv/bin/python web-client/tools/make_fairdice_fixture.py

Each value can be checked by hand with ``hashlib.sha256(...)`` on the fields listed beside it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "web-client" / "test" / "fixtures" / "fairdice-hashlib.json"
MATCH_ID = bytes(range(16))  # 000102...0f
GAME_NO = 3


def h(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def link(seat: int, i: int, secret: bytes, game_no: int = GAME_NO) -> bytes:
    """s[i-1] from s[i].

    >>> link(0, 1, bytes(32)).hex()[:16] == h(b"fairgammon/v1/chain", MATCH_ID, u32(3),
    ...     b"\\x00", u32(1), bytes(32)).hex()[:16]
    True
    """
    return h(b"fairgammon/v1/chain", MATCH_ID, u32(game_no), bytes([seat]), u32(i), secret)


def chain(seat: int, top: bytes, n: int) -> list[bytes]:
    links = [b""] * (n + 1)
    links[n] = top
    for i in range(n, 0, -1):
        links[i - 1] = link(seat, i, links[i])
    return links


def seed(k: int, s0: bytes, s1: bytes) -> bytes:
    return h(b"fairgammon/v1/roll", MATCH_ID, u32(GAME_NO), u32(k), s0, s1)


def dice(seed_k: bytes) -> tuple[list[int], list[str]]:
    """The two dice and every block consumed (hex), by rejection sampling."""
    taken: list[int] = []
    blocks: list[str] = []
    ctr = 0
    while len(taken) < 2:
        block = h(b"fairgammon/v1/dice", seed_k, u32(ctr))
        blocks.append(block.hex())
        for byte in block:
            if byte < 252:
                taken.append(byte % 6 + 1)
                if len(taken) == 2:
                    break
        ctr += 1
    return taken, blocks


def build() -> dict[str, object]:
    top0 = hashlib.sha256(b"seat 0 test secret").digest()
    top1 = hashlib.sha256(b"seat 1 test secret").digest()
    short0, short1 = chain(0, top0, 8), chain(1, top1, 8)
    rolls = []
    for k in range(1, 9):
        s = seed(k, short0[k], short1[k])
        d, blocks = dice(s)
        first = bytes.fromhex(blocks[0])
        rolls.append(
            {
                "k": k,
                "seed": s.hex(),
                "dice": d,
                "first_block": blocks[0],
                "rejected_in_first_block": sum(1 for b in first[: first_index(first)] if b >= 252),
            }
        )
    # A seed whose first dice block starts with a rejected byte (>= 252), found by search.
    rejecting = next(
        k
        for k in range(1, 10_000)
        if h(b"fairgammon/v1/dice", seed(k, top0, top1), u32(0))[0] >= 252
    )
    rejecting_seed = seed(rejecting, top0, top1)
    rejecting_dice, rejecting_blocks = dice(rejecting_seed)
    # A roll-off tie: the first k whose dice are equal.
    tie = next(k for k in range(1, 10_000) if len(set(dice(seed(k, top0, top1))[0])) == 1)
    return {
        "how": "web-client/tools/make_fairdice_fixture.py (Python hashlib)",
        "match_id": MATCH_ID.hex(),
        "game_no": GAME_NO,
        "short_chain_length": 8,
        "tops": [top0.hex(), top1.hex()],
        "short_chains": [[x.hex() for x in short0], [x.hex() for x in short1]],
        "commitments_1024": [chain(0, top0, 1024)[0].hex(), chain(1, top1, 1024)[0].hex()],
        "rolls": rolls,
        "rejecting": {
            "k": rejecting,
            "reveals": [top0.hex(), top1.hex()],
            "seed": rejecting_seed.hex(),
            "blocks": rejecting_blocks,
            "dice": rejecting_dice,
        },
        "tie": {
            "k": tie,
            "reveals": [top0.hex(), top1.hex()],
            "dice": dice(seed(tie, top0, top1))[0],
        },
    }


def first_index(block: bytes) -> int:
    """How many bytes of a block are read before the second die is taken (or all)."""
    kept = 0
    for i, b in enumerate(block):
        if b < 252:
            kept += 1
            if kept == 2:
                return i + 1
    return len(block)


def render() -> str:
    return json.dumps(build(), indent=1) + "\n"


def main() -> int:
    FIXTURE.parent.mkdir(parents=True, exist_ok=True)
    FIXTURE.write_text(render(), encoding="utf-8")
    print(f"wrote {FIXTURE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
