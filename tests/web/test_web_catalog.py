"""The client's list of the computer's levels and of the page paths is the Python lists'.

``web-client/src/generated/catalog.ts`` is generated from :class:`bots.catalog.Level` and
:data:`server.web.pages.PAGES` by ``web-client/tools/make_catalog.py``. This test fails when
the committed file is not what the generator writes today (a level or a page added, removed or
reordered on the Python side only); on the TypeScript side, ``src/net/botApi.ts`` words every
level and ``src/main.ts`` starts a page for every path in ``Record``s over the generated types, so
a level or a path the other side lacks does not compile (``scripts/build-web.sh``), and
``web-client/test/catalog.test.ts`` checks the words and the routing at run time.
"""

from __future__ import annotations

from types import ModuleType

import pytest

from bots.catalog import Level
from harness.web_tools import load_web_tool
from server.web.pages import PAGES


def load_tool() -> ModuleType:
    return load_web_tool("make_catalog")


def test_generated_catalog_is_up_to_date() -> None:
    tool = load_tool()
    assert tool.TARGET.read_text(encoding="utf-8") == tool.render(), (
        "web-client/src/generated/catalog.ts is stale: "
        "run .venv/bin/python web-client/tools/make_catalog.py"
    )
    assert tool.WORDS.read_text(encoding="utf-8") == tool.render_words(), (
        "web-client/src/i18n/refusals.en.json is stale: "
        "run .venv/bin/python web-client/tools/make_catalog.py"
    )


def test_the_refusal_codes_are_the_tables() -> None:
    """The client's two lists of codes are protocol/refusals.py's, and the English words its
    sentences."""
    import json

    from protocol.refusals import NOT_FROM_A_PLAYER, PLAYER_WORDS

    tool = load_tool()
    text = tool.TARGET.read_text(encoding="utf-8")
    start = text.index("REFUSAL_CODES = [")
    player = text[start : text.index("] as const;", start)]
    general = text[text.index("GENERAL_CODES = [") :]
    assert all(f"'{code.value}'" in player for code in PLAYER_WORDS)
    assert not any(f"'{code.value}'" in player for code in NOT_FROM_A_PLAYER)
    assert all(f"'{code.value}'" in general for code in NOT_FROM_A_PLAYER)
    words = json.loads(tool.WORDS.read_text(encoding="utf-8"))
    assert words == {f"refusal.{code.value}": w for code, w in PLAYER_WORDS.items()}


def test_the_file_lists_every_level_and_page_in_order() -> None:
    text = load_tool().TARGET.read_text(encoding="utf-8")
    for names in ([level.value for level in Level], list(PAGES)):
        where = [text.index(f"  '{name}',\n") for name in names]
        assert where == sorted(where)


def test_a_path_the_client_cannot_match_is_refused() -> None:
    tool = load_tool()
    with pytest.raises(ValueError, match="only"):
        tool.check_path("/files/{rest:path}")
    with pytest.raises(ValueError, match="starts with"):
        tool.check_path("local")
    with pytest.raises(ValueError, match="plain"):
        tool._strings(["it's"])
