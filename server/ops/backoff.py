"""How long to wait before asking again a store that did not answer (a failover, a cluster
master restarting): the first wait, then twice as long each time, up to the longest. Used by a
follower's catch-up (:mod:`server.match.hub`, for as long as its connection lasts) and the
crash credit (:mod:`server.match.crash_credit`, a bounded number of times).

>>> list(itertools.islice(doubling(0.25, 2.0), 6))
[0.25, 0.5, 1.0, 2.0, 2.0, 2.0]
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator


def doubling(first: float, longest: float) -> Iterator[float]:
    """The waits, without end: ``first``, twice that, ... capped at ``longest``."""
    delay = first
    while True:
        yield delay
        delay = min(delay * 2, longest)


def waits(first: float, longest: float, count: int) -> tuple[float, ...]:
    """The first ``count`` of :func:`doubling`'s waits.

    >>> waits(0.25, 2.0, 8)
    (0.25, 0.5, 1.0, 2.0, 2.0, 2.0, 2.0, 2.0)
    """
    return tuple(itertools.islice(doubling(first, longest), count))
