"""Standard backgammon notation of a play, as players read it in a move record.

``play_text(position, moves)`` writes the single-die ``moves`` (in the order played, points
counted from the mover's side: 25 = bar, 0 = off) the way gnubg and most sites show them:

* each checker's path ``from/to``, ``bar`` for 25 and ``off`` for 0: ``bar/22``, ``6/off``;
* a hit is marked ``*`` after the point where it happened: ``13/7*``;
* one checker moving on is one path: ``24/18 18/13`` is ``24/13``, and a hit on the way keeps
  its stop: ``24/18*/13``;
* the same path played by several checkers is written once with the count: ``8/5(2)``;
* paths are listed from the highest starting point down (then the highest end first).

A play of no checker (the roll could not be played) is the empty string. The TypeScript client
implements the same rule (``web-client/src/engine/notation.ts``); both are tested against
``web-client/test/vectors/notation-vectors.json`` (written by
``web-client/tools/make_notation_vectors.py``).

>>> from engine.position import Position
>>> play_text(Position.start(), ((13, 7), (8, 7)))
'13/7 8/7'
>>> play_text(Position.start(), ((24, 18), (18, 13)))
'24/13'
>>> play_text(Position.start(), ((6, 5), (6, 5), (8, 7), (8, 7)))
'8/7(2) 6/5(2)'
"""

from __future__ import annotations

from collections.abc import Sequence

from engine.position import BAR, Position
from engine.reference import Move, apply_move

OFF = 0


def _point(p: int) -> str:
    return "bar" if p == BAR else "off" if p == OFF else str(p)


def play_text(position: Position, moves: Sequence[Move]) -> str:
    """The play ``moves`` from ``position`` (seen by the mover) in standard notation."""
    # Each chain: the points a checker passed, and whether it hit on arriving at each.
    chains: list[list[tuple[int, bool]]] = []
    for frm, to in moves:
        hit = to != OFF and position.opponent[25 - to] == 1
        position = apply_move(position, (frm, to))
        # The checker that just arrived on `frm` moves on (the latest such chain).
        for chain in reversed(chains):
            if chain[-1][0] == frm and frm != OFF:
                chain.append((to, hit))
                break
        else:
            chains.append([(frm, False), (to, hit)])
    paths: list[tuple[int, int, str]] = []
    for chain in chains:
        kept = [chain[0]] + [stop for stop in chain[1:-1] if stop[1]] + [chain[-1]]
        text = "/".join(_point(p) + ("*" if hit else "") for p, hit in kept)
        paths.append((chain[0][0], chain[-1][0], text))
    paths.sort(key=lambda p: (-p[0], -p[1]))
    out: list[str] = []
    counts: list[int] = []
    for _, _, text in paths:
        if out and out[-1] == text:
            counts[-1] += 1
        else:
            out.append(text)
            counts.append(1)
    return " ".join(t if n == 1 else f"{t}({n})" for t, n in zip(out, counts, strict=True))


def dice_text(dice: Sequence[int]) -> str:
    """The roll as players write it: the larger die first (``63``)."""
    return f"{max(dice)}{min(dice)}"
