"""Write the move-notation vectors the browser's move record must reproduce.

Each case is a position (gnubg Position ID, mover on roll), a play as the wire carries it
(single-die ``[from, to]`` moves in the order played) and its text in standard notation as the
Python engine writes it (``engine.notation.play_text``): hand-picked cases for each rule (hits,
bar, off, one checker moving on, repeated paths) plus the legal plays met along seeded random
games.

Run from the repository root::

    .venv/bin/python web-client/tools/make_notation_vectors.py

``tests/test_web_notation_vectors.py`` checks that the committed file is up to date.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: make the engine importable
    sys.path.insert(0, str(ROOT))
TOOLS = str(Path(__file__).resolve().parent)
if TOOLS not in sys.path:  # the rules vectors' writer, beside this file
    sys.path.insert(0, TOOLS)

import make_rules_vectors as rules_vectors  # noqa: E402

from engine.movegen import legal_plays  # noqa: E402
from engine.notation import play_text  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.position_id import encode  # noqa: E402

VECTORS = ROOT / "web-client" / "test" / "vectors" / "notation-vectors.json"
FORMAT = "fairgammon-notation-vectors/1"

# (mover's points, opponent's points, moves): positions built to show each rule.
START = {24: 2, 13: 5, 8: 3, 6: 5}
HAND: list[tuple[dict[int, int], dict[int, int], list[tuple[int, int]]]] = [
    (START, START, [(13, 7), (8, 7)]),
    (START, START, [(24, 18), (18, 13)]),
    (START, START, [(6, 5), (6, 5), (8, 7), (8, 7)]),
    (START, START, [(24, 18), (24, 18), (18, 12), (18, 12)]),
    (START, {24: 1, 13: 5, 8: 3, 6: 5, 7: 1}, [(8, 2), (6, 1)]),
    # a hit on the way: the stop stays
    (START, {24: 2, 13: 5, 8: 3, 6: 4, 18: 1}, [(13, 7), (7, 4)]),
    (START, {24: 2, 13: 5, 8: 3, 6: 4, 18: 1}, [(13, 7), (8, 7)]),
    # from the bar, hitting on entry
    ({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 3: 1}, [(25, 22), (22, 16)]),
    (
        {25: 2, 13: 5, 8: 3, 6: 5},
        {24: 2, 13: 5, 8: 3, 6: 4, 3: 1},
        [(25, 22), (25, 22), (22, 19), (13, 10)],
    ),
    # bearing off
    ({6: 3, 5: 2, 3: 1}, {24: 2, 18: 13}, [(6, 0), (5, 0)]),
    ({6: 3, 5: 2, 3: 1}, {24: 2, 18: 13}, [(6, 2), (2, 0)]),
    ({4: 4}, {24: 15}, [(4, 0), (4, 0), (4, 0), (4, 0)]),
    ({4: 4, 2: 1}, {20: 15}, [(4, 1), (4, 1), (4, 1), (2, 0)]),
    # no play
    ({25: 1, 13: 6, 8: 3, 6: 5}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}, []),
]


def case(position: Position, moves: list[tuple[int, int]], family: str) -> dict[str, object]:
    return {
        "family": family,
        "id": encode(position),
        "moves": [list(m) for m in moves],
        "text": play_text(position, moves),
    }


def build_cases() -> list[dict[str, object]]:
    cases = [case(Position.from_points(m, o), moves, "hand") for m, o, moves in HAND]
    rng = random.Random(20261201)
    for _ in range(8):
        position = Position.start()
        while not position.is_over():
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            plays = legal_plays(position, d1, d2)
            if plays:
                play = rng.choice(plays)
                cases.append(case(position, list(play.moves), "random-game"))
                position = play.position
            position = position.swapped()
    return cases


def render(cases: list[dict[str, object]]) -> str:
    return rules_vectors.render(cases, FORMAT)


def main() -> int:
    cases = build_cases()
    return rules_vectors.write(VECTORS, render(cases), len(cases))


if __name__ == "__main__":
    raise SystemExit(main())
