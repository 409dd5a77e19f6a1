"""The lifetime dice audit of each account: the tally of every roll of every match in its
history (:mod:`analysis.dice_audit`), kept in Redis and added to match by match, so that reading
it costs the same after ten matches or ten thousand (docs/analysis.md, "Skill record and dice
audit").

Which matches: exactly those of the account's history (``fg:{u:<name>}:hist``, written by
:mod:`server.players.results`): a finished match the account played, once (a match nobody
started, or voided by the rules against rating farming, is in nobody's history and in no
tally). Which rolls: the account's seat's, each game's opening roll aside, in the games that
finished (as the audit of the last matches always counted them). The counters come twice:
``all:`` over every match, shown to the player, and ``pub:`` over the public ones only, shown to
everyone else (a private match's rolls stay with its players; imports are in no history).

**Adding a match, once** (the match-event bus's mark-and-sweep, :mod:`server.match.bus`, as the
results do): before the commit that ends a match with an account, :meth:`DiceLedger.finishing`
marks it due in ``fg:idx:dice`` with a lease; after the commit :meth:`DiceLedger.finished`
(a task of the bus) runs :meth:`DiceLedger.record`: it counts each seat's rolls from the match's
log and, once the match's result is stored (its ``counted`` verdict says whether the match
went into the histories; until the results are stored the mark stays, for the sweep), calls for
each account one script on the account's slot that adds the match id to its ``dicedone`` set
and the tally to its counters only if the id was new; then the mark goes. The sweeper of every
process claims the marks whose lease ran out and records them again. So a crash anywhere, or two
processes recording the same match, adds each match's rolls once.

**Backfill**: matches recorded before the counters existed are in the history only. The first
reads of an account's audit (:meth:`DiceLedger.lifetime`) walk its history from the oldest
entry, at most :data:`FILL_GAMES` games of matches counted (and :data:`FILL_ENTRIES` entries
looked at) per read, through the same script
(a match the listener counted already is passed over), under a short lock so that two readers
do not count the same entries twice over (they could not count them twice in the counters:
the script is keyed by the match id); a cursor (``fill``) keeps the place. Once it reached the
newest entry (``filled``), the listener alone adds matches. Until then the figure says how many
history entries are still to look at (``pending``).

Stored by name: each counter is a hash field named after it (``all:face3``, ``pub:hit36``,
``all:matches``), never by position or class.
"""

from __future__ import annotations

import asyncio
import secrets
import time
from collections.abc import Awaitable, Callable
from typing import Any

import msgpack

from analysis.dice_audit import Tally, player_rolls, tables, tally
from engine.turns import game_turns
from engine.variants import variant
from server.machine.state import MatchState
from server.match.bus import MatchFinished, MatchFinishing
from server.match.history import Logged, match_record
from server.match.store import seats_key
from server.ops import logs
from server.players.accounts_store import (
    DICE_DUE,
    AccountsStore,
    account_key,
    dice_done_key,
    dice_fill_key,
    dice_key,
    history_key,
)
from server.players.results import LEASE_MS, played, refs, sweep_forever, sweep_marks

log = logs.get("dice")

FILL_GAMES = 30
"""The most games a read of the audit counts from an account's older history (bounded work:
a longer history is counted over several reads)."""
FILL_LOCK_MS = 30_000
"""How long a reader holds the backfill of one account (a reader that dies lets it lapse)."""
FILL_ENTRIES = 2000
"""The most history entries a read looks at (most may be counted already: passed over)."""
CHUNK = 50
"""History entries read at a time by the backfill."""

LoadState = Callable[[str], Awaitable[MatchState]]
ReadLog = Callable[[str], Awaitable[list[Logged]]]

# KEYS: acct, dicedone, dice. ARGV: match id, account id, public (0/1), then counter name and
# value pairs. Adds one match's tally to the account's counters once: 1 added, 0 the match was
# counted already, -1 the account is gone (deleted, or deleted and signed up again).
_COUNT = """
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[2] then
  return -1
end
if redis.call('SADD', KEYS[2], ARGV[1]) == 0 then
  return 0
end
local scopes = {'all:'}
if ARGV[3] == '1' then
  scopes = {'all:', 'pub:'}
end
for _, scope in ipairs(scopes) do
  redis.call('HINCRBY', KEYS[3], scope .. 'matches', 1)
  for i = 4, #ARGV, 2 do
    redis.call('HINCRBY', KEYS[3], scope .. ARGV[i], ARGV[i + 1])
  end
end
return 1
"""

