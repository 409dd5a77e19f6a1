"""The computer's play in plakoto and fevga: a hand-written evaluation, no search, no nets.

bgsage's nets know backgammon only, and these two games have no hitting: a lone checker is
pinned in plakoto, and in fevga one checker holds a point and both sides run the same way
round. So the computer plays them by scoring every legal play's resulting position (seen by
the mover, as :class:`~engine.movegen.Play` gives it) with the terms below and taking the best;
ties go to ``rng``. It is a heuristic, and named so (docs/bots.md, "Variants"): it beats a
player that picks its legal plays at random by a wide margin (``bench/variant_bots.py``), and
has not been measured against people.

Plakoto (:func:`plakoto_score`):

* the game's end, when the play ends it (a win, or a draw with both mothers pinned);
* the race (pip counts, pinned checkers included);
* **pins**: each opposing checker we pin is worth a lot, more the further it is from its home;
  each of ours pinned costs as much; the opponent's mother (its last checker on its starting
  point) pinned is nearly a win, ours nearly a loss;
* **safety**: each lone checker of ours that free opposing checkers can reach with the next
  roll (the exact share of the 36 rolls, blocks ignored) costs that share times what its pin
  would cost — ours alone on the starting point (our mother) most of all;
* **blocking**: our points of two or more checkers ahead of free opposing checkers.

Fevga (:func:`fevga_score`):

* the game's end, and the race;
* **mobility**: for each die 1-6, our checkers that could move that far against the
  opponent's that could — points held (one checker holds a point) in front of the other side
  are what blocks it, so this counts priming and being primed;
* **primes**: the longest run of consecutive points we hold in front of the opponent's
  rearmost checker;
* **spread**: points held, and a small cost for checkers stacked beyond three on a point
  (outside the starting point).

Pure: positions in, a number out.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from engine.movegen import Play
from engine.variants import variant
from engine.variants.fevga.position import FevgaPosition, their_point
from engine.variants.plakoto.position import START_POINT, PlakotoPosition
from engine.variants.variant import Side

WIN = 1000.0
"""The score of a play that wins a single game (a double win scores twice this)."""

ROLLS: tuple[tuple[int, int, int], ...] = tuple(
    (d1, d2, 1 if d1 == d2 else 2) for d1 in range(1, 7) for d2 in range(d1, 7)
)
"""The 21 rolls with their weights out of 36."""


def _reach(distance: int, d1: int, d2: int) -> bool:
    """Whether one checker can travel ``distance`` with ``d1``-``d2`` (blocks ignored)."""
    if d1 == d2:
        return distance % d1 == 0 and distance // d1 <= 4
    return distance in (d1, d2, d1 + d2)


_REACH_MASK: tuple[int, ...] = tuple(
    sum(1 << i for i, (d1, d2, _) in enumerate(ROLLS) if _reach(d, d1, d2)) for d in range(25)
)
"""For each distance, the rolls (bits over :data:`ROLLS`) that carry one checker that far."""
_MASK_WEIGHT: dict[int, float] = {}


def _hit_chance(distances: Sequence[int]) -> float:
    """The share of rolls that bring at least one of the checkers ``distances`` away onto the
    target (each alone; blocks ignored).

    >>> _hit_chance([1]), _hit_chance([6]), round(_hit_chance([1, 2]), 3)
    (0.3055555555555556, 0.4722222222222222, 0.556)
    """
    mask = 0
    for d in distances:
        mask |= _REACH_MASK[d]
    weight = _MASK_WEIGHT.get(mask)
    if weight is None:
        weight = _MASK_WEIGHT[mask] = sum(
            w for i, (_, _, w) in enumerate(ROLLS) if mask >> i & 1) / 36
    return weight


def _ending_score(name: str, position: object) -> float | None:
    ending = variant(name).ending(position)
    if ending is None:
        return None
    if ending.winner is None:
        return -WIN / 4  # a draw: worse than most games still going
    sign = 1.0 if ending.winner is Side.MOVER else -1.0
    return sign * WIN * ending.points


# ---------------------------------------------------------------------------- plakoto

PIN = 12.0
"""A pinned checker's base cost to its owner (plus :data:`PIN_DEPTH` a pip from home)."""
PIN_DEPTH = 0.5
MOTHER = 300.0
"""A pinned mother: its owner loses double unless it pins the other mother first."""
BLOCK = 1.5


def _pin_cost(point: int) -> float:
    """What it costs a side to have its checker pinned on its own ``point``."""
    if point == START_POINT:
        return MOTHER
    return PIN + PIN_DEPTH * point


