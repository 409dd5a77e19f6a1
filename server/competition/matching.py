"""Maximum matchings in a general graph (Edmonds' blossom algorithm), for Swiss pairing.

Vertices are ``0..n-1``; ``adj[v]`` is the set of ``v``'s neighbours (here: the players ``v`` has
not met); ``alive[v]`` says whether ``v`` is in the graph at all (players already paired or
given the bye are not). A matching is a list ``mate`` with ``mate[v]`` the partner of ``v`` or
``-1``.

:func:`augment` looks for one augmenting path from an unmatched vertex (a path that alternates
unmatched and matched edges and ends at another unmatched vertex), contracting odd cycles
("blossoms") as it meets them, and flips it; a matching is maximum when no unmatched vertex has
one (Berge). Each search is a breadth-first walk, O(n³) at worst with the blossom bookkeeping
here, which is plenty for a tournament's 256 players. Checked against an exhaustive search on
small graphs (tests/unit/test_competition_matching.py).

>>> # a 5-cycle plus a pendant vertex: perfect only through the odd cycle
>>> adj = [{1, 4, 5}, {0, 2}, {1, 3}, {2, 4}, {3, 0}, {0}]
>>> mate = maximum_matching(adj)
>>> size(mate), mate[5]
(3, 0)
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from collections.abc import Set as AbstractSet


def maximum_matching(
    adj: Sequence[AbstractSet[int]],
    alive: Sequence[bool] | None = None,
    mate: list[int] | None = None,
) -> list[int]:
    """A maximum matching of the live vertices, grown from ``mate`` (changed in place) if
    given."""
    n = len(adj)
    live = list(alive) if alive is not None else [True] * n
    mate = mate if mate is not None else [-1] * n
    for v in range(n):
        if live[v] and mate[v] == -1:
            augment(v, adj, live, mate)
    return mate


def size(mate: Sequence[int]) -> int:
    """The number of matched pairs."""
    return sum(1 for v, m in enumerate(mate) if m > v)


def is_perfect(mate: Sequence[int], alive: Sequence[bool]) -> bool:
    return all(mate[v] != -1 for v in range(len(mate)) if alive[v])


def augment(
    root: int, adj: Sequence[AbstractSet[int]], alive: Sequence[bool], mate: list[int]
) -> bool:
    """Find an augmenting path from unmatched ``root`` and flip it (True), or say there is
    none (False, ``mate`` unchanged)."""
    n = len(adj)
    # parent[v]: for an odd (outer-to-inner) vertex v, the outer vertex it was reached from.
    parent = [-1] * n
    # base[v]: the base of the blossom v is in (itself when in none).
    base = list(range(n))
    outer = [False] * n  # even vertices: the root, and mates of reached odd vertices
    outer[root] = True
    queue = deque([root])

    def common_base(a: int, b: int) -> int:
        """The base of the first blossom on both alternating paths from a and b to the root."""
        seen = [False] * n
        while True:
            a = base[a]
            seen[a] = True
            if mate[a] == -1:
                break
            a = parent[mate[a]]
        while True:
            b = base[b]
            if seen[b]:
                return b
            b = parent[mate[b]]

    def mark(v: int, stop: int, child: int, in_blossom: list[bool]) -> None:
        """Walk from v down to the blossom's base ``stop``, marking the bases met and pointing
        the odd vertices' parents across the new blossom (towards ``child``)."""
        while base[v] != stop:
            in_blossom[base[v]] = in_blossom[base[mate[v]]] = True
            parent[v] = child
            child = mate[v]
            v = parent[mate[v]]

    while queue:
        v = queue.popleft()
        for to in adj[v]:
            if not alive[to] or base[v] == base[to] or mate[v] == to:
                continue
            if to == root or (mate[to] != -1 and parent[mate[to]] != -1):
                # v and to are both even: an odd cycle closes; contract it into its base.
                top = common_base(v, to)
                in_blossom = [False] * n
                mark(v, top, to, in_blossom)
                mark(to, top, v, in_blossom)
                for i in range(n):
                    if in_blossom[base[i]]:
                        base[i] = top
                        if not outer[i]:
                            outer[i] = True
                            queue.append(i)
            elif parent[to] == -1:
                parent[to] = v
                if mate[to] == -1:
                    _flip(to, parent, mate)
                    return True
                outer[mate[to]] = True
                queue.append(mate[to])
    return False


def _flip(end: int, parent: list[int], mate: list[int]) -> None:
    """Swap matched and unmatched edges along the path that ends at ``end``."""
    v = end
    while v != -1:
        up = parent[v]
        further = mate[up]
        mate[v] = up
        mate[up] = v
        v = further
