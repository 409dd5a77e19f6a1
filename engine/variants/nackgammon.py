"""Nackgammon: backgammon from Nack Ballard's starting position.

Two more back checkers: each side has 2 on its 24-point and 2 on its 23-point, 4 on the
13-point, 3 on the 8-point and 4 on the 6-point. Everything else — moves, cube, gammons and
backgammons, the opening roll — is backgammon's (:mod:`engine.variants.backgammon`). The
position is GNU Backgammon's ``set variation nackgammon`` start (checked against Debian's
gnubg in tests/unit/test_variants_gnubg.py).

>>> start = NACKGAMMON.start()
>>> start.mover[6], start.mover[8], start.mover[13], start.mover[23], start.mover[24]
(4, 3, 4, 2, 2)
>>> start.pips(), start.swapped() == start
((194, 194), True)
>>> [len(NACKGAMMON.legal_plays(start, d, d)) for d in range(1, 7)]
[70, 103, 101, 25, 17, 3]
"""

from __future__ import annotations

from dataclasses import replace

from engine.position import Board, Position
from engine.variants.backgammon import BACKGAMMON

_START: Board = (0, 0, 0, 0, 0, 0, 4, 0, 3, 0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2, 0)


def start() -> Position:
    """The nackgammon starting position."""
    return Position(_START, _START)


NACKGAMMON = replace(BACKGAMMON, name="nackgammon", start=start)
