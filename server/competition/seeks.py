"""Quick pairing (pure): which seeks in the pool pair up, and when a seek is gone.

A *seek* asks for a game on given terms — ``mode`` (``single_game``, ``match``, ``money``),
``length`` (a match's points; 0 otherwise), ``clock`` (seconds per decision), ``rated`` — by a
browser (``browser``, its id) and, when signed in, an account (``account``) with its rating
(``rating``, whole points) and, optionally, the widest rating gap it accepts (``range``).

Two seeks *fit* at time ``now`` when

* they are different seeks on the same terms (mode, length, clock, rated);
* they are not the same person: different browsers, and not the same account;
* a rated seek comes from an account with a rating (so both do: the terms are the same);
* bots and humans (docs/accounts.md, "Bot accounts"): a seek of a bot account (``bot``) fits a
  human's seek only when the human's accepts bots (``bots``, false unless asked) and neither is
  rated (bots are rated apart); two bots' seeks fit as any two seeks;
* for each of the two that has a range, the other has a rating and the gap between the ratings
  is at most the range *as widened by waiting*:
  ``range + WIDEN_POINTS × ⌊max(0, now − since) / WIDEN_EVERY_MS⌋`` — 50 points more every
  5 seconds the seek has waited (``since``: when it was queued; a seek stamped a little ahead
  of ``now`` by another process's clock has waited 0).

The pool pairs *oldest first* (:func:`pair_pool`): the seeks in the order they were queued
(``since``, then ``id`` — a Redis sorted set's order for equal scores), each still unpaired
seek takes the oldest unpaired seek after it that fits. A seek queued ``SEEK_TTL_MS`` (10
minutes) ago or more is gone (:func:`expired`); a page that closes deletes its seek at once.
A seek that waited ``COMPUTER_AFTER_MS`` with nobody else seeking those terms is offered the
computer (:func:`offer_computer`).

Everything is whole numbers, string equality and one order, so one Redis script can apply the
same rules; ``seek_vectors.json`` (written by :mod:`server.competition.make_vectors`) holds the
cases it is to be tested against.

>>> ann = Seek("s1", "match", 5, 60, True, "b1", 0, account="ann", rating=1600, range=100)
>>> bob = Seek("s2", "match", 5, 60, True, "b2", 1000, account="bob", rating=1750)
>>> fits(ann, bob, now=1000), allowed_gap(ann, now=26_000), fits(ann, bob, now=26_000)
(False, 350, True)
>>> pair_pool([bob, ann], now=26_000)
[('s1', 's2')]
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from server.competition.errors import Code, Refused

WIDEN_POINTS = 50
WIDEN_EVERY_MS = 5_000
SEEK_TTL_MS = 10 * 60_000
COMPUTER_AFTER_MS = 5_000
MAX_RANGE = 2_000
MODES = frozenset({"single_game", "match", "money"})


@dataclass(frozen=True, slots=True)
class Seek:
    id: str
    mode: str
    length: int
    clock: int
    rated: bool
    browser: str
    since: int
    account: str | None = None
    rating: int | None = None
    range: int | None = None
    bot: bool = False
    """The seeker is a bot account."""
    bots: bool = False
    """A human's seek that accepts a bot opponent (unrated only)."""

    @property
    def terms(self) -> tuple[str, int, int, bool]:
        return (self.mode, self.length, self.clock, self.rated)


def check(seek: Seek) -> Seek:
    """``seek`` if the pairing rules can read it; ``bad_seek`` naming the field otherwise.
    (Whether the terms make a valid match — lengths, clocks — is the lobby's check.)"""

    def bad(message: str) -> Refused:
        return Refused(Code.BAD_SEEK, message)

    for name in ("id", "mode", "browser"):
        if not isinstance(getattr(seek, name), str) or not getattr(seek, name):
            raise bad(f"{name} is a non-empty string")
    if seek.mode not in MODES:
        raise bad(f"mode is one of {', '.join(sorted(MODES))}")
    for name in ("length", "clock", "since"):
        if not _whole(getattr(seek, name)) or getattr(seek, name) < 0:
            raise bad(f"{name} is a whole number, 0 or more")
    for name in ("rated", "bot", "bots"):
        if not isinstance(getattr(seek, name), bool):
            raise bad(f"{name} is true or false")
    if seek.bot and seek.account is None:
        raise bad("a bot is an account")
    if seek.account is not None and (not isinstance(seek.account, str) or not seek.account):
        raise bad("account is a non-empty string or none")
    if seek.rating is not None and (seek.account is None or not _whole(seek.rating)):
        raise bad("a rating is a whole number, and only an account has one")
    if seek.rated and seek.rating is None:
        raise bad("rated play needs an account with a rating")
    if seek.range is not None:
        if seek.rating is None:
            raise bad("a rating range needs an account with a rating")
        if not _whole(seek.range) or not 0 <= seek.range <= MAX_RANGE:
            raise bad(f"range is 0..{MAX_RANGE} rating points")
    return seek


def allowed_gap(seek: Seek, now: int) -> int | None:
    """The widest rating gap ``seek`` accepts at ``now`` (None: any opponent)."""
    if seek.range is None:
        return None
    waited = max(0, now - seek.since)
    return seek.range + WIDEN_POINTS * (waited // WIDEN_EVERY_MS)


def fits(a: Seek, b: Seek, now: int) -> bool:
    """Whether ``a`` and ``b`` may be paired at ``now`` (the module's rules)."""
    if a.id == b.id or a.terms != b.terms or a.browser == b.browser:
        return False
    if a.account is not None and a.account == b.account:
        return False
    if a.rated and (a.rating is None or b.rating is None):
        return False
    if a.bot != b.bot:
        human = b if a.bot else a
        if a.rated or not human.bots:
            return False
    for me, other in ((a, b), (b, a)):
        gap = allowed_gap(me, now)
        if gap is None:
            continue
        if other.rating is None or me.rating is None or abs(me.rating - other.rating) > gap:
            return False
    return True


def queue_order(seek: Seek) -> tuple[int, str]:
    return (seek.since, seek.id)


def expired(seek: Seek, now: int) -> bool:
    return now - seek.since >= SEEK_TTL_MS


def pair_pool(pool: Iterable[Seek], now: int) -> list[tuple[str, str]]:
    """The pairs the pool forms at ``now`` (older seek first), expired seeks left out."""
    order = sorted((s for s in pool if not expired(s, now)), key=queue_order)
    taken: set[str] = set()
    pairs = []
    for i, a in enumerate(order):
        if a.id in taken:
            continue
        for b in order[i + 1 :]:
            if b.id not in taken and fits(a, b, now):
                taken |= {a.id, b.id}
                pairs.append((a.id, b.id))
                break
    return pairs


def offer_computer(seek: Seek, pool: Sequence[Seek], now: int) -> bool:
    """Whether to offer ``seek`` the computer: it has waited :data:`COMPUTER_AFTER_MS` and
    nobody else (another browser and account) seeks the same terms."""
    if now - seek.since < COMPUTER_AFTER_MS:
        return False
    return not any(
        other.terms == seek.terms
        and other.browser != seek.browser
        and (seek.account is None or other.account != seek.account)
        and not expired(other, now)
        for other in pool
    )


def looking(pool: Iterable[Seek], now: int) -> dict[tuple[str, int, int, bool], int]:
    """How many seeks wait for each set of terms (for the lobby)."""
    counts: dict[tuple[str, int, int, bool], int] = {}
    for seek in pool:
        if not expired(seek, now):
            counts[seek.terms] = counts.get(seek.terms, 0) + 1
    return counts


def _whole(value: Any) -> bool:
    return type(value) is int
