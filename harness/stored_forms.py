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

from server.machine.state import Config

AFTER_THE_MAP: dict[type, frozenset[str]] = {Config: frozenset({"arranged", "connect_by"})}
"""Fields added since states are stored as maps: the legacy form never had them (a legacy
value loads them with their defaults), so the writer of that form leaves them out."""


def positional(value: Any) -> Any:
    """``value`` in the legacy positional form, ready for msgpack."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        later = AFTER_THE_MAP.get(type(value), frozenset())
        fields = [f for f in dataclasses.fields(value) if f.name not in later]
        return [positional(getattr(value, f.name)) for f in fields]
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list | frozenset | set):
        return [positional(item) for item in value]
    if isinstance(value, dict):
        return {k: positional(v) for k, v in value.items()}
    return value


def positional_bytes(value: Any) -> bytes:
    return msgpack.packb(positional(value), use_bin_type=True)
