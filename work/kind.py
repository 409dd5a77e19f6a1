"""A kind of job: the stream its jobs are queued on, the consumer group its workers read it
through, and the typed job with its stored form.

A job type is a frozen dataclass with ``fields()`` (its stored form: a map of field names to
strings, written as one stream entry) and a classmethod ``of(fields)`` that reads an entry back
(the raw ``bytes`` map Redis returns) and raises ``KeyError`` or ``ValueError`` for an entry that
is not such a job. The stored form is a promise to the workers of other versions (old and new
code meet across a deploy): it never depends on class names or on the order of fields, and a
field, once written, keeps its name and its values' meaning.

>>> from dataclasses import dataclass
>>> @dataclass(frozen=True)
... class Ping:
...     n: int
...     def fields(self) -> dict[str, str]:
...         return {"n": str(self.n)}
...     @classmethod
...     def of(cls, fields: dict[bytes, bytes]) -> "Ping":
...         return cls(int(fields[b"n"]))
>>> PINGS = Kind("fg:ping:jobs", "pingers", Ping)
>>> PINGS.parse({b"n": b"7"})
Ping(n=7)
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Generic, Protocol, Self, TypeVar


class Job(Protocol):
    def fields(self) -> Mapping[str, str]:
        """The job's stored form: one stream entry's fields."""
        ...

    @classmethod
    def of(cls, fields: Mapping[bytes, bytes]) -> Self:
        """The job an entry holds; ``KeyError`` or ``ValueError`` when it holds none."""
        ...


J = TypeVar("J", bound=Job)


@dataclass(frozen=True, slots=True)
class Kind(Generic[J]):
    """Jobs of type ``job`` queued on ``stream`` and read through the consumer group
    ``group`` (several kinds may share a group: a worker of the group reads them all)."""

    stream: str
    group: str
    job: type[J]

    def parse(self, fields: Mapping[bytes, bytes]) -> J:
        """The job of one entry (``KeyError`` or ``ValueError``: not a job of this kind)."""
        return self.job.of(fields)
