"""Write ``seek_vectors.json``: quick-pairing cases the pool's Redis script is tested against.

Each case is a pool of seeks at a time ``now`` and what :mod:`server.competition.seeks` makes
of it: the pairs (older seek first, in the order they form), the seeks that have expired and
those offered the computer. Named cases pin each rule at its edge; the rest are pools drawn
from a fixed generator (SHA-256 of a counter), so running it again reproduces the file byte for
byte::

    python -m server.competition.make_vectors            # rewrite the file
    python -m server.competition.make_vectors --check    # exit 1 if the file is stale

``tests/unit/test_competition_seeks.py`` checks that the file is current and checks every
case against its own plain statement of the rules.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from server.competition.seeks import (
    COMPUTER_AFTER_MS,
    SEEK_TTL_MS,
    WIDEN_EVERY_MS,
    WIDEN_POINTS,
    Seek,
    check,
    expired,
    offer_computer,
    pair_pool,
)

PATH = Path(__file__).with_name("seek_vectors.json")
RANDOM_CASES = 60
NOW = 10_000_000


def case(name: str, now: int, pool: list[Seek]) -> dict[str, Any]:
    for seek in pool:
        check(seek)
    return {
        "name": name,
        "now": now,
        "pool": [asdict(s) for s in pool],
        "pairs": [list(p) for p in pair_pool(pool, now)],
        "expired": [s.id for s in pool if expired(s, now)],
        "computer": [s.id for s in pool if offer_computer(s, pool, now)],
    }


def m5(sid: str, browser: str, since: int, **kw: Any) -> Seek:
    """A seek for a rated match to 5 at 60 s (the named cases' common terms)."""
    return Seek(sid, "match", 5, 60, kw.pop("rated", True), browser, since, **kw)


def named() -> list[dict[str, Any]]:
    t = NOW
    return [
        case("two guests, same terms", t, [
            Seek("a", "single_game", 0, 30, False, "b1", t - 100),
            Seek("b", "single_game", 0, 30, False, "b2", t - 50),
        ]),
        case("different terms never pair", t, [
            Seek("a", "single_game", 0, 30, False, "b1", t - 100),
            Seek("b", "single_game", 0, 60, False, "b2", t - 90),
            Seek("c", "match", 3, 30, False, "b3", t - 80),
            Seek("d", "match", 5, 30, False, "b4", t - 70),
            Seek("e", "money", 0, 30, False, "b5", t - 60),
        ]),
        case("the same browser is the same person", t, [
            Seek("a", "single_game", 0, 30, False, "b1", t - 100),
            Seek("b", "single_game", 0, 30, False, "b1", t - 50),
        ]),
        case("the same account on two browsers", t, [
            m5("a", "b1", t - 100, account="ann", rating=1500),
            m5("b", "b2", t - 50, account="ann", rating=1500),
        ]),
        case("oldest fitting seek first", t, [
            Seek("c", "single_game", 0, 30, False, "b3", t - 10),
            Seek("a", "single_game", 0, 30, False, "b1", t - 300),
            Seek("b", "single_game", 0, 30, False, "b2", t - 200),
        ]),
        case("equal times: the smaller id is older", t, [
            Seek("y", "single_game", 0, 30, False, "b2", t - 100),
            Seek("x", "single_game", 0, 30, False, "b1", t - 100),
            Seek("z", "single_game", 0, 30, False, "b3", t - 100),
        ]),
        case("range: a gap of exactly the range fits", t, [
            m5("a", "b1", t, account="ann", rating=1500, range=100),
            m5("b", "b2", t, account="bob", rating=1600),
        ]),
        case("range: one point over does not", t, [
            m5("a", "b1", t, account="ann", rating=1500, range=100),
            m5("b", "b2", t, account="bob", rating=1601),
        ]),
        case("range widens by 50 after 5 s", t, [
            m5("a", "b1", t - WIDEN_EVERY_MS, account="ann", rating=1500, range=100),
            m5("b", "b2", t, account="bob", rating=1650),
        ]),
        case("range: 1 ms short of the widening", t, [
            m5("a", "b1", t - WIDEN_EVERY_MS + 1, account="ann", rating=1500, range=100),
            m5("b", "b2", t, account="bob", rating=1650),
        ]),
        case("both ranges must hold", t, [
            m5("a", "b1", t - 60_000, account="ann", rating=1500, range=0),
            m5("b", "b2", t, account="bob", rating=1620, range=100),
        ]),
        case("a range skips the oldest seek for a closer one", t, [
            m5("a", "b1", t - 300, account="ann", rating=1500, range=50),
            m5("b", "b2", t - 200, account="bob", rating=1900),
            m5("c", "b3", t - 100, account="cat", rating=1540),
        ]),
        case("an unrated range needs the other's rating", t, [
            m5("a", "b1", t - 100, rated=False, account="ann", rating=1500, range=300),
            m5("b", "b2", t - 50, rated=False),
        ]),
        case("unrated, no range: a guest meets an account", t, [
            m5("a", "b1", t - 100, rated=False, account="ann", rating=1500),
            m5("b", "b2", t - 50, rated=False),
        ]),
        case("a seek 10 minutes old is gone", t, [
            Seek("a", "single_game", 0, 30, False, "b1", t - SEEK_TTL_MS),
            Seek("b", "single_game", 0, 30, False, "b2", t - SEEK_TTL_MS + 1),
            Seek("c", "single_game", 0, 30, False, "b3", t),
        ]),
        case("alone for 5 s: offered the computer", t, [
            Seek("a", "single_game", 0, 30, False, "b1", t - COMPUTER_AFTER_MS),
            Seek("b", "single_game", 0, 30, False, "b1", t - COMPUTER_AFTER_MS),
            Seek("c", "match", 3, 30, False, "b3", t - COMPUTER_AFTER_MS + 1),
        ]),
        case("a seek stamped ahead of now has waited 0", t, [
            m5("a", "b1", t + 7_000, account="ann", rating=1500, range=100),
            m5("b", "b2", t, account="bob", rating=1600),
        ]),
        case("a human's seek excludes bots by default", t, [
            m5("a", "b1", t - 100, rated=False, account="ann", rating=1500),
            m5("b", "b2", t - 50, rated=False, account="bot1", rating=1500, bot=True, bots=True),
        ]),
        case("a human who accepts bots meets one, unrated", t, [
            m5("a", "b1", t - 100, rated=False, account="ann", rating=1500, bots=True),
            m5("b", "b2", t - 50, rated=False, account="bot1", rating=1500, bot=True),
        ]),
        case("rated: a bot never meets a human", t, [
            m5("a", "b1", t - 100, account="ann", rating=1500, bots=True),
            m5("b", "b2", t - 50, account="bot1", rating=1500, bot=True, bots=True),
        ]),
        case("two bots pair, skipping a human", t, [
            m5("a", "b1", t - 300, account="bot1", rating=1500, bot=True),
            m5("b", "b2", t - 200, account="ann", rating=1500),
            m5("c", "b3", t - 100, account="bot2", rating=1500, bot=True),
        ]),
        case("four in a row pair 1-2 and 3-4", t, [
            Seek(s, "single_game", 0, 30, False, f"b{i}", t - 100 + i)
            for i, s in enumerate("abcd")
        ]),
    ]  # fmt: skip


def numbers(label: str) -> Iterator[int]:
    """An endless stream of 32-bit numbers from SHA-256 of ``label`` and a counter."""
    counter = 0
    while True:
        digest = hashlib.sha256(f"fairgammon/seek-vectors/{label}/{counter}".encode()).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i : i + 4], "big")
        counter += 1


