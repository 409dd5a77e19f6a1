"""Version 1 of the protocol, whole and frozen, against a real server process (docs/protocol.md,
"Versions and deprecation"). ``protocol_v1.json`` describes every frame of version 1 as it
shipped (generated once from protocol/ at the commit before the time reserve, 4dab8ac^, and
never regenerated): each client and server message type with its envelope and payload, each
event kind, each nested map with exactly its fields, integer ranges, string lengths and enums.
The client below is held to it in both directions (what it receives and what it sends: no
message type, event kind or field version 1 did not have, none missing), while the seat core of
protocol/client plays, fed what it received lifted to the current version (the added fields at
their defaults). tests/server/test_protocol_v1.py checks the two maps version 2 changed; this
checks everything else did not change under a version-1 client either.

A v1 seat plays a whole 3-point match against the current client while a v1 spectator joins
part way, and a match with a time reserve refuses a v1 spectator as it refuses a v1 seat."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import msgpack
import pytest

from harness.srv_support import Peer, seat_two, server_fixture
from protocol import codec
from protocol import events as ev
from protocol import messages as m
from protocol.client import MatchClient, play_random
from protocol.client import seat as sc
from protocol.registry import EVENT_KINDS, MESSAGES, Direction
from protocol.schema import Array, Nullable, Spec, Struct, Tuple, struct_spec

V1 = json.loads((Path(__file__).parent / "protocol_v1.json").read_text())

server = server_fixture()


# ---------------------------------------------------------------- the frozen description


class NotV1(AssertionError):
    pass


def check(value: Any, spec: dict[str, Any], path: str) -> None:
    """``value`` is what version 1 describes with ``spec``, or :class:`NotV1`."""
    if "map" in spec:
        if type(value) is not dict or set(value) != set(spec["fields"]):
            raise NotV1(f"{path}: {sorted(value) if type(value) is dict else value!r} is not "
                        f"{spec['map']} {sorted(spec['fields'])}")  # fmt: skip
        for name, inner in spec["fields"].items():
            check(value[name], inner, f"{path}.{name}")
    elif "nullable" in spec:
        if value is not None:
            check(value, spec["nullable"], path)
    elif "array" in spec:
        if type(value) is not list or not spec["min"] <= len(value) <= spec["max"]:
            raise NotV1(f"{path}: {value!r} is not an array of {spec['min']}..{spec['max']}")
        for i, item in enumerate(value):
            check(item, spec["array"], f"{path}[{i}]")
    elif "tuple" in spec:
        if type(value) is not list or len(value) != len(spec["tuple"]):
            raise NotV1(f"{path}: {value!r} is not a tuple of {len(spec['tuple'])}")
        for i, (item, inner) in enumerate(zip(value, spec["tuple"], strict=True)):
            check(item, inner, f"{path}[{i}]")
    elif "int" in spec:
        lo, hi = spec["int"]
        if type(value) is not int or not lo <= value <= hi:
            raise NotV1(f"{path}: {value!r} is not an int {lo}..{hi}")
    elif "const" in spec:
        if value not in spec["const"]:
            raise NotV1(f"{path}: {value!r} is not one of {spec['const']}")
    elif "bool" in spec:
        if type(value) is not bool:
            raise NotV1(f"{path}: {value!r} is not a bool")
    elif "str" in spec:
        lo, hi = spec["str"]
        if type(value) is not str or not lo <= len(value) <= hi:
            raise NotV1(f"{path}: {value!r} is not a str of {lo}..{hi}")
    elif "bin" in spec:
        lo, hi = spec["bin"]
        if type(value) is not bytes or not lo <= len(value) <= hi:
            raise NotV1(f"{path}: {value!r} is not bin {lo}..{hi}")
    elif "oneof" in spec:
        if value not in spec["oneof"]:
            raise NotV1(f"{path}: {value!r} is not one of {spec['oneof']}")
    else:
        raise AssertionError(f"unknown spec {spec}")


def check_frame(frame: bytes, sender: str) -> dict[str, Any]:
    """A frame of ``sender`` ("client" or "server") exactly as version 1 has it."""
    obj = msgpack.unpackb(frame, raw=False)
    assert type(obj) is dict, obj
    t = obj.get("t")
    if sender == "server" and t == "event":
        if set(obj) != {"t", "v", "k", "p", "n"}:
            raise NotV1(f"event envelope {sorted(obj)}")
        if obj["k"] not in V1["events"]:
            raise NotV1(f"event kind {obj['k']!r} is not v1's")
        check(obj["p"], V1["events"][obj["k"]], f"event {obj['k']}")
        check(obj["n"], {"nullable": V1["clock"]}, "event.n")
        return obj
    described = V1["messages"][sender].get(t)
    if described is None:
        raise NotV1(f"{sender} message {t!r} is not v1's")
    keys = {"t", "s", "p"} if described["envelope"] == "action" else {"t", "p"}
    if set(obj) != keys:
        raise NotV1(f"{t} envelope {sorted(obj)}")
    check(obj["p"], described["payload"], t)
    return obj


# ---------------------------------------------------------------- lifting to the current version


def lift(value: Any, spec: Spec) -> None:
    """Fill in (in place) the fields the current version added, at their defaults."""
    if isinstance(spec, Struct) and type(value) is dict:
        defaults = {f.name: f.default for f in spec.cls.__dataclass_fields__.values()}
        for f in spec.fields:
            if f.name not in value:
                value[f.name] = f.spec.dump(defaults[f.name])
            else:
                lift(value[f.name], f.spec)
    elif isinstance(spec, Nullable) and value is not None:
        lift(value, spec.inner)
    elif isinstance(spec, Array) and type(value) is list:
        for item in value:
            lift(item, spec.item)
    elif isinstance(spec, Tuple) and type(value) is list:
        for item, inner in zip(value, spec.items, strict=True):
            lift(item, inner)


def lifted(obj: dict[str, Any]) -> bytes:
    if obj["t"] == "event":
        lift(obj["p"], EVENT_KINDS[obj["k"]].payload)
        lift(obj["n"], Nullable(struct_spec(ev.Clock)))
    else:
        lift(obj["p"], MESSAGES[Direction.SERVER][obj["t"]].payload)
    return msgpack.packb(obj, use_bin_type=True)


class V1Client(MatchClient):
    """protocol/client's MatchClient on version 1's wire: its hello names version 1, and every
    frame either way is checked against the frozen description (``frames``: those received)."""

    def __init__(self, *args: Any, **kw: Any) -> None:
        super().__init__(*args, **kw)
        self.frames: list[dict[str, Any]] = []
        self.sent: list[str] = []

    def decode(self, frame: bytes) -> m.ServerMessage:
        obj = check_frame(frame, "server")
        self.frames.append(obj)
        again = msgpack.unpackb(frame, raw=False)  # lifted in place: a copy
        return codec.decode_from_server(lifted(again))

    def _apply(self, effects: list[sc.Effect]) -> None:
        for effect in effects:
            if isinstance(effect, sc.Send):
                obj = msgpack.unpackb(codec.encode(effect.message), raw=False)
                hello = obj["t"] == "hello"
                if hello:
                    obj["p"]["proto"] = 1
                check_frame(msgpack.packb(obj, use_bin_type=True), "client")
                self.sent.append(obj["t"])
                self._outbox.put_nowait((msgpack.packb(obj, use_bin_type=True), not hello))
            else:
                super()._apply([effect])


# ---------------------------------------------------------------- the tests


def test_the_description_is_version_1_and_refuses_a_current_frame():
    """The positive control of every check below: version 1 has no reserve in its clock."""
    assert V1["messages"]["client"]["hello"]["payload"]["fields"]["proto"] == {"const": [1]}
    clock = ev.Clock("decide", (0,), 1_000, (0, 0))
    current = codec.encode(m.Event(5, ev.Passed(1, 0, 3), clock))
    with pytest.raises(NotV1, match=r"event\.n"):
        check_frame(current, "server")
    obj = msgpack.unpackb(current, raw=False)
    del obj["n"]["reserves"]
    check_frame(msgpack.packb(obj, use_bin_type=True), "server")


async def test_a_v1_client_plays_a_whole_match_against_a_current_one(server):
    seated = await seat_two(server.base, mode="match", length=3)
    current = seated.client(server.ws, 0)
    old = V1Client(server.ws, seated.match_id, seated.tokens[1], secrets_store=seated.secrets[1])
    async with current, old:
        playing = asyncio.gather(
            play_random(current, random.Random(3)), play_random(old, random.Random(4))
        )
        # A v1 spectator joins part way: its welcome, snapshot or events are v1's too.
        await old.wait_for(lambda t: t.game >= 1)
        watcher = V1Client(server.ws, seated.match_id)
        async with watcher:
            await asyncio.wait_for(playing, 30)  # ~3 s; a NotV1 ends a client: fails here
            await watcher.wait_for(lambda t: t.over is not None)
    assert current.tracker.over is not None and old.tracker.over is not None
    assert old.tracker.over == current.tracker.over == watcher.tracker.over
    assert max(current.tracker.score) >= 3 and old.tracker.score == current.tracker.score
    kinds = {f.get("k") for f in old.frames if f["t"] == "event"}
    assert {"dice", "moved", "game_over", "match_over"} <= kinds, kinds
    # The match's settings (in a snapshot's state, or its match_created event) and every
    # clock reached the v1 clients without the reserve fields (checked frame by frame above).
    settings = [f["p"]["state"]["settings"] for f in old.frames + watcher.frames
                if f["t"] == "snapshot"] + [f["p"] for f in old.frames + watcher.frames
                if f.get("k") == "match_created"]  # fmt: skip
    assert settings and all("reserve" not in x and x["move_time"] for x in settings)
    clocks = [f["n"] for f in old.frames if f["t"] == "event" and f["n"] is not None]
    assert len(clocks) > 20 and all("reserves" not in c for c in clocks)
    assert {"hello", "commit", "move"} <= set(old.sent), old.sent
    assert watcher.frames and watcher.sent[0] == "hello"


async def test_a_match_with_a_time_reserve_refuses_a_v1_spectator(server):
    seated = await seat_two(server.base, mode="match", length=1, reserve=60)
    peer = await Peer.open(server.ws)
    hello = {"proto": 1, "match": seated.match_id, "token": None, "last_v": None, "name": None}
    frame = msgpack.packb({"t": "hello", "p": hello}, use_bin_type=True)
    check_frame(frame, "client")
    await peer.send(frame)
    assert await peer.closed() == 4005
    assert [type(x) for x in peer.messages] == [m.Error]
    assert peer.messages[0].code == "unsupported_version"
    check_frame(peer.raw[0], "server")  # the refusal itself is a version-1 frame
