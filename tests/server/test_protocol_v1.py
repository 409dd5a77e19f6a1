"""A client of protocol version 1 (before the time reserve) still plays (docs/protocol.md,
"Versions and deprecation"): it says ``hello.proto`` 1 and receives exactly the frames version 1
had — the fixture below holds every frame to the version-1 shapes of ``match_created`` and
``clock``, frozen here from the protocol as it was before version 2 (commit 4dab8ac's parent),
and refuses any other key. It plays a whole match against a client of the current version; a
match with a time reserve refuses it ``unsupported_version``."""

from __future__ import annotations

import asyncio
import dataclasses
import random

import msgpack
import pytest

from protocol import codec
from protocol import messages as m
from protocol.client import MatchClient, create_match, join_match, play_random
from protocol.client import seat as sc
from protocol.client.connection import ClientClosed
from protocol.client.lobby import get
from protocol.limits import PROTOCOL_VERSION

# Version 1's maps that version 2 changed, frozen (field names in their order).
V1_MATCH_CREATED = ["mode", "length", "jacoby", "beavers", "move_time"]
V1_CLOCK = ["phase", "seats", "deadline"]


class V1Client(MatchClient):
    """A version-1 client: hello.proto 1, and a strict version-1 reader of what it receives
    (a frame with a key version 1 did not have fails it). What it read is then given the
    current version's defaults so that the seat core of this checkout plays it."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.checked = {"match_created": 0, "clock": 0}
        opened = self.core.opened

        def opened_v1(now: float) -> list[sc.Effect]:
            out = []
            for effect in opened(now):
                if isinstance(effect, sc.Send) and isinstance(effect.message, m.Hello):
                    effect = sc.Send(dataclasses.replace(effect.message, proto=1))
                out.append(effect)
            return out

        self.core.opened = opened_v1  # type: ignore[method-assign]

    def _v1(self, fields: dict | None, shape: list[str], kind: str) -> None:
        if fields is None:
            return
        assert list(fields) == shape, (kind, list(fields))
        self.checked[kind] += 1

    def decode(self, frame: bytes) -> m.ServerMessage:
        obj = msgpack.unpackb(frame, raw=False)
        if obj["t"] == "event":
            if obj["k"] == "match_created":
                self._v1(obj["p"], V1_MATCH_CREATED, "match_created")
                obj["p"]["reserve"] = 0
                obj["p"]["variant"] = "backgammon"  # (version 5's field, as a current reader)
            if obj["k"] == "game_started":
                assert "variant" not in obj["p"]
                obj["p"]["variant"] = "backgammon"
            self._v1(obj.get("n"), V1_CLOCK, "clock")
            if obj.get("n") is not None:
                obj["n"]["reserves"] = [0, 0]
        elif obj["t"] == "snapshot":
            state = obj["p"]["state"]
            self._v1(state["settings"], V1_MATCH_CREATED, "match_created")
            state["settings"]["reserve"] = 0
            state["settings"]["variant"] = "backgammon"
            if state.get("game") is not None:
                assert "variant" not in state["game"] and "pinned" not in state["game"]
                state["game"].update(variant="backgammon", pinned=[0, 0])
            clock = (state.get("game") or {}).get("clock")
            self._v1(clock, V1_CLOCK, "clock")
            if clock is not None:
                clock["reserves"] = [0, 0]
        return codec.decode_from_server(msgpack.packb(obj, use_bin_type=True))


async def test_a_version_1_client_plays_a_whole_match_against_a_version_2_client(server):
    created = await create_match(server.base, mode="match", length=1, name="Old")
    joined = await join_match(server.base, created["match"], "New")
    old = V1Client(server.ws, created["match"], created["token"])
    new = MatchClient(server.ws, created["match"], joined["token"])
    async with old, new:
        outcomes = await asyncio.wait_for(
            asyncio.gather(
                play_random(old, random.Random(1)),
                play_random(new, random.Random(2)),
                return_exceptions=True,
            ),
            60,
        )
        for client, outcome in zip((old, new), outcomes, strict=True):
            if isinstance(outcome, BaseException):
                assert isinstance(outcome, ClientClosed) and client.tracker.over, outcome
        assert old.tracker.over is not None and new.tracker.over is not None
        assert old.tracker.score == new.tracker.score
    # It read the settings and a clock on every transition, all in version 1's shapes.
    assert old.checked["match_created"] >= 1 and old.checked["clock"] > 10, old.checked


async def test_a_match_with_a_time_reserve_refuses_a_version_1_client(server):
    created = await create_match(server.base, mode="match", length=1, reserve=60)
    old = V1Client(server.ws, created["match"], created["token"])
    with pytest.raises(ClientClosed) as refused:
        async with old:
            await old.wait_for(lambda t: t.settings is not None, 10)
    assert refused.value.code == 4005, refused.value
    # How a client learns what is spoken, what is next and until when the old one is kept.
    spoken = await get(server.base, "/api/protocol")
    assert spoken["version"] == PROTOCOL_VERSION and spoken["versions"][0] == 1
    assert spoken["deprecated"] == [{"version": 1, "until": "2027-06-30"}]
