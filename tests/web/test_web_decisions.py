"""The web client spells the decisions a player takes by hand once, and as Python does.

``protocol.events.PLAYER_DECISIONS`` is the one Python spelling (``tests/unit/test_decisions.py``).
The TypeScript client's is ``RESERVE_PHASES`` in ``web-client/src/net/protocol.ts`` (the seat
core's ``BETWEEN_ROLLS`` is that constant); this test reads the client's sources: the constant
holds exactly the Python set, and no other array or set literal of the client spells the set
again. (The Vitest suite also compares ``RESERVE_PHASES`` with the net fixture's
``reserve_decisions``, which ``web-client/tools/make_net_fixture.py`` writes from the Python set.)
"""

from __future__ import annotations

import re
from pathlib import Path

from protocol.events import PLAYER_DECISIONS

ROOT = Path(__file__).resolve().parents[2]
SOURCES = ROOT / "web-client" / "src"
HOME = SOURCES / "net" / "protocol.ts"

ARRAY = re.compile(r"\[([^\[\]]*)\]")
STRING = re.compile(r"""\s*'([^'\\]*)'\s*|\s*"([^"\\]*)"\s*""")
DEFINITION = re.compile(
    r"export const RESERVE_PHASES: ReadonlySet<ClockPhase> = new Set\((\[[^\]]*\])\);"
)


def string_arrays(source: str) -> list[tuple[int, set[str]]]:
    """Every array literal of ``source`` whose items are all string literals: its line and
    its set of strings (a ``new Set([...])`` is found through its array)."""
    found = []
    for match in ARRAY.finditer(source):
        items = [i for i in match.group(1).split(",") if i.strip()]
        strings = [STRING.fullmatch(i) for i in items]
        if items and all(strings):
            line = source.count("\n", 0, match.start()) + 1
            found.append((line, {s.group(1) or s.group(2) for s in strings if s}))
    return found


def test_string_arrays_reads_every_form():
    sample = (
        "const A = new Set(['decide', 'move', 'take', 'resign']);\n"
        'const B: readonly string[] = ["resign", "take",\n  "move", "decide",];\n'
        "const C = [1, 2];\nconst D = ['decide', x];\nconst E = ['over'];\n"
    )
    assert string_arrays(sample) == [
        (1, PLAYER_DECISIONS),
        (2, PLAYER_DECISIONS),
        (6, {"over"}),
    ]


def test_the_client_holds_the_python_set_in_one_constant():
    source = HOME.read_text(encoding="utf-8")
    definition = DEFINITION.search(source)
    assert definition, "RESERVE_PHASES is no longer a Set literal in web-client/src/net/protocol.ts"
    assert string_arrays(definition.group(1)) == [(1, PLAYER_DECISIONS)]
    copies = []
    for path in sorted(SOURCES.rglob("*.ts")):
        for line, strings in string_arrays(path.read_text(encoding="utf-8")):
            if strings == PLAYER_DECISIONS:
                copies.append(f"{path.relative_to(ROOT)}:{line}")
    line = source.count("\n", 0, definition.start()) + 1
    assert copies == [f"{HOME.relative_to(ROOT)}:{line}"]
