"""The wire fixture of the web client's network tests is current and means what it says."""

from __future__ import annotations

import json
from types import ModuleType

from harness.web_tools import load_web_tool
from protocol import messages as m
from protocol.codec import decode_from_client, decode_from_server


def load_tool() -> ModuleType:
    return load_web_tool("make_net_fixture")


def test_fixture_is_up_to_date() -> None:
    tool = load_tool()
    assert tool.FIXTURE.read_text(encoding="utf-8") == tool.render(), (
        "run .venv/bin/python web-client/tools/make_net_fixture.py"
    )


def test_frames_decode_and_matches_end() -> None:
    fixture = json.loads(load_tool().FIXTURE.read_text(encoding="utf-8"))
    for entry in fixture["client"]:
        decode_from_client(bytes.fromhex(entry["hex"]))
    for entry in fixture["server"]:
        decode_from_server(bytes.fromhex(entry["hex"]))
    for match in fixture["matches"]:
        events = [decode_from_server(bytes.fromhex(h)) for h in match["frames"]]
        assert [e.v for e in events] == list(range(1, len(events) + 1))  # type: ignore[union-attr]
        assert isinstance(events[-1], m.Event)
        assert match["pictures"][-1]["over"] is not None
        assert len(match["pictures"]) == len(events)
        for snap in match["snapshots"]:
            assert isinstance(decode_from_server(bytes.fromhex(snap["hex"])), m.Snapshot)
