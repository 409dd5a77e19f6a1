"""The rules vectors the TypeScript engine is tested against are the Python engine's answers.

The web client's Vitest suite checks that its move generator reproduces every case of
``web-client/test/vectors/rules-vectors.json``; this test checks that the committed file is
exactly what the Python engine says today (regenerate it with
``.venv/bin/python web-client/tools/make_rules_vectors.py`` when the engine or the generator
changes).
"""

from __future__ import annotations

import json
from types import ModuleType

from engine.position import Position
from engine.position_id import decode, encode
from engine.reference import single_moves
from harness.web_tools import load_web_tool


def load_tool() -> ModuleType:
    return load_web_tool("make_rules_vectors")


def test_committed_vectors_are_up_to_date() -> None:
    tool = load_tool()
    committed = tool.VECTORS.read_text(encoding="utf-8")
    assert committed == tool.render(tool.build_cases()), (
        "web-client/test/vectors/rules-vectors.json is stale: "
        "run .venv/bin/python web-client/tools/make_rules_vectors.py"
    )


def test_vectors_cover_the_tricky_rules() -> None:
    cases = json.loads(load_tool().VECTORS.read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 2000
    used = {(c["dice"][0] == c["dice"][1], c["used"]) for c in cases}
    # Passes, one-die plays, both dice and every partial double all occur.
    assert {(False, 0), (False, 1), (False, 2), (True, 1), (True, 2), (True, 3), (True, 4)} <= used
    # One-die plays where either die alone could be played: the higher-die rule decides.
    higher_die = 0
    for c in cases:
        low, high = sorted(c["dice"])
        if c["used"] == 1 and low != high:
            position = decode(c["id"])
            if single_moves(position, low) and single_moves(position, high):
                higher_die += 1
    assert higher_die > 20
    assert {c["family"] for c in cases} >= {"start", "bar-entry", "bear-off", "blocked"}


def test_start_position_counts_match_the_rules() -> None:
    cases = json.loads(load_tool().VECTORS.read_text(encoding="utf-8"))["cases"]
    start = encode(Position.start())
    counts = {tuple(c["dice"]): len(c["plays"]) for c in cases if c["family"] == "start"}
    assert all(c["id"] == start for c in cases if c["family"] == "start")
    assert counts[(2, 1)] == 15
    assert counts[(6, 6)] == 11
    assert counts[(2, 2)] == 75
    assert len(counts) == 21
