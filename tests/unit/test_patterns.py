"""Every regular expression that validates input in the server and protocol/ matches the whole
string: ``re.match`` and ``.match`` of a compiled pattern accept a prefix, and ``$`` accepts a
trailing newline (``"name\\n"`` passed ``^[A-Za-z0-9_-]{3,20}$``). An AST scan of the source."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def partial_matches(source: str, filename: str, compiled: set[str]) -> list[str]:
    """Where ``source`` validates with a partial match: ``re.match``, ``.match`` on a compiled
    pattern named in ``compiled``, or a pattern literal holding ``$`` (which also accepts a
    trailing newline: use ``\\Z`` or fullmatch).

    >>> partial_matches('N = re.compile(r"^a$")\\nN.match(x)', "f", {"N"})
    ['f:1: "$" in a pattern', 'f:2: N.match']
    >>> partial_matches('N = re.compile("a")\\nN.fullmatch(x); re.search("[\\\\0]", x)', "", {"N"})
    []
    """
    found = []
    for node in ast.walk(ast.parse(source, filename)):
        if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
            continue
        func, where = node.func, f"{filename}:{node.lineno}"
        owner = func.value.id if isinstance(func.value, ast.Name) else None
        if owner == "re" and func.attr == "match":
            found.append(f"{where}: re.match")
        elif owner in compiled and func.attr == "match":
            found.append(f"{where}: {owner}.match")
        if owner == "re" and node.args:
            pattern = node.args[0]
            parts = [pattern] if isinstance(pattern, ast.Constant) else (
                list(pattern.values) if isinstance(pattern, ast.JoinedStr) else [])  # fmt: skip
            text = "".join(p.value for p in parts if isinstance(p, ast.Constant)
                           and isinstance(p.value, str))  # fmt: skip
            if re.search(r"(?<!\\)\$", text):
                found.append(f'{where}: "$" in a pattern')
    return found


def test_every_pattern_in_the_server_and_protocol_matches_the_whole_string():
    files = sorted([*(ROOT / "server").rglob("*.py"), *(ROOT / "protocol").rglob("*.py")])
    compiled = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Call)
                    and ast.unparse(node.value.func) == "re.compile"):  # fmt: skip
                compiled |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    assert {"USERNAME", "MATCH_ID"} <= compiled
    found = []
    for path in files:
        found += partial_matches(path.read_text(), str(path.relative_to(ROOT)), compiled)
    assert not found, "match the whole string (fullmatch):\n" + "\n".join(found)
