"""Every frame a server can send reaches a version-1 client in version 1's shapes: each server
message type and each event kind version 1 had, drawn at random from the current schema and
passed through ``protocol.versions.for_version(frame, 1)``, has exactly the maps of the frozen
description of version 1 (tests/server/protocol_v1.json: every field, none added). So a field
added later to any server frame fails here until protocol/versions.py leaves it out for
version 1 (docs/protocol.md, "Changing the protocol"). Values are not held to version 1's
ranges here (a correspondence match's longer clock is never sent to version 1: it is refused)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.codec import for_spec, for_type
from protocol import events as ev
from protocol import messages as m
from protocol.codec import encode
from protocol.registry import EVENT_KINDS, MESSAGES, Direction, Envelope
from protocol.schema import Nullable, struct_spec
from protocol.versions import KINDS_ADDED, for_version, lacks_kind

V1 = json.loads((Path(__file__).parents[1] / "server" / "protocol_v1.json").read_text())
CLOCK = Nullable(struct_spec(ev.Clock))
VERSION = struct_spec(m.Event).fields[0].spec
SERVER_TYPES = sorted(
    name for name, mt in MESSAGES[Direction.SERVER].items() if mt.envelope is not Envelope.EVENT
)
CORRESPONDENCE_ONLY = {"vacation", "rolloff_ahead"}
"""Event kinds version 1 never had: only in correspondence matches, which refuse it."""
LATER_KINDS = {kind for kinds in KINDS_ADDED.values() for kind in kinds}
"""Event kinds added later to every match: an older client is sent a snapshot instead."""


def shape(value: Any, spec: dict[str, Any], path: str) -> None:
    """Every map in ``value`` has exactly the fields version 1's ``spec`` gives it."""
    if "map" in spec:
        assert type(value) is dict, (path, value)
        assert set(value) == set(spec["fields"]), (path, sorted(value), sorted(spec["fields"]))
        for name, inner in spec["fields"].items():
            shape(value[name], inner, f"{path}.{name}")
    elif "nullable" in spec:
        if value is not None:
            shape(value, spec["nullable"], path)
    elif "array" in spec:
        for i, item in enumerate(value):
            shape(item, spec["array"], f"{path}[{i}]")
    elif "tuple" in spec:
        for i, (item, inner) in enumerate(zip(value, spec["tuple"], strict=True)):
            shape(item, inner, f"{path}[{i}]")


def test_the_description_has_every_type_and_kind_but_the_correspondence_ones():
    assert sorted(V1["messages"]["server"]) == SERVER_TYPES
    assert set(V1["events"]) == set(EVENT_KINDS) - CORRESPONDENCE_ONLY - LATER_KINDS


@pytest.mark.parametrize("kind", sorted(LATER_KINDS))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_a_kind_added_later_is_never_sent_to_an_older_version(kind, data):
    event = m.Event(
        data.draw(for_spec(VERSION)),
        data.draw(for_spec(EVENT_KINDS[kind].payload)),
        data.draw(for_spec(CLOCK)),
    )
    added = next(v for v, kinds in KINDS_ADDED.items() if kind in kinds)
    for proto in range(1, added):
        assert lacks_kind(encode(event), proto)  # a snapshot goes in its place
    assert not lacks_kind(encode(event), added)


@pytest.mark.parametrize("name", SERVER_TYPES)
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_each_server_message_reaches_version_1_in_its_shape(name, data):
    msg = data.draw(for_type(MESSAGES[Direction.SERVER][name]))
    obj = msgpack.unpackb(for_version(encode(msg), 1), raw=False)
    assert set(obj) == {"t", "p"}
    shape(obj["p"], V1["messages"]["server"][name]["payload"], name)


@pytest.mark.parametrize("kind", sorted(set(EVENT_KINDS) - CORRESPONDENCE_ONLY - LATER_KINDS))
@settings(max_examples=8, deadline=None)
@given(data=st.data())
def test_each_event_kind_reaches_version_1_in_its_shape(kind, data):
    event = m.Event(
        data.draw(for_spec(VERSION)),
        data.draw(for_spec(EVENT_KINDS[kind].payload)),
        data.draw(for_spec(CLOCK)),
    )
    obj = msgpack.unpackb(for_version(encode(event), 1), raw=False)
    assert set(obj) == {"t", "v", "k", "p", "n"}
    shape(obj["p"], V1["events"][kind], kind)
    shape(obj["n"], {"nullable": V1["clock"]}, "n")


def test_the_check_refuses_a_frame_version_2_gets():
    """The positive control: the same frames unchanged (as version 2 gets them) fail it."""
    clock = ev.Clock("decide", (0,), 1_000, (0, 0))
    obj = msgpack.unpackb(for_version(encode(m.Event(3, ev.Passed(1, 0, 2), clock)), 2))
    with pytest.raises(AssertionError, match="reserves"):
        shape(obj["n"], {"nullable": V1["clock"]}, "n")
    created = ev.MatchCreated("match", 3, False, False, 30_000, 60_000)
    obj = msgpack.unpackb(encode(m.Event(1, created, None)))
    with pytest.raises(AssertionError, match="reserve"):
        shape(obj["p"], V1["events"]["match_created"], "match_created")
