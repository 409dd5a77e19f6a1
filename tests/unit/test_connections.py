"""The connections as features see them (server/match/connections.py): control notes reach the
handler of their ``op`` and nothing else, client messages the handler of their kind, a match's
connections are those that follow it and are not closing, the probe's answer is taken as it
arrives only when the connection's task would take it next, as that task would. (Rewind and
chat use them against real servers: tests/server/test_chat*.py,
tests/failure/test_fail_claims.py and tests/failure/test_fail_failover.py.)"""

from __future__ import annotations

import time
from typing import Any

import msgpack
import pytest

from protocol import codec
from protocol import messages as m
from server.match.connections import Connection, Connections
from server.match.hub import Hub
from server.ops.allowance import TokenBucket


def connections() -> tuple[Connections, Hub]:
    hub = Hub(None, "redis://127.0.0.1:1")  # type: ignore[arg-type]  # (never connects here)
    return Connections(hub), hub


def test_a_control_note_reaches_the_handler_of_its_op_only() -> None:
    conns, hub = connections()
    heard: list[tuple[str, str, dict[str, Any]]] = []
    conns.on_note("chat", lambda match, note: heard.append(("chat", match, note)))
    conns.on_note("seat", lambda match, note: heard.append(("seat", match, note)))
    assert hub.on_control is not None
    hub.on_control("m1", msgpack.packb({"op": "seat", "seat": 1, "conn": "c", "gen": 2}))
    hub.on_control("m2", msgpack.packb({"op": "chat", "room": "players", "n": 3}))
    for ignored in (
        msgpack.packb({"op": "rewind", "v": 7}),  # nobody here hears rewind
        msgpack.packb({"v": 7}),  # no op
        msgpack.packb({"op": ["chat"]}),  # an op that is no name
        msgpack.packb(["chat"]),  # not a map
        b"\xc1",  # not msgpack
    ):
        hub.on_control("m3", ignored)
    assert heard == [
        ("seat", "m1", {"op": "seat", "seat": 1, "conn": "c", "gen": 2}),
        ("chat", "m2", {"op": "chat", "room": "players", "n": 3}),
    ]
    with pytest.raises(ValueError, match="chat"):
        conns.on_note("chat", lambda match, note: None)  # one handler per op


def test_a_client_message_goes_to_the_handler_of_its_kind() -> None:
    conns, _ = connections()

    async def chat(conn: Connection, message: Any) -> None: ...

    conns.on_message((m.ChatSend, m.ChatSync), chat)
    assert conns.handler_for(m.ChatSync("players", 0)) is chat
    assert conns.handler_for(m.ChatSend("players", "hi", None)) is chat
    assert conns.handler_for(m.Ping(1)) is None
    with pytest.raises(ValueError, match="ChatSync"):
        conns.on_message((m.ChatSync,), chat)


def test_the_connections_of_a_match_follow_it_and_are_not_closing() -> None:
    conns, _ = connections()
    following = object()  # (a follower: only whether there is one counts here)

    def conn(match_id: str, follower: object | None, closing: bool = False) -> Connection:
        c = Connection(None, None, match_id=match_id, closing=closing)  # type: ignore[arg-type]
        c.follower = follower  # type: ignore[assignment]
        conns.add(c)
        return c

    seat, fan = conn("m1", following), conn("m1", following)
    conn("m1", following, closing=True)  # leaving
    conn("m1", None)  # not joined yet
    other = conn("m2", following)
    assert set(conns.of_match("m1")) == {seat, fan}
    assert conns.of_match("m2") == [other]
    assert len(conns) == 5 and len(list(conns)) == 5
    conns.discard(fan)
    assert conns.of_match("m1") == [seat]


def test_the_probe_slices_hold_each_connection_once_as_they_come_and_go() -> None:
    conns, _ = connections()
    first = [Connection(ws=None, outbox=None) for _ in range(7)]  # type: ignore[arg-type]
    for conn in first:
        conns.add(conn)

    def slices(n: int) -> list[set[Connection]]:
        return [set(conns.probe_slice(i, n)) for i in range(n)]

    def check(n: int, even: bool = False) -> None:
        parts = slices(n)
        assert sum(len(p) for p in parts) == len(conns)  # each connection in one slice only
        assert set().union(*parts) == set(conns)
        if even:  # (connections made one after another take the slots in turn)
            assert max(len(p) for p in parts) - min(len(p) for p in parts) <= 1
        for i, part in enumerate(parts):
            assert all(c.probe_slot % n == i for c in part)

    check(3, even=True)
    later = [Connection(ws=None, outbox=None) for _ in range(5)]  # type: ignore[arg-type]
    for conn in later:
        conns.add(conn)  # added after the slices were made
    conns.discard(first[0])
    conns.discard(later[2])
    check(3)
    assert first[0] not in set().union(*slices(3))
    check(4)  # another number of slices: made again from every connection
    conns.discard(first[1])
    check(4)
    assert len(conns) == 9


def waiting_for_a_frame(probe_ms: int) -> Connection:
    """A welcomed connection whose task waits for a frame, probed at ``probe_ms``."""
    conn = Connection(ws=None, outbox=None)  # type: ignore[arg-type]
    conn.bucket = TokenBucket(2, 0.001)
    conn.receiving = True
    conn.probe_ms = probe_ms
    conn.echo = codec.encode(m.Echo(probe_ms))
    return conn


def test_the_probes_answer_is_taken_as_it_arrives_only_as_the_task_would_take_it() -> None:
    now = time.monotonic_ns() // 1_000_000
    conn = waiting_for_a_frame(now - 40)
    conn.strikes, conn.rtt_ms = 1, 0
    assert not conn.take_echo(codec.encode(m.Echo(now - 41)))  # another probe's answer
    assert not conn.take_echo(codec.encode(m.Ping(now - 40)))
    assert conn.bucket is not None and conn.bucket.tokens == 2  # (nothing counted for those)
    assert conn.take_echo(conn.echo)  # type: ignore[arg-type]
    assert conn.heard_ms >= now and 40 <= conn.rtt_ms < 1_000
    assert conn.echo is None and conn.strikes == 0 and conn.bucket.tokens < 2
    assert not conn.take_echo(
        codec.encode(m.Echo(now - 40))
    )  # answered: a repeat goes the usual way

    # The usual way whenever the task would not take it next, or would refuse it.
    busy = waiting_for_a_frame(now)
    busy.receiving = False  # the task is handling an earlier frame
    bad = waiting_for_a_frame(now)
    bad.bad_frames = 1  # (a good frame ends a run of bad ones: the task counts it)
    spent = waiting_for_a_frame(now)
    assert spent.bucket is not None
    spent.bucket.tokens = 0.0  # no allowance left: the task refuses it, rate_limited
    unwelcomed = waiting_for_a_frame(now)
    unwelcomed.bucket = None
    for conn in (busy, bad, spent, unwelcomed):
        assert not conn.take_echo(conn.echo)  # type: ignore[arg-type]
        assert conn.echo is not None and conn.heard_ms == 0 and conn.rtt_ms == 0
    assert spent.bucket.tokens < 1  # (and a refused take spends nothing)


def test_the_round_trip_is_smoothed() -> None:
    conn = Connection(ws=None, outbox=None)  # type: ignore[arg-type]
    conn.heard_echo(1_000, 1_100)
    assert conn.rtt_ms == 100  # the first sample as it is
    conn.heard_echo(2_000, 2_020)
    assert conn.rtt_ms == (100 * 3 + 20) // 4
    conn.heard_echo(3_000, 2_990)  # (a clock step back counts as 0)
    assert conn.rtt_ms == (80 * 3 + 0) // 4
