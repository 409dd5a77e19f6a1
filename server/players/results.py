"""Recording finished matches for their players' accounts: history, and the rating update of
a rated match, exactly once per match whatever crashes or reconnects happen.

A match's seats hash names the account of each signed-in seat (``a0``, ``a1``: ``<key> <id>``)
and whether the creator asked for a rated match (``rated``), written with the creation and
the join. :class:`Results` listens on the match-event bus (:mod:`server.match.bus`; wired in
``server/app.py``) for the transition that ends a match with at least one account:

1. before its commit (:meth:`Results.finishing`, a before-listener: if it fails, so does the
   commit), the match is put in ``fg:idx:results`` (due a lease from now): a crash anywhere
   after the commit leaves it there for the sweeper of any process;
2. after the commit (:meth:`Results.finished`, told ``MatchFinished`` at most once, by the
   process that stored it), :meth:`Results.record` computes the result once and stores it
   under the match's own tag with ``SET NX`` (``fg:{m:<id>}:result``: the first writer wins,
   so the rating changes are fixed once even if two processes race);
3. then, for each account, one script on that account's slot applies the change and adds the
   history entry unless the match is already in the account's ``done`` set;
4. last, the leaderboard entry and the Top Gamer boards (:mod:`server.players.top`, counted
   once per match and account by their own script), and the match leaves ``fg:idx:results``.

Every step can be repeated: the sweeper (:meth:`Results.sweep_forever`) claims entries whose
lease ran out and runs :meth:`Results.record` again. So the work is done at least once, keyed
by the match id, and its effects exactly once: the bus's pattern for a listener that must not
miss a match. Ratings are read when the result is first computed (step 2); a player in two
matches at once has each change applied to the rating of the moment, in the order the
matches end.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack

from engine.match import Mode
from server.machine.state import MatchState
from server.match.bus import MatchFinished, MatchFinishing
from server.match.store import seats_key
from server.ops import faults, logs
from server.players.accounts_store import AccountsStore
from server.players.ratings import Standing, rate
from server.players.top import TopBoards

log = logs.get("results")

LEASE_MS = 3000
"""How long a finished match waits for the process that ended it before a sweeper steps in."""

LoadState = Callable[[str], Awaitable[MatchState]]


def refs(raw: list[bytes | None]) -> tuple[tuple[str, str] | None, tuple[str, str] | None]:
    """The ``(key, id)`` of each seat's account from the seats hash fields ``a0``, ``a1``."""
    out: list[tuple[str, str] | None] = []
    for value in raw:
        if value:
            key, _, account_id = value.decode().partition(" ")
            out.append((key, account_id))
        else:
            out.append(None)
    return out[0], out[1]


