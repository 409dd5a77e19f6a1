"""Quick pairing, the shell: seeks into the pool, pairs into matches, the news to the pages.

The rules are :mod:`server.competition.seeks`' (pure); the pool and the one script that
applies them atomically are :mod:`server.competition.seek_pool`'s. This module carries the
outcome out:

* :meth:`QuickPairing.seek` queues a seek (its id: 128 random bits, the seeker's secret) and
  runs the script at once: a compatible seek already waiting pairs within the request;
* a pair's match is created by :meth:`QuickPairing.launch` — right away by the process that
  paired, or, if it died first, by any process once the pair's lease ran out (its sweep), or
  by a request that reads the seek (:meth:`QuickPairing.state`). Every step is idempotent:
  the match id is derived from the pair (the script), each seat's token is derived from its
  seek's id (:func:`seat_token`: only the seeker and the server know it), the creation finds
  the match made (compare-and-set on version 0) and the join finds seat 1 taken by the same
  token. The match is *arranged* (never listed open, no ordinary join), seat 0 the older seek;
* each process's sweep (:meth:`QuickPairing.sweep_forever`, every half second) runs the
  script for what time changes — a range widened by waiting, a seek alone long enough to be
  offered the computer, a seek too old — and creates the matches whose lease ran out;
* news: every change of a seek's state is told on the competition's news channel
  (:mod:`server.competition.news`) by its seek id; the process holding that seeker's socket
  reads the state again and sends it (:meth:`QuickPairing.watch`).

So no seek is paired twice (one script), and none is lost when a process dies: a pair whose
creator died is created by another process within the lease (``LAUNCH_LEASE_MS``).
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import hashlib
import hmac
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from engine.match import MatchOptions
from protocol.errors import ErrorCode
from server.competition.news import News
from server.competition.seek_pool import Run, SeekPool, seek_json
from server.competition.seeks import Seek, check
from server.machine import core
from server.machine.commands import Join
from server.machine.state import Config
from server.match.service import MatchService, distinct_name
from server.match.store import Conflict
from server.match.tokens import token_hash
from server.ops import faults, logs

log = logs.get("competition")

Link = Callable[[int, str | None, bool], dict[str, bytes]]
"""The seats-hash fields that link seat ``seat`` of a match to a player's account (``ref``,
None for a guest) and say whether it is rated (given by the wiring: the accounts tier's)."""
Claimed = Callable[[str, int], Awaitable[None]]
"""Record a seat taken over HTTP as not connected yet (the gateway's presence)."""

ARRANGED = "pairing"
SWEEP_SECONDS = 0.5


def seat_token(seek_id: str, match_id: str) -> str:
    """The seat token of the seeker of ``seek_id`` in ``match_id``: derived, so asking again
    yields the same token, and only who knows the seek's id can compute it.

    >>> seat_token("a" * 32, "b" * 32) == seat_token("a" * 32, "b" * 32)
    True
    """
    mac = hmac.new(seek_id.encode(), f"fairgammon seek {match_id}".encode(), hashlib.sha256)
    return base64.urlsafe_b64encode(mac.digest()).rstrip(b"=").decode()


def options_of(mode: str, length: int) -> MatchOptions:
    if mode == "match":
        return MatchOptions.match(length)
    if mode == "money":
        return MatchOptions.money()
    return MatchOptions.single_game()


@dataclass(frozen=True, slots=True)
class Seeker:
    """Who asks: the name they play under, and their account link (None: a guest)."""

    name: str
    ref: str | None = None


class QuickPairing:
    def __init__(
        self,
        pool: SeekPool,
        matches: MatchService,
        news: News,
        link: Link,
        claimed: Claimed | None = None,
    ) -> None:
        self.pool = pool
        self.matches = matches
        self.news = news
        self.link = link
        self.claimed = claimed
        self._watching: dict[str, set[asyncio.Queue[None]]] = {}

    def now(self) -> int:
        return self.matches.now()

    # ---------------------------------------------------------------- requests

    async def seek(
        self,
        mode: str,
        length: int,
        clock: int,
        rated: bool,
        browser: str,
        seeker: Seeker,
        account: str | None = None,
        rating: int | None = None,
        range: int | None = None,
        bot: bool = False,
        bots: bool = False,
    ) -> str:
        """Queue a seek (refused with ``bad_seek`` when the rules cannot read it) and pair what
        can be paired now; its id."""
        now = self.now()
        seek_id = secrets.token_hex(16)
        seek = check(
            Seek(seek_id, mode, length, clock, rated, browser, now, account, rating, range, bot,
                 bots)
        )
        stored = seek_json(seek, name=seeker.name, ref=seeker.ref)
        run = await self.pool.run(now, (seek.id, stored))
        await self._carry_out(run)
        return seek.id

    async def state(self, seek_id: str) -> dict[str, Any] | None:
        """What became of a seek: ``{state: waiting, computer}``, ``{state: paired, match,
        seat, token}`` (its match made first if it is not yet), ``{state: gone, why}``, or
        None for no such seek (never, or forgotten)."""
        found = await self.pool.state(seek_id)
        if found is None or found["state"] != "paired":
            return found
        match = found["match"]
        if not await self.pool.is_launched(match):
            await self.launch(match)
        return {**found, "token": seat_token(seek_id, match)}

    async def cancel(self, seek_id: str) -> dict[str, Any] | None:
        """Take a waiting seek out of the pool (its page closed); what became of it."""
        found = await self.pool.cancel(seek_id, self.now())
        if found is not None and found["state"] == "paired":
            return await self.state(seek_id)
        return found

    async def looking(self) -> list[dict[str, Any]]:
        counts = await self.pool.looking(self.now())
        return [
            {"mode": mode, "length": length, "clock": clock, "rated": rated, "count": n}
            for (mode, length, clock, rated), n in sorted(counts.items())
        ]

    # ---------------------------------------------------------------- pairs into matches

    async def launch(self, match_id: str) -> bool:
        """Create the match of a pair (idempotent); False when the pair is unknown."""
        record = await self.pool.pair_record(match_id)
        if record is None:
            await self.pool.launched(match_id)
            return False
        (id0, id1), (s0, s1) = record["seeks"], record["data"]
        rated = bool(s0["rated"])
        config = Config(
            options_of(s0["mode"], s0["length"]),
            clock_ms=s0["clock"] * 1000,
            grace_ms=self.matches.grace_ms,
            arranged=ARRANGED,
        )
        tokens = (seat_token(id0, match_id), seat_token(id1, match_id))
        fields0 = {"0": token_hash(tokens[0]), **self.link(0, s0.get("ref"), rated)}
        made = [False, False]
        try:
            await self.matches.begin(match_id, config, s0["name"], fields0)
            made[0] = True
        except Conflict:
            pass  # made already
        name1 = s1["name"] if s1.get("ref") else distinct_name(s1["name"], s0["name"])
        fields1 = {"1": token_hash(tokens[1]), **self.link(1, s1.get("ref"), rated)}
        try:
            await self.matches.submit(match_id, Join(1, name=name1), seat_fields=fields1)
            made[1] = True
        except core.Rejected as exc:
            if exc.code != ErrorCode.SEAT_TAKEN or not await self.matches.holds(
                match_id, "1", tokens[1]
            ):
                raise
        if self.claimed is not None:
            for seat in (0, 1):
                if made[seat]:
                    with contextlib.suppress(Exception):
                        await self.claimed(match_id, seat)
        await self.pool.launched(match_id)
        await self.news.tell(id0, id1)
        return True

    async def _carry_out(self, run: Run) -> None:
        if run.pairs:
            faults.check("after_pairing", None)
        for pair in run.pairs:
            try:
                await self.launch(pair.match)
            except Exception as exc:  # the sweep creates it once the lease runs out
                log.warning(
                    "paired match not created yet",
                    extra=logs.fields(match=pair.match, error=repr(exc)),
                )
        if run.expired or run.computer_new:
            await self.news.tell(*run.expired, *run.computer_new)

    # ---------------------------------------------------------------- the sweep

    async def sweep_once(self) -> None:
        now = self.now()
        await self._carry_out(await self.pool.run(now))
        for match_id in await self.pool.claim_launches(now):
            try:
                await self.launch(match_id)
            except Exception as exc:
                log.warning(
                    "paired match not created", extra=logs.fields(match=match_id, error=repr(exc))
                )

    async def sweep_forever(self, every: float = SWEEP_SECONDS) -> None:
        while True:
            try:
                await self.sweep_once()
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("seek sweep failed", extra=logs.fields(error=repr(exc)))
            await asyncio.sleep(every)

    # ---------------------------------------------------------------- the news to the pages

    def heard(self, seek_id: str | None) -> None:
        """A seek's state changed (None: anything may have): wake its watchers here."""
        targets = self._watching.values() if seek_id is None else [
            self._watching.get(seek_id, set())
        ]
        for queues in targets:
            for queue in queues:
                if queue.empty():
                    queue.put_nowait(None)

    async def listen_forever(self) -> None:
        await self.news.listen_forever(self.heard)

    @contextlib.asynccontextmanager
    async def watch(self, seek_id: str) -> AsyncIterator[asyncio.Queue[None]]:
        """A queue that gets a wake-up whenever the seek's state may have changed from now
        on (read the state once watching)."""
        queue: asyncio.Queue[None] = asyncio.Queue(maxsize=1)
        self._watching.setdefault(seek_id, set()).add(queue)
        try:
            yield queue
        finally:
            queues = self._watching.get(seek_id)
            if queues is not None:
                queues.discard(queue)
                if not queues:
                    del self._watching[seek_id]
