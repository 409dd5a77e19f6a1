"""Vacations: a player's correspondence clocks stand still for a while (docs/correspondence.md).

    fg:{u:<name>}:vac    hash: until (server time the vacation ends, 0: none), year (the UTC
                         year its days are counted in), used (ms of vacation taken that year)
    fg:idx:vacations     sorted set: account key -> when its vacation must be applied again
                         (a lease: the mark of the mark-and-sweep below)

A player starts a vacation of D days (at most the allowance left this year:
``FAIRGAMMON_VACATION_DAYS`` a year, a day being ``FAIRGAMMON_DAY_MS``), or ends it early (the
days not used are given back). Each change is one script on the account's slot (the accounting,
idempotent in effect), then applied to every live correspondence match the account plays: a
``Vacation(seat, until)`` command through the match service, which the machine refuses when the
match already has it (``duplicate``): so applying again changes nothing.

A process that dies half-way leaves some matches without the change: before applying, the
account is marked due in ``fg:idx:vacations`` with a lease; the mark is cleared once every
match has it; a sweeper in every process applies again the marks whose lease ran out. A match
joined during a vacation gets it when its seat is taken (:meth:`Vacations.joined`).

Days are counted in the UTC year (of server time) the vacation starts in.

>>> year_of(1_767_225_600_000)  # 2026-01-01T00:00:00Z
2026
"""

from __future__ import annotations

import asyncio
import contextlib
import datetime
import time
from dataclasses import dataclass

from protocol.errors import ErrorCode
from server.machine import core
from server.machine.commands import Vacation
from server.match.service import MatchService, NotFound
from server.ops import logs
from server.players.accounts import Account, Accounts
from server.players.accounts_store import AccountsStore, tag
from server.players.games import MyGames

log = logs.get("vacation")

VACATIONS_DUE = "fg:idx:vacations"
LEASE_MS = 10_000


def vacation_key(account_key: str) -> str:
    return f"{tag(account_key)}:vac"


def year_of(server_ms: int) -> int:
    return datetime.datetime.fromtimestamp(server_ms / 1000, tz=datetime.UTC).year


# KEYS: vac. ARGV: now, year, length ms (0: end it), allowance ms.
# Returns {until, used}, or {-1, used} when the allowance left is too short.
_SET = """
local ends = tonumber(redis.call('HGET', KEYS[1], 'until') or '0')
local used = tonumber(redis.call('HGET', KEYS[1], 'used') or '0')
local now = tonumber(ARGV[1])
if tonumber(redis.call('HGET', KEYS[1], 'year') or '0') ~= tonumber(ARGV[2]) then
  used = 0
end
if ends > now then
  used = math.max(0, used - (ends - now))  -- the days not taken are given back
end
local length = tonumber(ARGV[3])
if length > 0 then
  if used + length > tonumber(ARGV[4]) then
    return {-1, used}
  end
  ends = now + length
  used = used + length
else
  ends = 0
end
redis.call('HSET', KEYS[1], 'until', ends, 'year', ARGV[2], 'used', used)
return {ends, used}
"""


class VacationRefused(Exception):
    """Not enough vacation left this year."""


@dataclass(frozen=True, slots=True)
class Status:
    until: int
    """Server time the vacation ends; 0 when none."""
    used_ms: int
    allowance_ms: int
    day_ms: int

    def as_json(self, now: int) -> dict[str, object]:
        on = self.until > now
        return {
            "on": on,
            "until": self.until if on else None,
            "days_used": self.used_ms / self.day_ms,
            "days_left": max(0, self.allowance_ms - self.used_ms) / self.day_ms,
            "allowance": self.allowance_ms // self.day_ms,
        }


class Vacations:
    """The vacations of accounts over ``matches`` (one per process)."""

    def __init__(
        self,
        store: AccountsStore,
        matches: MatchService,
        games: MyGames,
        day_ms: int,
        allowance_days: int,
    ) -> None:
        self.store = store
        self.matches = matches
        self.games = games
        self.day_ms = day_ms
        self.allowance_ms = allowance_days * day_ms
        self._set = store.redis.register_script(_SET)

    async def status(self, account: Account) -> Status:
        now = self.matches.now()
        until, year, used = await self.store.redis.hmget(
            vacation_key(account.key), "until", "year", "used"
        )
        used_ms = int(used or 0) if int(year or 0) == year_of(now) else 0
        return Status(int(until or 0), used_ms, self.allowance_ms, self.day_ms)

    async def start(self, account: Account, days: int) -> Status:
        """Start a vacation of ``days`` now (a running one ends first, its rest given back)."""
        return await self._change(account, days * self.day_ms)

    async def end(self, account: Account) -> Status:
        return await self._change(account, 0)

    async def _change(self, account: Account, length_ms: int) -> Status:
        now = self.matches.now()
        until, used = await self._set(
            keys=[vacation_key(account.key)],
            args=[now, year_of(now), length_ms, self.allowance_ms],
        )
        if int(until) < 0:
            left = max(0, self.allowance_ms - int(used)) / self.day_ms
            raise VacationRefused(f"{left:g} days of vacation are left this year")
        await self.store.redis.zadd(VACATIONS_DUE, {account.key: _wall() + LEASE_MS})
        await self.apply(account)
        return Status(int(until), int(used), self.allowance_ms, self.day_ms)

    async def apply(self, account: Account) -> None:
        """Give every live correspondence match of ``account`` its vacation as it stands, then
        clear the account's mark (idempotent)."""
        until = int(await self.store.redis.hget(vacation_key(account.key), "until") or 0)
        for game in await self.games.live(account):
            if game["summary"].get("days"):
                await self._put(game["match"], game["seat"], until)
        await self.store.redis.zrem(VACATIONS_DUE, account.key)

    async def joined(self, account: Account, match_id: str, seat: int) -> None:
        """``account`` took ``seat`` of correspondence match ``match_id``: a vacation it is on
        applies there too."""
        until = int(await self.store.redis.hget(vacation_key(account.key), "until") or 0)
        if until > self.matches.now() and (await self.matches.load(match_id)).config.days:
            await self._put(match_id, seat, until)

    async def _put(self, match_id: str, seat: int, until: int) -> None:
        try:
            state = await self.matches.load(match_id, fresh=True)
            if state.is_over or state.vacation[seat] == until:
                return
            await self.matches.submit(match_id, Vacation(seat, until=until))
        except NotFound:
            return
        except core.Rejected as exc:
            # Set by another request meanwhile, the match over, or a deadline already passed.
            if exc.code not in (ErrorCode.DUPLICATE, ErrorCode.MATCH_OVER, ErrorCode.TOO_LATE):
                raise

    # --- the sweeper

    async def sweep_once(self, accounts: Accounts) -> int:
        """Apply the vacations whose mark's lease ran out."""
        done = 0
        for key in await self.store.claim_due(_wall(), LEASE_MS, index=VACATIONS_DUE):
            try:
                account = await accounts.find(key)
                if account is None:
                    await self.store.redis.zrem(VACATIONS_DUE, key)
                    continue
                await self.apply(account)
                done += 1
            except Exception as exc:
                fields = logs.fields(account=key, error=repr(exc))
                log.warning("vacation sweep failed", extra=fields)
        return done

    async def sweep_forever(self, accounts: Accounts, every: float = 1.0) -> None:
        while True:
            with contextlib.suppress(Exception):
                await self.sweep_once(accounts)
            await asyncio.sleep(every)


def _wall() -> int:
    return int(time.time() * 1000)
