"""Accounts (optional): sign-up, login, logout, deletion and sessions.

* A username is 3-20 characters ``[A-Za-z0-9_-]`` and nothing else (no control character, no
  trailing newline: the whole string must match), unique without regard to case (its keys
  use the lowercased name); a password is 8-128 characters of valid Unicode (no lone
  surrogate: it must encode to UTF-8).
* Passwords are stored only as scrypt records ``scrypt$<n>$<r>$<p>$<salt>$<key>`` (standard
  library ``hashlib.scrypt``, n = 2**15, r = 8, p = 1: 32 MiB and about 0.1 s per hash; a
  16-byte random salt, a 32-byte key). The parameters ride in the record, so they can be
  raised later without breaking old ones. At most :data:`HASHING_AT_ONCE` hashes run at a
  time per process (a login flood costs queueing, not memory).
* A session is 32 random bytes in a cookie ``fg_session=<name>.<token>``; Redis keeps only the
  SHA-256 of the token, under the account's tag, with an expiry (:data:`SESSION_DAYS`).
* Logins are throttled per account and per address (:class:`Throttle`). An unknown name and a
  wrong password get the same answer, and take the same time: an unknown name is checked
  against a dummy record with the same parameters.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import re
import secrets
import time
from dataclasses import dataclass

from protocol.http_errors import ApiErrorCode, HttpCode, status_of
from server.ops.addresses import address_key as address_unit
from server.players.accounts_store import AccountsStore, account_key, address_key, fails_key
from server.players.ratings import START_RATING, variant_standings

USERNAME = re.compile(r"[A-Za-z0-9_-]{3,20}")
"""What a username is: the WHOLE string must match (:func:`is_username`)."""
PASSWORD_MIN, PASSWORD_MAX = 8, 128
SCRYPT_N, SCRYPT_R, SCRYPT_P, KEY_BYTES = 2**15, 8, 1, 32
HASHING_AT_ONCE = 2
SESSION_DAYS = 30
COOKIE = "fg_session"


@dataclass(frozen=True, slots=True)
class Throttle:
    """Failed logins allowed per window, per account and per address; sign-ups per address."""

    account_fails: int = 10
    address_fails: int = 30
    signups: int = 10
    window_ms: int = 15 * 60 * 1000


class AccountError(Exception):
    """An account request refused: ``code`` (the account rules' are :class:`HttpCode`
    members), its HTTP ``status``, and for a 429 ``retry_after`` seconds."""

    def __init__(
        self, code: ApiErrorCode, message: str, status: int | None = None, retry_after: int = 0
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status_of(code, status)
        self.retry_after = retry_after


@dataclass(frozen=True, slots=True)
class Account:
    """A signed-in player, as a session shows it."""

    key: str
    """The lowercased name: the account's Redis tag."""
    id: str
    name: str
    rating: float
    experience: int
    matches: int
    bot: bool = False
    """A bot account: an outside engine, rated in the bots' pool (docs/accounts.md)."""
    variants: tuple[tuple[str, float, int], ...] = ()
    """Its rating and experience in each other variant it played rated (backgammon's are
    ``rating`` and ``experience``), by variant name."""

    @classmethod
    def of(cls, row: dict[str, str]) -> Account:
        return cls(
            row["name"].lower(),
            row["id"],
            row["name"],
            float(row.get("rating", START_RATING)),
            int(row.get("exp", 0)),
            int(row.get("matches", 0)),
            row.get("bot") == "1",
            tuple((v, s.rating, s.experience) for v, s in variant_standings(row).items()),
        )

    @property
    def ref(self) -> str:
        """How a match's seats hash names the account: ``<key> <id>``."""
        return f"{self.key} {self.id}"

    def public(self) -> dict[str, object]:
        return {
            "username": self.name,
            "rating": round(self.rating, 2),
            "experience": self.experience,
            "matches": self.matches,
            "bot": self.bot,
        }

    def variant_ratings(self) -> dict[str, dict[str, object]]:
        """Its rating and experience in each variant it played rated but backgammon (whose
        are :attr:`rating` and :attr:`experience`), by name (the profile's ``variants``)."""
        return {
            name: {"rating": round(rating, 2), "experience": experience}
            for name, rating, experience in self.variants
        }


