"""threats.md, "Frames", against a real server process: text and oversized frames close the
connection with their close codes; every other hostile frame earns a typed ``reject``, the
connection stays open and the match goes on unaffected; floods are rate limited, then closed.
"""

from __future__ import annotations

import math

import msgpack
from websockets.asyncio.client import connect

from harness.srv_support import (
    Peer,
    check_stream,
    closing_error,
    play_out,
    rejected,
    seat_two,
    server_fixture,
    stored_frames,
    stored_version,
)
from protocol import codec
from protocol import messages as m
from protocol.limits import PROTOCOL_VERSION as PROTO
from protocol.registry import Direction

server = server_fixture()
limited = server_fixture(FAIRGAMMON_RATE_BURST="5", FAIRGAMMON_RATE_PER_SECOND="1")


def pk(obj: object) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


def move(**fields: object) -> dict[str, object]:
    return {"game": 1, "turn": 1, "moves": [], **fields}


def nested_maps(depth: int) -> dict[str, object]:
    obj: dict[str, object] = {"t": 1}
    for _ in range(depth):
        obj = {"t": obj}
    return obj


VALID_MOVE = codec.encode(m.Move(7, 1, 1, ((8, 5), (6, 5))))
PING = codec.encode(m.Ping(5))

# (name, frame, expected reject code, the seq the reject must name)
MAX_STR = codec.DECODER_LIMITS[Direction.CLIENT]["max_str_len"]
"""The longest str the server's decoder reads (twice the longest str field: a chat line)."""

