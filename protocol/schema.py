"""Declarative field specs: each checks a wire value strictly and converts it both ways.

A message is a frozen dataclass whose fields carry their spec in ``Annotated``; ``struct_spec``
turns the dataclass into a ``Struct`` spec. ``load`` takes a value as msgpack decoded it
(arrays as tuples, maps as dicts) and returns the Python value; ``dump`` does the reverse for
the encoder. Both raise ``Invalid`` (internal: the codec turns it into ``DecodeError`` or
``EncodeError`` with the field's path).

Type checks are exact (``type(x) is int``): ``True`` is not an int, ``1`` is not a bool, a float
is never an int, ``str`` and ``bytes`` never stand in for each other.

>>> Int(0, 25).load(7)
7
>>> Int(0, 25).load(True)
Traceback (most recent call last):
...
protocol.schema.Invalid: expected int, got bool
>>> Str(1, 24).describe()
'str (1..24 chars, <= 96 bytes UTF-8)'
"""

from __future__ import annotations

import dataclasses
import enum
import re
import typing
from collections.abc import Iterator
from typing import Any

from protocol.errors import ErrorCode

_MAX_SHOWN = 24  # characters of a client-supplied string quoted in an error message


class Invalid(Exception):
    """A value that does not fit its spec. ``path`` collects field names and indices from the
    innermost outwards while the exception travels up."""

    def __init__(self, detail: str, code: ErrorCode = ErrorCode.BAD_FIELD) -> None:
        super().__init__(detail)
        self.detail = detail
        self.code = code
        self.path: list[str | int] = []

    def where(self) -> str:
        """The path as ``moves[1][0]`` or ``state.game.cube``."""
        out = ""
        for part in reversed(self.path):
            out += f"[{part}]" if type(part) is int else (f".{part}" if out else part)
        return out


def wire_type(value: object) -> str:
    """The msgpack name of a decoded value's type, for error messages.

    >>> wire_type(None), wire_type(b""), wire_type(()), wire_type(1.5)
    ('nil', 'bin', 'array', 'float')
    """
    t = type(value)
    if t is tuple or t is list:
        return "array"
    return _WIRE_NAMES.get(t, t.__name__)


_WIRE_NAMES: dict[type, str] = {
    type(None): "nil",
    bool: "bool",
    int: "int",
    float: "float",
    str: "str",
    bytes: "bin",
    dict: "map",
}


def shown(text: str) -> str:
    """A client-supplied string made safe to quote: repr, cut short."""
    r = repr(text[:_MAX_SHOWN])
    return r + "..." if len(text) > _MAX_SHOWN else r


class Spec:
    """Base of all specs. ``identity`` specs return loaded and dumped values unchanged."""

    identity = True

    def load(self, value: Any) -> Any:
        raise NotImplementedError

    def dump(self, value: Any) -> Any:
        return self.load(value)

    def describe(self) -> str:
        raise NotImplementedError

    def children(self) -> tuple[Spec, ...]:
        return ()


class Int(Spec):
    """An integer in ``lo..hi`` (inclusive)."""

    __slots__ = ("hi", "lo")

    def __init__(self, lo: int, hi: int) -> None:
        self.lo = lo
        self.hi = hi

    def load(self, value: Any) -> Any:
        if type(value) is not int:
            raise Invalid(f"expected int, got {wire_type(value)}")
        if not self.lo <= value <= self.hi:
            raise Invalid(f"{value} is out of range {_num(self.lo)}..{_num(self.hi)}")
        return value

    def describe(self) -> str:
        if self.lo == self.hi:
            return f"int = {self.lo}"
        if self.hi - self.lo <= 3:
            return "int " + "|".join(str(i) for i in range(self.lo, self.hi + 1))
        return f"int {_num(self.lo)}..{_num(self.hi)}"


def _num(n: int) -> str:
    """Big bounds as powers of two, as the docs write them."""
    for k in (31, 53):
        if n == 2**k - 1:
            return f"2^{k}-1"
    return str(n)


class Const(Spec):
    """An int that must equal ``value`` (or be one of ``also``); a different int is refused
    with ``code``."""

    __slots__ = ("also", "code", "value")

    def __init__(self, value: int, code: ErrorCode, also: tuple[int, ...] = ()) -> None:
        self.value = value
        self.code = code
        self.also = tuple(sorted(set(also) - {value}))

    def load(self, value: Any) -> Any:
        if type(value) is not int:
            raise Invalid(f"expected int, got {wire_type(value)}")
        if value != self.value and value not in self.also:
            speaks = ", ".join(str(v) for v in (*self.also, self.value))
            raise Invalid(f"{value} is not supported (this side speaks {speaks})", self.code)
        return value

    def describe(self) -> str:
        if self.also:
            return f"int = {self.value} (also {', '.join(str(v) for v in self.also)})"
        return f"int = {self.value}"


