"""Every message type round-trips, encoding is deterministic, and key order does not matter."""

from __future__ import annotations

import random
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.codec import all_types, event_data, for_spec, for_type, messages, sample_snapshot
from protocol.codec import (
    DecodeError,
    EncodeError,
    decode,
    decode_from_client,
    decode_from_server,
    encode,
)
from protocol.errors import ErrorCode
from protocol.events import GameOver, Moved, Passed
from protocol.messages import Ack, Event, Hello, Move, Reject
from protocol.registry import BY_CLASS, EVENT_KINDS, Direction


def shuffled(obj: Any, rng: random.Random) -> Any:
    """The same wire value with every map's keys in a random order."""
    if isinstance(obj, dict):
        items = list(obj.items())
        rng.shuffle(items)
        return {k: shuffled(v, rng) for k, v in items}
    if isinstance(obj, list | tuple):
        return [shuffled(x, rng) for x in obj]
    return obj


@given(messages())
def test_every_message_round_trips(msg):
    sender = BY_CLASS[type(msg)].direction
    frame = encode(msg)
    back = decode(frame, sender)
    assert back == msg
    assert type(back) is type(msg)
    assert encode(back) == frame


@pytest.mark.parametrize("mt", all_types(), ids=lambda mt: mt.name)
@settings(max_examples=40)
@given(data=st.data())
def test_each_message_type_round_trips(mt, data):
    msg = data.draw(for_type(mt))
    assert decode(encode(msg), mt.direction) == msg


@pytest.mark.parametrize("kind", sorted(EVENT_KINDS))
@settings(max_examples=40)
@given(data=st.data())
def test_each_event_kind_round_trips(kind, data):
    event = Event(
        data.draw(st.integers(1, 2**31 - 1)), data.draw(for_spec(EVENT_KINDS[kind].payload))
    )
    back = decode_from_server(encode(event))
    assert back == event and type(back.data) is EVENT_KINDS[kind].cls


@given(messages(), st.randoms(use_true_random=False))
def test_key_order_on_the_wire_does_not_matter(msg, rng):
    sender = BY_CLASS[type(msg)].direction
    wire = msgpack.unpackb(encode(msg))
    frame = msgpack.packb(shuffled(wire, rng), use_bin_type=True)
    assert decode(frame, sender) == msg


@given(messages())
def test_encoding_is_deterministic(msg):
    sender = BY_CLASS[type(msg)].direction
    frames = {encode(msg), encode(msg), encode(decode(encode(msg), sender))}
    assert len(frames) == 1


@given(event_data())
def test_events_keep_the_kind_in_the_envelope(data):
    wire = msgpack.unpackb(encode(Event(3, data)))
    assert list(wire) == ["t", "v", "k", "p", "n"]
    assert EVENT_KINDS[wire["k"]].cls is type(data)


def test_envelope_layouts():
    assert msgpack.unpackb(encode(Move(1, 2, 3, ()))) == {
        "t": "move",
        "s": 1,
        "p": {"game": 2, "turn": 3, "moves": []},
    }
    assert list(msgpack.unpackb(encode(Ack(4, 5)))) == ["t", "p"]


def test_a_snapshot_round_trips_and_fits_comfortably():
    snap = sample_snapshot()
    frame = encode(snap)
    assert decode_from_server(frame) == snap
    assert len(frame) < 1024


def test_arrays_may_be_built_as_lists_on_the_python_side():
    as_list = Move(1, 1, 1, [[8, 5], (6, 5)])  # type: ignore[arg-type]
    assert encode(as_list) == encode(Move(1, 1, 1, ((8, 5), (6, 5))))
    assert decode_from_client(encode(as_list)).moves == ((8, 5), (6, 5))


def test_the_error_code_travels_as_its_string():
    frame = encode(Reject(3, ErrorCode.ILLEGAL_PLAY, "step 2 (6, 0): not_legal"))
    assert msgpack.unpackb(frame)["p"]["code"] == "illegal_play"
    assert decode_from_server(frame).code is ErrorCode.ILLEGAL_PLAY


@pytest.mark.parametrize(
    ("msg", "code", "fragment"),
    [
        (Move(0, 1, 1, ()), ErrorCode.BAD_FIELD, "move.seq: 0 is out of range"),
        (Move(1, True, 1, ()), ErrorCode.BAD_FIELD, "move.game: expected int, got bool"),
        (Move(1, 1, 1, ((8, 26),)), ErrorCode.BAD_FIELD, "move.moves[0][1]: 26"),
        (Move(1, 1, 1, ((8, 5),) * 5), ErrorCode.BAD_FIELD, "move.moves: 5 elements"),
        (Hello(0, "0" * 32, None, None, None), ErrorCode.UNSUPPORTED_VERSION, "hello.proto"),
        (Hello(2, "0" * 32, None, None, "a\x07"), ErrorCode.BAD_FIELD, "hello.name: control"),
        (Reject(1, "illegal_play", ""), ErrorCode.BAD_FIELD, "reject.code: expected ErrorCode"),  # type: ignore[arg-type]
        (Event(0, Passed(1, 0, 1)), ErrorCode.BAD_FIELD, "event passed.v: 0 is out of range"),
        (Event(1, Passed(1, 2, 1)), ErrorCode.BAD_FIELD, "event passed.seat: 2"),
        (Event(1, Move(1, 1, 1, ())), ErrorCode.BAD_FIELD, "not an event kind: Move"),  # type: ignore[arg-type]
        (Moved(1, 0, 1, (), "4HPwATDgc/ABMA"), ErrorCode.UNKNOWN_TYPE, "not a message: Moved"),
        (
            GameOver(1, 0, 1, "single", "bear_off", (1, 0)),
            ErrorCode.UNKNOWN_TYPE,
            "not a message: GameOver",
        ),
    ],
)
def test_encoding_refuses_values_that_break_the_schema(msg, code, fragment):
    with pytest.raises(EncodeError) as info:
        encode(msg)
    assert info.value.code is code
    assert fragment in info.value.message


def test_encoding_refuses_frames_over_the_size_limit():
    with pytest.raises(EncodeError) as info:
        encode(sample_snapshot(), max_frame_size=100)
    assert info.value.code is ErrorCode.TOO_LARGE


@given(messages(Direction.CLIENT))
def test_client_messages_decode_only_as_client_frames(msg):
    frame = encode(msg)
    assert decode_from_client(frame) == msg
    with pytest.raises(DecodeError) as info:
        decode_from_server(frame)
    assert info.value.code is ErrorCode.UNKNOWN_TYPE