# ---------------------------------------------------------------- passwords


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _scrypt(password: str, salt: bytes, n: int, r: int, p: int) -> bytes:
    return hashlib.scrypt(
        password.encode(), salt=salt, n=n, r=r, p=p, dklen=KEY_BYTES, maxmem=256 * 1024 * 1024
    )


def hash_password(password: str) -> str:
    """A new scrypt record for ``password`` (random salt)."""
    salt = secrets.token_bytes(16)
    key = _scrypt(password, salt, SCRYPT_N, SCRYPT_R, SCRYPT_P)
    return f"scrypt${SCRYPT_N}${SCRYPT_R}${SCRYPT_P}${_b64(salt)}${_b64(key)}"


def verify_password(password: str, record: str) -> bool:
    """Whether ``password`` matches ``record`` (compared in constant time)."""
    kind, n, r, p, salt, key = record.split("$")
    if kind != "scrypt":
        return False
    return hmac.compare_digest(_scrypt(password, _unb64(salt), int(n), int(r), int(p)), _unb64(key))


_DUMMY: list[str] = []


def dummy_record() -> str:
    """A record no password matches in practice, with today's parameters (made once)."""
    if not _DUMMY:
        _DUMMY.append(hash_password(secrets.token_urlsafe(24)))
    return _DUMMY[0]


def is_username(text: str) -> bool:
    """Whether ``text`` is a well-formed username (its length, every character of it).

    >>> is_username("Alice_1"), is_username("name\\n"), is_username("ab"), is_username("a b c")
    (True, False, False, False)
    """
    return USERNAME.fullmatch(text) is not None


def encodable(text: str) -> bool:
    """Whether ``text`` is valid Unicode text: it encodes to UTF-8 (no lone surrogate).

    >>> encodable("pässwörd"), encodable("abc\\ud800")
    (True, False)
    """
    try:
        text.encode()
    except UnicodeEncodeError:
        return False
    return True


def check_username(raw: object) -> str:
    if not isinstance(raw, str) or not is_username(raw):
        raise AccountError(
            HttpCode.BAD_USERNAME, "a username is 3-20 letters, digits, '_' or '-'"
        )
    return raw


def check_password(raw: object) -> str:
    if not isinstance(raw, str) or not PASSWORD_MIN <= len(raw) <= PASSWORD_MAX:
        raise AccountError(
            HttpCode.BAD_PASSWORD, f"a password is {PASSWORD_MIN}-{PASSWORD_MAX} characters"
        )
    return checked_text(raw)


def checked_text(password: str) -> str:
    """``password`` if it is valid Unicode; else ``bad_password`` (sign-up and login alike:
    no account has such a password, so refusing it tells nothing about any)."""
    if not encodable(password):
        raise AccountError(
            HttpCode.BAD_PASSWORD, "a password is text: it has a lone surrogate (invalid Unicode)"
        )
    return password


def token_digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def parse_cookie(value: str | None) -> tuple[str, str] | None:
    """``(name, token)`` from a session cookie's value, or None if it is malformed."""
    if not value or len(value) > 100:
        return None
    name, _, token = value.partition(".")
    if not is_username(name) or not 20 <= len(token) <= 64:
        return None
    return name, token


# ---------------------------------------------------------------- the service


