"""The match-rule vectors the hot-seat game is held to are the Python engine's answers.

``web-client/test/matchRules.test.ts`` checks ``src/engine/matchRules.ts`` against the tables
of ``web-client/test/fixtures/match-rules.json`` and plays its whole matches on
``src/view/localGame.ts`` (``/local``), comparing the view after every step. This test checks
that the committed file is exactly what the engine says today (regenerate it with
``.venv/bin/python web-client/tools/make_match_rules.py`` when the engine or the generator
changes), and that it holds the cases it is meant to.
"""

from __future__ import annotations

import json
from types import ModuleType
from typing import Any

from harness.web_tools import load_web_tool


def load_tool() -> ModuleType:
    return load_web_tool("make_match_rules")


def fixture() -> dict[str, Any]:
    return json.loads(load_tool().FIXTURE.read_text(encoding="utf-8"))


def test_committed_vectors_are_up_to_date() -> None:
    tool = load_tool()
    assert tool.FIXTURE.read_text(encoding="utf-8") == tool.render(), (
        "web-client/test/fixtures/match-rules.json is stale: "
        "run .venv/bin/python web-client/tools/make_match_rules.py"
    )


def test_the_cube_cases_hold_the_edges() -> None:
    cases = fixture()["double"]

    def may(length: int, score: list[int], played: bool, cube: list[Any]) -> bool:
        (case,) = [
            c for c in cases
            if c["rules"]["kind"] == "match" and c["rules"]["length"] == length
            and c["score"] == score and c["crawford_played"] == played and c["cube"] == cube
        ]
        return bool(case["may_double"])

    assert may(1, [0, 0], False, [1, None])  # a match to 1: the cube is in play
    assert not may(3, [2, 0], False, [1, None])  # the Crawford game
    assert may(3, [2, 0], True, [1, None])  # after it
    assert may(5, [3, 3], False, [2, 1])  # a dead cube: the engine lets it be turned
    assert not may(5, [0, 0], False, [2, 0])  # the other seat holds it
    assert not may(5, [0, 0], False, [64, 1])  # no higher than 64
    single = [c for c in cases if c["rules"]["kind"] == "single"]
    assert single and not any(c["may_double"] or c["cube_in_play"] for c in single)


def test_the_endings_hold_what_the_engine_does() -> None:
    cases = fixture()["endings"]

    def points(kind: str, end: str, level: int, cube: list[Any], **more: Any) -> set[int]:
        return {
            c["points"] for c in cases
            if c["rules"]["kind"] == kind and c["end"] == end and c["level"] == level
            and c["cube"] == cube and all(c["rules"].get(k, c.get(k)) == v for k, v in more.items())
        }

    assert points("money", "bear_off", 3, [2, 0], jacoby=False) == {6}
    assert points("money", "bear_off", 2, [1, None], jacoby=True) == {1}  # Jacoby: a single
    assert points("money", "bear_off", 2, [2, 1], jacoby=True) == {4}  # not once turned
    assert points("money", "forfeit", 3, [1, None], jacoby=True) == {3}  # nor for a forfeit
    assert points("match", "forfeit", 3, [4, 0], length=5, score=[0, 0]) == {12}
    assert points("match", "forfeit", 1, [1, None], length=5, score=[0, 0]) == {5}
    # The real points count: a gammon at 2 from 3-1 to 5 takes the winner past 5.
    (past,) = [c for c in cases if c["rules"]["length"] == 5 and c["score"] == [3, 1]
               and c["end"] == "bear_off" and c["level"] == 2 and c["cube"] == [2, 0]
               and c["winner"] == 0]
    assert past["new_score"] == [7, 1] and past["over"]
    money = [c for c in cases if c["rules"]["kind"] == "money"]
    assert {c["over"] for c in money if c["end"] == "forfeit"} == {True}  # it ends the session
    assert {c["over"] for c in money if c["end"] != "forfeit"} == {False}
    assert all(c["over"] for c in cases if c["rules"]["kind"] == "single")


def test_whole_matches_end_and_cover_every_action() -> None:
    matches = fixture()["matches"]
    done = {step["do"] for m in matches for step in m["steps"]}
    assert done == {"start", "rolloff", "roll", "move", "double", "take", "drop", "resign",
                    "accept", "reject", "forfeit", "next"}
    for m in matches:
        assert m["steps"][-1]["then"]["phase"] == "over", m["name"]
    assert sum(m["steps"][-1]["then"]["match_over"] for m in matches) >= 9
    refused = [s for m in matches for s in m["steps"] if s.get("refused")]
    assert len(refused) == 2 and all(s["do"] == "resign" for s in refused)
    crawford = [s["then"]["crawford"] for s in matches[0]["steps"]]
    assert True in crawford and crawford[-1] is False


WIRE_MODE = {"single": "single_game", "match": "match", "money": "money"}


def test_the_python_tracker_lets_the_cube_be_turned_where_the_engine_does() -> None:
    """The Python clients' tracker (protocol/client/tracker.py, what bots and the seat core
    read) answers every cube case of the vectors as the engine does: the same rule as the
    browser's tracker and the hint (issue #26: a match to 1 offered Double while the hint said
    it could not be turned)."""
    from protocol import events as pe
    from protocol.client.tracker import Tracker

    cases = fixture()["double"]
    bad = []
    for case in cases:
        rules = case["rules"]
        t = Tracker()
        t.settings = pe.MatchCreated(WIRE_MODE[rules["kind"]], rules["length"] or None,
                                     rules["jacoby"], False, 30_000)
        t.crawford = case["crawford"]
        t.cube, t.cube_owner = case["cube"]
        if t.may_double(1) != case["may_double"]:
            bad.append(case)
    assert len(cases) > 500 and bad == []
    dead = [c for c in cases if c["dead"] and c["may_double"]]
    assert any(c["rules"]["length"] == 1 for c in dead)  # a match to 1: dead, and legal


def test_the_score_shown_never_passes_the_match_length() -> None:
    cases = fixture()["endings"]
    beyond = [c for c in cases if c["rules"]["kind"] == "match"
              and max(c["new_score"]) > c["rules"]["length"]]
    assert beyond  # a gammon at 2 in a match to 1 scores 4 in the engine...
    for c in beyond:  # ...and shows as the match won, 1-0
        assert max(c["shown_score"]) == c["rules"]["length"]
    for c in cases:
        if c["rules"]["kind"] != "match":
            assert c["shown_score"] == c["new_score"]
