"""Fuzzing the decoders: arbitrary msgpack structures, mutated valid messages and mutated bytes
never raise anything but DecodeError, and whatever they accept is a valid message."""

from __future__ import annotations

import random
from typing import Any

import msgpack
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.codec import all_types, messages, random_message
from protocol.codec import DecodeError, decode, encode
from protocol.errors import ErrorCode
from protocol.messages import Reject
from protocol.registry import BY_CLASS, EVENT_KINDS, MESSAGES, Direction
from protocol.schema import Struct, walk

# At least this many examples per fuzz test, more under a thorough profile. Generating deep
# random structures is what costs time here (decoding them is cheap), hence two budgets.
FUZZ = settings(max_examples=max(1000, settings.default.max_examples))
FUZZ_DEEP = settings(max_examples=max(500, settings.default.max_examples))

TYPE_NAMES = sorted({name for table in MESSAGES.values() for name in table} | set(EVENT_KINDS))
FIELD_NAMES = sorted(
    {
        f.name
        for spec in [mt.payload for mt in all_types()] + [k.payload for k in EVENT_KINDS.values()]
        for s in walk(spec)
        if isinstance(s, Struct)
        for f in s.fields
    }
)
KEYS = st.sampled_from(["t", "s", "v", "k", "p", *FIELD_NAMES]) | st.text(max_size=8)

SCALARS = (
    st.none()
    | st.booleans()
    | st.integers(-(2**63), 2**64 - 1)
    | st.sampled_from([0, 1, 2, 25, 26, -1, 2**31 - 1, 2**31, 2**53, 2**64 - 1])
    | st.floats(allow_nan=True, allow_infinity=True)
    | st.floats(width=32)
    | st.text(max_size=40)
    | st.sampled_from(TYPE_NAMES)
    | st.binary(max_size=40)
    | st.sampled_from([bytes(32), b"\x01" * 32])
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=6) | st.dictionaries(KEYS, inner, max_size=6),
    max_leaves=20,
)
SMALL_VALUES = st.recursive(
    SCALARS,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(KEYS, inner, max_size=3),
    max_leaves=5,
)
ENVELOPES = st.fixed_dictionaries(
    {"t": st.sampled_from(TYPE_NAMES), "p": st.dictionaries(KEYS, VALUES, max_size=6)},
    optional={"s": SCALARS, "v": SCALARS, "k": st.sampled_from(TYPE_NAMES) | SCALARS},
)


def check(frame: Any, sender: Direction) -> object | None:
    """Decode: either DecodeError with a proper code and message, or a valid message of the
    sender's direction that re-encodes to the same value."""
    try:
        msg = decode(frame, sender)
    except DecodeError as e:
        assert isinstance(e.code, ErrorCode) and e.message
        assert e.__cause__ is None  # a deliberate refusal, not the codec's last-resort net
        # the server can always answer with it, whatever the frame held
        assert decode(encode(Reject(e.seq, e.code, e.message)), Direction.SERVER).code is e.code
        return None
    assert BY_CLASS[type(msg)].direction is sender
    assert decode(encode(msg), sender) == msg
    return msg


@FUZZ_DEEP
@given(VALUES)
def test_arbitrary_msgpack_structures(value):
    frame = msgpack.packb(value, use_bin_type=True)
    for sender in Direction:
        check(frame, sender)


@FUZZ_DEEP
@given(ENVELOPES)
def test_arbitrary_envelopes(value):
    frame = msgpack.packb(value, use_bin_type=True)
    for sender in Direction:
        check(frame, sender)


def _paths(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [path]
    if isinstance(obj, dict):
        for k, v in obj.items():
            out += _paths(v, (*path, k))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            out += _paths(v, (*path, i))
    return out


def _mutate(wire: Any, path: tuple[Any, ...], how: str, new: Any, key: str) -> Any:
    if not path:
        return new if how != "wrap" else [wire]
    parent = wire
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if how == "replace":
        parent[last] = new
    elif how == "wrap":
        parent[last] = [parent[last]]
    elif how == "delete":
        del parent[last]
    elif how == "add" and isinstance(parent, dict):
        parent[key] = new
    elif how == "add":
        parent.append(new)
    return wire


@FUZZ
@given(messages(), st.data())
def test_mutated_valid_messages(msg, data):
    sender = BY_CLASS[type(msg)].direction
    wire = msgpack.unpackb(encode(msg), use_list=True)
    path = data.draw(st.sampled_from(_paths(wire)))
    how = data.draw(st.sampled_from(["replace", "wrap", "delete", "add"]))
    mutated = _mutate(wire, path, how, data.draw(SMALL_VALUES), data.draw(KEYS))
    check(msgpack.packb(mutated, use_bin_type=True), sender)


@FUZZ
@given(messages(), st.data())
def test_bit_flips_and_truncations_of_valid_frames(msg, data):
    sender = BY_CLASS[type(msg)].direction
    frame = bytearray(encode(msg))
    for _ in range(data.draw(st.integers(1, 4))):
        i = data.draw(st.integers(0, len(frame) - 1))
        frame[i] ^= 1 << data.draw(st.integers(0, 7))
    check(bytes(frame), sender)
    check(bytes(frame[: data.draw(st.integers(0, len(frame)))]), sender)


@FUZZ
@given(st.binary(max_size=200))
def test_random_bytes(frame):
    for sender in Direction:
        check(frame, sender)


INTERESTING = [0x00, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xC3, 0xC4,
               0xC7, 0xCA, 0xCB, 0xCF, 0xD3, 0xD4, 0xD8, 0xD9, 0xDB, 0xDC, 0xDD, 0xDE, 0xDF,
               0xE0, 0xFF]  # fmt: skip


def test_many_seeded_byte_mutations():
    # Cheap volume on top of hypothesis: 100k mutants of frames of every message type.
    rng = random.Random(20260301)
    seeds = [
        (encode(random_message(mt, rng)), mt.direction) for mt in all_types() for _ in range(5)
    ]
    accepted = 0
    for n in range(100_000):
        frame, sender = seeds[n % len(seeds)]
        b = bytearray(frame)
        op = rng.randrange(5)
        i = rng.randrange(len(b))
        if op == 0:
            b[i] ^= 1 << rng.randrange(8)
        elif op == 1:
            b[i] = rng.choice(INTERESTING)
        elif op == 2:
            b.insert(i, rng.choice(INTERESTING))
        elif op == 3:
            del b[i]
        else:
            j = rng.randrange(len(b))
            b[i:i] = b[min(i, j) : max(i, j)]
        accepted += check(bytes(b), sender) is not None
    # Some mutants are still valid (a flipped bit inside a value): they were checked as such.
    assert 0 < accepted < 100_000
