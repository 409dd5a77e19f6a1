"""Frozen dataclasses to msgpack and back, driven by their type hints.

The match state is a tree of frozen dataclasses (the machine's and the engine's). Snapshots in
Redis (and the commands in the log's records) store each dataclass as a map from its field
names to their values, enums as their values and tuples as lists; loading rebuilds the same
types from the annotations. The format depends on field names only, not on class names or the
order of fields. No code runs from stored data (unlike pickle), and it is plain msgpack any tool
can read.

Loading a dataclass accepts two forms:

* a map (what :func:`dump` writes): a missing field takes its default (a value stored before
  the field was added); a key that is no field is refused (a value stored by a newer version
  must not be half read);
* a list of field values in declaration order, the format of snapshots and logs stored before
  the map: missing trailing fields take their defaults, more values than fields are refused.

A field without a default that is missing in either form is refused. Refusals raise
:class:`ValueError`.

The rules a game or match plays (:class:`engine.rules.Variant`, :class:`engine.rules.Rules`:
values holding functions) are stored by their name and loaded back through
:func:`engine.variants.variant` and :func:`engine.variants.rules`; a name that is no variant
is refused.

>>> from engine.match import Match, MatchOptions
>>> m, _ = Match.new(MatchOptions.match(5)).start_game()
>>> load(Match, msgpack.unpackb(dumps(m))) == m
True
>>> from engine.cube import Cube
>>> dump(Cube(2, owner=1))
{'value': 2, 'owner': 1, 'offered_by': None, 'beaver': False}
>>> load(Cube, {'value': 2, 'owner': 1}) == load(Cube, [2, 1]) == Cube(2, owner=1)
True
>>> load(Cube, {'value': 2, 'colour': 'gold'})
Traceback (most recent call last):
...
ValueError: Cube: unknown field 'colour' (stored by a newer version?)
>>> o = MatchOptions.match(3, variant=variants.rules("tavli"))
>>> dump(o)["variant"], load(MatchOptions, dump(o)) == o
('tavli', True)
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

from engine import variants
from engine.rules import Rules, Variant


def dump(value: Any) -> Any:
    """A msgpack-ready copy of ``value`` (dataclass -> map of its fields, enum -> value)."""
    kind = type(value)
    if kind in _SCALARS:
        return value
    dumper = _DUMPERS.get(kind)
    if dumper is None:
        dumper = _DUMPERS[kind] = _dumper(kind)
    return dumper(value)


# Every commit stores a snapshot, so dumping is on the hot path: scalars return at once (the
# dumpers of dataclasses and sequences test for them inline, without a call: a board alone is
# 26 ints) and each type's dumper is built once.
_SCALARS = frozenset({int, str, bytes, bool, float, type(None)})
_DUMPERS: dict[type, Callable[[Any], Any]] = {}


def _dumper(kind: type) -> Callable[[Any], Any]:
    if kind is Variant or kind is Rules:
        return _name
    if dataclasses.is_dataclass(kind):
        names = _field_names(kind)
        scalars = _SCALARS

        def dump_dataclass(value: Any) -> dict[str, Any]:
            out = {}
            for name in names:
                item = getattr(value, name)
                out[name] = item if type(item) in scalars else dump(item)
            return out

        return dump_dataclass
    if issubclass(kind, enum.Enum):
        return lambda value: value.value
    if issubclass(kind, tuple | list | frozenset | set):
        return lambda value: [x if type(x) in _SCALARS else dump(x) for x in value]
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
    if kind is Variant:
        return lambda data: _named(variants.variant, data)
    if kind is Rules:
        return lambda data: _named(variants.rules, data)
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
            obj = object.__new__(kind)
            if isinstance(data, dict):
                found = 0
                for name, item in fields:
                    x = data.get(name, _MISSING)
                    if x is _MISSING:  # stored before the field was added: it takes its default
                        _set(obj, name, _default(kind, name))
                    else:
                        _set(obj, name, item(x))
                        found += 1
                if found != len(data):
                    _refuse_unknown(kind, data)
                return obj
            # The positional form of values stored before the map (fields in declaration order).
            if len(data) > len(fields):
                raise ValueError(f"{kind.__name__}: {len(data)} values for {len(fields)} fields")
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


def _name(value: Variant | Rules) -> str:
    return value.name


def _named(lookup: Callable[[str], Any], data: Any) -> Any:
    try:
        return lookup(data)
    except variants.UnknownVariant as exc:
        raise ValueError(str(exc)) from None


_MISSING = object()
_set = object.__setattr__  # the dataclasses are frozen


def _refuse_unknown(kind: type, data: dict[Any, Any]) -> None:
    names = _fields_by_name(kind)
    unknown = [repr(key) for key in data if key not in names]
    fields = "field" if len(unknown) == 1 else "fields"
    raise ValueError(
        f"{kind.__name__}: unknown {fields} {', '.join(unknown)} (stored by a newer version?)"
    )


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
