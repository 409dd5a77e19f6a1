"""Swiss pairing: one round's pairs and bye, by score, without repeats (pure).

The players come in pairing order (score, then rating, high first; then entry order): the
*ranking*. A *score group* is the players with one score.

1. **Bye.** With an odd number of players, the bye goes to the lowest-ranked player who has not
   had one and without whom everybody else can still be paired with someone not met before.
2. **Pairs.** Repeatedly the highest-ranked unpaired player ``p`` takes the first opponent in
   its order of preference who ``p`` has not met and with whom the players left can still all
   be paired without a repeat. ``p``'s order of preference: the unpaired players of ``p``'s
   score group (``p`` first, ``k`` of them) from the middle down — those ranked ``⌊k/2⌋``,
   ``⌊k/2⌋+1``, …, ``k-1`` places below the top of the group (``p`` itself is place 0) — then
   the upper half upwards, ``⌊k/2⌋-1`` … ``1``; then the players of lower scores, in ranking
   order. Without repeats in the way, this is the Dutch rule: the top half of each score group
   meets the bottom half in order (1 v ⌊k/2⌋+1, 2 v ⌊k/2⌋+2, …), and an odd one out floats
   down to the top of the next group.

"Can still be paired" is decided exactly, with a maximum matching of the players left over the
pairs not met (:mod:`server.competition.matching`): if any pairing of the round without
repeats (and with a fresh bye) exists, one is found; if none exists, :func:`pair_round` says so.

>>> ranked = ["a", "b", "c", "d", "e"]
>>> scores = dict.fromkeys(ranked, 0)
>>> pair_round(ranked, scores, met=set(), had_bye=set())
([('a', 'c'), ('b', 'd')], 'e')
>>> pair_round(["a", "b"], {"a": 1, "b": 0}, met={frozenset("ab")}, had_bye=set()) is None
True
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from collections.abc import Set as AbstractSet
from typing import TypeVar

from server.competition.matching import augment, is_perfect, maximum_matching

Pairs = list[tuple[str, str]]
T = TypeVar("T")


def pair_round(
    ranked: Sequence[str],
    scores: Mapping[str, int],
    met: AbstractSet[frozenset[str]],
    had_bye: AbstractSet[str],
) -> tuple[Pairs, str | None] | None:
    """The pairs (higher-ranked first, top board first) and the bye (None if the count is
    even) of the next round of ``ranked``; None when no pairing without repeats exists."""
    n = len(ranked)
    if n < 2:
        return None
    adj = [
        {j for j in range(n) if j != i and frozenset((ranked[i], ranked[j])) not in met}
        for i in range(n)
    ]
    alive = [True] * n
    bye = None
    mate: list[int] | None = None
    if n % 2:
        for c in reversed(range(n)):
            if ranked[c] in had_bye:
                continue
            alive[c] = False
            mate = maximum_matching(adj, alive)
            if is_perfect(mate, alive):
                bye = c
                break
            alive[c] = True
        if bye is None:
            return None
    else:
        mate = maximum_matching(adj, alive)
        if not is_perfect(mate, alive):
            return None
    assert mate is not None
    pairs: Pairs = []
    while True:
        unpaired = [i for i in range(n) if alive[i]]
        if not unpaired:
            break
        p = unpaired[0]
        for q in _preference(p, unpaired, ranked, scores):
            if q in adj[p] and _still_perfect(mate, adj, alive, p, q):
                break
        else:  # pragma: no cover - p's mate in the perfect matching is always a candidate
            raise AssertionError("the matching was perfect")
        alive[p] = alive[q] = False
        pairs.append((ranked[p], ranked[q]))
    return pairs, (ranked[bye] if bye is not None else None)


def preference(unpaired: Sequence[str], scores: Mapping[str, int]) -> list[str]:
    """The order of preference of the top one of the ``unpaired`` (in ranking order), as the
    module's docstring says.

    >>> preference(["a", "b", "c", "d", "e", "f"], {**dict.fromkeys("abcde", 1), "f": 0})
    ['c', 'd', 'e', 'b', 'f']
    """
    return _order(list(unpaired), lambda name: scores[name])


def _preference(
    p: int, unpaired: Sequence[int], ranked: Sequence[str], scores: Mapping[str, int]
) -> list[int]:
    assert unpaired[0] == p
    return _order(list(unpaired), lambda i: scores[ranked[i]])


def _order(unpaired: list[T], score: Callable[[T], int]) -> list[T]:
    mine = score(unpaired[0])
    group = [x for x in unpaired if score(x) == mine]  # the top one first
    lower = [x for x in unpaired if score(x) != mine]
    half = len(group) // 2
    if not half:  # alone in its group: it floats down
        return lower
    return group[half:] + group[half - 1 : 0 : -1] + lower


def _still_perfect(
    mate: list[int], adj: Sequence[set[int]], alive: list[bool], p: int, q: int
) -> bool:
    """Whether the live players other than ``p`` and ``q`` can all be paired over unmet
    pairs; if so, ``mate`` becomes such a pairing (``mate`` is a perfect matching of the live
    players on entry)."""
    if mate[p] == q:
        mate[p] = mate[q] = -1
        return True
    a, b = mate[p], mate[q]
    trial = mate.copy()
    trial[p] = trial[q] = trial[a] = trial[b] = -1
    if b in adj[a]:
        trial[a], trial[b] = b, a
    else:
        alive[p] = alive[q] = False
        found = augment(a, adj, alive, trial)
        alive[p] = alive[q] = True
        if not found:
            return False
    mate[:] = trial
    return True
