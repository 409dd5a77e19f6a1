"""Frozen dataclasses to msgpack and back, driven by their type hints.

The match state is a tree of frozen dataclasses (the machine's and the engine's). Snapshots in
Redis store each dataclass as a list of its field values in declaration order, enums as their
values and tuples as lists; loading rebuilds the same types from the annotations. No code runs
from stored data (unlike pickle), and the format is plain msgpack any tool can read.

>>> from engine.match import Match, MatchOptions
>>> m, _ = Match.new(MatchOptions.match(5)).start_game()
>>> load(Match, msgpack.unpackb(dumps(m))) == m
True
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import types
import typing
from typing import Any

import msgpack


def dump(value: Any) -> Any:
    """A msgpack-ready copy of ``value`` (dataclass -> list of fields, enum -> value)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return [dump(getattr(value, name)) for name in _field_names(type(value))]
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, tuple | list | frozenset | set):
        return [dump(item) for item in value]
    if isinstance(value, dict):
        return {k: dump(v) for k, v in value.items()}
    return value


def dumps(value: Any) -> bytes:
    return msgpack.packb(dump(value), use_bin_type=True)


def loads(kind: type, blob: bytes) -> Any:
    return load(kind, msgpack.unpackb(blob, raw=False, strict_map_key=False))


def load(kind: Any, data: Any) -> Any:
    """Rebuild a value of type ``kind`` from :func:`dump` output."""
    if kind is Any or kind is typing.Any:
        return data
    origin = typing.get_origin(kind)
    if origin is types.UnionType or origin is typing.Union:
        if data is None:
            return None
        options = [a for a in typing.get_args(kind) if a is not type(None)]
        if len(options) != 1:
            raise TypeError(f"cannot load an ambiguous union {kind}")
        return load(options[0], data)
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            return tuple(load(args[0], item) for item in data)
        return tuple(load(a, item) for a, item in zip(args, data, strict=True))
    if origin is frozenset:
        (arg,) = typing.get_args(kind)
        return frozenset(load(arg, item) for item in data)
    if origin is dict:
        key, val = typing.get_args(kind)
        return {load(key, k): load(val, v) for k, v in data.items()}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        obj = object.__new__(kind)
        for (name, hint), item in zip(_hints(kind), data, strict=True):
            object.__setattr__(obj, name, load(hint, item))
        return obj
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        return kind(data)
    if kind is bytes:
        return bytes(data)
    return data


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))


@functools.cache
def _hints(kind: type) -> tuple[tuple[str, Any], ...]:
    hints = typing.get_type_hints(kind)
    return tuple((name, hints[name]) for name in _field_names(kind))
