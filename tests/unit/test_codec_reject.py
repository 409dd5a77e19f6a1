"""Every class of bad frame in threats.md "Frames" is refused with the right DecodeError."""

from __future__ import annotations

import copy
import struct
import tracemalloc
from typing import Any

import msgpack
import pytest

from protocol import limits
from protocol.codec import (
    DECODER_BUDGETS,
    DECODER_LIMITS,
    DecodeError,
    decode,
    decode_from_client,
    decode_from_server,
    encode,
)
from protocol.errors import ErrorCode
from protocol.messages import Hello, Move, Ping, Reject
from protocol.registry import Direction

CLIENT, SERVER = Direction.CLIENT, Direction.SERVER
BAD_FRAME, BAD_FIELD = ErrorCode.BAD_FRAME, ErrorCode.BAD_FIELD

MOVE = {"t": "move", "s": 5, "p": {"game": 1, "turn": 3, "moves": [[8, 5], [6, 5]]}}
HELLO = {
    "t": "hello",
    "p": {
        "proto": 2,
        "match": "0123456789abcdef" * 2,
        "token": "tok_EN-1",
        "last_v": None,
        "name": "Ana",
    },
}
RESIGN_REPLY = {"t": "resign_reply", "s": 9, "p": {"game": 2, "accept": True}}
COMMIT = {"t": "commit", "s": 1, "p": {"game": 1, "commitment": bytes(range(32))}}
EVENT = {
    "t": "event",
    "v": 7,
    "k": "passed",
    "p": {"game": 1, "seat": 1, "turn": 4},
    "n": {"phase": "decide", "seats": [0], "deadline": 1_700_000_000_000, "reserves": [0, 0]},
}
REJECT = {"t": "reject", "p": {"seq": 3, "code": "not_your_turn", "message": "wait"}}


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def changed(base: dict[str, Any], **payload: Any) -> dict[str, Any]:
    """A deep copy of ``base`` with payload fields replaced (a value of DELETE removes one)."""
    out = copy.deepcopy(base)
    for key, value in payload.items():
        if value is DELETE:
            del out["p"][key]
        else:
            out["p"][key] = value
    return out


DELETE = object()


def rejected(
    frame: Any, code: ErrorCode, fragment: str = "", sender: Direction = CLIENT, **kw: Any
) -> DecodeError:
    with pytest.raises(DecodeError) as info:
        decode(frame, sender, **kw)
    assert info.value.code is code, info.value
    assert fragment in info.value.message, info.value.message
    encode(Reject(info.value.seq, info.value.code, info.value.message))  # always forwardable
    return info.value


def test_the_base_frames_are_valid():
    assert decode_from_client(pack(MOVE)) == Move(5, 1, 3, ((8, 5), (6, 5)))
    assert isinstance(decode_from_client(pack(HELLO)), Hello)
    assert decode_from_client(pack(RESIGN_REPLY)).accept is True
    assert decode_from_client(pack(COMMIT)).commitment == bytes(range(32))
    assert decode_from_server(pack(EVENT)).v == 7
    assert decode_from_server(pack(REJECT)).code is ErrorCode.NOT_YOUR_TURN


# ---------------------------------------------------------------- not a binary frame


def test_a_text_frame_is_unsupported():
    rejected(pack(MOVE).decode("latin-1"), ErrorCode.UNSUPPORTED, "text frame")


@pytest.mark.parametrize("frame", [None, 17, ["t"], {"t": "move"}])
def test_a_non_bytes_frame_is_bad(frame):
    rejected(frame, BAD_FRAME, "expected bytes")


def test_bytearray_and_memoryview_frames_are_accepted():
    frame = pack(MOVE)
    assert decode_from_client(bytearray(frame)) == decode_from_client(memoryview(frame))


# ---------------------------------------------------------------- size


def test_a_frame_over_the_maximum_size_is_too_large():
    big = pack({"t": "ping", "p": {"t": 1, "pad": "x" * limits.MAX_FRAME_SIZE}})
    rejected(big, ErrorCode.TOO_LARGE, f"exceeds {limits.MAX_FRAME_SIZE}")
    rejected(bytearray(big), ErrorCode.TOO_LARGE)


