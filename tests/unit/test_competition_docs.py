"""docs/tournaments.md's examples (its ``>>>`` lines) run as doctests: the page states the
rules exactly as the code applies them."""

from __future__ import annotations

import doctest
from pathlib import Path

DOC = Path(__file__).parents[2] / "docs" / "tournaments.md"


def test_the_examples_of_docs_tournaments_run() -> None:
    flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS
    failed, tried = doctest.testfile(str(DOC), module_relative=False, optionflags=flags)
    assert tried >= 20 and failed == 0