HOSTILE: list[tuple[str, bytes, str, int | None]] = [
    ("empty frame", b"", "bad_frame", None),
    ("reserved byte", b"\xc1", "bad_frame", None),
    ("truncated msgpack", VALID_MOVE[:-3], "bad_frame", None),
    ("trailing byte", PING + b"\x00", "bad_frame", None),
    ("two objects", PING + PING, "bad_frame", None),
    ("deeply nested arrays", b"\x91" * 200 + b"\x00", "bad_frame", None),
    ("deeply nested maps", pk({"t": "ping", "p": nested_maps(40)}), "bad_frame", None),
    ("array claiming 2^32-1 items", b"\xdd\xff\xff\xff\xff", "bad_frame", None),
    ("map claiming 2^32-1 pairs", b"\xdf\xff\xff\xff\xff", "bad_frame", None),
    ("str claiming 4 GiB", b"\xdb\xff\xff\xff\xff" + b"x" * 10, "bad_frame", None),
    ("bin claiming 4 GiB", b"\xc6\xff\xff\xff\xff" + b"x" * 10, "bad_frame", None),
    ("nested array claiming 2^31-1", VALID_MOVE[:-7] + b"\xdd\x7f\xff\xff\xff", "bad_frame",
     None),
    ("str longer than any field", pk({"t": "ping", "p": {"t": "x" * (MAX_STR + 1)}}), "bad_frame",
     None),
    ("ext type", pk({"t": "ping", "p": {"t": msgpack.ExtType(5, b"abc")}}), "bad_frame", None),
    ("fixext", pk({"t": "ping", "p": {"t": msgpack.ExtType(1, b"\x00")}}), "bad_frame", None),
    ("timestamp ext", pk({"t": "ping", "p": {"t": msgpack.Timestamp(1, 0)}}), "bad_frame",
     None),
    ("int key", pk({1: "ping", "p": {"t": 1}}), "bad_frame", None),
    ("bin key", pk({b"t": "ping", "p": {"t": 1}}), "bad_frame", None),
    ("nil key", pk({None: "ping", "p": {"t": 1}}), "bad_frame", None),
    ("duplicate envelope key", b"\x83\xa1t\xa4ping\xa1t\xa4ping\xa1p\x81\xa1t\x01", "bad_frame",
     None),
    ("duplicate payload key", b"\x82\xa1t\xa4ping\xa1p\x82\xa1t\x01\xa1t\x02", "bad_frame",
     None),
    ("array, not a map", pk([1, 2]), "bad_frame", None),
    ("int, not a map", pk(5), "bad_frame", None),
    ("invalid UTF-8", b"\x82\xa1t\xa4ping\xa1p\x81\xa1t\xa2\xff\xfe", "bad_frame", None),
    ("overlong UTF-8", b"\x82\xa1t\xa4ping\xa1p\x81\xa1t\xa2\xc0\xaf", "bad_frame", None),
    ("UTF-8 surrogate", b"\x82\xa1t\xa4ping\xa1p\x81\xa1t\xa3\xed\xa0\x80", "bad_frame", None),
    ("unknown type", pk({"t": "jump", "p": {}}), "unknown_type", None),
    ("a server's type", pk({"t": "welcome", "p": {}}), "unknown_type", None),
    ("type not a string", pk({"t": 5, "p": {}}), "bad_field", None),
    ("no type", pk({"p": {}}), "bad_field", None),
    ("missing field", pk({"t": "move", "s": 7, "p": {"game": 1, "moves": []}}), "bad_field", 7),
    ("missing seq", pk({"t": "move", "p": move()}), "bad_field", None),
    ("extra field (a seat)", pk({"t": "move", "s": 7, "p": move(seat=1)}), "bad_field", 7),
    ("extra envelope key", pk({"t": "move", "s": 7, "p": move(), "seat": 1}), "bad_field", None),
    ("true for an int", pk({"t": "move", "s": 7, "p": move(game=True)}), "bad_field", 7),
    ("float for an int", pk({"t": "move", "s": 7, "p": move(game=1.0)}), "bad_field", 7),
    ("NaN", pk({"t": "move", "s": 7, "p": move(turn=math.nan)}), "bad_field", 7),
    ("infinity", pk({"t": "ping", "p": {"t": math.inf}}), "bad_field", None),
    ("negative int", pk({"t": "move", "s": 7, "p": move(game=-1)}), "bad_field", 7),
    ("huge int", pk({"t": "move", "s": 7, "p": move(turn=2**40)}), "bad_field", 7),
    ("uint64 max", pk({"t": "move", "s": 7, "p": move(game=2**64 - 1)}), "bad_field", 7),
    ("point 26", pk({"t": "move", "s": 7, "p": move(moves=[[26, 20]])}), "bad_field", 7),
    ("point -1", pk({"t": "move", "s": 7, "p": move(moves=[[3, -1]])}), "bad_field", 7),
    ("five sub-moves", pk({"t": "move", "s": 7, "p": move(moves=[[6, 5]] * 5)}), "bad_field", 7),
    ("sub-move of three", pk({"t": "move", "s": 7, "p": move(moves=[[6, 5, 4]])}), "bad_field",
     7),
    ("moves as text", pk({"t": "move", "s": 7, "p": move(moves="6/5")}), "bad_field", 7),
    ("resign level 4", pk({"t": "resign", "s": 7, "p": {"game": 1, "level": 4}}), "bad_field", 7),
    ("int for a bool", pk({"t": "resign_reply", "s": 7, "p": {"game": 1, "accept": 1}}),
     "bad_field", 7),
    ("str for bin", pk({"t": "commit", "s": 7, "p": {"game": 1, "commitment": "x" * 32}}),
     "bad_field", 7),
    ("short commitment", pk({"t": "commit", "s": 7, "p": {"game": 1, "commitment": b"x" * 31}}),
     "bad_field", 7),
    ("long reveal", pk({"t": "reveal", "s": 7, "p": {"game": 1, "k": 1, "reveal": b"x" * 33}}),
     "bad_field", 7),
    ("seq 0", pk({"t": "move", "s": 0, "p": move()}), "bad_field", None),
    ("seq true", pk({"t": "move", "s": True, "p": move()}), "bad_field", None),
    ("seq 2^31", pk({"t": "move", "s": 2**31, "p": move()}), "bad_field", None),
    ("str for an int", pk({"t": "ping", "p": {"t": "5"}}), "bad_field", None),
    ("payload an array", pk({"t": "ping", "p": [5]}), "bad_field", None),
    ("payload nil", pk({"t": "ping", "p": None}), "bad_field", None),
    ("a second hello", codec.encode(m.Hello(PROTO, "a" * 32, None, None, None)), "wrong_phase",
     None),
]  # fmt: skip


def at_size(size: int) -> bytes:
    """A ping frame carrying a string, padded to exactly ``size`` bytes."""
    base = len(pk({"t": "ping", "p": {"t": "x" * 1000}})) - 1000
    frame = pk({"t": "ping", "p": {"t": "x" * (size - base)}})
    assert len(frame) == size
    return frame


