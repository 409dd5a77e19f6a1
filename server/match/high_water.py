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
>>> known.saw("a", 7, now=1.0); known.saw("a", 5, now=2.0)
>>> known.behind("a", 4), known.behind("a", 7), known.raised_since(1.5)
(7, None, [])
>>> known.settle("a", 4); known.behind("a", 4), known.settled("a")
(None, True)
>>> known.saw("b", 1, now=3.0); known.saw("c", 1, now=3.0); known.raised_since(0.0)
['b', 'c']
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

    def raised_since(self, since: float) -> list[str]:
        """Every match whose mark rose at or after ``since`` (first seen counts as rising)."""
        return [match for match, mark in self._marks.items() if mark.raised >= since]