def plakoto_score(position: PlakotoPosition) -> float:
    """How good ``position`` (just played, seen by the mover) is for the mover."""
    end = _ending_score("plakoto", position)
    if end is not None:
        return end
    mover, opponent = position.mover, position.opponent
    mp, op = position.mover_pinned, position.opponent_pinned
    my_pips, their_pips = position.pips()
    score = float(their_pips - my_pips)
    for p in range(1, 25):
        if op >> p & 1:
            score += _pin_cost(p)
        if mp >> p & 1:
            score -= _pin_cost(p)
    # The opponent's free checkers, on our numbering: it moves from our 1 towards our 24.
    free_at = [0] * 25
    for q in range(1, 25):
        n = opponent[q] - (op >> q & 1)
        if n > 0:
            free_at[25 - q] = n
    theirs = [t for t in range(1, 25) if free_at[t]]
    for b in range(1, 25):
        if mover[b] != 1 or mp >> b & 1:
            continue
        if opponent[25 - b] >= 1:
            continue  # ours on top of a pinned one: not a lone checker
        shooters = [b - t for t in theirs if 0 < b - t <= 24]
        if shooters:
            score -= _hit_chance(shooters) * _pin_cost(b)
    for b in range(1, 25):
        if mover[b] >= 2 and any(t < b for t in theirs):
            score += BLOCK
    return score


# ---------------------------------------------------------------------------- fevga

MOBILITY = 1.0
PRIME = 1.5
HELD = 1.0
STACK = 0.5


def _mobility(board: Sequence[int], blocked: Sequence[bool]) -> int:
    """For each die 1-6, the checkers of ``board`` that could move that far (bearing off
    counted only once all are home); ``blocked[t]``: the side may not stop on its point t."""
    home = not any(board[7:25])
    count = 0
    for p in range(1, 25):
        n = board[p]
        if not n:
            continue
        for d in range(1, 7):
            t = p - d
            if t >= 1:
                if not blocked[t]:
                    count += n
            elif home:
                count += n
    return count


def fevga_score(position: FevgaPosition) -> float:
    """How good ``position`` (just played, seen by the mover) is for the mover."""
    end = _ending_score("fevga", position)
    if end is not None:
        return end
    mover, opponent = position.mover, position.opponent
    my_pips, their_pips = position.pips()
    score = float(their_pips - my_pips)
    mine_blocked = [False] + [bool(opponent[their_point(t)]) for t in range(1, 25)]
    theirs_blocked = [False] + [bool(mover[their_point(t)]) for t in range(1, 25)]
    score += MOBILITY * (_mobility(mover, mine_blocked) - _mobility(opponent, theirs_blocked))
    rear = max((q for q in range(1, 25) if opponent[q]), default=0)
    run = longest = 0
    for q in range(rear - 1, 0, -1):  # the points in front of their rearmost checker
        if theirs_blocked[q]:
            run += 1
            longest = max(longest, run)
        else:
            run = 0
    score += PRIME * longest * longest
    score += HELD * sum(1 for p in range(1, 25) if mover[p])
    score -= STACK * sum(max(0, mover[p] - 3) for p in range(1, 24))
    return score


# ---------------------------------------------------------------------------- choosing

SCORES: dict[str, Callable[[object], float]] = {
    "plakoto": plakoto_score,  # type: ignore[dict-item]
    "fevga": fevga_score,  # type: ignore[dict-item]
}
"""The variants this module plays, with their evaluation."""


def choose_play(name: str, position: object, d1: int, d2: int,
                rng: random.Random) -> Play | None:
    """The heuristic's play of ``d1``-``d2`` in variant ``name`` (``"plakoto"`` or
    ``"fevga"``); None when no die can be played. Equal scores are broken by ``rng``."""
    score = SCORES[name]
    plays = variant(name).legal_plays(position, d1, d2)
    if not plays:
        return None
    scored = [(score(play.position), i) for i, play in enumerate(plays)]
    best = max(s for s, _ in scored)
    ties = [i for s, i in scored if s >= best - 1e-9]
    return plays[ties[0] if len(ties) == 1 else rng.choice(ties)]


def accept_resignation(name: str, position: object, level: int) -> bool:
    """Whether the heuristic accepts a resignation worth ``level`` points (1 or 2) in
    ``position``, seen by the heuristic's side with the resigner on roll: yes when it gives
    the most the resigner can still lose, or when the evaluation does not see the heuristic
    ahead; otherwise it plays on.

    >>> from engine.variants.fevga.position import FevgaPosition
    >>> ahead = FevgaPosition.from_points({1: 15}, {24: 15})
    >>> accept_resignation("fevga", ahead, 1), accept_resignation("fevga", ahead, 2)
    (False, True)
    """
    resigner = position.swapped()  # type: ignore[attr-defined]
    if level >= int(variant(name).worst_possible(resigner)):
        return True
    return SCORES[name](position) <= 0