def test_the_maximum_frame_size_is_configurable_and_inclusive():
    frame = pack(MOVE)
    assert decode(frame, CLIENT, max_frame_size=len(frame)).seq == 5
    rejected(frame, ErrorCode.TOO_LARGE, sender=CLIENT, max_frame_size=len(frame) - 1)


# ---------------------------------------------------------------- byte-level msgpack


def test_an_empty_frame_is_bad():
    rejected(b"", BAD_FRAME, "empty")


def test_the_reserved_byte_is_bad():
    rejected(b"\xc1", BAD_FRAME, "not msgpack")
    rejected(b"\x83\xa1t\xc1", BAD_FRAME)


def test_every_truncation_of_a_valid_frame_is_bad():
    for base, sender in ((MOVE, CLIENT), (HELLO, CLIENT), (COMMIT, CLIENT), (EVENT, SERVER)):
        frame = pack(base)
        for n in range(1, len(frame)):
            rejected(frame[:n], BAD_FRAME, sender=sender)


@pytest.mark.parametrize("extra", [b"\x00", b"\xc0", b"\xc1", pack(MOVE), b"\x81"])
def test_trailing_bytes_are_bad(extra):
    rejected(pack(MOVE) + extra, BAD_FRAME, "trailing bytes")


@pytest.mark.parametrize("frame", [b"\x01", b"\xc0", b"\xc3", pack([MOVE]), pack("move")])
def test_a_frame_that_is_not_a_map_is_bad(frame):
    rejected(frame, BAD_FRAME, "must be a msgpack map")


def test_nesting_beyond_the_decoders_stack_is_bad():
    rejected(b"\x91" * 5000 + b"\x00", BAD_FRAME, "nesting too deep")
    rejected(b"\x91" * limits.MAX_FRAME_SIZE, BAD_FRAME, "nesting too deep")
    rejected(b"\x81\xa1p" * 3000 + b"\x00", BAD_FRAME, "nesting too deep")


def test_nesting_deeper_than_the_schema_is_refused():
    # a little: the schema names the field; a lot: the container budget stops the frame
    rejected(pack(changed(MOVE, moves=[[[[8]], 5]])), BAD_FIELD, "move.moves[0][0]: expected int")
    rejected(pack(changed(MOVE, game={"a": 1})), BAD_FIELD, "move.game: expected int, got map")
    deep: Any = 8
    for _ in range(900):
        deep = [deep]
    rejected(pack(changed(MOVE, moves=[[deep, 5]])), BAD_FRAME, "more arrays")
    rejected(pack(changed(MOVE, game={"a": {"b": {"c": 1}}})), BAD_FRAME, "more maps")


HUGE_CLAIMS = {
    "array32": b"\xdd\xff\xff\xff\xff",
    "array16": b"\xdc\xff\xff",
    "map32": b"\xdf\xff\xff\xff\xff",
    "map16": b"\xde\xff\xff",
    "str32": b"\xdb\xff\xff\xff\xff",
    "bin32": b"\xc6\xff\xff\xff\xff",
    "ext32": b"\xc9\xff\xff\xff\xff\x01",
    "array32 with data": b"\xdd\xff\xff\xff\xff" + b"\xc0" * 16000,
    "map32 with data": b"\xdf\xff\xff\xff\xff" + b"\xa0\xc0" * 8000,
    "array32 in a payload": pack({"t": "move", "s": 1})[:-1] + b"\x83\xa1p\xdd\xff\xff\xff\xff",
    "fits the frame but not the schema": b"\xdc\x3e\x80" + b"\xc0" * 16000,
}


@pytest.mark.parametrize("sender", [CLIENT, SERVER])
@pytest.mark.parametrize("frame", HUGE_CLAIMS.values(), ids=HUGE_CLAIMS.keys())
def test_huge_claimed_lengths_are_refused_without_allocating(frame, sender):
    # A 2**32-element list would need 32 GiB; refusing it at the header costs a few KiB.
    tracemalloc.start()
    try:
        with pytest.raises(DecodeError) as info:
            decode(frame, sender)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert info.value.code is BAD_FRAME
    assert peak < 64 * 1024


def test_a_claimed_length_over_the_limit_names_the_limit():
    rejected(b"\xdd\xff\xff\xff\xff", BAD_FRAME, "claimed array length 4294967295 exceeds")


