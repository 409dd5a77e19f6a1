"""The newest version of each match this process knows the store held: its own evidence of
writes the store may lose.

A version gets here only from the store itself, seen by this process: a transition it stored
(and acknowledged), an event published on the match's channel (published by the commit script,
after the write), a state it read. Kept in process memory, apart from the store, it survives
every loss of the store's data (a failover that lost the last writes, a Redis restarted from an
old snapshot) for as long as the process lives; a record kept in Redis would be lost or rolled
back with the writes it vouches for. A client's claim (``last_v``) is never evidence: anyone
can send any number. :mod:`server.match.rewind` reads it.

Bounded: the ``size`` matches seen most recently (older ones are forgotten first).

>>> known = HighWater(size=2)
>>> known.saw("a", 7); known.saw("a", 5)
>>> known.version("a"), known.behind("a", 4), known.behind("a", 7)
(7, 7, None)
>>> known.settle("a", 4); known.behind("a", 4), known.settled("a")
(None, True)
>>> known.saw("b", 1); known.saw("c", 1); known.version("a") is None
True
"""

from __future__ import annotations

import time
from collections import OrderedDict
from dataclasses import dataclass


@dataclass(slots=True)
class _Mark:
    version: int
    raised: float
    """When the version last rose (monotonic seconds)."""
    settled: bool = False
    """A loss of this match was counted here (its version then lowered to the store's)."""


class HighWater:
    def __init__(self, size: int = 50_000) -> None:
        self.size = size
        self._marks: OrderedDict[str, _Mark] = OrderedDict()

    def saw(self, match_id: str, version: int, now: float | None = None) -> None:
        """The store held ``version`` of ``match_id`` (raises the mark, never lowers it)."""
        mark = self._marks.get(match_id)
        if mark is None:
            self._marks[match_id] = _Mark(version, time.monotonic() if now is None else now)
            while len(self._marks) > self.size:
                self._marks.popitem(last=False)
            return
        self._marks.move_to_end(match_id)
        if version > mark.version:
            mark.version = version
            mark.raised = time.monotonic() if now is None else now

    def version(self, match_id: str) -> int | None:
        mark = self._marks.get(match_id)
        return mark.version if mark is not None else None

    def behind(self, match_id: str, stored: int) -> int | None:
        """The version this process knew when the store is now behind it at ``stored`` (the
        store lost writes), else None."""
        mark = self._marks.get(match_id)
        return mark.version if mark is not None and mark.version > stored else None

    def settle(self, match_id: str, stored: int) -> None:
        """A loss of ``match_id`` down to ``stored`` was counted: from now on the store's
        version is what this process knows (the same loss is not counted twice)."""
        mark = self._marks.get(match_id)
        if mark is not None:
            mark.version = min(mark.version, stored)
            mark.settled = True

    def settled(self, match_id: str) -> bool:
        mark = self._marks.get(match_id)
        return mark is not None and mark.settled

    def raised_since(self, since: float) -> list[tuple[str, int]]:
        """``(match, version)`` of every match whose mark rose at or after ``since``."""
        return [(m, k.version) for m, k in self._marks.items() if k.raised >= since]
