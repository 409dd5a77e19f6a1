"""The hashlib fixture of the web client's fair-dice tests is current and self-consistent."""

from __future__ import annotations

import hashlib
import json
from types import ModuleType

from harness.web_tools import load_web_tool


def load_tool() -> ModuleType:
    return load_web_tool("make_fairdice_fixture")


def test_fixture_is_up_to_date() -> None:
    tool = load_tool()
    assert tool.FIXTURE.read_text(encoding="utf-8") == tool.render(), (
        "run .venv/bin/python web-client/tools/make_fairdice_fixture.py"
    )


def test_fixture_covers_rejection_and_a_tie() -> None:
    fixture = json.loads(load_tool().FIXTURE.read_text(encoding="utf-8"))
    first = bytes.fromhex(fixture["rejecting"]["blocks"][0])
    assert first[0] >= 252
    kept = [b % 6 + 1 for b in first if b < 252][:2]
    assert kept == fixture["rejecting"]["dice"]
    d1, d2 = fixture["tie"]["dice"]
    assert d1 == d2


def test_fixture_chain_links_hash_by_hand() -> None:
    fixture = json.loads(load_tool().FIXTURE.read_text(encoding="utf-8"))
    match_id = bytes.fromhex(fixture["match_id"])
    chain = [bytes.fromhex(x) for x in fixture["short_chains"][1]]
    for i in range(1, len(chain)):
        expected = hashlib.sha256(
            b"fairgammon/v1/chain"
            + match_id
            + fixture["game_no"].to_bytes(4, "big")
            + b"\x01"
            + i.to_bytes(4, "big")
            + chain[i]
        ).digest()
        assert chain[i - 1] == expected