def test_lengths_far_beyond_the_schema_stop_at_the_header_slight_ones_name_the_field():
    limit = DECODER_LIMITS[CLIENT]
    rejected(pack(changed(MOVE, moves=[[8, 5]] * 100)), BAD_FRAME, "claimed array length 100")
    rejected(pack(changed(MOVE, moves=[[8, 5]] * 5)), BAD_FIELD, "move.moves: 5 elements")
    long_name = "x" * (limit["max_str_len"] + 1)
    rejected(pack(changed(HELLO, name=long_name)), BAD_FRAME, "claimed str length")
    rejected(pack(changed(HELLO, name="x" * 30)), BAD_FIELD, "hello.name: 30 characters")
    rejected(pack(changed(COMMIT, commitment=bytes(1000))), BAD_FRAME, "claimed bin length 1000")
    many = {f"k{i}": i for i in range(limit["max_map_len"] + 1)}
    rejected(pack(changed(MOVE, **many)), BAD_FRAME, "claimed map length")


def test_frames_packed_with_containers_are_refused_by_the_budget():
    maps, arrays = DECODER_BUDGETS[CLIENT]
    flood: Any = {}
    for _ in range(3):
        flood = [flood] * 6  # 6**3 empty maps inside 1 + 6 + 36 arrays: the maps come first
    rejected(pack(flood), BAD_FRAME, "more maps than any valid frame holds")
    flood = []
    for _ in range(5):
        flood = [flood] * 6
    rejected(pack(flood), BAD_FRAME, "more arrays than any valid frame holds")
    rejected(pack({**MOVE, "p": {**MOVE["p"], "game": [{}] * (maps + 1)}}), BAD_FRAME, "maps")
    nested = [[8, 5]] * 4
    for _ in range(arrays):
        nested = [nested]
    rejected(pack(changed(MOVE, moves=nested)), BAD_FRAME, "more arrays")
    # one container too many for the schema but within the budget: a named field error
    rejected(pack(changed(MOVE, game={})), BAD_FIELD, "move.game: expected int, got map")


def test_the_fullest_valid_frames_fit_the_budget():
    from harness.codec import sample_snapshot

    hello = pack(changed(HELLO, name="🎲" * 24, token="x" * 64, last_v=2**31 - 1))
    assert decode_from_client(hello).name == "🎲" * 24
    assert decode_from_client(pack(changed(MOVE, moves=[[25, 0]] * 4))).moves == ((25, 0),) * 4
    assert decode_from_server(encode(sample_snapshot(full=True))) == sample_snapshot(full=True)


EXT_FRAMES = {
    "fixext1": b"\xd4\x01\x00",
    "fixext4": b"\xd6\x05\x00\x00\x00\x00",
    "fixext16": b"\xd8\x05" + bytes(16),
    "ext8": b"\xc7\x03\x05abc",
    "ext8 empty": b"\xc7\x00\x05",
    "ext16": b"\xc8\x00\x02\x05ab",
    "ext32": b"\xc9\x00\x00\x00\x01\x05a",
    "timestamp32": b"\xd6\xff\x00\x00\x00\x00",
    "timestamp96": b"\xc7\x0c\xff" + bytes(12),
    "timestamp empty": b"\xc7\x00\xff",
}


@pytest.mark.parametrize("ext", EXT_FRAMES.values(), ids=EXT_FRAMES.keys())
def test_ext_types_are_refused_anywhere(ext):
    rejected(ext, BAD_FRAME, "ext types")
    # inside a payload, in place of an int
    frame = pack({"t": "ping", "p": {"t": 0}})
    rejected(frame[:-1] + ext, BAD_FRAME, "ext types")


@pytest.mark.parametrize(
    "key", [1, -1, None, True, b"t", 1.5], ids=["int", "negint", "nil", "bool", "bin", "float"]
)
def test_non_string_map_keys_are_bad(key):
    rejected(pack({key: 1, "t": "ping", "p": {"t": 1}}), BAD_FRAME, "keys must be strings")
    rejected(pack({"t": "ping", "p": {"t": 1, key: 2}}), BAD_FRAME, "keys must be strings")


def test_array_map_keys_are_bad():
    rejected(b"\x81\x91\x01\x02", BAD_FRAME, "keys must be strings")
    rejected(b"\x81\x80\x02", BAD_FRAME, "keys must be strings")


