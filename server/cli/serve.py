"""``fairgammon serve``: placeholder until the match server lands (issue 4)."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8000)


def run(args: argparse.Namespace) -> int:
    print(
        "fairgammon serve: the match server is not built yet.\n"
        "What exists today: the rules engine and its command line, e.g.\n"
        "  .venv/bin/fairgammon show 4HPwATDgc/ABMA\n"
        "  echo '4HPwATDgc/ABMA 3 1' | .venv/bin/fairgammon legal",
        file=sys.stderr,
    )
    return 1
