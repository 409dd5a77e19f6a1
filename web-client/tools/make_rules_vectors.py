"""Write the rules test vectors the TypeScript engine must reproduce.

Each case is a position (gnubg Position ID, mover on roll), a roll, how many dice every legal
play uses, and the sorted Position IDs of all distinct legal plays, as computed by the Python
engine (``engine.movegen.legal_plays``). The cases are deterministic: random-play positions
from seeded games plus families built to hit the tricky rules (bar entry against closed boards,
bear-offs with oversized dice, the higher-die rule, partial doubles, no legal play).

Run from the repository root::

    .venv/bin/python web-client/tools/make_rules_vectors.py

``tests/web/test_web_rules_vectors.py`` regenerates the cases in memory and checks that the
committed file is up to date.
"""

from __future__ import annotations

import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: make the engine importable
    sys.path.insert(0, str(ROOT))

from engine.movegen import legal_plays  # noqa: E402
from engine.position import BAR, CHECKERS, OFF, Position  # noqa: E402
from engine.position_id import encode  # noqa: E402

VECTORS = ROOT / "web-client" / "test" / "vectors" / "rules-vectors.json"
FORMAT = "fairgammon-rules-vectors/1"
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def case(position: Position, d1: int, d2: int, family: str) -> dict[str, object]:
    """One vector: the position, the roll and every legal result as Position IDs.

    >>> c = case(Position.start(), 2, 1, "start")
    >>> c["id"], c["used"], len(c["plays"])
    ('4HPwATDgc/ABMA', 2, 15)
    """
    plays = legal_plays(position, d1, d2)
    used = len(plays[0].moves) if plays else 0
    return {
        "family": family,
        "id": encode(position),
        "dice": [d1, d2],
        "used": used,
        "plays": sorted(encode(play.position) for play in plays),
    }


def random_board(rng: random.Random, slots: list[int], blocked: set[int]) -> list[int]:
    """15 checkers spread at random over ``slots`` (own numbering), avoiding ``blocked``."""
    board = [0] * 26
    open_slots = [s for s in slots if s not in blocked]
    for _ in range(CHECKERS):
        board[rng.choice(open_slots)] += 1
    return board


def random_position(
    rng: random.Random, mover_slots: list[int], opponent_slots: list[int]
) -> Position:
    """A possible position with the mover on ``mover_slots`` and the opponent on its own."""
    mover = random_board(rng, mover_slots, set())
    taken = {25 - p for p in range(1, 25) if mover[p]}
    opponent = random_board(rng, opponent_slots, taken)
    return Position(tuple(mover), tuple(opponent))


def random_games(rng: random.Random, games: int) -> Iterator[Position]:
    """Positions met along seeded random games (the mover on roll each time)."""
    for _ in range(games):
        position = Position.start()
        while not position.is_over():
            yield position
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            plays = legal_plays(position, d1, d2)
            if plays:
                position = rng.choice(plays).position
            position = position.swapped()


def closed_board(rng: random.Random, bar: int, closed: int) -> Position:
    """The mover has ``bar`` checkers on the bar; the opponent holds ``closed`` home points."""
    points = rng.sample(range(1, 7), closed)  # opponent's own numbering: its home board
    opponent = [0] * 26
    for p in points:
        opponent[p] = 2
    spare = CHECKERS - 2 * closed
    for _ in range(spare):
        opponent[rng.choice([*points, 12, 13, 18])] += 1
    mover = [0] * 26
    mover[BAR] = bar
    blocked = {25 - p for p in range(1, 25) if opponent[p]}
    free = [p for p in range(1, 25) if p not in blocked]
    for _ in range(CHECKERS - bar):
        mover[rng.choice(free)] += 1
    return Position(tuple(mover), tuple(opponent))


def bear_off(rng: random.Random, contact: bool) -> Position:
    """All the mover's remaining checkers home, some already off; the opponent behind or past."""
    mover = [0] * 26
    on_board = rng.randint(1, CHECKERS)
    top = rng.randint(1, 6)
    for _ in range(on_board):
        mover[rng.randint(1, top)] += 1
    mover[OFF] = CHECKERS - on_board
    taken = {25 - p for p in range(1, 25) if mover[p]}
    slots = list(range(19, 26)) if contact else list(range(7))
    opponent = random_board(rng, slots, taken)
    return Position(tuple(mover), tuple(opponent))


def build_cases() -> list[dict[str, object]]:
    """All the vectors, in a fixed order."""
    rng = random.Random(20240611)
    cases = [case(Position.start(), a, b, "start") for a, b in ROLLS]

    for i, position in enumerate(random_games(rng, 12)):
        if i % 2 == 0:
            cases.append(case(position, rng.randint(1, 6), rng.randint(1, 6), "random-game"))

    for _ in range(500):
        position = random_position(rng, list(range(26)), list(range(26)))
        d1, d2 = rng.choice(ROLLS)
        cases.append(case(position, d1, d2, "random-position"))

    for _ in range(200):
        position = closed_board(rng, rng.randint(1, 3), rng.randint(2, 6))
        d1, d2 = rng.choice(ROLLS)
        cases.append(case(position, d1, d2, "bar-entry"))

    for _ in range(500):
        position = bear_off(rng, contact=rng.random() < 0.4)
        d1, d2 = rng.choice(ROLLS)
        cases.append(case(position, d1, d2, "bear-off"))

    # Few mover checkers against many made points: one-die plays, the higher-die rule, partial
    # doubles and dancing turn up often here.
    blocked_found = 0
    while blocked_found < 400:
        mover = [0] * 26
        for _ in range(rng.randint(1, 3)):
            mover[rng.randint(7, 25)] += 1
        mover[OFF] = CHECKERS - sum(mover)
        taken = {25 - p for p in range(1, 25) if mover[p]}
        opponent = [0] * 26
        free = [p for p in range(1, 25) if p not in taken]
        for p in rng.sample(free, 7):
            opponent[p] = 2
        opponent[rng.choice(free)] += CHECKERS - sum(opponent)
        position = Position(tuple(mover), tuple(opponent))
        d1, d2 = rng.choice(ROLLS)
        vector = case(position, d1, d2, "blocked")
        if vector["used"] < (4 if d1 == d2 else 2):
            cases.append(vector)
            blocked_found += 1

    for position in [Position.start(), *list(random_games(rng, 1))[::8]]:
        for d1, d2 in ROLLS:
            cases.append(case(position, d1, d2, "all-rolls"))
    return cases


def render(cases: list[dict[str, object]], fmt: str = FORMAT) -> str:
    """The file text: one case per line, so diffs stay readable."""
    lines = [json.dumps(c, separators=(",", ":")) for c in cases]
    header = json.dumps({"format": fmt, "count": len(cases)}, separators=(",", ":"))
    return header[:-1] + ',"cases":[\n' + ",\n".join(lines) + "\n]}\n"


def write(path: Path, text: str, count: int) -> int:
    """Write a vectors file and say so (this tool's and make_notation_vectors.py's)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    print(f"wrote {count} cases to {path.relative_to(ROOT)}")
    return 0


def main() -> int:
    cases = build_cases()
    return write(VECTORS, render(cases), len(cases))


if __name__ == "__main__":
    raise SystemExit(main())
