"""Prometheus metrics at ``/metrics``.

With several worker processes (``--workers N``) each process writes its samples to files in
``PROMETHEUS_MULTIPROC_DIR`` (set by ``fairgammon serve``) and ``/metrics`` sums them, so a scrape
that lands on any worker sees the whole server.
"""

from __future__ import annotations

import asyncio
import gc
import os
import time
from typing import Any

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
)
from prometheus_client import multiprocess as prom_multiprocess
from starlette.requests import Request
from starlette.responses import Response

from protocol.events import Forfeit, Moved

_MULTI = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))

LIVE_MATCHES = Gauge(
    "fairgammon_live_matches",
    "Matches being played (by any process; from the live index)",
    multiprocess_mode="max",
)
CONNECTIONS = Gauge(
    "fairgammon_connections",
    "Open WebSocket connections, by role",
    ["role"],
    multiprocess_mode="livesum",
)
LOST_WRITES = Counter(
    "fairgammon_lost_writes_total",
    "Acknowledged writes the store lost (a failover, a restart from an old snapshot), found by "
    "the server's own evidence, by where it was seen",
    ["seen"],
)
UNCONFIRMED_AHEAD = Counter(
    "fairgammon_unconfirmed_ahead_total",
    "Clients that claimed a version beyond the store which no evidence of this process backs "
    "(any client can send one: not an alert), by role",
    ["role"],
)
COMMANDS = Counter("fairgammon_commands_total", "Accepted commands, by kind", ["kind"])
MOVES = Counter("fairgammon_moves_total", "Accepted checker plays (rate: moves per second)")
REJECTIONS = Counter("fairgammon_rejections_total", "Refused frames and actions, by code", ["code"])
FORFEITS = Counter("fairgammon_forfeits_total", "Forfeits settled, by reason", ["reason"])
GAMES_FINISHED = Counter(
    "fairgammon_games_finished_total", "Games finished, by how they ended", ["reason"]
)
MATCHES_FINISHED = Counter(
    "fairgammon_matches_finished_total", "Matches finished, by how they ended", ["reason"]
)
LISTENER_ERRORS = Counter(
    "fairgammon_listener_errors_total",
    "Match-event listeners that raised, by listener (after a commit: that listener missed the "
    "event; before one: the commit was refused)",
    ["listener"],
)
APPEND_SECONDS = Histogram(
    "fairgammon_event_append_seconds",
    "Time to store one transition in Redis (compare-and-set, log append, publish)",
    buckets=(0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0),
)
TOURNAMENT_PAIRING_SECONDS = Histogram(
    "fairgammon_tournament_pairing_seconds",
    "From a tournament match's end being counted (the match-event bus, after its last commit) "
    "to the pairings it allowed stored and their matches made",
    buckets=(0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 3.0, 5.0, 10.0),
)
DROPPED = Counter(
    "fairgammon_dropped_connections_total",
    "Connections ended because the client did not keep up, by reason (too_slow: its send "
    "queue filled; unresponsive: no answer to probes)",
    ["reason"],
)
REDIS_ERRORS = Counter("fairgammon_redis_errors_total", "Failed Redis operations")
GC_PAUSES = Histogram(
    "fairgammon_gc_pause_seconds",
    "Passes of Python's cyclic garbage collector, by generation (0 young, 1 middle, 2 full): "
    "the whole process waits for each",
    ["generation"],
    buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0),
)
LOOP_LAG = Histogram(
    "fairgammon_loop_lag_seconds",
    "How late the event loop ran a timer due every 0.1 s: what every frame and action waited "
    "for meanwhile",
    buckets=(0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0),
)


def watch_gc() -> None:
    """Time every pass of the collector into :data:`GC_PAUSES` (once per process)."""
    if _time_gc in gc.callbacks:
        return
    for generation in range(3):
        GC_PAUSES.labels(str(generation))  # listed (at zero) before the first pass
    gc.callbacks.append(_time_gc)


_gc_started = [0.0]
_gc_seconds: tuple[list[float], ...] = ([], [], [])
"""Pauses not yet in :data:`GC_PAUSES`, by generation (at most 10,000 each)."""


def _time_gc(phase: str, info: dict[str, Any]) -> None:
    # Only a float kept here: observing a metric takes a lock that the code the collector
    # interrupted may hold (prometheus-client's locks do not re-enter). flush_gc() moves them.
    if phase == "start":
        _gc_started[0] = time.perf_counter()
        return
    seconds = _gc_seconds[info["generation"]]
    if len(seconds) < 10_000:
        seconds.append(time.perf_counter() - _gc_started[0])


def flush_gc() -> None:
    """Put the collector's pauses timed since into :data:`GC_PAUSES` (by :func:`watch_loop`
    and at every scrape: each worker process flushes its own)."""
    for generation, seconds in enumerate(_gc_seconds):
        while seconds:
            GC_PAUSES.labels(str(generation)).observe(seconds.pop())


async def watch_loop(every: float = 0.1) -> None:
    """Forever: how late the event loop runs a timer due every ``every`` seconds
    (:data:`LOOP_LAG`), and the collector's pauses timed meanwhile into :data:`GC_PAUSES`."""
    loop = asyncio.get_running_loop()
    due = loop.time()
    while True:
        due += every
        await asyncio.sleep(max(0.0, due - loop.time()))
        now = loop.time()
        LOOP_LAG.observe(max(0.0, now - due))
        if now - due > every:
            due = now  # after a stall, no burst of ticks to catch up
        flush_gc()


def render() -> bytes:
    flush_gc()
    if _MULTI:
        registry = CollectorRegistry()
        prom_multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry)
    return generate_latest()


async def endpoint(request: Request) -> Response:
    services = request.app.state.services
    try:
        LIVE_MATCHES.set(await services.store.live_count())
    except Exception:
        REDIS_ERRORS.inc()
    return Response(render(), media_type=CONTENT_TYPE_LATEST)


def count(command: object, events: tuple[object, ...]) -> None:
    """Count an accepted transition: its command kind, plays, forfeits."""
    COMMANDS.labels(type(command).__name__ if command is not None else "Expire").inc()
    for event in events:
        data = getattr(event, "data", None)
        if isinstance(data, Moved):
            MOVES.inc()
        elif isinstance(data, Forfeit):
            FORFEITS.labels(data.reason).inc()