class Bool(Spec):
    """``true`` or ``false`` (never 0 or 1)."""

    def load(self, value: Any) -> Any:
        if type(value) is not bool:
            raise Invalid(f"expected bool, got {wire_type(value)}")
        return value

    def describe(self) -> str:
        return "bool"


# Characters a display text may not contain: C0/C1 controls, line and paragraph separators,
# and the bidirectional overrides/isolates that let a name rearrange the text around it.
_UNSAFE_TEXT = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


def _utf8_length(value: str) -> int:
    """The UTF-8 length of ``value``; :class:`Invalid` if it has none (a lone surrogate: a
    string from JSON can hold one, one decoded from msgpack cannot)."""
    try:
        return len(value.encode())
    except UnicodeEncodeError:
        raise Invalid("not valid Unicode (a lone surrogate)") from None


class Str(Spec):
    """A UTF-8 string: length in characters and bytes, and an optional ``pattern`` that the
    whole string must match (``what`` names it in messages). Without a pattern, control and
    bidi-override characters are refused: free text is always safe to render as one line."""

    __slots__ = ("max_bytes", "max_chars", "min_chars", "pattern", "what")

    def __init__(
        self,
        min_chars: int,
        max_chars: int,
        *,
        max_bytes: int | None = None,
        pattern: str | None = None,
        what: str = "",
    ) -> None:
        self.min_chars = min_chars
        self.max_chars = max_chars
        self.max_bytes = 4 * max_chars if max_bytes is None else max_bytes
        self.pattern = re.compile(pattern) if pattern else None
        self.what = what

    def load(self, value: Any) -> Any:
        if type(value) is not str:
            raise Invalid(f"expected str, got {wire_type(value)}")
        n = len(value)
        if not self.min_chars <= n <= self.max_chars:
            raise Invalid(f"{n} characters, expected {self.min_chars}..{self.max_chars}")
        # UTF-8 needs at most 4 bytes a character: measure only when the char limit allows more
        if n * 4 > self.max_bytes and _utf8_length(value) > self.max_bytes:
            raise Invalid(f"more than {self.max_bytes} bytes of UTF-8")
        if self.pattern is not None:
            if self.pattern.fullmatch(value) is None:
                raise Invalid(f"expected {self.what}")
        elif _UNSAFE_TEXT.search(value) is not None:
            raise Invalid("control or bidi-override characters are not allowed")
        return value

    def describe(self) -> str:
        if self.pattern is not None:
            return f"str: {self.what}"
        n = (
            f"{self.max_chars}"
            if self.min_chars == self.max_chars
            else f"{self.min_chars}..{self.max_chars}"
        )
        return f"str ({n} chars, <= {self.max_bytes} bytes UTF-8)"


class Bin(Spec):
    """Raw bytes (msgpack bin, never str) of ``lo..hi`` bytes."""

    __slots__ = ("hi", "lo")

    def __init__(self, lo: int, hi: int | None = None) -> None:
        self.lo = lo
        self.hi = lo if hi is None else hi

    def load(self, value: Any) -> Any:
        if type(value) is not bytes:
            raise Invalid(f"expected bin, got {wire_type(value)}")
        if not self.lo <= len(value) <= self.hi:
            want = str(self.lo) if self.lo == self.hi else f"{self.lo}..{self.hi}"
            raise Invalid(f"{len(value)} bytes, expected {want}")
        return value

    def describe(self) -> str:
        return f"bin[{self.lo}]" if self.lo == self.hi else f"bin[{self.lo}..{self.hi}]"


class OneOf(Spec):
    """One of a few fixed strings."""

    __slots__ = ("allowed", "values")

    def __init__(self, *values: str) -> None:
        self.values = values
        self.allowed = frozenset(values)

    def load(self, value: Any) -> Any:
        if type(value) is not str:
            raise Invalid(f"expected str, got {wire_type(value)}")
        if value not in self.allowed:
            raise Invalid(f"{shown(value)} is not one of {', '.join(self.values)}")
        return value

    def describe(self) -> str:
        return " | ".join(f'"{v}"' for v in self.values)