def test_duplicate_keys_are_bad():
    # envelope: {"t": "ping", "t": "ping", "p": {...}} ; payload {"t": 1, "t": 2}
    rejected(b"\x83\xa1t\xa4ping\xa1t\xa4ping\xa1p\x81\xa1t\x01", BAD_FRAME, "duplicate key")
    rejected(b"\x82\xa1t\xa4ping\xa1p\x82\xa1t\x01\xa1t\x02", BAD_FRAME, "duplicate key")


@pytest.mark.parametrize(
    "raw",
    [b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"a\x80", b"\xf4\x90\x80\x80"],
    ids=["ff", "overlong", "surrogate", "cut", "lone-continuation", "above-10ffff"],
)
def test_invalid_utf8_in_any_string_is_bad(raw):
    name = b"\xa0"[0] | len(raw)  # fixstr header
    frame = pack(changed(HELLO, name="@@@"))
    i = frame.index(b"\xa3@@@")
    rejected(frame[:i] + bytes([name]) + raw + frame[i + 4 :], BAD_FRAME, "not valid UTF-8")
    rejected(bytes([name]) + raw, BAD_FRAME, "not valid UTF-8")


# ---------------------------------------------------------------- envelope and type


def test_an_unknown_type_is_refused():
    rejected(pack({"t": "jump", "p": {}}), ErrorCode.UNKNOWN_TYPE, "unknown message type 'jump'")
    rejected(pack({"t": "", "p": {}}), ErrorCode.UNKNOWN_TYPE)


def test_a_type_of_the_other_direction_is_refused():
    rejected(pack(REJECT), ErrorCode.UNKNOWN_TYPE, "only sent by the server")
    rejected(pack(EVENT), ErrorCode.UNKNOWN_TYPE, "only sent by the server")
    rejected(pack(MOVE), ErrorCode.UNKNOWN_TYPE, "only sent by clients", sender=SERVER)


def test_a_missing_or_non_string_type_is_a_bad_field():
    rejected(pack({"p": {}}), BAD_FIELD, "missing field t")
    rejected(pack({"t": 1, "p": {}}), BAD_FIELD, "must be a string")
    rejected(pack({"t": b"move", "s": 1, "p": {}}), BAD_FIELD, "must be a string")


@pytest.mark.parametrize(
    ("frame", "fragment"),
    [
        ({"t": "ping"}, "missing field p"),
        ({"t": "ping", "p": {"t": 1}, "s": 1}, "unexpected field 's'"),
        ({"t": "move", "p": MOVE["p"]}, "missing field s"),
        ({**MOVE, "v": 1}, "unexpected field 'v'"),
        ({**MOVE, "x" * 90: 1}, "unexpected field 'xxxxxxxxxxxxxxxxxxxxxxxx'..."),
    ],
)
def test_envelope_keys_are_exact(frame, fragment):
    rejected(pack(frame), BAD_FIELD, fragment)


@pytest.mark.parametrize("seq", [0, -1, 2**31, True, 1.0, "1", None, [1]])
def test_an_invalid_seq_is_a_bad_field(seq):
    e = rejected(pack({**MOVE, "s": seq}), BAD_FIELD, "move.s:")
    assert e.seq is None and e.msg_type == "move"


def test_a_payload_error_carries_the_seq_and_type():
    e = rejected(pack(changed(MOVE, turn=0)), BAD_FIELD, "move.turn: 0 is out of range")
    assert (e.seq, e.msg_type) == (5, "move")


def test_the_payload_must_be_a_map():
    rejected(pack({"t": "ping", "p": [1]}), BAD_FIELD, "ping: expected map, got array")
    rejected(pack({**MOVE, "p": None}), BAD_FIELD, "move: expected map, got nil")


# ---------------------------------------------------------------- fields


def test_missing_and_extra_fields_are_bad_fields():
    rejected(pack(changed(MOVE, turn=DELETE)), BAD_FIELD, "move: missing field turn")
    rejected(pack(changed(MOVE, extra=1)), BAD_FIELD, "move: unexpected field 'extra'")
    rejected(pack(changed(MOVE, turn=DELETE, extra=1)), BAD_FIELD, "missing field turn")
    rejected(pack(changed(HELLO, name=DELETE)), BAD_FIELD, "hello: missing field name")
    rejected(pack({"t": "double", "s": 1, "p": {}}), BAD_FIELD, "missing field game")


