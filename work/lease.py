"""The lease rules of the work queue, pure: where a worker looks for work, which entries it
holds, when it renews them and when it has lost one. Time comes in as an argument (milliseconds
of any clock that only moves forward); nothing here does I/O (Redis is :mod:`work.streams`, the
loop :mod:`work.runner`).

A *lease* is a stream entry delivered to one consumer of a group and not acknowledged yet
(*pending*, in Redis's words). Its holder works on it and, when the work is done, acknowledges
and deletes it. An entry pending for ``claim_idle_ms`` without a renewal may be taken over by any
worker of the group (``XAUTOCLAIM`` with that idle time): so the work of a worker that died goes
on elsewhere. A kind whose work can outlast that time renews its leases on every beat (a claim
by the holder itself, which resets the idle time, :attr:`Timing.renews`) and checks on the same
beat that the group still counts them as its own: a worker that looked dead (stalled longer than
the idle time) finds its entries taken over and stops working on them. A kind whose work is
always shorter than the idle time (an analysis: seconds, against 60 s) never renews.

>>> bots = Timing(claim_idle_ms=5000, renews=True)
>>> leases = Leases(capacity=2, beat_ms=1000, now=0)
>>> a, b = Entry("fg:bots:jobs", b"1-0"), Entry("fg:bots:jobs", b"2-0")
>>> leases.beat(now=0)          # the first beat is due at once: nothing held yet
()
>>> leases.take(a, bots, now=0), leases.take(a, bots, now=0), leases.room
(True, False, 1)
>>> leases.lapses_at(a), leases.beat_due(999), leases.beat_due(1000)
(5000, False, True)
>>> leases.take(b, bots, now=500)
True
>>> leases.lost(owned={b})      # the group says another consumer has taken a over
(Entry(stream='fg:bots:jobs', id=b'1-0'),)
>>> leases.beat(now=1000), leases.lapses_at(b)
((Entry(stream='fg:bots:jobs', id=b'2-0'),), 6000)
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Timing:
    """How the leases of one kind of job behave.

    ``claim_idle_ms``: an entry pending this long without a renewal may be taken over by another
    worker. ``renews``: the holder renews its entries on every beat of its loop (which must
    therefore come more often than ``claim_idle_ms``) and stops the work of any it has lost."""

    claim_idle_ms: int
    renews: bool = False


@dataclass(frozen=True, slots=True)
class Entry:
    """One stream entry (its id is unique within its stream only)."""

    stream: str
    id: bytes


@dataclass(frozen=True, slots=True)
class Claim:
    """Take over entries of ``stream`` pending at least ``min_idle_ms`` (``XAUTOCLAIM``)."""

    stream: str
    min_idle_ms: int


@dataclass(frozen=True, slots=True)
class Read:
    """Read new entries of ``stream`` (``XREADGROUP ... >``); ``waits``: the read waits for one
    until the next beat (the step runs only when the steps before it found nothing)."""

    stream: str
    waits: bool = False


def plan(streams: Sequence[tuple[str, Timing]]) -> tuple[Claim | Read, ...]:
    """Where a worker looks for work, in order, while it has room: on each stream by priority,
    first the entries that dead workers left (a claim), then new ones (a read); when all that
    found nothing, a read on the first stream that waits for one. With one stream its read is
    the waiting one.

    >>> plan([("jobs", Timing(60_000)), ("deep", Timing(60_000))])  # doctest: +NORMALIZE_WHITESPACE
    (Claim(stream='jobs', min_idle_ms=60000), Read(stream='jobs', waits=False),
     Claim(stream='deep', min_idle_ms=60000), Read(stream='deep', waits=False),
     Read(stream='jobs', waits=True))
    >>> plan([("fg:bots:jobs", Timing(5000, renews=True))])  # doctest: +NORMALIZE_WHITESPACE
    (Claim(stream='fg:bots:jobs', min_idle_ms=5000), Read(stream='fg:bots:jobs', waits=True))
    """
    if not streams:
        raise ValueError("a worker reads at least one stream")
    steps: list[Claim | Read] = []
    for stream, timing in streams:
        steps += [Claim(stream, timing.claim_idle_ms), Read(stream)]
    if len(streams) == 1:
        steps.pop()
    steps.append(Read(streams[0][0], waits=True))
    return tuple(steps)


class Leases:
    """The entries one worker holds, at most ``capacity`` at once, and its beat: every
    ``beat_ms`` it checks and renews the leases of the kinds that renew (the first beat is due
    at ``now``)."""

    def __init__(self, capacity: int, beat_ms: int, now: int) -> None:
        if capacity < 1 or beat_ms < 1:
            raise ValueError("a worker holds at least one entry and beats at least every 1 ms")
        self.capacity = capacity
        self.beat_ms = beat_ms
        self._held: dict[Entry, tuple[Timing, int]] = {}  # entry -> (timing, renewed at)
        self._next_beat = now

    def __contains__(self, entry: object) -> bool:
        return entry in self._held

    def __len__(self) -> int:
        return len(self._held)

    @property
    def room(self) -> int:
        """How many more entries the worker may take now."""
        return max(0, self.capacity - len(self._held))

    def take(self, entry: Entry, timing: Timing, now: int) -> bool:
        """``entry`` was delivered to this worker (read, or claimed) at ``now``: it holds it.
        False when it already does (an entry of its own claimed back after its renewals
        lapsed: the work on it is still running)."""
        if entry in self._held:
            self._held[entry] = (timing, now)
            return False
        self._held[entry] = (timing, now)
        return True

    def release(self, entry: Entry) -> None:
        """The worker holds ``entry`` no more: finished (acknowledged and deleted), or let go
        unfinished (left pending, it lapses and is taken over). Never renewed again."""
        self._held.pop(entry, None)

    def lapses_at(self, entry: Entry) -> int:
        """When another worker may take ``entry`` over unless it is renewed first."""
        timing, renewed = self._held[entry]
        return renewed + timing.claim_idle_ms

    def lapsed(self, entry: Entry, now: int) -> bool:
        """Whether another worker may have taken ``entry`` over by ``now`` (a kind that never
        renews: the work took longer than its idle time, and may be done twice)."""
        return now >= self.lapses_at(entry)

    def beat_due(self, now: int) -> bool:
        return now >= self._next_beat

    def wait_ms(self, now: int) -> int:
        """How long a read may wait for new entries before the next beat is due (at least 1:
        Redis reads ``BLOCK 0`` as "for ever")."""
        return max(1, self._next_beat - now)

    def to_check(self) -> tuple[Entry, ...]:
        """The entries whose ownership the beat checks (those of kinds that renew)."""
        return tuple(e for e, (timing, _) in self._held.items() if timing.renews)

    def lost(self, owned: Collection[Entry]) -> tuple[Entry, ...]:
        """Given the entries the group counts as this worker's, those of :meth:`to_check` it has
        lost: another worker took them over while this one looked dead. They are forgotten; the
        work on them must stop (its new holder does it)."""
        gone = tuple(e for e in self.to_check() if e not in owned)
        for entry in gone:
            del self._held[entry]
        return gone

    def beat(self, now: int) -> tuple[Entry, ...]:
        """The beat at ``now``: the entries to renew (those of kinds that renew, after
        :meth:`lost`), counted as renewed now; the next beat is due ``beat_ms`` later."""
        renew = self.to_check()
        for entry in renew:
            self._held[entry] = (self._held[entry][0], now)
        self._next_beat = now + self.beat_ms
        return renew
