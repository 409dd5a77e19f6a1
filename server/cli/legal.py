"""``fairgammon legal``: batch legal-play generation, one input line at a time.

Each input line is ``POSITION_ID D1 D2`` (the player on roll as gnubg encodes it, two dice
1-6). Each output line holds the Position IDs of the distinct positions the roll can reach,
sorted and separated by single spaces, encoded exactly as gnubg encodes the board right after
generating moves: the mover is still the player on roll (the board is not turned). A roll with
no legal play gives an empty line.

A malformed input line (bad ID, dice outside 1-6, wrong number of fields, blank) gives an empty
output line plus a one-line message on standard error naming the line number, and processing
goes on. Exit status: 0 when every line was well formed, 1 otherwise.

One process serves any number of lines with nothing set up per line. Standard input is read in
chunks of whatever is available and the answers to a chunk are written and flushed together:
bulk input costs one write per 64 KiB, and a program that sends one line and waits for the
answer (a coprocess) gets it at once.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Iterable
from typing import TextIO

from engine.movegen import legal_plays
from engine.position_id import PositionIdError, decode, encode

_CHUNK = 1 << 16


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.description = (__doc__ or "").split("\n\n")[1].replace("``", "")


def run(args: argparse.Namespace) -> int:
    fd = sys.stdin.fileno()
    chunks = iter(lambda: os.read(fd, _CHUNK), b"")
    out = sys.stdout

    def write(text: str) -> None:
        out.write(text)
        out.flush()

    return serve(chunks, write, sys.stderr)


def serve(chunks: Iterable[bytes], write: Callable[[str], None], err: TextIO) -> int:
    """Answer every line in ``chunks`` (bytes, split anywhere) through ``write``, one call per
    chunk; report malformed lines on ``err``. Returns the exit status.

    >>> import io
    >>> answers = []
    >>> serve([b"4HPwATDgc/ABMA 6 5\\n4HPwATDgc/AB", b"MA 9 1\\n"], answers.append, io.StringIO())
    1
    >>> [len(a.split()) for a in "".join(answers).split("\\n")]
    [7, 0, 0]
    """
    status = 0
    number = 0
    pending = b""
    for chunk in chunks:
        lines = (pending + chunk).split(b"\n")
        pending = lines.pop()
        answers = []
        for raw in lines:
            number += 1
            answer = _answer(raw, number, err)
            if answer is None:
                status = 1
                answer = ""
            answers.append(answer + "\n")
        if answers:
            write("".join(answers))
    if pending.strip():  # a last line without its newline
        answer = _answer(pending, number + 1, err)
        status = 1 if answer is None else status
        write((answer or "") + "\n")
    return status


def _answer(raw: bytes, number: int, err: TextIO) -> str | None:
    """The output line for one input line, or None (after reporting why) if it is malformed."""
    fields = raw.decode("utf-8", "replace").split()
    try:
        if len(fields) != 3:
            raise ValueError(f"expected 'POSITION_ID D1 D2', got {len(fields)} fields")
        position_id, d1, d2 = fields
        position = decode(position_id)
        plays = legal_plays(position, _die(d1), _die(d2))
    except (ValueError, PositionIdError) as exc:
        print(f"fairgammon legal: line {number}: {exc}", file=err)
        return None
    return " ".join(sorted(encode(play.position) for play in plays))


def _die(text: str) -> int:
    if text not in ("1", "2", "3", "4", "5", "6"):
        raise ValueError(f"a die is 1-6, got {text!r}")
    return int(text)
