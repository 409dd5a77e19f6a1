"""Fuzz the match importer: 10,000 mutated files, each imported or refused with a typed error.

The bases are real files: our own ``.mat`` export, an eXtreme Gammon-style ``.mat`` and a
gnubg-style SGF of seeded random matches (``harness/import_samples.py``), and, when Debian's
``gnubg`` is installed, the ``.mat`` and ``.sgf`` files gnubg writes of a match it plays against
itself. Each mutant (``harness.import_samples.mutant``: spans deleted, noise inserted, digits
changed, lines deleted, duplicated, swapped or cut off) goes through
:func:`engine.importer.read_match`; anything but a :class:`MatchFileError` is a crash and is
printed. An accepted mutant must be a real match: its own export imports back to the same games.
Prints the outcomes by error code and the time per file.

    .venv/bin/python bench/import_fuzz.py [--files 10000] [--seed 1] [--no-gnubg]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
import traceback
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.importer import MatchFileError, read_match  # noqa: E402
from engine.matfile import export  # noqa: E402
from harness.gnubg import gnubg_command, self_play  # noqa: E402
from harness.import_samples import (  # noqa: E402
    essentials,
    gnubg_sgf,
    mutant,
    other_mat,
    sample_record,
)


def bases(use_gnubg: bool) -> list[tuple[str, str]]:
    out = []
    for seed in (0, 2, 4, 7, 9):
        record = sample_record(seed)
        out += [("ours", export(record)), ("xg-style mat", other_mat(record)),
                ("gnubg-style sgf", gnubg_sgf(record))]
    if use_gnubg and gnubg_command() is not None:
        for files in self_play([{"names": ["Ann", "Bob"], "seed": 5, "length": 1},
                                {"names": ["Cy", "Di"], "seed": 6, "length": 3}]):
            out += [("gnubg mat", files["mat"].decode()), ("gnubg sgf", files["sgf"].decode())]
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-gnubg", action="store_true")
    args = parser.parse_args()
    sources = bases(not args.no_gnubg)
    rng = random.Random(args.seed)
    outcomes: Counter[str] = Counter()
    by_base: Counter[str] = Counter()
    crashes = 0
    started = time.perf_counter()
    for i in range(args.files):
        name, base = sources[i % len(sources)]
        by_base[name] += 1
        text = mutant(base, rng)
        try:
            imported = read_match(text.encode("utf-8", "surrogatepass"))
        except MatchFileError as err:
            outcomes[err.code.value] += 1
            continue
        except Exception:  # the thing this bench looks for
            crashes += 1
            print(f"CRASH on a mutant of {name}:\n{traceback.format_exc()}")
            continue
        again = read_match(export(imported.record))
        if essentials(again.record) != essentials(imported.record):
            crashes += 1
            print(f"an accepted mutant of {name} does not survive its own export")
        outcomes["imported"] += 1
    elapsed = time.perf_counter() - started
    print(f"{args.files} mutated files from {len(sources)} bases "
          f"({', '.join(f'{k} {v}' for k, v in sorted(by_base.items()))})")
    for outcome, count in outcomes.most_common():
        print(f"  {outcome:14s} {count:6d}")
    print(f"  crashes        {crashes:6d}")
    print(f"{elapsed:.1f} s, {1000 * elapsed / args.files:.1f} ms per file")
    sys.exit(1 if crashes else 0)


if __name__ == "__main__":
    main()