class EnumOf(Spec):
    """A string enum: the wire holds the value, Python the member."""

    identity = False
    __slots__ = ("by_value", "enum")

    def __init__(self, enum_cls: type[enum.StrEnum]) -> None:
        self.enum = enum_cls
        self.by_value = {m.value: m for m in enum_cls}

    def load(self, value: Any) -> Any:
        if type(value) is not str:
            raise Invalid(f"expected str, got {wire_type(value)}")
        member = self.by_value.get(value)
        if member is None:
            raise Invalid(f"{shown(value)} is not a known {self.enum.__name__}")
        return member

    def dump(self, value: Any) -> Any:
        if type(value) is not self.enum:
            raise Invalid(f"expected {self.enum.__name__}, got {type(value).__name__}")
        return value.value

    def describe(self) -> str:
        return (
            "str: one of the error codes"
            if self.enum is ErrorCode
            else "str: one of " + (", ".join(self.by_value))
        )


class Nullable(Spec):
    """``nil`` or a value of ``inner`` (the key itself is always present)."""

    __slots__ = ("identity", "inner")

    def __init__(self, inner: Spec) -> None:
        self.inner = inner
        self.identity = inner.identity

    def load(self, value: Any) -> Any:
        return None if value is None else self.inner.load(value)

    def dump(self, value: Any) -> Any:
        return None if value is None else self.inner.dump(value)

    def describe(self) -> str:
        return f"{self.inner.describe()} | nil"

    def children(self) -> tuple[Spec, ...]:
        return (self.inner,)


def _check_array(value: Any, lo: int, hi: int) -> None:
    if type(value) is not tuple:
        raise Invalid(f"expected array, got {wire_type(value)}")
    if not lo <= len(value) <= hi:
        want = str(lo) if lo == hi else f"{lo}..{hi}"
        raise Invalid(f"{len(value)} elements, expected {want}")


def _as_tuple(value: Any) -> Any:
    """Python callers may build arrays as lists; the wire and decoded values use tuples."""
    return tuple(value) if type(value) is list else value


class Array(Spec):
    """An array of ``lo..hi`` elements of one spec; a Python tuple."""

    __slots__ = ("hi", "identity", "item", "lo")

    def __init__(self, item: Spec, lo: int, hi: int) -> None:
        self.item = item
        self.lo = lo
        self.hi = hi
        self.identity = item.identity

    def load(self, value: Any) -> Any:
        _check_array(value, self.lo, self.hi)
        load = self.item.load
        if self.identity:
            for i, x in enumerate(value):
                try:
                    load(x)
                except Invalid as e:
                    e.path.append(i)
                    raise
            return value
        out = []
        for i, x in enumerate(value):
            try:
                out.append(load(x))
            except Invalid as e:
                e.path.append(i)
                raise
        return tuple(out)

    def dump(self, value: Any) -> Any:
        value = _as_tuple(value)
        _check_array(value, self.lo, self.hi)
        dump = self.item.dump
        out = []
        for i, x in enumerate(value):
            try:
                out.append(dump(x))
            except Invalid as e:
                e.path.append(i)
                raise
        return out

    def describe(self) -> str:
        n = str(self.lo) if self.lo == self.hi else f"{self.lo}..{self.hi}"
        return f"array[{n}] of {self.item.describe()}"

    def children(self) -> tuple[Spec, ...]:
        return (self.item,)


class Tuple(Spec):
    """A fixed-length array whose elements each have their own spec."""

    __slots__ = ("identity", "items")

    def __init__(self, *items: Spec) -> None:
        self.items = items
        self.identity = all(s.identity for s in items)

    def load(self, value: Any) -> Any:
        n = len(self.items)
        _check_array(value, n, n)
        out = []
        for i, (spec, x) in enumerate(zip(self.items, value, strict=True)):
            try:
                out.append(spec.load(x))
            except Invalid as e:
                e.path.append(i)
                raise
        return value if self.identity else tuple(out)

    def dump(self, value: Any) -> Any:
        value = _as_tuple(value)
        n = len(self.items)
        _check_array(value, n, n)
        out = []
        for i, (spec, x) in enumerate(zip(self.items, value, strict=True)):
            try:
                out.append(spec.dump(x))
            except Invalid as e:
                e.path.append(i)
                raise
        return out

    def describe(self) -> str:
        first = self.items[0].describe()
        if all(s.describe() == first for s in self.items):
            return f"[{first}] x {len(self.items)}"
        return "[" + ", ".join(s.describe() for s in self.items) + "]"

    def children(self) -> tuple[Spec, ...]:
        return self.items


