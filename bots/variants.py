"""The computer's checker play in every variant: which policy plays a game of ``variant``.

* backgammon, nackgammon, hypergammon and portes move by backgammon's rules, so the levels of
  :mod:`bots.levels` (bgsage's nets, over the plays :func:`engine.movegen.legal_plays` gives,
  which are those variants' legal plays) play them as they are; a variant without the cube
  (portes) is played with cubeless equities, and its cube is never turned (the cube decisions
  are never asked: :func:`bots.policy.decide` only asks where the tracker says the seat may
  double);
* plakoto and fevga are played by :mod:`bots.heuristic`.

Which levels a variant offers is :data:`bots.catalog.VARIANT_LEVELS`;
:func:`bots.catalog.check_level` refuses the others. Pure: ``rng`` given.
"""

from __future__ import annotations

import random
from dataclasses import replace

from bots import heuristic
from bots.catalog import Level
from bots.levels import choose_play as net_play
from brain.context import CubeContext
from engine.movegen import Play
from engine.variants import variant

CUBELESS = CubeContext(cube_in_play=False)
"""Money play without a cube: the context of a cubeless game outside a match."""


def choose_play(name: str, level: Level, position: object, d1: int, d2: int,
                context: CubeContext, rng: random.Random) -> Play | None:
    """The play the computer makes at ``level`` with ``d1``-``d2`` in a game of variant
    ``name`` (a single game's variant: ``"portes"``, never ``"tavli"``); None when no die can
    be played. ``context`` is the seat's cube and score (:func:`bots.policy.context_of`)."""
    if name in heuristic.SCORES:
        return heuristic.choose_play(name, position, d1, d2, rng)
    if not variant(name).cube:
        context = replace(context, cube_in_play=False)
    return net_play(level, position, d1, d2, context, rng)  # type: ignore[arg-type]
