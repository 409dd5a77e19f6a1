"""Matches against the computer: created by the lobby, played by a bot worker (docs/bots.md).

``POST /api/matches`` with ``"bot": "easy" | "normal" | "hard" | "expert"`` creates the match
as usual (the creator in seat 0), seats the bot in seat 1 at once under the level's name, and
puts the seat (with its token) on the bots' work queue. The level is kept in the match's seats
hash (field ``bot``), so the lobby can label the match and anything that ranks people can leave
it out; the token itself only ever travels to the worker. A rematch of a match against the
computer is one too: the rematch process carries the field over when the bot takes the
rematch's seat (``server.match.rematch``, given :data:`BOT_FIELD` in ``server/app.py``).
"""

from __future__ import annotations

import time
from typing import Any

from bots import queue
from bots.catalog import NAMES, Level, check_level
from protocol.errors import ErrorCode
from server.machine.commands import Join
from server.match.service import Created, MatchService
from server.match.store import Store, seats_key
from server.match.tokens import new_seat_token, token_hash

BOT_SEAT = 1
BOT_FIELD = "bot"


class NoBots(Exception):
    """No bot worker is running: a match against the computer would never be played."""

    code = ErrorCode.NO_BOTS


def parse_level(body: dict[str, Any], variant: str = "backgammon") -> Level | None:
    """The ``bot`` field of a create request for a match of ``variant`` (None: a match
    between people).

    Raises ``ValueError`` for anything but a level name, and
    :class:`~bots.catalog.NoSuchLevel` (a ``ValueError``) for a level the computer does not
    play in ``variant`` (:data:`bots.catalog.VARIANT_LEVELS`).

    >>> parse_level({"bot": "hard"}, "nackgammon"), parse_level({}, "fevga")
    (<Level.HARD: 'hard'>, None)
    >>> parse_level({"bot": "hard"}, "fevga")
    Traceback (most recent call last):
    ...
    bots.catalog.NoSuchLevel: the computer plays fevga at easy only
    """
    raw = body.get("bot")
    if raw is None:
        return None
    if not isinstance(raw, str) or raw not in Level.__members__.values():
        raise ValueError("bot is easy, normal, hard or expert")
    level = Level(raw)
    check_level(variant, level)
    return level


async def ensure_workers(service: MatchService) -> None:
    """:class:`NoBots` unless a bot worker is alive to play the match."""
    if not await queue.workers_alive(service.store.redis, int(time.time() * 1000)):
        raise NoBots("the computer opponent is not running on this server")


async def seat_bot(service: MatchService, created: Created, level: Level) -> None:
    """Seat the bot in a just created match and put its seat on the bots' work queue."""
    redis = service.store.redis
    token = new_seat_token()
    fields = {str(BOT_SEAT): token_hash(token), BOT_FIELD: level.value.encode()}
    await service.submit(created.match_id, Join(BOT_SEAT, name=NAMES[level]),
                         seat_fields=fields)
    await queue.enqueue(redis, queue.BotSeat(created.match_id, BOT_SEAT, token, level))


async def level_of(store: Store, match_id: str) -> str | None:
    """The bot's level in ``match_id``, None for a match between people."""
    raw = await store.redis.hget(seats_key(match_id), BOT_FIELD)
    return raw.decode() if raw else None
