"""Write the XGID vectors the analysis board's editor must reproduce (``src/engine/xgid.ts``).

Each case is a position (gnubg Position ID, the player on roll as the mover, not yet rolled), a
match state from that player's side (cube, owner, length, score, Crawford) and the XGID the
Python engine writes for it (``engine.xgid.encode``): positions met along seeded random games,
with seeded random cubes and scores, money and match play.

Run from the repository root::

    .venv/bin/python web-client/tools/make_xgid_vectors.py

``tests/unit/test_xgid.py`` checks that the committed file is up to date.
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

from engine import xgid  # noqa: E402
from engine.match_id import MatchKey  # noqa: E402
from engine.movegen import legal_plays  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.position_id import encode  # noqa: E402

VECTORS = ROOT / "web-client" / "test" / "vectors" / "xgid-vectors.json"
FORMAT = "fairgammon-xgid-vectors/1"
MOVER = 1  # the player on roll: XG's bottom player, gnubg's player 1


def case(position: Position, cube: int, owner: str | None, length: int,
         score: tuple[int, int], crawford: bool) -> dict[str, object]:
    key = MatchKey(cube=cube, cube_owner=None if owner is None else
                   MOVER if owner == "mover" else 1 - MOVER,
                   dice_owner=MOVER, turn=MOVER, crawford=crawford, length=length,
                   score=(score[1], score[0]))  # by seat: the opponent is seat 0
    return {"id": encode(position), "cube": cube, "owner": owner, "length": length,
            "score": list(score), "crawford": crawford,
            "xgid": xgid.encode(xgid.Xgid(position, key))}


def build_cases() -> list[dict[str, object]]:
    rng = random.Random(20261204)
    cases = [case(Position.start(), 1, None, 0, (0, 0), False)]
    for _ in range(4):
        position = Position.start()
        while not position.is_over():
            if rng.random() < 0.3:
                length = rng.choice([0, 0, 1, 3, 5, 7, 11, 25])
                score = (rng.randrange(length), rng.randrange(length)) if length else (0, 0)
                crawford = length > 1 and length - 1 in score and rng.random() < 0.5
                cube = 1 if crawford else rng.choice([1, 1, 2, 4, 8, 64])
                owner = None if cube == 1 else rng.choice(["mover", "opponent"])
                cases.append(case(position, cube, owner, length, score, crawford))
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            plays = legal_plays(position, d1, d2)
            if plays:
                position = rng.choice(plays).position
            position = position.swapped()
    return cases


def render(cases: list[dict[str, object]]) -> str:
    return rules_vectors.render(cases, FORMAT)


def main() -> int:
    cases = build_cases()
    return rules_vectors.write(VECTORS, render(cases), len(cases))


if __name__ == "__main__":
    raise SystemExit(main())
