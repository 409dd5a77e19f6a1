"""The legacy stored form of the match state, written independently of ``server.machine.serial``.

Before dataclasses were stored as maps keyed by field name, each was stored as the list of its
field values in declaration order (enums as their values, tuples as lists). Snapshots and logs
in that form are still in Redis; tests write it with :func:`positional` to check that it loads.
``tests/unit/test_serial_format.py`` checks that it reproduces the bytes the old code stored.
"""

from __future__ import annotations

import dataclasses
import enum
from typing import Any

import msgpack

from engine.rules import Rules, Variant

NEWER_FIELDS: dict[str, frozenset[str]] = {
    "server.machine.state.Config": frozenset({"arranged", "connect_by", "days"}),
    "server.machine.state.Dice": frozenset({"held"}),
    "server.machine.state.MatchState": frozenset({"ahead", "updated", "vacation", "credited"}),
    "engine.game.Game": frozenset({"variant", "pinned"}),
    "engine.match.MatchOptions": frozenset({"variant"}),
}
"""Fields added after the map form replaced the positional one: no value stored in the
positional form has them (they load with their defaults). The legacy writer leaves them out
when they are trailing and at their default (so a value of that time is written as it was);
a value using them is written with them (the loader takes a list of all the fields too).
Keyed by each dataclass's module and name."""


def positional(value: Any) -> Any:
    """``value`` in the legacy positional form, ready for msgpack."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        kind = type(value)
        newer = NEWER_FIELDS.get(f"{kind.__module__}.{kind.__qualname__}", frozenset())
        fields = list(dataclasses.fields(value))
        while fields and fields[-1].name in newer and getattr(value, fields[-1].name) == (
            fields[-1].default
        ):
            fields.pop()
        return [positional(getattr(value, f.name)) for f in fields]
    if isinstance(value, Variant | Rules):
        return value.name  # the rules are stored by name
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list | frozenset | set):
        return [positional(item) for item in value]
    if isinstance(value, dict):
        return {k: positional(v) for k, v in value.items()}
    return value


def positional_bytes(value: Any) -> bytes:
    return msgpack.packb(positional(value), use_bin_type=True)
