"""Arena pairing (pure): who plays whom among the players waiting for a match.

Whenever something changes (a match ends, a player joins, time passes), the players free to
play are paired at once, in the order they became free (longest waiting first; equal times by
the standings, best first). Each takes, among the others still unpaired, the one closest in
points, then closest in the standings, then the better placed. Two players who were each
other's last opponent only meet again once both have waited ``repeat_wait`` ms since their
match; until then a player with nobody else free waits. Nothing is paired once the arena's
cutoff (``cutoff_ms`` before its end) has come (:mod:`server.competition.machine`).

>>> w = [Waiter("a", 0, 10, 0, "b"), Waiter("b", 1, 8, 0, "a"), Waiter("c", 2, 2, 5, None)]
>>> pair_waiting(w, now=10, repeat_wait=20)
[('a', 'c')]
>>> pair_waiting(w[:2], now=10, repeat_wait=20), pair_waiting(w[:2], now=20, repeat_wait=20)
([], [('a', 'b')])
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Waiter:
    """A player free to be paired: ``rank`` its place in the standings (0 best)."""

    id: str
    rank: int
    points: int
    since: int
    last: str | None


def pair_waiting(waiting: Sequence[Waiter], now: int, repeat_wait: int) -> list[tuple[str, str]]:
    """The pairs to make now (the one who waited longest first in each pair)."""
    order = sorted(waiting, key=lambda w: (w.since, w.rank))
    taken: set[str] = set()
    pairs = []
    for p in order:
        if p.id in taken:
            continue
        best: Waiter | None = None
        best_key: tuple[int, int, int] | None = None
        for q in order:
            if q.id == p.id or q.id in taken or blocked(p, q, now, repeat_wait):
                continue
            key = (abs(p.points - q.points), abs(p.rank - q.rank), q.rank)
            if best_key is None or key < best_key:
                best, best_key = q, key
        if best is not None:
            taken |= {p.id, best.id}
            pairs.append((p.id, best.id))
    return pairs


def blocked(p: Waiter, q: Waiter, now: int, repeat_wait: int) -> bool:
    """True while ``p`` and ``q`` may not meet: they just met, and one of them has not
    waited ``repeat_wait`` since."""
    return (p.last == q.id or q.last == p.id) and now < max(p.since, q.since) + repeat_wait


def unblocked_at(waiting: Sequence[Waiter], repeat_wait: int) -> int | None:
    """The first time a pair of the (all mutually blocked) ``waiting`` may meet."""
    times = [
        max(p.since, q.since) + repeat_wait
        for i, p in enumerate(waiting)
        for q in waiting[i + 1 :]
        if p.last == q.id or q.last == p.id
    ]
    return min(times, default=None)