def drawn(k: int) -> dict[str, Any]:
    stream = numbers(str(k))

    def pick(n: int) -> int:
        return next(stream) % n

    terms = [("single_game", 0, 30, False), ("match", 5, 60, False), ("match", 5, 60, True)]
    pool = []
    for i in range(2 + pick(11)):
        mode, length, clock, rated = terms[pick(len(terms))]
        signed_in = rated or pick(3) > 0
        account = f"u{pick(6)}" if signed_in else None
        rating = 1300 + pick(600) if signed_in else None
        has_range = signed_in and pick(2) == 0
        seek = Seek(
            id=f"s{k}-{i:02d}",
            mode=mode,
            length=length,
            clock=clock,
            rated=rated,
            browser=f"b{pick(7)}",
            since=NOW - pick(SEEK_TTL_MS + 60_000),
            account=account,
            rating=rating,
            range=pick(301) if has_range else None,
        )
        pool.append(seek)
    return case(f"drawn {k}", NOW, pool)


def build() -> dict[str, Any]:
    return {
        "about": "Quick-pairing cases: docs/tournaments.md, server/competition/seeks.py.",
        "rules": {
            "widen_points": WIDEN_POINTS,
            "widen_every_ms": WIDEN_EVERY_MS,
            "seek_ttl_ms": SEEK_TTL_MS,
            "computer_after_ms": COMPUTER_AFTER_MS,
        },
        "cases": named() + [drawn(k) for k in range(RANDOM_CASES)],
    }


def text() -> str:
    """The file: one case a line."""
    data = build()
    cases = ",\n".join(json.dumps(c, sort_keys=True) for c in data.pop("cases"))
    head = json.dumps(data, indent=1, sort_keys=True)[:-2]
    return f'{head},\n "cases": [\n{cases}\n]}}\n'


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    args = parser.parse_args(argv)
    fresh = text()
    if args.check:
        current = PATH.read_text(encoding="utf-8") if PATH.exists() else ""
        if current != fresh:
            print(f"{PATH.name} is stale: run python -m server.competition.make_vectors")
            return 1
        return 0
    PATH.write_text(fresh, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
