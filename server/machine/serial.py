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
from collections.abc import Callable
from typing import Any

import msgpack


def dump(value: Any) -> Any:
    """A msgpack-ready copy of ``value`` (dataclass -> list of fields, enum -> value)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    dumper = _DUMPERS.get(kind)
    if dumper is None:
        dumper = _DUMPERS[kind] = _dumper(kind)
    return dumper(value)


# Every commit stores a snapshot, so dumping is on the hot path: scalars return at once and
# each type's dumper is built once (a board alone is 26 ints).
_SCALARS = frozenset({int, str, bytes, bool, float, type(None)})
_DUMPERS: dict[type, Callable[[Any], Any]] = {}


def _dumper(kind: type) -> Callable[[Any], Any]:
    if dataclasses.is_dataclass(kind):
        names = _field_names(kind)
        return lambda value: [dump(getattr(value, name)) for name in names]
    if issubclass(kind, enum.Enum):
        return lambda value: value.value
    if issubclass(kind, tuple | list | frozenset | set):
        return lambda value: [dump(item) for item in value]
    if issubclass(kind, dict):
        return lambda value: {k: dump(v) for k, v in value.items()}
    return lambda value: value


def dumps(value: Any) -> bytes:
    return msgpack.packb(dump(value), use_bin_type=True)


def loads(kind: type, blob: bytes) -> Any:
    return load(kind, msgpack.unpackb(blob, raw=False, strict_map_key=False))


def load(kind: Any, data: Any) -> Any:
    """Rebuild a value of type ``kind`` from :func:`dump` output."""
    return _loader(kind)(data)


@functools.cache
def _loader(kind: Any) -> Callable[[Any], Any]:
    """The function that rebuilds a ``kind`` from :func:`dump` output (built once per type)."""
    if kind is Any or kind is typing.Any:
        return _same
    origin = typing.get_origin(kind)
    if origin is types.UnionType or origin is typing.Union:
        options = [a for a in typing.get_args(kind) if a is not type(None)]
        if len(options) != 1:
            raise TypeError(f"cannot load an ambiguous union {kind}")
        inner = _loader(options[0])
        return lambda data: None if data is None else inner(data)
    if origin is tuple:
        args = typing.get_args(kind)
        if len(args) == 2 and args[1] is Ellipsis:
            item = _loader(args[0])
            if item is _same:
                return tuple
            return lambda data: tuple([item(x) for x in data])
        items = tuple(_loader(a) for a in args)
        return lambda data: tuple([f(x) for f, x in zip(items, data, strict=True)])
    if origin is frozenset:
        (arg,) = typing.get_args(kind)
        item = _loader(arg)
        return lambda data: frozenset(item(x) for x in data)
    if origin is dict:
        key, val = (_loader(a) for a in typing.get_args(kind))
        return lambda data: {key(k): val(v) for k, v in data.items()}
    if isinstance(kind, type) and dataclasses.is_dataclass(kind):
        # Built lazily: a dataclass may (through its fields) refer to itself.
        fields: list[tuple[str, Callable[[Any], Any]]] = []

        def load_dataclass(data: Any) -> Any:
            if not fields:
                fields.extend((name, _loader(hint)) for name, hint in _hints(kind))
            if len(data) > len(fields):
                raise ValueError(f"{kind.__name__}: {len(data)} values for {len(fields)} fields")
            obj = object.__new__(kind)
            for (name, item), x in zip(fields, data, strict=False):
                object.__setattr__(obj, name, item(x))
            # A value stored before trailing fields were added: they take their defaults.
            for name, _ in fields[len(data) :]:
                object.__setattr__(obj, name, _default(kind, name))
            return obj

        return load_dataclass
    if isinstance(kind, type) and issubclass(kind, enum.Enum):
        members = kind._value2member_map_
        return lambda data: members[data] if data in members else kind(data)
    if kind is bytes:
        return lambda data: data if type(data) is bytes else bytes(data)
    return _same


def _same(data: Any) -> Any:
    return data


def _default(kind: type, name: str) -> Any:
    field = _fields_by_name(kind)[name]
    if field.default is not dataclasses.MISSING:
        return field.default
    if field.default_factory is not dataclasses.MISSING:
        return field.default_factory()
    raise ValueError(f"{kind.__name__}.{name} is missing and has no default")


@functools.cache
def _fields_by_name(kind: type) -> dict[str, dataclasses.Field[Any]]:
    return {f.name: f for f in dataclasses.fields(kind)}


@functools.cache
def _field_names(kind: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(kind))


@functools.cache
def _hints(kind: type) -> tuple[tuple[str, Any], ...]:
    hints = typing.get_type_hints(kind)
    return tuple((name, hints[name]) for name in _field_names(kind))