@pytest.mark.parametrize(
    ("base", "field", "value", "fragment"),
    [
        (MOVE, "game", True, "expected int, got bool"),
        (MOVE, "game", False, "expected int, got bool"),
        (MOVE, "game", 1.0, "expected int, got float"),
        (MOVE, "game", float("nan"), "expected int, got float"),
        (MOVE, "game", float("inf"), "expected int, got float"),
        (MOVE, "game", float("-inf"), "expected int, got float"),
        (MOVE, "game", "1", "expected int, got str"),
        (MOVE, "game", None, "expected int, got nil"),
        (MOVE, "game", -1, "-1 is out of range"),
        (MOVE, "game", 0, "0 is out of range"),
        (MOVE, "game", 2**31, "2147483648 is out of range 1..2^31-1"),
        (MOVE, "game", 2**64 - 1, "out of range"),
        (MOVE, "game", -(2**63), "out of range"),
        (RESIGN_REPLY, "accept", 1, "expected bool, got int"),
        (RESIGN_REPLY, "accept", 0, "expected bool, got int"),
        (RESIGN_REPLY, "accept", None, "expected bool, got nil"),
        (RESIGN_REPLY, "accept", "true", "expected bool, got str"),
        (COMMIT, "commitment", "a" * 32, "expected bin, got str"),
        (COMMIT, "commitment", bytes(31), "31 bytes, expected 32"),
        (COMMIT, "commitment", bytes(33), "33 bytes, expected 32"),
        (COMMIT, "commitment", None, "expected bin, got nil"),
        (HELLO, "match", ("0123456789abcdef" * 2).encode(), "expected str, got bin"),
        (HELLO, "match", "0123456789ABCDEF" * 2, "expected 32 lowercase hex"),
        (HELLO, "match", "0123456789abcdef" * 2 + "0", "33 characters"),
        (HELLO, "match", "0123456789abcdeg" * 2, "expected 32 lowercase hex"),
        (HELLO, "token", "", "0 characters"),
        (HELLO, "token", "x" * 65, "65 characters"),
        (HELLO, "token", "tok en", "A-Z a-z 0-9 _ -"),
        (HELLO, "token", "tök", "A-Z a-z 0-9 _ -"),
        (HELLO, "token", b"tok", "expected str, got bin"),
        (HELLO, "name", "x" * 25, "25 characters, expected 1..24"),
        (HELLO, "name", "", "0 characters"),
        (HELLO, "name", "a\nb", "control"),
        (HELLO, "name", "a\x00b", "control"),
        (HELLO, "name", "a\u202eb", "bidi"),
        (HELLO, "name", "a\u2028b", "control"),
        (HELLO, "last_v", -1, "out of range"),
        (HELLO, "last_v", False, "expected int, got bool"),
        (HELLO, "proto", True, "expected int, got bool"),
    ],
)
def test_wrongly_typed_or_out_of_range_fields_are_bad_fields(base, field, value, fragment):
    e = rejected(pack(changed(base, **{field: value})), BAD_FIELD, fragment)
    assert e.message.startswith(f"{base['t']}.{field}: ")


def test_float32_is_not_an_int():
    frame = pack({"t": "ping", "p": {"t": 0}})
    rejected(frame[:-1] + b"\xca" + struct.pack(">f", 1.0), BAD_FIELD, "got float")


def test_bad_field_messages_never_echo_long_strings():
    e = rejected(pack(changed(HELLO, token="x" * 64 + "!")), BAD_FIELD, "hello.token")
    assert "xxxx" not in e.message


def test_another_protocol_version_is_unsupported():
    e = rejected(pack(changed(HELLO, proto=0)), ErrorCode.UNSUPPORTED_VERSION, "hello.proto")
    assert "speaks 1, 2, 3" in e.message