@dataclasses.dataclass(frozen=True, slots=True)
class Field:
    """One field of a struct: its wire key, spec and one-line documentation."""

    name: str
    spec: Spec
    doc: str


class Struct(Spec):
    """A map with exactly the fields of a dataclass (no missing, no extra), any key order in,
    field order out (so encoding is deterministic)."""

    identity = False
    __slots__ = ("cls", "fields", "keys", "pairs")

    def __init__(self, cls: type, fields: tuple[Field, ...]) -> None:
        self.cls = cls
        self.fields = fields
        self.keys = frozenset(f.name for f in fields)
        self.pairs = tuple((f.name, f.spec) for f in fields)

    def load(self, value: Any) -> Any:
        return self.cls(*self.load_args(value))

    def load_args(self, value: Any) -> list[Any]:
        """The loaded field values, in field order (for callers that add fields of their own)."""
        if type(value) is not dict:
            raise Invalid(f"expected map, got {wire_type(value)}")
        if len(value) != len(self.pairs):
            raise self.mismatch(value)
        args = []
        for name, spec in self.pairs:
            try:
                x = value[name]
            except KeyError:
                raise self.mismatch(value) from None
            try:
                args.append(spec.load(x))
            except Invalid as e:
                e.path.append(name)
                raise
        return args

    def mismatch(self, value: dict[Any, Any]) -> Invalid:
        """Why the keys of ``value`` are not exactly this struct's fields."""
        missing = [f.name for f in self.fields if f.name not in value]
        if missing:
            return Invalid("missing field " + ", ".join(missing))
        extra = [k for k in value if k not in self.keys]
        return Invalid(
            "unexpected field "
            + ", ".join(shown(k) if type(k) is str else wire_type(k) for k in extra[:3])
        )

    def dump(self, value: Any) -> Any:
        if type(value) is not self.cls:
            raise Invalid(f"expected {self.cls.__name__}, got {type(value).__name__}")
        out = {}
        for name, spec in self.pairs:
            try:
                out[name] = spec.dump(getattr(value, name))
            except Invalid as e:
                e.path.append(name)
                raise
        return out

    def describe(self) -> str:
        return f"map: {self.cls.__name__}"

    def children(self) -> tuple[Spec, ...]:
        return tuple(f.spec for f in self.fields)


_STRUCTS: dict[type, Struct] = {}


def struct_spec(cls: type) -> Struct:
    """The ``Struct`` spec of a dataclass whose fields are ``Annotated[T, <Spec>, "doc"]``.

    >>> @dataclasses.dataclass(frozen=True, slots=True)
    ... class Pt:
    ...     x: typing.Annotated[int, Int(0, 9), "across"]
    >>> struct_spec(Pt).load({"x": 3})
    Pt(x=3)
    >>> struct_spec(Pt).dump(Pt(4))
    {'x': 4}
    """
    spec = _STRUCTS.get(cls)
    if spec is not None:
        return spec
    hints = typing.get_type_hints(cls, include_extras=True)
    fields = []
    for f in dataclasses.fields(cls):
        hint = hints[f.name]
        meta = getattr(hint, "__metadata__", ())
        specs = [m for m in meta if isinstance(m, Spec)]
        docs = [m for m in meta if isinstance(m, str)]
        if not specs and typing.get_origin(hint) is typing.Annotated:
            hint = hint.__origin__
        spec = specs[-1] if specs else _implied_spec(hint)
        if spec is None:
            raise TypeError(f"{cls.__name__}.{f.name}: no Spec in its hint and none implied")
        fields.append(Field(f.name, spec, docs[-1] if docs else ""))
    spec = Struct(cls, tuple(fields))
    _STRUCTS[cls] = spec
    return spec


def _implied_spec(hint: Any) -> Spec | None:
    """The spec a bare hint implies: ``bool``, a ``Literal`` of strings or of consecutive ints,
    or a dataclass (a nested map)."""
    if hint is bool:
        return Bool()
    if typing.get_origin(hint) is typing.Literal:
        values = typing.get_args(hint)
        if all(type(v) is str for v in values):
            return OneOf(*values)
        if all(type(v) is int for v in values) and list(values) == list(
            range(min(values), max(values) + 1)
        ):
            return Int(min(values), max(values))
        return None
    if dataclasses.is_dataclass(hint) and isinstance(hint, type):
        return struct_spec(hint)
    return None


def walk(spec: Spec) -> Iterator[Spec]:
    """``spec`` and every spec nested in it (depth first)."""
    yield spec
    for child in spec.children():
        yield from walk(child)
