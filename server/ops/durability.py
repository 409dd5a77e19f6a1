"""Is Redis set up so that an acknowledged write survives an operating-system crash?

The server acknowledges a move only after Redis replied to the script that stored it. That reply
means "on disk" only with the append-only file on (``appendonly yes``) and fsynced before every
reply (``appendfsync always``). With ``everysec`` up to a second of acknowledged writes can be
lost when the machine crashes (the server does not wait for ``WAITAOF``, which would cost a
round trip per move), with ``no`` more, and without the AOF everything since the last snapshot.

So the server reads Redis's own settings (``CONFIG GET``; where a managed Redis disables CONFIG,
``INFO persistence`` tells whether the AOF is on but not the fsync policy, which then counts as
unknown) at start, every ``RECHECK_SECONDS`` and on ``/healthz``:

* ``FAIRGAMMON_DURABILITY=required`` (the default): an unsafe or unknown setting stops the server
  at start with a message saying what to change; found later (someone ran ``CONFIG SET``), it
  is logged as an error and ``/healthz`` answers 503 so that the process leaves the rotation;
* ``FAIRGAMMON_DURABILITY=degraded``: the server runs anyway, loudly: an error in the log at
  start and at every recheck, and ``/healthz`` says ``"durability": "degraded"``.

>>> Durability("yes", "always").safe, Durability("yes", "everysec").safe
(True, False)
>>> Durability("no", "always").problem.split(":")[0]
'appendonly is no'
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

from server.ops import logs
from server.ops.redis_link import RedisTarget, masters

log = logs.get("durability")

MODES = ("required", "degraded")
RECHECK_SECONDS = 10.0


class NotDurable(RuntimeError):
    """Redis could lose acknowledged writes and the server is not allowed to run like that."""


@dataclass(frozen=True, slots=True)
class Durability:
    """Redis's persistence settings as read (``None``: could not be read)."""

    appendonly: str | None
    appendfsync: str | None

    @property
    def safe(self) -> bool:
        return self.appendonly == "yes" and self.appendfsync == "always"

    @property
    def problem(self) -> str | None:
        """What is wrong, for people (None when safe)."""
        if self.appendonly != "yes":
            if self.appendonly is None:
                return "Redis's appendonly setting cannot be read (is CONFIG disabled?)"
            return (
                "appendonly is no: acknowledged writes since the last snapshot are lost if "
                "Redis or the machine crashes (set appendonly yes and appendfsync always)"
            )
        if self.appendfsync == "always":
            return None
        if self.appendfsync is None:
            return "Redis's appendfsync setting cannot be read (is CONFIG disabled?)"
        lost = "up to a second of" if self.appendfsync == "everysec" else "recent"
        return (
            f"appendfsync is {self.appendfsync}: {lost} acknowledged writes is lost if the "
            "machine crashes (set appendfsync always)"
        )

    def as_json(self) -> dict[str, object]:
        return {"appendonly": self.appendonly, "appendfsync": self.appendfsync, "safe": self.safe}


async def read(redis) -> Durability:  # type: ignore[no-untyped-def]
    """Redis's persistence settings; raises only when Redis cannot be reached."""
    raw = await _refused_empty(redis.config_get("append*"))
    config = {_text(k): _text(v) for k, v in raw.items()}
    appendonly, appendfsync = config.get("appendonly"), config.get("appendfsync")
    if appendonly is None:
        info = await _refused_empty(redis.info("persistence"))
        if "aof_enabled" in info:
            appendonly = "yes" if int(info["aof_enabled"]) else "no"
    return Durability(appendonly, appendfsync)


async def read_every_master(target: RedisTarget) -> Durability:
    """The settings of every master of ``target`` (one Redis, the Sentinels' primary, or each
    master of a cluster): the first unsafe one, else the first one."""
    clients = await masters(target)
    try:
        found = [await read(client) for client in clients]
    finally:
        for client in clients:
            with contextlib.suppress(Exception):
                await client.aclose()
    return next((d for d in found if not d.safe), found[0])


def _text(value: object) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


async def _refused_empty(reply: Awaitable[dict[Any, Any]]) -> dict[Any, Any]:
    """``await reply``, or ``{}`` when Redis refused the command (a managed Redis without
    CONFIG); an unreachable Redis still raises."""
    try:
        return await reply
    except (RedisConnectionError, RedisTimeoutError, OSError):
        raise
    except Exception:
        return {}


class Guard:
    """The process's view of Redis's durability, and what it does about it."""

    def __init__(self, target: RedisTarget, mode: str) -> None:
        assert mode in MODES
        self.target = target
        self.mode = mode
        self.last: Durability | None = None

    @property
    def status(self) -> str:
        """``ok``, ``degraded`` (unsafe, allowed), ``unsafe`` (not allowed) or ``unchecked``."""
        if self.last is None:
            return "unchecked"
        if self.last.safe:
            return "ok"
        return "degraded" if self.mode == "degraded" else "unsafe"

    async def check(self) -> Durability:
        """Read the settings now (raises when Redis cannot be reached) and log a problem."""
        found = await read_every_master(self.target)
        changed = found != self.last
        self.last = found
        if not found.safe and (changed or self.mode == "degraded"):
            log.error(
                "redis can lose acknowledged writes",
                extra=logs.fields(problem=found.problem, mode=self.mode, **found.as_json()),
            )
        elif changed and self.last.safe:
            log.info("redis durability checked", extra=logs.fields(**found.as_json()))
        return found

    async def at_start(self) -> None:
        """The start-up check: :class:`NotDurable` when Redis is unsafe and that is not allowed.
        (Redis not reachable yet: the rechecks decide later, as for a change at runtime.)"""
        try:
            found = await asyncio.wait_for(self.check(), 5.0)
        except Exception as exc:
            log.warning("redis durability not checked yet", extra=logs.fields(error=repr(exc)))
            return
        if not found.safe and self.mode == "required":
            raise NotDurable(
                f"refusing to start: {found.problem}. Fix Redis, or run anyway with "
                "FAIRGAMMON_DURABILITY=degraded (acknowledged moves may then be lost)"
            )

    async def run(self, sleep: Callable[[float], object] = asyncio.sleep) -> None:
        while True:
            await sleep(RECHECK_SECONDS)  # type: ignore[misc]
            try:
                await self.check()
            except asyncio.CancelledError:
                raise
            except Exception:  # Redis away: the clock's outage handling covers that
                pass