@pytest.mark.parametrize(
    ("moves", "fragment"),
    [
        ([[26, 1]], "moves[0][0]: 26 is out of range 0..25"),
        ([[8, 5], [6, -1]], "moves[1][1]: -1 is out of range"),
        ([[8, 5]] * 5, "moves: 5 elements, expected 0..4"),
        ([[8, 5, 3]], "moves[0]: 3 elements, expected 2"),
        ([[8]], "moves[0]: 1 elements, expected 2"),
        ([8, 5], "moves[0]: expected array, got int"),
        ([{"from": 8, "to": 5}], "moves[0]: expected array, got map"),
        ([[8.0, 5]], "moves[0][0]: expected int, got float"),
        ([[True, 5]], "moves[0][0]: expected int, got bool"),
        ({"0": [8, 5]}, "moves: expected array, got map"),
        (b"\x08\x05", "moves: expected array, got bin"),
    ],
)
def test_malformed_moves_are_bad_fields(moves, fragment):
    rejected(pack(changed(MOVE, moves=moves)), BAD_FIELD, "move." + fragment)


def test_an_empty_play_and_every_point_decode():
    # Which plays are legal is the engine's business: the codec accepts every 0..25 pair.
    assert decode_from_client(pack(changed(MOVE, moves=[]))).moves == ()
    moves = [[a, b] for a, b in ((0, 25), (25, 0), (13, 13), (1, 24))]
    assert decode_from_client(pack(changed(MOVE, moves=moves))).moves == tuple(map(tuple, moves))


@pytest.mark.parametrize("level", [0, 4, True, "1"])
def test_resign_levels_are_1_to_3(level):
    frame = pack({"t": "resign", "s": 1, "p": {"game": 1, "level": level}})
    rejected(frame, BAD_FIELD, "resign.level")


def test_the_nil_field_value_is_only_allowed_where_documented():
    assert decode_from_client(pack(changed(HELLO, token=None))).token is None
    rejected(pack({"t": "ping", "p": {"t": None}}), BAD_FIELD, "ping.t: expected int, got nil")


# ---------------------------------------------------------------- server -> client


def test_events_check_their_envelope_and_kind():
    rejected(pack({**EVENT, "k": "teleported"}), ErrorCode.UNKNOWN_TYPE, "event kind", SERVER)
    rejected(pack({**EVENT, "k": 3}), BAD_FIELD, "event.k", SERVER)
    rejected(pack({**EVENT, "v": 0}), BAD_FIELD, "event.v: 0 is out of range", SERVER)
    rejected(pack({**EVENT, "v": True}), BAD_FIELD, "event.v", SERVER)
    rejected(
        pack({k: v for k, v in EVENT.items() if k != "k"}), BAD_FIELD, "missing field k", SERVER
    )
    rejected(pack({**EVENT, "s": 1}), BAD_FIELD, "unexpected field 's'", SERVER)
    e = rejected(pack(changed(EVENT, seat=2)), BAD_FIELD, "event passed.seat", SERVER)
    assert e.msg_type == "event"
    rejected(
        pack({k: v for k, v in EVENT.items() if k != "n"}), BAD_FIELD, "missing field n", SERVER
    )
    bad_clock = {**EVENT, "n": {"phase": "nap", "seats": [0], "deadline": None, "reserves": [0, 0]}}
    rejected(pack(bad_clock), BAD_FIELD, "event.n.phase", SERVER)
    three_seats = {
        **EVENT,
        "n": {"phase": "decide", "seats": [0, 1, 1], "deadline": None, "reserves": [0, 0]},
    }
    rejected(pack(three_seats), BAD_FIELD, "event.n.seats", SERVER)


def test_an_unknown_error_code_is_a_bad_field():
    frame = pack({"t": "reject", "p": {"seq": None, "code": "oops", "message": ""}})
    rejected(frame, BAD_FIELD, "reject.code: 'oops' is not a known ErrorCode", SERVER)


def test_nested_snapshot_fields_are_named_by_path():
    from harness.codec import sample_snapshot

    wire = msgpack.unpackb(encode(sample_snapshot()))
    wire["p"]["state"]["game"]["boards"][1][25] = 16
    rejected(pack(wire), BAD_FIELD, "snapshot.state.game.boards[1][25]: 16 is out of range", SERVER)


def test_decoders_raise_only_decode_error_on_odd_inputs():
    for frame in (b"\x80", pack({"t": None}), pack({"t": "ping", "p": {"t": 1}}) * 2, b"\x00"):
        for sender in Direction:
            with pytest.raises(DecodeError):
                decode(frame, sender)
    assert decode_from_client(pack({"t": "ping", "p": {"t": 1}})) == Ping(1)