class Accounts:
    """Sign-up, login, logout, deletion and session lookup. One instance per process."""

    def __init__(self, store: AccountsStore, throttle: Throttle | None = None) -> None:
        self.store = store
        self.throttle = throttle or Throttle()
        self._hashing = asyncio.Semaphore(HASHING_AT_ONCE)

    async def _hash(self, password: str) -> str:
        async with self._hashing:
            return await asyncio.to_thread(hash_password, password)

    async def _verify(self, password: str, record: str) -> bool:
        async with self._hashing:
            return await asyncio.to_thread(verify_password, password, record)

    async def signup(self, username: object, password: object, address: str) -> tuple[Account, str]:
        """A new account and its first session's cookie value."""
        name = check_username(username)
        secret = check_password(password)
        t = self.throttle
        ((count, left),) = await self.store.counters([address_key("signup", address)])
        if count >= t.signups:
            raise _too_many(left, "too many sign-ups from this address")
        if await self.store.account(name) is not None:
            raise AccountError(HttpCode.NAME_TAKEN, "this username is taken")
        record = await self._hash(secret)
        account_id = secrets.token_hex(8)
        now = int(time.time() * 1000)
        if not await self.store.create(name, account_id, record, now, START_RATING):
            raise AccountError(HttpCode.NAME_TAKEN, "this username is taken")
        await self.store.count(address_key("signup", address), t.window_ms)
        await self.store.seen(name, address_unit(address), now)
        return await self._opened(name)

    async def login(self, username: object, password: object, address: str) -> tuple[Account, str]:
        """The account and a new session's cookie value. The same ``bad_login`` answer, after
        the same work, for an unknown name and a wrong password."""
        if not isinstance(username, str) or not isinstance(password, str):
            raise AccountError(HttpCode.BAD_LOGIN, "wrong username or password")
        checked_text(password)
        t = self.throttle
        valid_name = is_username(username)
        keys = [address_key("login", address)]
        if valid_name:
            keys.append(fails_key(username))
        counts = await self.store.counters(keys)
        by_address, by_account = counts[0], counts[1] if valid_name else (0, 0)
        if by_account[0] >= t.account_fails or by_address[0] >= t.address_fails:
            left = max(by_account[1] if by_account[0] >= t.account_fails else 0,
                       by_address[1] if by_address[0] >= t.address_fails else 0)  # fmt: skip
            raise _too_many(left, "too many failed logins: try again later")
        row = await self.store.account(username) if valid_name else None
        record = row["pw"] if row else dummy_record()
        ok = await self._verify(password[:PASSWORD_MAX], record) and row is not None
        if not ok:
            await self.store.count(address_key("login", address), t.window_ms)
            if valid_name:
                await self.store.count(fails_key(username), t.window_ms)
            raise AccountError(HttpCode.BAD_LOGIN, "wrong username or password")
        await self.store.clear(fails_key(username))
        await self.store.seen(username, address_unit(address), int(time.time() * 1000))
        return await self._opened(username)

    async def _opened(self, name: str) -> tuple[Account, str]:
        for _ in range(3):
            row = await self.store.account(name)
            if row is None:
                break
            account = Account.of(row)
            token = secrets.token_urlsafe(32)
            ttl = SESSION_DAYS * 86_400_000
            if await self.store.open_session(name, account.id, token_digest(token), ttl):
                return account, f"{account.name}.{token}"
        raise AccountError(HttpCode.BAD_LOGIN, "wrong username or password")

    async def session(self, cookie: str | None) -> Account | None:
        """The account a session cookie is for, or None (no, expired, or forged cookie)."""
        parsed = parse_cookie(cookie)
        if parsed is None:
            return None
        name, token = parsed
        owner, row = await self.store.session(name, token_digest(token))
        if owner is None or row is None or not hmac.compare_digest(owner, row.get("id", "")):
            return None
        return Account.of(row)

    async def find(self, name: str) -> Account | None:
        """The account named ``name`` (any case), or None."""
        if not is_username(name):
            return None
        row = await self.store.account(name)
        return Account.of(row) if row else None

    async def logout(self, cookie: str | None) -> None:
        parsed = parse_cookie(cookie)
        if parsed is not None:
            await self.store.close_session(parsed[0], token_digest(parsed[1]))

    async def delete(self, account: Account) -> None:
        await self.store.delete(account.key)


def _too_many(left_ms: int, message: str) -> AccountError:
    retry_after = max(1, -(-left_ms // 1000))
    return AccountError(HttpCode.TOO_MANY_ATTEMPTS, message, retry_after=retry_after)


__all__ = ["COOKIE", "Account", "AccountError", "Accounts", "Throttle", "account_key"]
