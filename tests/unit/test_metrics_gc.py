"""The collector's pauses on /metrics (docs/operations.md): every pass timed, by generation."""

from __future__ import annotations

import gc

from prometheus_client import REGISTRY

from server.ops import metrics


def passes(generation: int) -> float:
    value = REGISTRY.get_sample_value(
        "fairgammon_gc_pause_seconds_count", {"generation": str(generation)}
    )
    return value or 0.0


def test_every_pass_of_the_collector_is_timed_by_generation():
    """Timed in the collector's callback, observed later: observing there could wait for a
    lock the interrupted code holds."""
    installed = metrics._time_gc in gc.callbacks
    try:
        metrics.watch_gc()
        metrics.watch_gc()  # a second app in the process: still one callback
        assert gc.callbacks.count(metrics._time_gc) == 1
        metrics.flush_gc()
        before = [passes(g) for g in range(3)]
        gc.collect(1)
        gc.collect(2)
        assert [passes(g) for g in range(3)] == before  # kept aside until flushed
        metrics.flush_gc()  # (every 0.1 s, watch_loop, and at every scrape)
        after = [passes(g) for g in range(3)]
        assert after[1] >= before[1] + 1 and after[2] >= before[2] + 1, (before, after)
        total = REGISTRY.get_sample_value("fairgammon_gc_pause_seconds_sum", {"generation": "2"})
        assert total is not None and 0 < total < 60
    finally:
        if not installed:
            gc.callbacks.remove(metrics._time_gc)