# KEYS: acct, dice. ARGV: account id, entries looked at, history length. Moves the backfill's
# cursor on (never back: two readers may end in either order) and notes when it reached the
# newest entry; nothing for an account deleted meanwhile (-1).
_FILLED = """
if redis.call('HGET', KEYS[1], 'id') ~= ARGV[1] then
  return -1
end
local at = tonumber(redis.call('HGET', KEYS[2], 'fill') or '0')
if tonumber(ARGV[2]) > at then
  redis.call('HSET', KEYS[2], 'fill', ARGV[2])
  at = tonumber(ARGV[2])
end
if at >= tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[2], 'filled', '1')
end
return at
"""

# KEYS: lock. ARGV: owner. Releases the lock if this owner still holds it.
_UNLOCK = """
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
"""


BACKGAMMON_MOVES = ("backgammon", "nackgammon", "hypergammon", "portes")
"""The variants played by backgammon's move rules (hitting, the bar): the audit's entering and
hitting chances are backgammon's, so only their games are counted (plakoto pins instead of
hitting, fevga does neither: their rolls are left out)."""


def seat_tallies(entries: list[Logged]) -> tuple[Tally, Tally, int]:
    """The tally of each seat's rolls in a match's log (its finished games, the opening roll
    of each aside), and how many games finished. Pure, and CPU-bound (the chances to hit): run
    it off the event loop."""
    record = match_record(entries)
    games = [
        game_turns(game, variant(game.variant))
        for game in record.games
        if game.result is not None and game.variant in BACKGAMMON_MOVES
    ]
    return tally(player_rolls(games, 0)), tally(player_rolls(games, 1)), len(games)


def figures(counters: dict[str, str], scope: str) -> dict[str, Any]:
    """The audit of one scope's counters (``all`` or ``pub``): ``{rolls, matches, tables}``."""
    prefix = f"{scope}:"
    mine = {k[len(prefix):]: int(v) for k, v in counters.items() if k.startswith(prefix)}
    counted = Tally.of(mine)
    return {"rolls": counted.rolls, "matches": mine.get("matches", 0),
            "tables": [t.as_dict() for t in tables(counted)]}


