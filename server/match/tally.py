"""The metrics listener of the match bus (:mod:`server.match.bus`): counts each committed
transition (its command kind, checker plays, forfeits), each finished game and each finished
match, by how they ended (``/metrics``, :mod:`server.ops.metrics`). Plain functions: they run
inline, a counter increment each."""

from __future__ import annotations

from server.match.bus import Committed, GameFinished, MatchFinished
from server.ops import metrics


def committed(event: Committed) -> None:
    metrics.count(event.command, event.events)


def game_finished(event: GameFinished) -> None:
    metrics.GAMES_FINISHED.labels(event.over.reason).inc()


def match_finished(event: MatchFinished) -> None:
    metrics.MATCHES_FINISHED.labels(event.over.reason).inc()
