"""The Top Gamer boards: this week's and this month's best players (docs/accounts.md, "Top
Gamer").

A player's score in a period is the sum of the rating changes of the rated matches they
finished in it plus the tournament points of the tournaments they finished in it; the board
shows the score, both parts and the number of rated matches. A player is on a period's board
from their first rated match (or finished tournament) in it: no experience needed (the
all-time leaderboard keeps its own rule). Periods are of UTC wall time: ISO weeks
(``2026-W49``, Monday to Sunday) and calendar months (``2026-12``).

Keys, all under the hash tag ``{top}`` (one slot, so one script updates a week and a month):

    fg:{top}:<period>          sorted set: account key -> score in hundredths
    fg:{top}:<period>:parts    hash: ``n:<key>`` rated matches, ``r:<key>`` rating change in
                               hundredths, ``t:<key>`` tournament points
    fg:{top}:seen:<month>      set: what was counted in that month (``m:<match>:<key>``,
                               ``t:<tournament>:<key>``)

Counting is exactly once whatever repeats: :class:`Results` (server/players/results.py) calls
:meth:`TopBoards.rated` every time it records a rated match, with the match's wall time fixed
in its stored result, so the same periods and the same ``seen`` entry each time; the script
adds nothing for an entry already seen. A finished tournament counts at the wall time its
``Finish`` effect is carried out (the tournament shell's ``placed`` hook).

>>> import datetime as dt
>>> at = int(dt.datetime(2026, 12, 3, 10, 0, tzinfo=dt.UTC).timestamp() * 1000)
>>> periods(at)
('2026-W49', '2026-12')
>>> periods(int(dt.datetime(2027, 1, 1, tzinfo=dt.UTC).timestamp() * 1000))
('2026-W53', '2027-01')
"""

from __future__ import annotations

import datetime as dt
import time
from typing import Any

import redis.asyncio as aioredis

WEEK_TTL_S = 120 * 86_400
MONTH_TTL_S = 400 * 86_400
KINDS = ("week", "month")


def periods(wall_ms: int) -> tuple[str, str]:
    """The ISO week and the month of a UTC wall time (ms)."""
    day = dt.datetime.fromtimestamp(wall_ms / 1000, dt.UTC)
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}", f"{day.year}-{day.month:02d}"


def board_key(period: str) -> str:
    return f"fg:{{top}}:{period}"


# KEYS: week board, week parts, month board, month parts, the month's seen set.
# ARGV: seen entry, account key, score (hundredths), rating change (hundredths), tournament
# points, matches, week ttl, month ttl. Adds once per seen entry; 1 if added.
_ADD = """
if redis.call('SADD', KEYS[5], ARGV[1]) == 0 then
  return 0
end
redis.call('EXPIRE', KEYS[5], ARGV[8])
for i = 0, 1 do
  local board, parts = KEYS[1 + 2 * i], KEYS[2 + 2 * i]
  redis.call('ZINCRBY', board, ARGV[3], ARGV[2])
  redis.call('HINCRBY', parts, 'r:' .. ARGV[2], ARGV[4])
  redis.call('HINCRBY', parts, 't:' .. ARGV[2], ARGV[5])
  redis.call('HINCRBY', parts, 'n:' .. ARGV[2], ARGV[6])
  local ttl = ARGV[7 + i]
  redis.call('EXPIRE', board, ttl)
  redis.call('EXPIRE', parts, ttl)
end
return 1
"""


class TopBoards:
    def __init__(self, redis: aioredis.Redis) -> None:
        self.redis = redis
        self._add = redis.register_script(_ADD)

    async def _count(
        self, seen: str, key: str, wall_ms: int, change: int, points: int, matches: int
    ) -> bool:
        week, month = periods(wall_ms)
        keys = [board_key(week), board_key(week) + ":parts", board_key(month),
                board_key(month) + ":parts", f"fg:{{top}}:seen:{month}"]  # fmt: skip
        args = [seen, key, change + 100 * points, change, points, matches, WEEK_TTL_S,
                MONTH_TTL_S]  # fmt: skip
        return bool(await self._add(keys=keys, args=args))

    async def rated(self, match_id: str, key: str, delta: float, wall_ms: int) -> bool:
        """A rated match of account ``key`` that moved its rating by ``delta`` (once)."""
        change = round(delta * 100)
        return await self._count(f"m:{match_id}:{key}", key, wall_ms, change, 0, 1)

    async def placed(self, tid: str, at: int, lines: list[tuple[str, str | None, int]]) -> None:
        """The tournament shell's ``placed`` hook: each account's tournament points (once)."""
        wall = int(time.time() * 1000)
        for _, ref, points in lines:
            if ref and points:
                key = ref.partition(" ")[0]
                await self._count(f"t:{tid}:{key}", key, wall, 0, points, 0)

    async def board(self, kind: str, wall_ms: int, count: int) -> tuple[str, list[dict[str, Any]]]:
        """The period of ``kind`` (week or month) holding ``wall_ms`` and its best ``count``:
        ``{key, score, rating_change, tournament_points, matches}``, best first."""
        period = periods(wall_ms)[KINDS.index(kind)]
        key = board_key(period)
        top = await self.redis.zrevrange(key, 0, count - 1, withscores=True)
        if not top:
            return period, []
        names = [k.decode() for k, _ in top]
        fields = [f"{p}:{n}" for n in names for p in ("r", "t", "n")]
        parts = await self.redis.hmget(key + ":parts", fields)
        out = []
        for i, (name, score) in enumerate(zip(names, (s for _, s in top), strict=True)):
            r, t, n = (int(x or 0) for x in parts[3 * i : 3 * i + 3])
            out.append({"key": name, "score": round(score / 100, 2), "rating_change": r / 100,
                        "tournament_points": t, "matches": n})  # fmt: skip
        return period, out
