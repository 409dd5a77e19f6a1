"""The servers' own pause figures, from their ``/metrics``: the collector's passes
(``fairgammon_gc_pause_seconds{generation}``), the event loop's lag
(``fairgammon_loop_lag_seconds``) and the store's time per commit
(``fairgammon_event_append_seconds``), summed over the given servers and taken as the difference
between two scrapes (the measured window).

>>> h = Histogram({0.01: 2.0, 0.1: 5.0, float("inf"): 5.0}, 5.0, 0.2)
>>> h.minus(Histogram({0.01: 1.0, 0.1: 1.0, float("inf"): 1.0}, 1.0, 0.005)).count
4.0
>>> h.quantile(0.99), h.most()
(0.1, 0.1)
"""

from __future__ import annotations

import urllib.request
from dataclasses import dataclass, field

from prometheus_client.parser import text_string_to_metric_families

GC = "fairgammon_gc_pause_seconds"
LAG = "fairgammon_loop_lag_seconds"
APPEND = "fairgammon_event_append_seconds"
NAMES = {LAG: "lag", APPEND: "append"}


@dataclass
class Histogram:
    """Cumulative bucket counts by upper bound (``inf`` last), the count and the sum."""

    buckets: dict[float, float] = field(default_factory=dict)
    count: float = 0.0
    total: float = 0.0

    def add(self, other: Histogram) -> Histogram:
        bounds = set(self.buckets) | set(other.buckets)
        return Histogram(
            {b: self.buckets.get(b, 0.0) + other.buckets.get(b, 0.0) for b in sorted(bounds)},
            self.count + other.count,
            self.total + other.total,
        )

    def minus(self, before: Histogram) -> Histogram:
        return Histogram(
            {b: n - before.buckets.get(b, 0.0) for b, n in self.buckets.items()},
            self.count - before.count,
            self.total - before.total,
        )

    def quantile(self, q: float) -> float | None:
        """The upper bound of the bucket that holds quantile ``q`` (None if empty)."""
        if self.count <= 0:
            return None
        return next(b for b, n in sorted(self.buckets.items()) if n >= q * self.count)

    def most(self) -> float | None:
        """The upper bound of the highest bucket with an observation (None if empty)."""
        return self.quantile(1.0)


def scrape(bases: list[str], timeout: float = 5.0) -> dict[str, Histogram]:
    """``{"gc0": …, "gc1": …, "gc2": …, "lag": …, "append": …}`` summed over the servers at
    ``bases``."""
    found: dict[str, Histogram] = {}
    for base in bases:
        with urllib.request.urlopen(f"{base}/metrics", timeout=timeout) as answer:
            text = answer.read().decode()
        for family in text_string_to_metric_families(text):
            if family.name != GC and family.name not in NAMES:
                continue
            parts: dict[str, Histogram] = {}
            for sample in family.samples:
                key = NAMES.get(family.name) or f"gc{sample.labels.get('generation')}"
                h = parts.setdefault(key, Histogram())
                if sample.name.endswith("_bucket"):
                    h.buckets[float(sample.labels["le"])] = sample.value
                elif sample.name.endswith("_count"):
                    h.count = sample.value
                elif sample.name.endswith("_sum"):
                    h.total = sample.value
            for key, h in parts.items():
                found[key] = found[key].add(h) if key in found else h
    return found


def window(before: dict[str, Histogram], after: dict[str, Histogram]) -> dict[str, Histogram]:
    """What happened between two scrapes."""
    return {k: h.minus(before.get(k, Histogram())) for k, h in after.items()}
