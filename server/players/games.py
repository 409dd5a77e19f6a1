"""A player's games: every live match an account plays, whose turn it is and the time left,
most urgent first (``GET /api/my/games``), and the per-account limit of correspondence matches.

    fg:{u:<name>}:games   sorted set: match id -> when the account took its seat (ms)

The index is a hint, like the lobby's: a match is added when the account takes a seat
(create, join, an accepted challenge), removed when a listener of the match-event bus hears
it finished (:meth:`MyGames.finished`) — and whatever a lost delivery leaves behind is dropped
by the next read, which checks every entry against the match's stored summary (a match over,
or gone, is removed on the way). So no mark and sweep is needed: the store says what was
missed (docs/architecture.md, "The match-event bus").

Urgency (:func:`urgency`): the games where the player owes a decision first, the nearest
deadline first; then the games waiting for the opponent, the nearest deadline first; games
without a deadline (waiting for an opponent) last.

>>> rows = [
...     {"match": "a", "your_turn": False, "deadline": 5},
...     {"match": "b", "your_turn": True, "deadline": 9},
...     {"match": "c", "your_turn": True, "deadline": 7},
...     {"match": "d", "your_turn": False, "deadline": None},
... ]
>>> [r["match"] for r in sorted(rows, key=urgency)]
['c', 'b', 'a', 'd']
"""

from __future__ import annotations

from typing import Any

import msgpack
import redis.asyncio as aioredis

from server.match.bus import MatchFinished
from server.match.store import Store
from server.players.accounts import Account
from server.players.accounts_store import tag

MAX_LISTED = 500
"""Most entries one read looks at (an account's limit is far below)."""


def games_key(account_key: str) -> str:
    return f"{tag(account_key)}:games"


def urgency(row: dict[str, Any]) -> tuple[int, int, str]:
    """The sort key of a game in a player's list: (not my turn, deadline, match id)."""
    deadline = row.get("deadline")
    return (0 if row.get("your_turn") else 1, deadline if deadline is not None else 2**62,
            row["match"])  # fmt: skip


class MyGames:
    """The index of each account's live games over ``store`` (one per process)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    @property
    def redis(self) -> aioredis.Redis:
        return self.store.redis

    async def add(self, account: Account, match_id: str, at: int) -> None:
        """``account`` took a seat of ``match_id`` (idempotent: a retry changes nothing)."""
        await self.redis.zadd(games_key(account.key), {match_id: at}, nx=True)

    async def remove(self, account_key: str, match_id: str) -> None:
        await self.redis.zrem(games_key(account_key), match_id)

    async def live(self, account: Account) -> list[dict[str, Any]]:
        """The live games of ``account``, each ``{match, seat, summary}``, most urgent first
        (two round trips: the index, then every match's summary and seats in one pipeline).
        Entries of matches that are over or gone are removed on the way."""
        listed = await self.redis.zrange(games_key(account.key), 0, MAX_LISTED - 1)
        ids = [m.decode() if isinstance(m, bytes) else m for m in listed]
        if not ids:
            return []
        rows = await self.store.listing(ids, ("a0", "a1"))
        out, stale = [], []
        for match_id, (blob, (a0, a1)) in zip(ids, rows, strict=True):
            summary = msgpack.unpackb(blob, raw=False) if blob else None
            refs = [a.decode() if a else None for a in (a0, a1)]
            seat = next((s for s in (0, 1) if refs[s] == account.ref), None)
            if summary is None or summary["phase"] == "over" or seat is None:
                stale.append(match_id)
                continue
            out.append({"match": match_id, "seat": seat, "summary": summary,
                        "your_turn": seat in summary.get("owes", ()),
                        "deadline": summary.get("deadline")})  # fmt: skip
        if stale:
            await self.redis.zrem(games_key(account.key), *stale)
        out.sort(key=urgency)
        return out

    async def correspondence_count(self, account: Account) -> int:
        """How many live correspondence matches ``account`` plays (or waits for) now."""
        return sum(1 for g in await self.live(account) if g["summary"].get("days"))

    async def match_finished(self, event: MatchFinished) -> None:
        """A listener of the match-event bus: a finished match leaves the lists of the accounts
        in its seats (at most once: a lost delivery is dropped by the next read)."""
        a0, a1 = await self.store.seat_fields(event.match_id, ["a0", "a1"])
        for ref in (a0, a1):
            if ref:
                await self.remove(ref.decode().split(" ", 1)[0], event.match_id)
