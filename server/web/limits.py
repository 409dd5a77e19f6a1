"""What keeps the lobby useful when one client floods it.

Three limits, all kept in Redis so that every server process enforces the same ones:

* **creation rate per client address**: a token bucket of ``create_burst`` matches, refilled at
  ``create_per_minute``; beyond it ``POST /api/matches`` is answered 429 ``rate_limited``. A
  request takes a token once it passed the route's own checks (a match created, or one then
  refused ``too_many_open``); one refused before (400, 401, 503) or ``rate_limited`` takes none;
* **open matches per creator address**: at most ``open_per_creator`` matches waiting for an
  opponent (public or private); one more is answered 429 ``too_many_open``;
* **open matches expire**: a match nobody joined within ``open_match_seconds`` ends
  (``match_over`` ``cancelled``, as if its creator had left) and leaves the lobby; the list never
  shows one past that age even before the sweeper gets to it.

Both 429 answers carry ``Retry-After`` (seconds) and the same number as ``retry_after`` in the
body: when the bucket has a token again, or when the creator's oldest open match expires.

The client address is the TCP peer's, or the one the proxy forwarded when the peer is a trusted
proxy (``FAIRGAMMON_TRUSTED_PROXIES``; uvicorn reads ``X-Forwarded-For`` from those peers only).
IPv6 addresses count per /64 network (what one subscriber usually gets), IPv4 per address
(:func:`server.ops.addresses.address_key`, which chat's allowances use too).

Times are server time (:class:`server.match.clock.ServerClock`), so the tests move them by moving
the server clock.
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import msgpack

from protocol.errors import ErrorCode
from protocol.http_errors import ApiErrorCode
from server.match.store import Store
from server.ops import logs
from server.ops.allowance import TAKE_ONE

log = logs.get("lobby")

WAITING = "fg:idx:waiting"
"""Sorted set: every match created through the lobby and not yet seen joined or ended ->
its creation time (server ms). The expiry sweep reads it; entries are hints re-checked against
the match state."""


CREATING_MS = 30_000
"""How long a reserved match may take to be stored before its reservation is dropped."""


def rate_key(address: str) -> str:
    return f"fg:lim:create:{address}"


def open_key(address: str) -> str:
    return f"fg:lim:open:{address}"


@dataclass(frozen=True, slots=True)
class Limits:
    create_burst: int = 5
    create_per_minute: float = 10.0
    open_per_creator: int = 3
    open_match_seconds: int = 900

    @property
    def open_ms(self) -> int:
        return self.open_match_seconds * 1000


class Refused(Exception):
    """A creation the limits refuse: ``code`` (``rate_limited`` or ``too_many_open``) and when
    to try again (whole seconds, at least 1)."""

    def __init__(self, code: ApiErrorCode, message: str, retry_after_ms: int) -> None:
        self.code = code
        self.retry_after = max(1, math.ceil(retry_after_ms / 1000))
        self.message = f"{message} (try again in {_duration(self.retry_after)})"
        super().__init__(self.message)


def _duration(seconds: int) -> str:
    """
    >>> _duration(6), _duration(900), _duration(61)
    ('6 s', '15 min', '2 min')
    """
    return f"{seconds} s" if seconds < 60 else f"{math.ceil(seconds / 60)} min"


# KEYS: the creator's open matches. ARGV: cap, match id, now, lifetime ms.
# Reserves a place for a new open match; returns -1, or the creation time of the oldest one
# when the creator already has ``cap``. (One key: on a Redis Cluster a script touches one slot;
# the waiting index, global, is written after it.)
_RESERVE = """
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[1]) then
  return tonumber(redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')[2])
end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[4]) * 2)
return -1
"""


class LobbyLimits:
    def __init__(self, store: Store, limits: Limits) -> None:
        self.store = store
        self.limits = limits
        self._take = store.redis.register_script(TAKE_ONE)  # a token bucket in Redis
        self._reserve = store.redis.register_script(_RESERVE)

    async def admit(self, address: str, now: int) -> None:
        """Count one creation by ``address``; :class:`Refused` (``rate_limited``) when its
        bucket is empty."""
        limits = self.limits
        per_ms = limits.create_per_minute / 60_000
        wait = int(
            await self._take(keys=[rate_key(address)], args=[limits.create_burst, per_ms, now])
        )
        if wait > 0:
            raise Refused(
                ErrorCode.RATE_LIMITED,
                f"at most {limits.create_burst} new matches at once, then "
                f"{limits.create_per_minute:g} a minute, per client address",
                wait,
            )

    async def reserve(self, address: str, match_id: str, now: int) -> None:
        """Count ``match_id`` (about to be created) as one of ``address``'s open matches;
        :class:`Refused` (``too_many_open``) when it already has the most allowed."""
        key = open_key(address)
        oldest = await self._try_reserve(key, match_id, now)
        if oldest >= 0:
            # At the cap: forget the ones that no longer wait (joined, left, expired), then
            # try again. Only here, so that a creation costs O(1) below the cap.
            await self._forget_finished(key, now)
            oldest = await self._try_reserve(key, match_id, now)
        if oldest >= 0:
            limits = self.limits
            raise Refused(
                ErrorCode.TOO_MANY_OPEN,
                f"at most {limits.open_per_creator} open matches per client address: wait "
                "for an opponent, or leave one",
                oldest + limits.open_ms - now,
            )

    async def _try_reserve(self, key: str, match_id: str, now: int) -> int:
        limits = self.limits
        args = [limits.open_per_creator, match_id, now, limits.open_ms]
        oldest = int(await self._reserve(keys=[key], args=args))
        if oldest < 0:
            await self.store.redis.zadd(WAITING, {match_id: now})
        return oldest

    async def _forget_finished(self, key: str, now: int) -> None:
        # A match not stored yet is being created by a request running now (unless that is
        # long past): it still counts.
        entries = await self.store.redis.zrange(key, 0, -1, withscores=True)
        if not entries:
            return
        blobs = await self.store.summaries([m.decode() for m, _ in entries])
        done = [
            m for (m, since), blob in zip(entries, blobs, strict=True)
            if _finished(blob, now - since)
        ]  # fmt: skip
        if done:
            await self.store.redis.zrem(key, *done)

    async def release(self, address: str, match_id: str) -> None:
        """Undo :meth:`reserve` (the match was not created after all)."""
        await self.store.redis.zrem(open_key(address), match_id)
        await self.store.redis.zrem(WAITING, match_id)

    def listable(self, summary: dict, now: int) -> bool:
        """False for an open match past its lifetime (the sweeper is about to end it)."""
        return summary["phase"] != "waiting" or now - summary["created"] < self.limits.open_ms

    async def due(self, now: int, count: int = 100) -> list[str]:
        """Matches in the waiting index older than the lifetime (oldest first)."""
        ids = await self.store.redis.zrangebyscore(
            WAITING, "-inf", now - self.limits.open_ms, start=0, num=count
        )
        return [i.decode() for i in ids]


def _finished(blob: bytes | None, age_ms: float) -> bool:
    """Whether a creator's match no longer counts: stored and not waiting, or never stored."""
    if blob is None:
        return age_ms > CREATING_MS
    return msgpack.unpackb(blob, raw=False)["phase"] != "waiting"


async def sweep_open_matches(
    limits: LobbyLimits,
    now: Callable[[], int],
    cancel: Callable[[str], Awaitable[bool]],
    interval: float = 1.0,
) -> None:
    """Forever: end the open matches past their lifetime. ``cancel(match_id)`` ends one if it is
    still waiting (and returns whether it did); any process may run this, each end is stored
    once (the compare-and-set on the version)."""
    while True:
        try:
            for match_id in await limits.due(now()):
                if await cancel(match_id):
                    log.info("open match expired", extra=logs.fields(match=match_id))
                await limits.store.redis.zrem(WAITING, match_id)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # Redis away: the next round tries again
            log.debug("open-match sweep failed", extra=logs.fields(error=repr(exc)))
        await asyncio.sleep(interval)
