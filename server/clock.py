"""Server time, heartbeats and the deadline sweeper.

*Server time* is wall-clock milliseconds minus the **clock credit**: the total time during which
no server process (or Redis) was alive. Every deadline is in server time, so an outage of the
servers or of Redis stops every clock and extends every deadline by the outage: a server fault
never costs a player the game. Players only ever see server time (deadlines and ``server_time``
fields), never the credit.

The credit is kept in Redis and grown by the heartbeat script when it sees a gap longer than
``outage_ms`` since the last heartbeat of any process.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable

from server import logs
from server.store import Store

log = logs.get("clock")


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


class ServerClock:
    """Server time for this process; :meth:`run` keeps the credit in step with Redis."""

    def __init__(self, store: Store, beat_ms: int = 250, outage_ms: int = 1000) -> None:
        self.store = store
        self.beat_ms = beat_ms
        self.outage_ms = outage_ms
        self.credit = 0
        self._redis_ok = False
        self.on_change: Callable[[bool], None] | None = None
        """Called when Redis becomes unreachable (False) or reachable again (True)."""

    @property
    def redis_ok(self) -> bool:
        return self._redis_ok

    @redis_ok.setter
    def redis_ok(self, ok: bool) -> None:
        changed = ok != self._redis_ok
        self._redis_ok = ok
        if changed and self.on_change is not None:
            self.on_change(ok)

    def now(self) -> int:
        return wall_ms() - self.credit

    async def beat(self) -> None:
        """One heartbeat; raises if Redis is unreachable."""
        self.credit = await self.store.heartbeat(wall_ms(), self.outage_ms, self.beat_ms)
        self.redis_ok = True

    async def run(self) -> None:
        while True:
            try:
                before = self.credit
                await self.beat()
                if self.credit != before:
                    log.warning(
                        "outage detected: clocks extended",
                        extra=logs.fields(credit_ms=self.credit, added_ms=self.credit - before),
                    )
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                if self.redis_ok:
                    log.error("redis unreachable", extra=logs.fields(error=repr(exc)))
                self.redis_ok = False
            await asyncio.sleep(self.beat_ms / 1000)


async def sweep_deadlines(
    store: Store,
    clock: ServerClock,
    expire: Callable[[str, int], Awaitable[None]],
    interval: float = 0.1,
) -> None:
    """Forever: claim matches whose deadline has passed and let ``expire`` settle them.

    Any process may claim a due match (the claim is a short lease in the index, so a claimant
    that dies is replaced); ``expire`` applies the timeout through the usual compare-and-set,
    so a last-second move and a timeout can never both win.
    """
    while True:
        try:
            if clock.redis_ok:
                now = clock.now()
                for match_id in await store.claim_due(now):
                    try:
                        await expire(match_id, now)
                    except asyncio.CancelledError:
                        raise
                    except Exception:
                        log.exception("deadline not settled", extra=logs.fields(match=match_id))
        except asyncio.CancelledError:
            raise
        except Exception as exc:
            log.warning("deadline sweep failed", extra=logs.fields(error=repr(exc)))
        await asyncio.sleep(interval)
