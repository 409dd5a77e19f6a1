"""What the lobby asks about accounts: who is signed in, and what a signed-in player's seat
records in the match's seats hash (``a0``/``a1``: the account, ``rated``: see
server.players.results).

Kept apart from :mod:`server.web.accounts` (the account routes) so that the lobby can use it
without an import cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

from engine.match import MatchOptions, Mode
from protocol.errors import ErrorCode
from protocol.http_errors import ApiErrorCode, HttpCode, status_of
from server.players import moderation as moderation_rules
from server.players.accounts import COOKIE, Account, Accounts
from server.players.games import MyGames
from server.players.moderation_store import ModerationStore
from server.players.results import Results
from server.players.vacation import Vacations

RATED_FIELD = "rated"  # in the seats hash: b"1" when the creator asked for a rated match


class Refused(Exception):
    """A create or join the accounts rules forbid: ``(code, message, HTTP status)``."""

    def __init__(self, code: ApiErrorCode, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status_of(code, status)


@dataclass
class Players:
    """The accounts services of one process (``app.state.players``)."""

    accounts: Accounts
    results: Results
    min_experience: int
    games: MyGames
    vacations: Vacations
    games_per_account: int = 100
    moderation: ModerationStore | None = None


def players(request: Request) -> Players:
    return request.app.state.players


async def signed_in(request: Request) -> Account | None:
    return await players(request).accounts.session(request.cookies.get(COOKIE))


def rated_choice(body: dict[str, Any], options: MatchOptions, account: Account | None) -> bool:
    """Whether a new match is rated: asked for, by a signed-in player, for a match to N points
    against a person (money sessions and matches against the computer are never rated)."""
    rated = body.get("rated", False)
    if type(rated) is not bool:
        raise Refused(ErrorCode.BAD_FIELD, "rated is a boolean", 400)
    if not rated:
        return False
    if account is None:
        raise Refused(HttpCode.NEEDS_ACCOUNT, "sign in to create a rated match")
    if options.mode is not Mode.MATCH:
        raise Refused(ErrorCode.BAD_FIELD, "only a match to N points can be rated", 400)
    if body.get("bot"):
        raise Refused(ErrorCode.BAD_FIELD, "a match against the computer is not rated", 400)
    return True


def seat_fields(seat: int, account: Account | None, rated: bool = False) -> dict[str, bytes]:
    fields: dict[str, bytes] = {}
    if account is not None:
        fields[f"a{seat}"] = account.ref.encode()
    if rated:
        fields[RATED_FIELD] = b"1"
    return fields


def seat_link(seat: int, ref: str | None, rated: bool = False) -> dict[str, bytes]:
    """:func:`seat_fields` for an account known by its ref (``<key> <id>``, None for a guest):
    how a match arranged by quick pairing or a tournament links its seats to accounts."""
    fields: dict[str, bytes] = {f"a{seat}": ref.encode()} if ref else {}
    if rated:
        fields[RATED_FIELD] = b"1"
    return fields


def same_pool(a: bool, b: bool) -> None:
    """A rated match is between two humans or two bots (bots are rated apart: docs/accounts.md,
    "Bot accounts"): ``bot_pool`` otherwise."""
    if a != b:
        raise Refused(HttpCode.BOT_POOL, "bots are rated apart: a bot and a human play unrated")


SANCTION_WORDS = {
    "banned": (HttpCode.BANNED, "a moderator banned this account"),
    "rating_suspended": (HttpCode.RATING_SUSPENDED, "a moderator suspended this account's rating"),
    "muted": (HttpCode.MUTED, "a moderator muted this account"),
}


async def may_play_rated(request: Request, account: Account | None) -> None:
    """A banned account, or one whose rating a moderator suspended, plays no rated match
    (docs/moderation.md): :class:`Refused` ``banned`` or ``rating_suspended``."""
    store = players(request).moderation
    if store is None or account is None:
        return
    why = moderation_rules.may_play_rated(await store.sanctions(account.id))
    if why is not None:
        code, message = SANCTION_WORDS[why]
        raise Refused(code, f"{message}: it cannot play rated")


async def check_join(request: Request, match_id: str, account: Account | None) -> None:
    """A rated match takes only a signed-in player in good standing, of the creator's rating
    pool (humans or bots), and nobody plays their own account."""
    creator, _, rated = await players(request).results.seats(match_id)
    if rated and account is None:
        raise Refused(HttpCode.NEEDS_ACCOUNT, "sign in to join a rated match")
    if rated:
        await may_play_rated(request, account)
    if account is not None and creator is not None and creator[1] == account.id:
        raise Refused(HttpCode.SAME_ACCOUNT, "this is your own match")
    if rated and account is not None and creator is not None:
        row = await players(request).accounts.store.account(creator[0])
        if row is not None:
            same_pool(row.get("bot") == "1", account.bot)


async def bots_welcome(
    request: Request, match_id: str, account: Account | None, invited: bool
) -> None:
    """A bot account takes a seat in a person's match only when invited (an invite link or a
    challenge): a person's open match in the lobby is not a pool that accepts bots
    (docs/accounts.md, "Bot accounts"); ``bot_pool`` otherwise."""
    if account is None or not account.bot or invited:
        return
    creator, _, _ = await players(request).results.seats(match_id)
    row = await players(request).accounts.store.account(creator[0]) if creator else None
    if row is None or row.get("bot") != "1":
        raise Refused(HttpCode.BOT_POOL, "a bot joins a person's match only when invited")


async def may_start(request: Request, account: Account | None) -> None:
    """A correspondence match is for a signed-in player with room for one more."""
    if account is None:
        raise Refused(HttpCode.NEEDS_ACCOUNT, "sign in to play correspondence")
    p = players(request)
    if await p.games.correspondence_count(account) >= p.games_per_account:
        raise Refused(
            HttpCode.TOO_MANY_GAMES,
            f"you play {p.games_per_account} correspondence matches already: finish one first",
        )


async def took_seat(request: Request, account: Account, match_id: str, seat: int) -> None:
    """``account`` took ``seat`` of ``match_id``: it goes into the account's games, and a
    vacation the account is on applies to it."""
    p = players(request)
    await p.games.add(account, match_id, p.results.now())
    await p.vacations.joined(account, match_id, seat)


async def match_accounts(request: Request, match_id: str) -> dict[str, Any]:
    """For a match's summary: whether it is rated, which seats are accounts, and which are
    bot accounts (``bot_accounts``: outside engines, docs/accounts.md "Bot accounts"; not the
    built-in computer, the summary's ``bot``)."""
    r0, r1, rated = await players(request).results.seats(match_id)
    return {"rated": rated, "accounts": [r0 is not None, r1 is not None],
            "bot_accounts": await bot_accounts(request, [r0, r1])}  # fmt: skip


async def bot_accounts(request: Request, refs: list[Any]) -> list[bool]:
    """Whether each seat's account (a ``(key, id)`` or None) is a bot account."""
    keys = [ref[0] for ref in refs if ref is not None]
    rows = iter(await players(request).accounts.store.accounts(keys) if keys else [])
    out = []
    for ref in refs:
        row = next(rows) if ref is not None else None
        out.append(bool(row and row.get("id") == ref[1] and row.get("bot") == "1"))
    return out
