"""The analysis listener of the match-event bus (:mod:`server.match.bus`): each finished game
goes to the analysis workers' queue (:func:`server.work.analysis_queue.enqueue`) as soon as it
is stored, by the process that stored it.

At most once, as the bus promises after a commit: a process that dies before the game is
queued leaves it unqueued, and the first request for its report queues it
(``GET /api/matches/{id}/games/{n}/analysis.json``, ``server/web/records.py``). Queueing is
idempotent (``SET NX`` of the game's status key), so a game queued both ways is analysed once.
"""

from __future__ import annotations

import redis.asyncio as aioredis

from server.match.bus import GameFinished
from server.work import analysis_queue


class Analysis:
    """Listens for ``GameFinished`` (an ``async def``: the bus runs it as a task, and logs and
    counts a failure, e.g. Redis out of reach)."""

    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis

    async def game_finished(self, event: GameFinished) -> None:
        await analysis_queue.enqueue(self.redis, event.match_id, event.game)