class Results:
    def __init__(
        self,
        store: AccountsStore,
        load: LoadState,
        now: Callable[[], int],
        top: TopBoards | None = None,
    ) -> None:
        self.store = store
        self.redis = store.redis
        self.load = load
        self.now = now
        self.top = top
        """The Top Gamer boards, told every rated result (they count each once)."""

    async def seats(self, match_id: str) -> tuple[Any, Any, bool]:
        a0, a1, rated = await self.redis.hmget(seats_key(match_id), "a0", "a1", "rated")
        r0, r1 = refs([a0, a1])
        return r0, r1, rated == b"1"

    # --- the listener of the match-event bus

    async def finishing(self, event: MatchFinishing) -> None:
        """Before the commit that ends the match: mark it due if it has an account."""
        state = event.state
        if state.names[1] is None:
            return  # nobody joined (cancelled, or a rematch declined): nothing to record
        r0, r1, _ = await self.seats(state.match_id)
        if r0 is not None or r1 is not None:
            await self.store.due(state.match_id, _wall() + LEASE_MS)

    async def finished(self, event: MatchFinished) -> None:
        """After that commit: record it now (a task of the bus; the sweeper retries if this
        fails or the process dies)."""
        try:
            await self.record(event.match_id)
        except Exception as exc:
            log.warning(
                "result not recorded yet", extra=logs.fields(match=event.match_id, error=repr(exc))
            )

    # --- recording

    async def record(self, match_id: str) -> bool:
        """Record a finished match for its accounts (idempotent); False if it is not over."""
        state = await self.load(match_id)
        if not state.is_over:
            await self.store.settled(match_id)  # the ending commit never happened
            return False
        if state.names[1] is None:
            await self.store.settled(match_id)  # nobody joined: not a match played
            return True
        r = await self.seats(match_id)
        blob = await self.store.result(match_id)
        if blob is None:
            blob = await self.store.put_result(match_id, await self._result(state, *r))
        result = msgpack.unpackb(blob, raw=False)
        for seat in (0, 1):
            ref = result["accounts"][seat]
            if ref is None:
                continue
            key, account_id = ref
            record = self._entry(state, result, seat)
            after = await self.store.record(
                key,
                match_id,
                account_id,
                result["rated"],
                result["deltas"][seat],
                result["exp"],
                result["winner"] == seat,
                msgpack.packb(record, use_bin_type=True),
                not state.config.private,
                result["at"],
            )
            if after is not None and result["rated"]:
                await self.store.lead(key, after)
            if result["rated"] and self.top is not None:
                wall = result.get("wall") or _wall()  # results stored before "wall": now
                await self.top.rated(match_id, key, result["deltas"][seat], wall)
            faults.check("mid_record", None)
        await self.store.settled(match_id)
        return True

    async def _result(self, state: MatchState, r0: Any, r1: Any, rated: bool) -> bytes:
        options = state.config.options
        winner = state.match.winner
        deltas = [0.0, 0.0]
        rated = (
            rated
            and r0 is not None
            and r1 is not None
            and r0[1] != r1[1]
            and winner in (0, 1)
            and options.mode is Mode.MATCH
            and options.length >= 1
        )
        if rated:
            rows = await self.store.accounts([r0[0], r1[0]])
            row0, row1 = rows
            if row0 and row1 and (row0["id"], row1["id"]) == (r0[1], r1[1]):
                a = Standing(float(row0["rating"]), int(row0["exp"]))
                b = Standing(float(row1["rating"]), int(row1["exp"]))
                deltas = list(rate(a, b, winner, options.length).deltas)
            else:
                rated = False  # an account was deleted meanwhile
        out = {
            "rated": rated,
            "deltas": deltas,
            "exp": options.length if rated else 0,
            "winner": winner,
            "accounts": [list(r0) if r0 else None, list(r1) if r1 else None],
            "at": self.now(),
            "wall": _wall(),
        }
        return msgpack.packb(out, use_bin_type=True)

    @staticmethod
    def _entry(state: MatchState, result: dict[str, Any], seat: int) -> dict[str, Any]:
        """One line of a player's history (a msgpack map: field names, not positions)."""
        other = 1 - seat
        score = state.match.score
        return {
            "match": state.match_id,
            "at": result["at"],
            "opponent": state.names[other] or "Guest",
            "opponent_account": result["accounts"][other] is not None,
            "mode": state.config.options.mode.value,
            "length": state.config.options.length,
            "score": [score[seat], score[other]],
            "won": None if result["winner"] is None else result["winner"] == seat,
            "rated": result["rated"],
            "change": round(result["deltas"][seat], 2) if result["rated"] else None,
            "private": state.config.private,
        }

    # --- the sweeper

    async def sweep_once(self) -> int:
        done = 0
        for match_id in await self.store.claim_due(_wall(), LEASE_MS):
            try:
                if await self.record(match_id):
                    done += 1
            except Exception as exc:
                log.warning(
                    "result sweep failed", extra=logs.fields(match=match_id, error=repr(exc))
                )
        return done

    async def sweep_forever(self, every: float = 1.0) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self.sweep_once()
            await asyncio.sleep(every)


def _wall() -> int:
    return int(time.time() * 1000)