async def test_hostile_frames_are_rejected_and_the_match_plays_on(server):
    seated = await seat_two(server.base, mode="match", length=3)
    (a, b, w), logs = seated.recorded((server.ws, 0), (server.ws, 1), (server.ws, None))
    async with a, b, w:
        await a.wait_for(lambda t: t.clock.phase == "move")
        version = await stored_version(server.redis_url, seated.match_id)
        for sender in (a, b, w):
            for i, (name, frame, code, seq) in enumerate(HOSTILE):
                if i % 5 == 4:  # a good frame now and then: 10 bad ones in a row would close
                    await sender.send_raw(PING)
                reject = await rejected(sender, lambda f=frame, s=sender: s.send_raw(f))
                assert (reject.code, reject.seq) == (code, seq), name
                assert len(reject.message) <= 200
            # A string at the frame limit still reaches the decoder (and is refused there).
            reject = await rejected(sender, lambda s=sender: s.send_raw(at_size(16 * 1024)))
            assert reject.code == "bad_frame"
        # Nobody was disconnected and nothing changed.
        assert (a.welcomes, b.welcomes, w.welcomes) == (1, 1, 1)
        assert await stored_version(server.redis_url, seated.match_id) == version
        await play_out(a, b, seed=11, timeout=60)
        await w.wait_for(lambda t: t.over is not None)
    assert (a.welcomes, b.welcomes, w.welcomes) == (1, 1, 1)
    log = await stored_frames(server.redis_url, seated.match_id)
    for recorder in logs:
        assert check_stream(recorder.messages, log) > 10


async def test_ten_undecodable_frames_in_a_row_close_with_4000(server):
    seated = await seat_two(server.base)
    steady = await seated.peer(server.ws, 0)
    for _ in range(3):  # nine bad frames, then a good one, resets the count: still open
        for _ in range(9):
            await steady.send(b"\xc1")
        await steady.send(PING)
    await steady.wait(lambda: sum(isinstance(x, m.Pong) for x in steady.messages) == 3)
    assert sum(isinstance(x, m.Reject) for x in steady.messages) == 27
    flooder = await seated.peer(server.ws, 1)
    for _ in range(10):
        await flooder.send(b"\xc1")
    assert await flooder.closed() == 4000
    assert closing_error(flooder.messages) == "bad_frame"
    assert sum(isinstance(x, m.Reject) for x in flooder.messages) == 9
    assert steady.ws.close_code is None
    await steady.close()


async def test_text_frame_closes_with_1003(server):
    seated = await seat_two(server.base)
    peer = await seated.peer(server.ws, 0)
    await peer.send('{"t": "ping", "p": {"t": 1}}')
    assert await peer.closed() == 1003
    assert closing_error(peer.messages) == "unsupported"
    # The seat can come back on a new connection; the match did not move.
    again = await Peer.open(server.ws)
    welcome = await again.hello(seated.match_id, seated.tokens[0])
    assert welcome.v == 3
    await again.close()


async def test_oversized_frame_closes_with_1009(server):
    seated = await seat_two(server.base)
    peer = await seated.peer(server.ws, 0)
    await peer.send(at_size(16 * 1024 + 1))
    assert await peer.closed() == 1009
    assert await stored_version(server.redis_url, seated.match_id) == 3


async def test_compression_is_never_negotiated(server):
    ws = await connect(server.ws, compression="deflate")  # the client offers it
    try:
        assert ws.response is not None
        assert "Sec-WebSocket-Extensions" not in ws.response.headers
    finally:
        await ws.close()


async def test_floods_are_rate_limited_then_closed(limited):
    seated = await seat_two(limited.base)
    flooder = await seated.peer(limited.ws, 0)
    calm = await seated.peer(limited.ws, 1)
    # Actions out of place (a take with no double): each answered until the limit bites.
    frames = [codec.encode(m.Take(seq, 1)) for seq in range(1, 41)]
    for frame in frames:
        try:
            await flooder.send(frame)
        except Exception:
            break  # closed by the server
    assert await flooder.closed() == 4008
    answers = [x for x in flooder.messages if isinstance(x, m.Reject)]
    limited_ = [x for x in answers if x.code == "rate_limited"]
    assert answers[0].code != "rate_limited"  # the burst got through
    assert limited_, answers
    # A rate-limited action is named by its seq, so the client can send it again later.
    assert all(x.seq is not None for x in limited_)
    assert [x.seq for x in answers] == sorted(x.seq for x in answers)
    assert closing_error(flooder.messages) == "rate_limited"
    # The limit is per connection: the other seat is served as usual; the match did not move.
    await calm.sync()
    assert await stored_version(limited.redis_url, seated.match_id) == 3
    await calm.close()
