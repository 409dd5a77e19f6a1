"""Percentiles and number formatting for the load report.

>>> percentile([5.0, 1.0, 3.0, 2.0, 4.0], 50)
3.0
>>> percentile([], 99) is None
True
>>> ms(None), ms(0.1234), ms(12.34), ms(1234.5)
('-', '0.12', '12.3', '1234')
"""

from __future__ import annotations

import math
from collections.abc import Sequence


def percentile(values: Sequence[float], p: float) -> float | None:
    """The ``p``-th percentile (nearest rank) of ``values``, None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    rank = max(1, math.ceil(p / 100 * len(ordered)))
    return ordered[rank - 1]


def ms(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 1:
        return f"{value:.2f}"
    if value < 100:
        return f"{value:.1f}"
    return f"{value:.0f}"


def mib(n: float) -> str:
    return f"{n / (1 << 20):.0f} MiB"
