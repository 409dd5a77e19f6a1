"""``fairgammon legal``: batch legal-play generation, one input line at a time.

Each input line is ``POSITION_ID D1 D2`` (the player on roll as gnubg encodes it, two dice
1-6). Each output line holds the Position IDs of the distinct positions the roll can reach,
sorted and separated by single spaces, encoded exactly as gnubg encodes the board right after
generating moves: the mover is still the player on roll (the board is not turned). A roll with
no legal play gives an empty line.

A malformed input line (bad ID, dice outside 1-6, wrong number of fields, blank) gives an empty
output line plus a one-line message on standard error naming the line number, and processing
goes on. Exit status: 0 when every line was well formed, 1 otherwise.

One process serves any number of lines: input and output are buffered, nothing is set up per
line.
"""

from __future__ import annotations

import argparse
import sys
from typing import TextIO

from engine.movegen import legal_plays
from engine.position_id import PositionIdError, decode, encode


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (__doc__ or "").split("\n\n")[1].replace("``", "")


def run(args: argparse.Namespace) -> int:
    return serve_lines(sys.stdin, sys.stdout, sys.stderr)


def serve_lines(source: TextIO, out: TextIO, err: TextIO) -> int:
    """Answer every line of ``source`` on ``out``; report malformed lines on ``err``."""
    status = 0
    write = out.write
    for number, line in enumerate(source, 1):
        fields = line.split()
        try:
            if len(fields) != 3:
                raise ValueError(f"expected 'POSITION_ID D1 D2', got {len(fields)} fields")
            position_id, d1, d2 = fields
            dice = _die(d1), _die(d2)
            position = decode(position_id)
        except (ValueError, PositionIdError) as exc:
            print(f"fairgammon legal: line {number}: {exc}", file=err)
            write("\n")
            status = 1
            continue
        ids = sorted(encode(play.position) for play in legal_plays(position, *dice))
        write(" ".join(ids) + "\n")
    out.flush()
    return status


def _die(text: str) -> int:
    if text not in ("1", "2", "3", "4", "5", "6"):
        raise ValueError(f"a die is 1-6, got {text!r}")
    return int(text)
