"""Maximum matchings (server/competition/matching.py) against an exhaustive search: on every
graph drawn (up to 12 vertices, any density, some vertices left out), the blossom algorithm
finds a matching as large as the best one, made of edges of the graph, each vertex once."""

from __future__ import annotations

import functools

from hypothesis import given, settings
from hypothesis import strategies as st

from server.competition.matching import is_perfect, maximum_matching, size


def best_size(n: int, edges: frozenset[tuple[int, int]], alive: tuple[bool, ...]) -> int:
    @functools.cache
    def best(mask: int) -> int:
        if mask == 0:
            return 0
        v = (mask & -mask).bit_length() - 1
        rest = mask & ~(1 << v)
        found = best(rest)  # v unmatched
        for u in range(n):
            if rest >> u & 1 and (min(u, v), max(u, v)) in edges:
                found = max(found, 1 + best(rest & ~(1 << u)))
        return found

    return best(sum(1 << v for v in range(n) if alive[v]))


@st.composite
def graphs(draw: st.DrawFn) -> tuple[int, frozenset[tuple[int, int]], tuple[bool, ...]]:
    n = draw(st.integers(1, 12))
    density = draw(st.floats(0, 1))
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    chosen = draw(st.lists(st.floats(0, 1), min_size=len(pairs), max_size=len(pairs)))
    edges = frozenset(p for p, x in zip(pairs, chosen, strict=True) if x < density)
    alive = tuple(draw(st.lists(st.booleans(), min_size=n, max_size=n)))
    return n, edges, alive


@settings(max_examples=400, deadline=None)
@given(graphs())
def test_the_matching_is_maximum(
    graph: tuple[int, frozenset[tuple[int, int]], tuple[bool, ...]],
) -> None:
    n, edges, alive = graph
    adj = [set() for _ in range(n)]
    for i, j in edges:
        adj[i].add(j)
        adj[j].add(i)
    mate = maximum_matching(adj, alive)
    for v in range(n):
        if mate[v] != -1:
            assert alive[v] and alive[mate[v]] and mate[mate[v]] == v
            assert (min(v, mate[v]), max(v, mate[v])) in edges
    assert size(mate) == best_size(n, edges, alive)
    assert is_perfect(mate, alive) == (2 * size(mate) == sum(alive))
