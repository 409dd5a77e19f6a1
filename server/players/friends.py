"""Friends: an account follows others, blocks others, and says who sees it (docs/friends.md).

    fg:{u:<name>}:follows   set: the account keys this account follows
    fg:{u:<name>}:blocks    set: the account keys this account blocks
    fg:{u:<name>}:privacy   hash: show, challenges (each one of PRIVACY_LEVELS)
    fg:{u:<name>}:tell      set of the followed account keys whose match starts it asked to hear of
    fg:{u:<name>}:fans      set of the account keys that asked to hear of its match starts
    fg:{u:<name>}:seen      string: server time the account was last seen (a signed-in request
                            to /api/my/friends... or /api/my/games), kept SEEN_MS

Two accounts are **friends** when each follows the other. Following is one-sided and needs no
consent; a block undoes both follows and stops the blocked account from following again, or
seeing the blocker in its lists, or challenging it (refused as if the account did not exist:
a block is never told). ``show`` says who sees whether the account is online and which games it
plays (with their watch links): ``everyone`` (who follows it), ``friends``, or ``nobody``;
``challenges`` says who may challenge it directly, the same way.

>>> may("friends", follows_me=True, i_follow=False)
False
>>> may("friends", follows_me=True, i_follow=True)
True
>>> may("everyone", follows_me=False, i_follow=False)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from redis import asyncio as aioredis

from server.players.accounts import Account
from server.players.accounts_store import AccountsStore, tag
from server.players.games import MyGames

PRIVACY_LEVELS = ("everyone", "following", "friends", "nobody")
DEFAULT_PRIVACY = {"show": "everyone", "challenges": "everyone"}
SEEN_MS = 5 * 60_000
"""An account seen within this long is online."""
MAX_FOLLOWS = 500


def follows_key(key: str) -> str:
    return f"{tag(key)}:follows"


def blocks_key(key: str) -> str:
    return f"{tag(key)}:blocks"


def tell_key(key: str) -> str:
    return f"{tag(key)}:tell"


def fans_key(key: str) -> str:
    return f"{tag(key)}:fans"


def privacy_key(key: str) -> str:
    return f"{tag(key)}:privacy"


def seen_key(key: str) -> str:
    return f"{tag(key)}:seen"


def may(level: str, follows_me: bool, i_follow: bool) -> bool:
    """Whether a level (of PRIVACY_LEVELS) lets in someone who follows the account
    (``follows_me``) and whom it follows (``i_follow``): ``everyone`` anyone, ``following``
    those the account follows, ``friends`` those it follows who follow it, ``nobody`` nobody.

    >>> [may(level, False, True) for level in PRIVACY_LEVELS]
    [True, True, False, False]
    >>> [may(level, True, False) for level in PRIVACY_LEVELS]
    [True, False, False, False]
    """
    if level == "everyone":
        return True
    if level == "following":
        return i_follow
    return level == "friends" and follows_me and i_follow


class FollowRefused(Exception):
    """Too many follows, or oneself."""


@dataclass
class Friends:
    """Follows, blocks, privacy and presence of accounts."""

    store: AccountsStore
    games: MyGames

    @property
    def redis(self) -> aioredis.Redis:
        return self.store.redis

    async def follow(self, me: Account, other: str, tell: bool | None = None) -> bool:
        """``me`` follows account key ``other``; False when ``other`` blocks ``me`` (the caller
        answers as if no such account). ``tell``: whether ``me`` hears when ``other`` starts a
        match (None: as it was). Idempotent."""
        if other == me.key:
            raise FollowRefused("you cannot follow yourself")
        if await self.redis.sismember(blocks_key(other), me.key):
            return False
        if await self.redis.scard(follows_key(me.key)) >= MAX_FOLLOWS:
            raise FollowRefused(f"you follow {MAX_FOLLOWS} players already")
        await self.redis.srem(blocks_key(me.key), other)
        await self.redis.sadd(follows_key(me.key), other)
        if tell is not None:
            await self._tell(me.key, other, tell)
        return True

    async def _tell(self, fan: str, player: str, on: bool) -> None:
        """Both sides of "``fan`` hears of ``player``'s match starts" (two slots: one each)."""
        if on:
            await self.redis.sadd(tell_key(fan), player)
            await self.redis.sadd(fans_key(player), fan)
        else:
            await self.redis.srem(tell_key(fan), player)
            await self.redis.srem(fans_key(player), fan)

    async def unfollow(self, me: Account, other: str) -> None:
        await self.redis.srem(follows_key(me.key), other)
        await self._tell(me.key, other, False)

    async def block(self, me: Account, other: str) -> None:
        """``me`` blocks ``other``: neither follows the other any more."""
        if other == me.key:
            raise FollowRefused("you cannot block yourself")
        await self.redis.sadd(blocks_key(me.key), other)
        await self.redis.srem(follows_key(me.key), other)
        await self.redis.srem(follows_key(other), me.key)
        await self._tell(me.key, other, False)
        await self._tell(other, me.key, False)

    async def unblock(self, me: Account, other: str) -> None:
        await self.redis.srem(blocks_key(me.key), other)

    async def blocks(self, key: str, other: str) -> bool:
        """Whether account ``key`` blocks account ``other``."""
        return bool(await self.redis.sismember(blocks_key(key), other))

    async def privacy(self, key: str) -> dict[str, str]:
        raw = await self.redis.hgetall(privacy_key(key))
        got = {k.decode(): v.decode() for k, v in raw.items()}
        return {f: got.get(f, d) if got.get(f) in PRIVACY_LEVELS else d
                for f, d in DEFAULT_PRIVACY.items()}  # fmt: skip

    async def set_privacy(self, me: Account, changes: dict[str, str]) -> dict[str, str]:
        if changes:
            await self.redis.hset(privacy_key(me.key), mapping=changes)
        return await self.privacy(me.key)

    async def seen(self, me: Account, now: int) -> None:
        await self.redis.set(seen_key(me.key), now, px=SEEN_MS)

    async def relation(self, me: str, other: str) -> tuple[bool, bool]:
        """(``other`` follows ``me``, ``me`` follows ``other``)."""
        a = await self.redis.sismember(follows_key(other), me)
        b = await self.redis.sismember(follows_key(me), other)
        return bool(a), bool(b)

    async def may_challenge(self, me: str, other: str) -> bool:
        """Whether ``me`` may challenge ``other`` (its ``challenges`` setting and blocks)."""
        if await self.blocks(other, me) or await self.blocks(me, other):
            return False
        level = (await self.privacy(other))["challenges"]
        follows_other, other_follows = await self.relation(other, me)
        return may(level, follows_me=follows_other, i_follow=other_follows)

    async def fans_to_tell(self, player: str) -> list[str]:
        """The accounts to tell that ``player`` starts a match: those that asked, still follow
        it, are not blocked by it, and whom its ``show`` setting lets see what it plays."""
        out = []
        level = (await self.privacy(player))["show"]
        for raw in sorted(await self.redis.smembers(fans_key(player))):
            fan = raw.decode()
            follows, followed = await self.relation(player, fan)
            if not follows or await self.blocks(player, fan):
                continue
            if may(level, follows_me=True, i_follow=followed):
                out.append(fan)
        return out

    async def listing(self, me: Account, now: int) -> dict[str, Any]:
        """Whom ``me`` follows (each with mutual, and online and live public games where its
        ``show`` lets ``me`` see them), and whom it blocks."""
        following = sorted(m.decode() for m in await self.redis.smembers(follows_key(me.key)))
        blocked = sorted(m.decode() for m in await self.redis.smembers(blocks_key(me.key)))
        rows = []
        for key in following:
            row_ = await self.store.account(key)
            if row_ is None or await self.blocks(key, me.key):
                continue
            mutual = bool(await self.redis.sismember(follows_key(key), me.key))
            level = (await self.privacy(key))["show"]
            account = Account.of(row_)
            tell = bool(await self.redis.sismember(tell_key(me.key), key))
            row: dict[str, Any] = {"name": account.name, "mutual": mutual, "online": None,
                                   "playing": None, "tell": tell,
                                   "bot": row_.get("bot") == "1"}  # fmt: skip
            if may(level, follows_me=True, i_follow=mutual):
                seen = await self.redis.get(seen_key(key))
                row["online"] = seen is not None and now - int(seen) < SEEN_MS
                row["playing"] = [g["match"] for g in await self.games.live(account)
                                  if not g["summary"]["private"]
                                  and g["summary"]["phase"] != "waiting"]  # fmt: skip
            rows.append(row)
        names = [(await self.store.account(k) or {"name": k})["name"] for k in blocked]
        return {"following": rows, "blocked": names}
