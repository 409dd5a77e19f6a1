"""Write the variant rules vectors the TypeScript client must reproduce.

Each case is a variant, a position (the mover on roll), a roll, how many dice every legal play
uses, and every distinct legal play's resulting position, with how the game ends after it where
it does — as computed by the Python rules (``engine.variants``). The cases are deterministic:
the 21 opening rolls of each variant, positions of seeded random play, and for plakoto and fevga
the rule families of ``harness/variant_corpus.py`` (pins, bear-offs with pins, mothers; fevga's
opening, nearly closed starting quarters, opponents trapped behind a prime, bear-offs, crowded
boards).

A position is written as one string: the mover's 26 counts then the opponent's, one base-36
digit each (``[0]`` off .. ``[25]`` bar, each from its owner's side), then, in plakoto when a
checker is pinned, ``.`` and the two pin bitmasks in hexadecimal joined by ``,`` (mover's,
opponent's). A play's result is written the same way but shorter: the opponent's counts only
when the play changed them (a hit), after a ``/``. An ending is appended to a play's result
after ``=``: the winner (``m`` mover, ``o`` opponent, ``d`` a draw), the points (0..3) and the
finish (``b`` bearing off, ``m`` the mother, ``d`` both mothers).

Run from the repository root::

    .venv/bin/python web-client/tools/make_variant_vectors.py

``tests/web/test_web_variant_vectors.py`` regenerates the cases in memory and checks that the
committed file is up to date.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: make the engine importable
    sys.path.insert(0, str(ROOT))

from engine.variants import Finish, Side, Variant, variant  # noqa: E402
from harness.variant_corpus import ROLLS, family_cases, random_play_cases  # noqa: E402

VECTORS = ROOT / "web-client" / "test" / "vectors" / "variant-vectors.json"
FORMAT = "fairgammon-variant-vectors/1"

DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"

# (variant, seed, random-play cases, random games, family cases per family)
PLAN: tuple[tuple[str, int, int, int, int], ...] = (
    ("nackgammon", 271, 150, 10, 0),
    ("hypergammon", 272, 300, 40, 0),
    ("portes", 273, 150, 10, 0),
    ("plakoto", 274, 500, 30, 90),
    ("fevga", 275, 500, 30, 90),
)
FINISH = {Finish.BEAR_OFF: "b", Finish.MOTHER: "m", Finish.MOTHERS: "d"}


def board(counts: tuple[int, ...]) -> str:
    return "".join(DIGITS[n] for n in counts)


def pins(position: Any) -> str:
    mp, op = getattr(position, "mover_pinned", 0), getattr(position, "opponent_pinned", 0)
    return f".{mp:x},{op:x}" if mp or op else ""


def result(start: Any, position: Any) -> str:
    """A play's result: the mover's counts, the opponent's if they changed, the pins."""
    changed = "" if position.opponent == start.opponent else "/" + board(position.opponent)
    return board(position.mover) + changed + pins(position)


def encode(position: Any) -> str:
    """One position as a string (the module's docstring says how).

    >>> from engine.variants.plakoto.position import PlakotoPosition
    >>> encode(PlakotoPosition.start())
    '000000000000000000000000f0000000000000000000000000f0'
    >>> encode(PlakotoPosition.from_points({24: 14, 6: 1}, {24: 14, 19: 1}, opponent_pinned=[19]))
    '000000100000000000000000e0000000000000000000010000e0.0,80000'
    """
    return board(position.mover) + board(position.opponent) + pins(position)


def ending_code(rules: Variant, position: Any) -> str:
    """``=`` and the ending after a play, or "" while the game goes on."""
    end = rules.ending(position)
    if end is None:
        return ""
    who = "d" if end.winner is None else "m" if end.winner is Side.MOVER else "o"
    return f"={who}{end.points}{FINISH[end.finish]}"


def case(rules: Variant, position: Any, d1: int, d2: int, family: str) -> dict[str, object]:
    """One vector: the variant, the position, the roll, the dice used and every legal result."""
    plays = rules.legal_plays(position, d1, d2)
    return {
        "variant": rules.name,
        "family": family,
        "position": encode(position),
        "dice": [d1, d2],
        "used": len(plays[0].moves) if plays else 0,
        "plays": sorted(
            result(position, p.position) + ending_code(rules, p.position) for p in plays
        ),
    }


def build_cases() -> list[dict[str, object]]:
    """All the vectors, in a fixed order."""
    cases = []
    for name in ("backgammon", "nackgammon", "hypergammon", "portes", "plakoto", "fevga"):
        rules = variant(name)
        cases += [case(rules, rules.start(), a, b, "start") for a, b in ROLLS]
    for name, seed, n, games, per_family in PLAN:
        rules = variant(name)
        for position, d1, d2 in random_play_cases(rules, seed, n, games):
            cases.append(case(rules, position, d1, d2, "random-play"))
        if per_family:
            for family, found in family_cases(name, seed, per_family).items():
                cases += [case(rules, p, d1, d2, family) for p, d1, d2 in found]
    # The ends of games: the last positions of seeded random games, where plays end them.
    for name, seed, *_ in PLAN:
        rules = variant(name)
        rng = random.Random(seed + 1000)
        for _ in range(12 if name in ("plakoto", "fevga") else 6):
            last = _last_position(rules, rng)
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            cases.append(case(rules, last, d1, d2, "ending"))
    return cases


def _last_position(rules: Variant, rng: random.Random) -> Any:
    """The position before a random game's last play (whose play ends the game)."""
    position = rules.start()
    for _ in range(2000):
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        plays = rules.legal_plays(position, d1, d2)
        if plays:
            chosen = rng.choice(plays).position
            if rules.ending(chosen) is not None:
                return position
            position = chosen
        position = position.swapped()
    return position


def render(cases: list[dict[str, object]]) -> str:
    """The file text: one case per line, so diffs stay readable."""
    lines = [json.dumps(c, separators=(",", ":")) for c in cases]
    header = json.dumps({"format": FORMAT, "count": len(cases)}, separators=(",", ":"))
    return header[:-1] + ',"cases":[\n' + ",\n".join(lines) + "\n]}\n"


def main() -> int:
    cases = build_cases()
    VECTORS.parent.mkdir(parents=True, exist_ok=True)
    VECTORS.write_text(render(cases), encoding="utf-8")
    print(f"wrote {len(cases)} cases to {VECTORS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
