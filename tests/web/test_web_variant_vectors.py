"""The variant vectors the TypeScript rules are tested against are the Python rules' answers.

The web client's Vitest suite (``web-client/test/variantVectors.test.ts``) checks that its
variant rules reproduce every case of ``web-client/test/vectors/variant-vectors.json``; this test
checks that the committed file is exactly what ``engine.variants`` says today (regenerate it with
``.venv/bin/python web-client/tools/make_variant_vectors.py`` when the rules or the generator
change).
"""

from __future__ import annotations

import json
from types import ModuleType

from engine.variants import variant
from harness.web_tools import load_web_tool


def load_tool() -> ModuleType:
    return load_web_tool("make_variant_vectors")


def test_committed_vectors_are_up_to_date() -> None:
    tool = load_tool()
    committed = tool.VECTORS.read_text(encoding="utf-8")
    assert committed == tool.render(tool.build_cases()), (
        "web-client/test/vectors/variant-vectors.json is stale: "
        "run .venv/bin/python web-client/tools/make_variant_vectors.py"
    )


def test_vectors_cover_every_variant_and_the_rule_families() -> None:
    cases = json.loads(load_tool().VECTORS.read_text(encoding="utf-8"))["cases"]
    assert len(cases) >= 2400
    seen = {(c["variant"], c["family"]) for c in cases}
    assert {("plakoto", f) for f in ("pins", "bear_off", "mothers")} <= seen
    assert {("fevga", f) for f in ("opening", "quarter", "prime", "bear_off", "crowded")} <= seen
    # Passes, one-die plays and partial doubles occur in the Greek games too.
    used = {(c["variant"], c["dice"][0] == c["dice"][1], c["used"]) for c in cases}
    for name in ("plakoto", "fevga"):
        assert {(name, False, 0), (name, False, 1), (name, True, 1), (name, True, 4)} <= used


def test_start_counts_are_the_rules() -> None:
    tool = load_tool()
    cases = json.loads(tool.VECTORS.read_text(encoding="utf-8"))["cases"]
    for c in cases:
        if c["family"] == "start":
            start = variant(c["variant"]).start()
            assert c["position"] == tool.encode(start)
            assert len(c["plays"]) == len(variant(c["variant"]).legal_plays(start, *c["dice"]))
