"""The decisions a player takes by hand (decide, move, take, resign) are named once:
``protocol.events.PLAYER_DECISIONS``. It is the engine game's phases but the roll-off and the
end, a part of the clock's vocabulary, and no Python module of the project spells it again
(the web client's copy: ``tests/web/test_web_decisions.py``)."""

from __future__ import annotations

import ast
import typing
from pathlib import Path

from engine.game import Phase as GamePhase
from protocol import events as pe
from protocol.events import PLAYER_DECISIONS

ROOT = Path(__file__).resolve().parents[2]
SCANNED = (
    "engine", "protocol", "brain", "bots", "analysis", "server", "harness", "bench",
    "web-client/tools",
)  # fmt: skip
DEFINED_IN = ROOT / "protocol" / "events.py"


def spellings(source: str, names: frozenset[str]) -> list[int]:
    """The lines of ``source`` where a tuple, list or set literal of strings holds exactly
    ``names``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Tuple | ast.List | ast.Set) and node.elts:
            values = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            if all(isinstance(v, str) for v in values) and set(values) == names:
                found.append(node.lineno)
    return found


def test_the_player_decisions_are_the_engine_games_phases_but_the_rolloff_and_the_end():
    engine_phases = {p.value for p in GamePhase}
    assert PLAYER_DECISIONS == engine_phases - {"rolloff", "over"}  # noqa: SIM300
    clock_phases = set(typing.get_args(pe.Decision))
    assert PLAYER_DECISIONS < clock_phases  # noqa: SIM300


def test_spellings_finds_a_copy_in_any_literal_form():
    sample = (
        'A = ("decide", "move", "take", "resign")\n'
        "B = frozenset({'resign', 'take', 'move', 'decide'})\n"
        'C = ["decide", "move", "take"]\n'
        'D = ("decide", "move", "take", "resign", "commit")\n'
        'if phase in ["move", "decide", "resign", "take"]: pass\n'
    )
    assert spellings(sample, PLAYER_DECISIONS) == [1, 2, 5]


def test_no_python_module_spells_the_player_decisions_again():
    copies = []
    for package in SCANNED:
        for path in sorted((ROOT / package).rglob("*.py")):
            lines = spellings(path.read_text(), PLAYER_DECISIONS)
            copies += [f"{path.relative_to(ROOT)}:{n}" for n in lines]
    assert copies == [f"{DEFINED_IN.relative_to(ROOT)}:{_definition_line()}"]


def _definition_line() -> int:
    for node in ast.parse(DEFINED_IN.read_text()).body:
        if isinstance(node, ast.AnnAssign) and getattr(node.target, "id", "") == "PLAYER_DECISIONS":
            return node.value.args[0].lineno  # type: ignore[union-attr]
    raise AssertionError("PLAYER_DECISIONS is not defined in protocol/events.py")