class DiceLedger:
    def __init__(self, store: AccountsStore, load: LoadState, read_log: ReadLog) -> None:
        self.store = store
        self.redis = store.redis
        self.load = load
        self.read_log = read_log
        self._count = self.redis.register_script(_COUNT)
        self._filled = self.redis.register_script(_FILLED)
        self._unlock = self.redis.register_script(_UNLOCK)

    # --- the listener of the match-event bus

    async def finishing(self, event: MatchFinishing) -> None:
        """Before the commit that ends the match: mark it due if it has an account."""
        state = event.state
        if not played(state):
            return
        r0, r1 = refs(await self.redis.hmget(seats_key(state.match_id), "a0", "a1"))
        if r0 is not None or r1 is not None:
            await self.store.due(state.match_id, _wall() + LEASE_MS, index=DICE_DUE)

    async def finished(self, event: MatchFinished) -> None:
        """After that commit: count it now (the sweeper retries if this fails, if the results
        are not stored yet, or if the process dies)."""
        try:
            await self.record(event.match_id)
        except Exception as exc:
            log.warning("dice not counted yet",
                        extra=logs.fields(match=event.match_id, error=repr(exc)))

    # --- counting

    async def record(self, match_id: str) -> bool:
        """Add a finished match's rolls to its accounts' counters (idempotent); False when
        its result is not stored yet (it stays due, for the sweep)."""
        state = await self.load(match_id)
        if not state.is_over or not played(state):
            await self.store.settled(match_id, index=DICE_DUE)  # never ended, or not played
            return True
        tallies = await asyncio.to_thread(seat_tallies, await self.read_log(match_id))
        blob = await self.store.result(match_id)  # the results are recorded side by side
        if blob is None:
            return False
        result = msgpack.unpackb(blob, raw=False)
        if result.get("counted", True):
            for seat in (0, 1):
                ref = result["accounts"][seat]
                if ref is not None:  # the same account in both seats: its first seat counts
                    await self.count(ref[0], ref[1], match_id, tallies[seat],
                                     not state.config.private)
        await self.store.settled(match_id, index=DICE_DUE)
        return True

    async def count(self, name: str, account_id: str, match_id: str, counted: Tally,
                    public: bool) -> int:
        """Add one match's tally to an account's counters, once (see ``_COUNT``)."""
        keys = [account_key(name), dice_done_key(name), dice_key(name)]
        args: list[Any] = [match_id, account_id, int(public)]
        for field, value in counted.fields().items():
            args += [field, value]
        return int(await self._count(keys=keys, args=args))

    # --- the sweeper

    async def sweep_once(self) -> int:
        return await sweep_marks(self.store, DICE_DUE, self.record, "dice")

    async def sweep_forever(self, every: float = 1.0) -> None:
        await sweep_forever(self.sweep_once, every)

    # --- reading, and the backfill

    async def lifetime(self, name: str, account_id: str, own: bool) -> dict[str, Any]:
        """The account's lifetime audit as shown to the player (``own``: every match) or to
        anyone else (the public matches): ``{rolls, matches, pending, tables}``. Counts a part
        of its older history first while the backfill has not reached the newest entry."""
        if await self.redis.hget(dice_key(name), "filled") is None:
            try:
                await self.fill(name, account_id)
            except Exception as exc:  # the figures so far, the rest still pending
                log.warning("dice backfill failed",
                            extra=logs.fields(account=name, error=repr(exc)))
        raw = await self.redis.hgetall(dice_key(name))
        counters = {k.decode(): v.decode() for k, v in raw.items()}
        out = figures(counters, "all" if own else "pub")
        pending = 0
        if counters.get("filled") is None:
            length = await self.redis.llen(history_key(name))
            pending = max(0, length - int(counters.get("fill", 0)))
        return {**out, "pending": pending}

    async def fill(self, name: str, account_id: str, games: int = FILL_GAMES) -> int:
        """Count the account's history entries not counted yet, from the oldest on, until
        ``games`` games are counted (one match at least) or the newest entry is reached; the
        entries looked at. Another reader filling this account: nothing (0)."""
        owner = secrets.token_hex(8)
        lock = dice_fill_key(name)
        if not await self.redis.set(lock, owner, nx=True, px=FILL_LOCK_MS):
            return 0
        try:
            return await self._fill(name, account_id, games)
        finally:
            await self._unlock(keys=[lock], args=[owner])

    async def _fill(self, name: str, account_id: str, games: int) -> int:
        key = name.lower()
        length = await self.redis.llen(history_key(name))
        start = int(await self.redis.hget(dice_key(name), "fill") or 0)
        at = start
        while at < length and games > 0 and at - start < FILL_ENTRIES:
            # The history is newest first and only grows at its head: counted from its tail,
            # an entry's place stays put.
            rows = await self.redis.lrange(history_key(name), -(at + CHUNK), -(at + 1))
            entries = [msgpack.unpackb(raw, raw=False) for raw in reversed(rows)]
            ids = [e["match"] for e in entries]
            counted = await self.redis.smismember(dice_done_key(name), ids) if ids else []
            for entry, done in zip(entries, counted, strict=True):
                if not done:
                    games -= await self._fill_one(key, account_id, entry)
                at += 1
                if games <= 0:
                    break
            if not rows:
                break
        await self._filled(keys=[account_key(name), dice_key(name)],
                           args=[account_id, at, length])
        return at - start

    async def _fill_one(self, key: str, account_id: str, entry: dict[str, Any]) -> int:
        """Count one history entry's match for the account; the games it had."""
        match_id = entry["match"]
        seats = refs(await self.redis.hmget(seats_key(match_id), "a0", "a1"))
        mine = [s for s in (0, 1) if seats[s] is not None and seats[s][0] == key]
        *tallies, games = await asyncio.to_thread(seat_tallies, await self.read_log(match_id))
        counted = tallies[mine[0]] if mine else Tally()  # a seat not found: no rolls
        # An entry older than the history's "private" field counts as private (never shown
        # to others by mistake).
        public = entry.get("private") is False
        await self.count(key, account_id, match_id, counted, public)
        return max(1, games)


def _wall() -> int:
    return int(time.time() * 1000)
