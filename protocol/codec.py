"""Strict encoding and decoding of frames: one msgpack map per binary WebSocket message.

Decoding accepts exactly one msgpack object and nothing after it, never more than the maximum
frame size, no ext types, string keys only and no duplicates, and then exactly the schema of
the message type (``protocol.messages``). It raises only ``DecodeError``. Encoding checks the
value against the same schema and is deterministic: the envelope keys and every map's fields
always come in the documented order, so the same value always gives the same bytes.

The server decodes with ``decode_from_client`` (it accepts only client message types), clients
with ``decode_from_server``.

>>> from protocol.messages import Move, Ping
>>> frame = encode(Move(seq=7, game=1, turn=3, moves=((8, 5), (6, 5))))
>>> frame.hex()
'83a174a46d6f7665a17307a17083a467616d6501a47475726e03a56d6f76657392920805920605'
>>> decode_from_client(frame)
Move(seq=7, game=1, turn=3, moves=((8, 5), (6, 5)))
>>> decode_from_client(frame + b"\\x00")
Traceback (most recent call last):
...
protocol.errors.DecodeError: bad_frame: trailing bytes after the msgpack object
>>> decode_from_client(encode(Ping(t=-1)))
Traceback (most recent call last):
...
protocol.errors.EncodeError: bad_field: ping.t: -1 is out of range 0..2^53-1
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import msgpack

from protocol import limits
from protocol.errors import DecodeError, EncodeError, ErrorCode
from protocol.events import EventData
from protocol.messages import AnyMessage, ClientMessage, Event, ServerMessage
from protocol.registry import (
    BY_CLASS,
    EVENT_KINDS,
    KIND_BY_CLASS,
    MESSAGES,
    Direction,
    Envelope,
    MessageType,
)
from protocol.schema import (
    Array,
    Bin,
    EnumOf,
    Int,
    Invalid,
    Nullable,
    OneOf,
    Str,
    Struct,
    Tuple,
    shown,
    struct_spec,
    walk,
)

__all__ = [
    "DECODER_BUDGETS",
    "DECODER_LIMITS",
    "DecodeError",
    "EncodeError",
    "decode",
    "decode_from_client",
    "decode_from_server",
    "encode",
]

# Envelope keys, and the key sets each envelope shape has.
T, S, V, K, P, N = "t", "s", "v", "k", "p", "n"
_ENVELOPE_KEYS = {
    Envelope.PLAIN: (T, P),
    Envelope.ACTION: (T, S, P),
    Envelope.EVENT: (T, V, K, P, N),
}
_SEQ: Int = struct_spec(MESSAGES[Direction.CLIENT]["move"].cls).fields[0].spec  # type: ignore[assignment]
_EVENT_V: Int = struct_spec(Event).fields[0].spec  # type: ignore[assignment]
_EVENT_NEXT = struct_spec(Event).fields[2].spec


# ---------------------------------------------------------------- msgpack-level limits

_MIN_LIMIT = 16


def _limits(direction: Direction) -> dict[str, int]:
    """msgpack limits for frames sent by ``direction``: any claimed length above them is
    refused at its header (``bad_frame``), before anything is allocated for it.

    They are twice the largest length any valid frame uses (and at least ``_MIN_LIMIT``), so a
    value slightly too long still reaches the schema and gets a ``bad_field`` error naming the
    field, while an absurd one never costs more than its header."""
    strings = {T, S, V, K, P, *MESSAGES[direction]}
    specs: list[Any] = [mt.payload for mt in MESSAGES[direction].values()]
    if direction is Direction.SERVER:
        strings |= set(EVENT_KINDS)
        specs += [kind.payload for kind in EVENT_KINDS.values()]
    max_str = max_bin = max_array = 0
    max_map = max(len(keys) for keys in _ENVELOPE_KEYS.values())
    for spec in (s for top in specs for s in walk(top)):
        if isinstance(spec, Struct):
            max_map = max(max_map, len(spec.fields))
            strings.update(f.name for f in spec.fields)
        elif isinstance(spec, Str):
            max_str = max(max_str, spec.max_bytes)
        elif isinstance(spec, OneOf):
            strings.update(spec.values)
        elif isinstance(spec, EnumOf):
            strings.update(spec.by_value)
        elif isinstance(spec, Bin):
            max_bin = max(max_bin, spec.hi)
        elif isinstance(spec, Array):
            max_array = max(max_array, spec.hi)
        elif isinstance(spec, Tuple):
            max_array = max(max_array, len(spec.items))
    max_str = max(max_str, *(len(s.encode()) for s in strings))
    return {
        "max_str_len": max(2 * max_str, _MIN_LIMIT),
        "max_bin_len": max(2 * max_bin, _MIN_LIMIT),
        "max_array_len": max(2 * max_array, _MIN_LIMIT),
        "max_map_len": max(2 * max_map, _MIN_LIMIT),
        "max_ext_len": 0,
    }


DECODER_LIMITS: dict[Direction, dict[str, int]] = {d: _limits(d) for d in Direction}
"""msgpack limits per sending direction (also printed in docs/protocol.md)."""


class _Budget:
    """The hooks of one decode. ``map`` builds each map, refusing duplicate and non-string keys
    (msgpack's ``strict_map_key`` still allows bin keys). Both refuse a frame holding more
    maps or arrays than the budget: with the per-container length limits this bounds the work
    any frame can cause to a few hundred objects, whatever its size (a 16 KiB frame of nested
    empty maps would otherwise cost a thousand times a normal frame)."""

    __slots__ = ("arrays", "maps")

    def __init__(self, maps: int, arrays: int) -> None:
        self.maps = maps
        self.arrays = arrays

    def map(self, pairs: list[tuple[Any, Any]]) -> dict[str, Any]:
        self.maps -= 1
        if self.maps < 0:
            raise DecodeError(ErrorCode.BAD_FRAME, "more maps than any valid frame holds")
        out = dict(pairs)
        if len(out) != len(pairs):
            raise DecodeError(ErrorCode.BAD_FRAME, "duplicate key in a map")
        for key in out:
            if type(key) is not str:
                raise DecodeError(ErrorCode.BAD_FRAME, "map keys must be strings")
        return out

    def array(self, items: tuple[Any, ...]) -> tuple[Any, ...]:
        self.arrays -= 1
        if self.arrays < 0:
            raise DecodeError(ErrorCode.BAD_FRAME, "more arrays than any valid frame holds")
        return items


def _budget(direction: Direction) -> tuple[int, int]:
    """Twice the most maps (envelope included) and arrays one valid frame of ``direction``
    holds, at least 4 each."""
    tops: list[Any] = [mt.payload for mt in MESSAGES[direction].values()]
    if direction is Direction.SERVER:
        tops += [kind.payload for kind in EVENT_KINDS.values()]
    maps = max(1 + _most(top)[0] for top in tops)
    arrays = max(_most(top)[1] for top in tops)
    return max(2 * maps, 4), max(2 * arrays, 4)


def _most(spec: Any) -> tuple[int, int]:
    """The most maps and arrays one value of ``spec`` can hold."""
    if isinstance(spec, Struct):
        inner = [_most(f.spec) for f in spec.fields]
        return 1 + sum(m for m, _ in inner), sum(a for _, a in inner)
    if isinstance(spec, Array):
        m, a = _most(spec.item)
        return spec.hi * m, 1 + spec.hi * a
    if isinstance(spec, Tuple):
        inner = [_most(s) for s in spec.items]
        return sum(m for m, _ in inner), 1 + sum(a for _, a in inner)
    if isinstance(spec, Nullable):
        return _most(spec.inner)
    return 0, 0


def _ext_hook(code: int, data: bytes) -> Any:
    # Only zero-length ext payloads get here (max_ext_len=0): nothing was allocated for it.
    raise DecodeError(ErrorCode.BAD_FRAME, "ext types are not allowed")


def _unpack_options(direction: Direction) -> dict[str, Any]:
    return dict(
        raw=False,
        use_list=False,
        strict_map_key=True,
        ext_hook=_ext_hook,
        **DECODER_LIMITS[direction],
    )


@dataclass(frozen=True, slots=True)
class _Table:
    direction: Direction
    types: dict[str, MessageType]
    options: dict[str, Any]
    budget: tuple[int, int]
    other: dict[str, MessageType]


DECODER_BUDGETS: dict[Direction, tuple[int, int]] = {d: _budget(d) for d in Direction}
"""Most maps and arrays one frame may hold, per sending direction (see ``_Budget``)."""

_TABLES = {
    d: _Table(d, MESSAGES[d], _unpack_options(d), DECODER_BUDGETS[d], MESSAGES[other])
    for d, other in ((Direction.CLIENT, Direction.SERVER), (Direction.SERVER, Direction.CLIENT))
}


# ---------------------------------------------------------------- decoding


def decode_from_client(
    frame: bytes, *, max_frame_size: int = limits.MAX_FRAME_SIZE
) -> ClientMessage:
    """Decode a frame a client sent (what the server calls). Raises only ``DecodeError``."""
    return _decode(frame, _TABLES[Direction.CLIENT], max_frame_size)  # type: ignore[return-value]


def decode_from_server(
    frame: bytes, *, max_frame_size: int = limits.MAX_FRAME_SIZE
) -> ServerMessage:
    """Decode a frame the server sent (what clients call). Raises only ``DecodeError``."""
    return _decode(frame, _TABLES[Direction.SERVER], max_frame_size)  # type: ignore[return-value]


def decode(
    frame: bytes, sender: Direction, *, max_frame_size: int = limits.MAX_FRAME_SIZE
) -> AnyMessage:
    """Decode a frame sent by ``sender``. Raises only ``DecodeError``."""
    return _decode(frame, _TABLES[sender], max_frame_size)


def _decode(frame: Any, table: _Table, max_frame_size: int) -> Any:
    try:
        return _decode_frame(frame, table, max_frame_size)
    except DecodeError:
        raise
    except Exception as e:  # a bug in this module: still never anything but DecodeError
        raise DecodeError(ErrorCode.BAD_FRAME, f"undecodable frame ({type(e).__name__})") from e


def _decode_frame(frame: Any, table: _Table, max_frame_size: int) -> Any:
    if type(frame) is not bytes:
        if isinstance(frame, str):
            raise DecodeError(ErrorCode.UNSUPPORTED, "text frame: frames must be binary")
        if not isinstance(frame, bytearray | memoryview):
            raise DecodeError(ErrorCode.BAD_FRAME, f"expected bytes, got {type(frame).__name__}")
        if memoryview(frame).nbytes > max_frame_size:
            raise _too_large(memoryview(frame).nbytes, max_frame_size)
        frame = bytes(frame)
    if len(frame) > max_frame_size:
        raise _too_large(len(frame), max_frame_size)
    if not frame:
        raise DecodeError(ErrorCode.BAD_FRAME, "empty frame")
    try:
        budget = _Budget(*table.budget)
        obj = msgpack.unpackb(
            frame, object_pairs_hook=budget.map, list_hook=budget.array, **table.options
        )
    except DecodeError:
        raise
    except msgpack.ExtraData:
        raise DecodeError(ErrorCode.BAD_FRAME, "trailing bytes after the msgpack object") from None
    except msgpack.StackError:
        raise DecodeError(ErrorCode.BAD_FRAME, "nesting too deep") from None
    except UnicodeDecodeError:
        raise DecodeError(ErrorCode.BAD_FRAME, "a string is not valid UTF-8") from None
    except msgpack.FormatError:
        raise DecodeError(ErrorCode.BAD_FRAME, "not msgpack (reserved byte 0xc1)") from None
    except ValueError as e:
        raise DecodeError(ErrorCode.BAD_FRAME, _unpack_message(str(e))) from None
    except Exception as e:
        raise DecodeError(ErrorCode.BAD_FRAME, f"invalid msgpack ({type(e).__name__})") from None
    if type(obj) is not dict:
        raise DecodeError(ErrorCode.BAD_FRAME, "a frame must be a msgpack map (the envelope)")

    name = obj.get(T)
    mt = table.types.get(name) if type(name) is str else None
    if mt is None:
        raise _bad_type(obj, name, table)
    envelope = mt.envelope
    if envelope is Envelope.PLAIN:
        if len(obj) != 2 or P not in obj:
            raise _bad_envelope(obj, mt)
        try:
            return mt.payload.load(obj[P])
        except Invalid as e:
            raise _field_error(e, mt.name, mt.name, None) from None
    if envelope is Envelope.ACTION:
        if len(obj) != 3 or S not in obj or P not in obj:
            raise _bad_envelope(obj, mt)
        seq = obj[S]
        try:
            _SEQ.load(seq)
        except Invalid as e:
            e.path.append("s")
            raise _field_error(e, mt.name, mt.name, None) from None
        try:
            return mt.cls(seq, *mt.payload.load_args(obj[P]))
        except Invalid as e:
            raise _field_error(e, mt.name, mt.name, seq) from None
    return _decode_event(obj, mt)


def _decode_event(obj: dict[str, Any], mt: MessageType) -> Event:
    if len(obj) != 5 or V not in obj or K not in obj or P not in obj or N not in obj:
        raise _bad_envelope(obj, mt)
    v = obj[V]
    try:
        _EVENT_V.load(v)
    except Invalid as e:
        e.path.append("v")
        raise _field_error(e, mt.name, mt.name, None) from None
    kind_name = obj[K]
    kind = EVENT_KINDS.get(kind_name) if type(kind_name) is str else None
    if kind is None:
        if type(kind_name) is not str:
            raise DecodeError(ErrorCode.BAD_FIELD, "event.k: expected str", msg_type=mt.name)
        raise DecodeError(
            ErrorCode.UNKNOWN_TYPE, f"unknown event kind {shown(kind_name)}", msg_type=mt.name
        )
    try:
        data = kind.payload.load(obj[P])
    except Invalid as e:
        raise _field_error(e, f"event {kind.name}", mt.name, None) from None
    try:
        nxt = _EVENT_NEXT.load(obj[N])
    except Invalid as e:
        e.path.append("n")
        raise _field_error(e, "event", mt.name, None) from None
    return Event(v, data, nxt)


def _too_large(size: int, limit: int) -> DecodeError:
    return DecodeError(ErrorCode.TOO_LARGE, f"frame of {size} bytes exceeds {limit}")


def _unpack_message(text: str) -> str:
    if "incomplete input" in text:
        return "truncated msgpack"
    if "timestamp" in text:  # msgpack decodes ext type -1 itself, before any ext hook
        return "ext types are not allowed"
    if "not allowed for map key" in text:
        return "map keys must be strings"
    if "exceeds max_" in text:
        # msgpack's own wording: "<n> exceeds max_array_len(<limit>)"
        n, _, rest = text.partition(" exceeds max_")
        what, _, limit = rest.partition("_len(")
        if what == "ext":
            return "ext types are not allowed"
        return f"claimed {what} length {n} exceeds the limit of {limit.rstrip(')')}"
    return "invalid msgpack"


def _bad_type(obj: dict[str, Any], name: object, table: _Table) -> DecodeError:
    if T not in obj:
        return DecodeError(ErrorCode.BAD_FIELD, "envelope: missing field t (message type)")
    if type(name) is not str:
        return DecodeError(ErrorCode.BAD_FIELD, "envelope: t (message type) must be a string")
    if name in table.other:
        sender = "the server" if table.direction is Direction.CLIENT else "clients"
        return DecodeError(
            ErrorCode.UNKNOWN_TYPE, f"message type {shown(name)} is only sent by {sender}"
        )
    return DecodeError(ErrorCode.UNKNOWN_TYPE, f"unknown message type {shown(name)}")


def _bad_envelope(obj: dict[str, Any], mt: MessageType) -> DecodeError:
    keys = _ENVELOPE_KEYS[mt.envelope]
    missing = [k for k in keys if k not in obj]
    if missing:
        detail = "missing field " + ", ".join(missing)
    else:
        extra = [k for k in obj if k not in keys]
        detail = "unexpected field " + ", ".join(shown(k) for k in extra[:3])
    return DecodeError(ErrorCode.BAD_FIELD, f"{mt.name}: envelope: {detail}", msg_type=mt.name)


def _field_error(e: Invalid, where: str, msg_type: str, seq: int | None) -> DecodeError:
    path = e.where()
    return DecodeError(
        e.code,
        f"{where}.{path}: {e.detail}" if path else f"{where}: {e.detail}",
        msg_type=msg_type,
        seq=seq,
    )


# ---------------------------------------------------------------- encoding


def encode(msg: AnyMessage, *, max_frame_size: int = limits.MAX_FRAME_SIZE) -> bytes:
    """The frame for ``msg``; raises ``EncodeError`` if it breaks its own schema.

    >>> from protocol.messages import Ack
    >>> encode(Ack(seq=7, v=42)).hex()
    '82a174a361636ba17082a373657107a1762a'
    """
    mt = BY_CLASS.get(type(msg))
    if mt is None:
        raise EncodeError(ErrorCode.UNKNOWN_TYPE, f"not a message: {type(msg).__name__}")
    where = mt.name
    if mt.envelope is Envelope.EVENT:
        kind = KIND_BY_CLASS.get(type(msg.data))  # type: ignore[union-attr]
        where = f"event {kind.name}" if kind else where
    try:
        if mt.envelope is Envelope.PLAIN:
            obj: dict[str, Any] = {T: mt.name, P: mt.payload.dump(msg)}
        elif mt.envelope is Envelope.ACTION:
            seq = msg.seq  # type: ignore[union-attr]
            try:
                _SEQ.dump(seq)
            except Invalid as e:
                e.path.append("seq")
                raise
            obj = {T: mt.name, S: seq, P: mt.payload.dump(msg)}
        else:
            obj = _event_envelope(msg)  # type: ignore[arg-type]
    except Invalid as e:
        path = e.where()
        raise EncodeError(e.code, f"{where}.{path}: {e.detail}" if path else e.detail) from None
    frame = msgpack.packb(obj, use_bin_type=True)
    if len(frame) > max_frame_size:
        raise EncodeError(ErrorCode.TOO_LARGE, f"{where}: {len(frame)} bytes > {max_frame_size}")
    return frame


def _event_envelope(event: Event) -> dict[str, Any]:
    data: EventData = event.data
    kind = KIND_BY_CLASS.get(type(data))
    if kind is None:
        raise Invalid(f"data: not an event kind: {type(data).__name__}")
    try:
        _EVENT_V.dump(event.v)
    except Invalid as e:
        e.path.append("v")
        raise
    try:
        nxt = _EVENT_NEXT.dump(event.next)
    except Invalid as e:
        e.path.append("next")
        raise
    return {T: "event", V: event.v, K: kind.name, P: kind.payload.dump(data), N: nxt}
