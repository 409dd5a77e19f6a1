"""The secrets of a match: ids, seat tokens, invite codes, and how they are checked.

Pure (no I/O). A match id is public but unguessable; a seat token and an invite code are
secrets that travel once, in an HTTP response body, and are stored only as their SHA-256
(:func:`token_hash`) in the match's seats hash (``fg:{m:<id>}:seats``: fields ``0``, ``1`` and
``invite``). A presented token is compared with both stored hashes in constant time
(:func:`seat_of`). A rematch's seat tokens are derived, not drawn (:func:`rematch_token`), so
asking again for the same seat yields the same token.

>>> token = "x" * 43
>>> seat_of([None, token_hash(token)], token), seat_of([token_hash(token), None], "y")
(1, None)
>>> rematch_token(token, "ab" * 16, 0) == rematch_token(token, "ab" * 16, 0)
True
>>> len(new_match_id()), rematch_token(token, "ab" * 16, 0) != rematch_token(token, "ab" * 16, 1)
(32, True)
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from collections.abc import Sequence


def new_match_id() -> str:
    """128 random bits in hex: unguessable, so a link is the only way into a match."""
    return secrets.token_hex(16)


def new_seat_token() -> str:
    """A fresh seat token (256 random bits, URL-safe base64)."""
    return secrets.token_urlsafe(32)


def new_invite() -> str:
    """A fresh invite code of a private match (128 random bits, URL-safe base64)."""
    return secrets.token_urlsafe(16)


def token_hash(token: str) -> bytes:
    """What the seats hash stores of a seat token or invite code."""
    return hashlib.sha256(token.encode()).digest()


def holds(stored: bytes | None, secret: str) -> bool:
    """Whether ``secret`` is the one whose hash is ``stored`` (compared in constant time)."""
    return stored is not None and hmac.compare_digest(stored, token_hash(secret))


def seat_of(hashes: Sequence[bytes | None], token: str) -> int | None:
    """The seat whose stored token hash ``token`` matches, or None.

    Both hashes are compared in constant time, so the answer's timing tells nothing.
    """
    digest = token_hash(token)
    found = None
    for seat, stored in enumerate(hashes):
        if stored is not None and hmac.compare_digest(stored, digest):
            found = seat
    return found


def account_token(key: bytes, match_id: str, seat: int, account: str) -> str:
    """The seat token of ``seat`` of ``match_id`` taken by ``account`` (its reference, ``<name>
    <id>``), derived with the server's seat key (:data:`SEAT_KEY`): the server can give it
    again to that account, signed in on any device, while storing only its hash (so a
    correspondence move can be made from anywhere: docs/correspondence.md). Without the key it
    cannot be computed; a new account of the same name has another id, so another token.

    >>> a = account_token(b"k" * 32, "ab" * 16, 0, "ann 1")
    >>> a == account_token(b"k" * 32, "ab" * 16, 0, "ann 1"), a != account_token(b"k" * 32,
    ...     "ab" * 16, 0, "ann 2")
    (True, True)
    """
    message = f"fairgammon account seat {match_id} {seat} {account}".encode()
    mac = hmac.new(key, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()


SEAT_KEY = "fg:keys:seats"
"""Redis key of the server's seat key (32 random bytes, written once with ``SET NX`` by the
first process that needs it, shared by all)."""


def rematch_token(token: str, match_id: str, seat: int) -> str:
    """The seat token of ``seat`` in rematch ``match_id`` for the holder of ``token`` (their
    token of the finished match). Derived, not drawn: asking again yields the same token, so
    a retried request is idempotent; only the holder of the old token can compute it."""
    message = f"fairgammon rematch {match_id} {seat}".encode()
    mac = hmac.new(token.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).rstrip(b"=").decode()
