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
miss a match.

Rated results are computed one after the other for each account: step 2 of a rated match
holds both accounts' rating locks (``fg:{u:<name>}:rlock``, taken in name order, expiring), and
before computing it applies to each account any rated result already stored and not yet
applied (the account's ``rpending`` set, which the recording script empties). So a player whose
two rated matches end at the same moment has the second change computed from the rating the
first one left, as if one had ended after the other (in the order they are recorded).

Bot accounts (docs/accounts.md, "Bot accounts") are rated in a pool of their own: a rated
match between two bots moves their ratings and the bots' leaderboard; a match between a bot and
a human is never rated (the lobby refuses to seat one as rated; should one be stored as rated
anyway, it is recorded unrated here). The stored result names the pool (``bots``).

A match nobody started (abandoned before its first game: both seats silent, nobody to blame)
is recorded for no one: no history line, no count, no rating.

A rated match between two accounts is also judged by the rules against rating farming
(:mod:`server.players.farming`, docs/fairplay.md) when its result is computed, once, under the
rating locks: ended before each player made a few checker plays, it is abandoned (recorded for
no one, like the above); past the pair's daily cap it is recorded unrated; the match is flagged
for the moderators when the accounts share an address or pass that cap. What decided is kept
in the result (``void``, ``flags``, ``shared``), so a retry applies the same verdict.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterable
from typing import Any

import msgpack

from engine.match import Mode
from server.machine.state import MatchState
from server.match.bus import MatchFinished, MatchFinishing
from server.match.history import Logged, plays
from server.match.store import seats_key
from server.ops import faults, logs
from server.players.accounts_store import RESULTS_DUE, AccountsStore
from server.players.farming import WINDOW_MS, Facts, Rules, assess
from server.players.ratings import rate, standing
from server.players.top import TopBoards

log = logs.get("results")

LEASE_MS = 3000
"""How long a finished match waits for the process that ended it before a sweeper steps in."""

LOCK_MS = 2000
"""How long an account's rating lock lasts (a holder that dies lets it lapse)."""
LOCK_WAIT_S = 5.0
"""How long a rated result waits for the locks before it is left to the sweeper."""

LoadState = Callable[[str], Awaitable[MatchState]]
ReadLog = Callable[[str], Awaitable[list[Logged]]]


class Busy(Exception):
    """The rating locks of a match's accounts stayed taken: recorded later by the sweeper."""


def played(state: MatchState) -> bool:
    """Whether a finished match is anyone's to record: two players, and a game started (a
    match abandoned before its first game, both seats silent, has nobody to blame and nothing
    played)."""
    if state.names[1] is None:
        return False
    return not (state.abandoned and state.match.game_number == 0)


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
        held: Callable[[str], Awaitable[bool]] | None = None,
        read_log: ReadLog | None = None,
        rules: Rules | None = None,
    ) -> None:
        self.store = store
        self.held = held
        """Whether an account's rating is held by a moderator (suspended or banned: its match
        ends unrated; docs/moderation.md), by account id."""
        self.redis = store.redis
        self.load = load
        self.now = now
        self.top = top
        """The Top Gamer boards, told every rated result (they count each once)."""
        self.read_log = read_log
        """The match's event log (the checker plays of each seat); None: the farming rules
        are not applied (unit tests of the saga alone)."""
        self.rules = rules or Rules()

    async def seats(self, match_id: str) -> tuple[Any, Any, bool]:
        a0, a1, rated = await self.redis.hmget(seats_key(match_id), "a0", "a1", "rated")
        r0, r1 = refs([a0, a1])
        return r0, r1, rated == b"1"

    # --- the listener of the match-event bus

    async def finishing(self, event: MatchFinishing) -> None:
        """Before the commit that ends the match: mark it due if it has an account."""
        state = event.state
        if not played(state):
            return  # nobody joined, or nobody started it: nothing to record
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
        if not played(state):
            await self.store.settled(match_id)  # nobody joined or started it: not played
            return True
        r0, r1, rated = await self.seats(match_id)
        if rated and r0 is not None and r1 is not None:
            async with self._rating_locks((r0[0], r1[0])):
                await self._store(state, r0, r1, rated, ordered=True)
        else:
            await self._store(state, r0, r1, rated, ordered=False)
        await self.store.settled(match_id)
        return True

    async def _store(self, state: MatchState, r0: Any, r1: Any, rated: bool,
                     ordered: bool) -> None:
        """Compute the result once (``ordered``: after every earlier rated result of its
        accounts is applied, and noted as pending for them) and apply it to each account."""
        match_id = state.match_id
        blob = await self.store.result(match_id)
        if blob is None:
            if ordered:
                for key, _ in (r0, r1):
                    await self._catch_up(key, match_id)
                    await self.store.pend(key, match_id)
            blob = await self.store.put_result(match_id, await self._result(state, r0, r1, rated))
        result = msgpack.unpackb(blob, raw=False)
        names = [ref[0] for ref in result["accounts"] if ref is not None]
        if result["rated"]:  # counted for the pair's daily cap once it is stored (idempotent)
            await self.store.pair_count(names[0], names[1], match_id, result["at"])
        if result.get("flags"):
            await self.store.flag(names, match_id, result["wall"])
        for seat in (0, 1):
            if result["accounts"][seat] is not None:
                await self._apply(state, result, seat)
                faults.check("mid_record", None)

    async def _catch_up(self, key: str, match_id: str) -> None:
        """Apply to account ``key`` the rated results stored for it and not applied yet."""
        for other in await self.store.pending(key):
            blob = None if other == match_id else await self.store.result(other)
            if blob is None:
                continue  # this match, or one whose result is not computed yet
            result = msgpack.unpackb(blob, raw=False)
            state = await self.load(other)
            for seat in (0, 1):
                ref = result["accounts"][seat]
                if ref is not None and ref[0] == key:
                    await self._apply(state, result, seat)

    async def _apply(self, state: MatchState, result: dict[str, Any], seat: int) -> None:
        """Record the match for the account in ``seat`` (once: the script keeps a done set)."""
        key, account_id = result["accounts"][seat]
        if not result.get("counted", True):
            await self.store.unpend(key, state.match_id)  # abandoned early: nobody's
            return
        record = self._entry(state, result, seat)
        variant = result.get("variant", "backgammon")  # (results stored before the variants)
        bots = bool(result.get("bots"))
        after = await self.store.record(
            key,
            state.match_id,
            account_id,
            result["rated"],
            result["deltas"][seat],
            result["exp"],
            result["winner"] == seat,
            msgpack.packb(record, use_bin_type=True),
            not state.config.private,
            result["at"],
            # A rated match in the humans' pool is one against a human: it is what keeps an
            # account from becoming a bot (accounts_store's rated_humans).
            humans=not bots,
            variant=variant,
        )
        # The leaderboards and the Top Gamer boards rank backgammon's rating.
        backgammon = variant == "backgammon"
        if after is not None and result["rated"] and backgammon:
            await self.store.lead(key, after, bot=bots)
        if result["rated"] and self.top is not None and not bots and backgammon:
            wall = result.get("wall") or _wall()  # results stored before "wall": now
            await self.top.rated(state.match_id, key, result["deltas"][seat], wall)

    @contextlib.asynccontextmanager
    async def _rating_locks(self, keys: Iterable[str]) -> AsyncIterator[None]:
        """Hold the rating locks of these accounts (in name order, so that two recorders
        never wait for each other); :class:`Busy` if they stay taken."""
        owner = secrets.token_hex(8)
        held: list[str] = []
        deadline = time.monotonic() + LOCK_WAIT_S
        try:
            for key in sorted(set(keys)):
                while not await self.store.lock(key, owner, LOCK_MS):
                    if time.monotonic() > deadline:
                        raise Busy(f"the rating of {key} is being updated")
                    await asyncio.sleep(0.01)
                held.append(key)
            yield
        finally:
            for key in held:
                await self.store.unlock(key, owner)

    async def _result(self, state: MatchState, r0: Any, r1: Any, rated: bool) -> bytes:
        options = state.config.options
        winner = state.match.winner
        variant = options.variant.name  # each variant has its own rating (ratings.fields)
        deltas = [0.0, 0.0]
        bots = False
        verdict = None
        shared: tuple[str, ...] = ()
        rated = (
            rated
            and r0 is not None
            and r1 is not None
            and r0[1] != r1[1]
            and winner in (0, 1)
            and options.mode is Mode.MATCH
            and options.length >= 1
        )
        if rated and self.held is not None and (await self.held(r0[1]) or await self.held(r1[1])):
            rated = False  # a moderator suspended a rating while the match was played
        if rated:
            rows = await self.store.accounts([r0[0], r1[0]])
            row0, row1 = rows
            bots = bool(row0 and row0.get("bot") == "1")
            mixed = bool(row1 and (row1.get("bot") == "1") != bots)
            if row0 and row1 and (row0["id"], row1["id"]) == (r0[1], r1[1]) and not mixed:
                verdict, shared = await self._assess(state, r0[0], r1[0])
                rated = verdict.rated
            else:
                rated = False  # an account was deleted meanwhile, or a bot met a human
            if rated:
                a, b = standing(row0, variant), standing(row1, variant)
                deltas = list(rate(a, b, winner, options.length).deltas)
        out = {
            "variant": variant,
            "rated": rated,
            "deltas": deltas,
            "exp": options.length if rated else 0,
            "bots": rated and bots,
            "winner": winner,
            "accounts": [list(r0) if r0 else None, list(r1) if r1 else None],
            "at": self.now(),
            "wall": _wall(),
            "counted": verdict.counted if verdict else True,
            "void": verdict.void if verdict else None,
            "flags": list(verdict.flags) if verdict else [],
            "shared": list(shared) if verdict and verdict.flags else [],
        }
        return msgpack.packb(out, use_bin_type=True)

    async def _assess(self, state: MatchState, a: str, b: str) -> tuple[Any, tuple[str, ...]]:
        """The farming rules' verdict on a rated match between accounts ``a`` and ``b``
        (called under both rating locks, before the result is stored), and their shared
        addresses."""
        counts = plays(await self.read_log(state.match_id)) if self.read_log else (1 << 30,) * 2
        earlier = await self.store.pair_counted(a, b, state.match_id, self.now() - WINDOW_MS)
        shared = await self.store.shared_addresses(a, b)
        return assess(Facts(counts, earlier, shared), self.rules), shared

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
            "variant": state.config.options.variant.name,
            "score": [score[seat], score[other]],
            "won": None if result["winner"] is None else result["winner"] == seat,
            "rated": result["rated"],
            "change": round(result["deltas"][seat], 2) if result["rated"] else None,
            "void": result.get("void"),
            "private": state.config.private,
        }

    # --- the sweeper

    async def sweep_once(self) -> int:
        return await sweep_marks(self.store, RESULTS_DUE, self.record, "result")

    async def sweep_forever(self, every: float = 1.0) -> None:
        await sweep_forever(self.sweep_once, every)


async def sweep_marks(
    store: AccountsStore, index: str, record: Callable[[str], Awaitable[bool]], what: str
) -> int:
    """The sweep of a mark-and-sweep listener (:mod:`server.match.bus`): claim the matches of
    ``index`` whose lease ran out (a lease of :data:`LEASE_MS`) and ``record`` each again; how
    many it recorded."""
    done = 0
    for match_id in await store.claim_due(_wall(), LEASE_MS, index=index):
        try:
            if await record(match_id):
                done += 1
        except Exception as exc:
            log.warning(f"{what} sweep failed", extra=logs.fields(match=match_id, error=repr(exc)))
    return done


async def sweep_forever(sweep: Callable[[], Awaitable[int]], every: float = 1.0) -> None:
    """``sweep`` every ``every`` seconds, for ever (a failed sweep is tried at the next)."""
    while True:
        with contextlib.suppress(Exception):
            await sweep()
        await asyncio.sleep(every)


def _wall() -> int:
    return int(time.time() * 1000)
