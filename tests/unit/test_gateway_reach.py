"""Nothing outside the gateway reaches into it: features use the connections.

``server/match/gateway.py`` runs the WebSocket connections; what other modules may do with them
(the connections of a match, send, spawn, control notes, client messages) is
``server/match/connections.py``. This static check (like tests/unit/test_tiers.py) fails when a
module other than the gateway touches a private attribute (``_name``) of the gateway: any
``x._name`` whose ``_name`` is one of the ``Gateway`` class's private members, or any ``_name``
on an object called a gateway (``gateway._x``, ``self.gateway._x``, ``getattr(gw, "_x")``).
Every Python file of the repository counts, tests and harness included.
"""

from __future__ import annotations

import ast

from tests.unit.test_tiers import ROOT, python_files

GATEWAY = ROOT / "server" / "match" / "gateway.py"


def gateway_privates(source: str) -> set[str]:
    """The private members of the ``Gateway`` class in ``source``: its ``_methods`` and the
    ``self._attributes`` it assigns."""
    tree = ast.parse(source)
    cls = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Gateway")
    names: set[str] = set()
    for node in ast.walk(cls):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            names.add(node.name)
        elif (
            isinstance(node, ast.Attribute)
            and isinstance(node.ctx, ast.Store)
            and isinstance(node.value, ast.Name)
            and node.value.id == "self"
        ):
            names.add(node.attr)
    return {n for n in names if n.startswith("_") and not n.startswith("__")}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _names_a_gateway(node: ast.expr) -> bool:
    """``gateway``, ``self.gateway``, ``services.gateway``, ``gw``..."""
    last = node.attr if isinstance(node, ast.Attribute) else getattr(node, "id", "")
    return "gateway" in last.lower() or last.lower() == "gw"


def reaches(source: str, where: str, privates: set[str]) -> list[str]:
    """Every place in ``source`` that touches a private attribute of the gateway, in order."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue  # its own
            if node.attr in privates or _names_a_gateway(owner):
                found.append((node.lineno, ast.unparse(node)))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in ("getattr", "setattr", "hasattr", "delattr")
            and len(node.args) >= 2
            and isinstance(node.args[1], ast.Constant)
            and isinstance(node.args[1].value, str)
            and _private(node.args[1].value)
            and (node.args[1].value in privates or _names_a_gateway(node.args[0]))
        ):
            found.append((node.lineno, ast.unparse(node)))
    return [f"{where}:{line}: {text}" for line, text in sorted(found)]


def test_no_module_outside_the_gateway_touches_its_private_attributes() -> None:
    privates = gateway_privates(GATEWAY.read_text())
    assert {"_close", "_handshake", "_serve"} <= privates  # the check knows what to look for
    found = []
    for path in python_files():
        if path != GATEWAY:
            found += reaches(path.read_text(), str(path.relative_to(ROOT)), privates)
    assert found == [], "use server/match/connections.py, not the gateway:\n" + "\n".join(found)


def test_the_check_sees_a_reach_into_the_gateway() -> None:
    """Positive control: the reaches rewind, chat and a test made before the connections are
    found, each with the name it was made under, and so is a private member of the gateway
    under any name; the connections' own API, and an object's own privates, are not."""
    privates = gateway_privates(
        "class Gateway:\n"
        "    def __init__(self):\n"
        "        self._tasks = set()\n"
        "        self.connections = set()\n"
        "    def _spawn(self, work): ...\n"
        "    def _store_changed(self, ok): ...\n"
        "    def handle(self, ws): ...\n"
    )
    assert privates == {"_tasks", "_spawn", "_store_changed"}
    sample = (
        "gateway._spawn(_tell_others(gateway, match_id, stored))\n"  # 1: rewind, before
        "self.gateway._spawn(self._to_seats_after_the_end(match_id, seats, frame))\n"  # 2: chat
        "told = gateway._store_changed\n"  # 3: a test
        "hook = app.state.services.gateway._lost_at\n"  # 4: any private, on a gateway
        "proc._store_changed(True)\n"  # 5: the gateway's private, under another name
        'getattr(gw, "_anything")\n'  # 6
        "self._spawn(work)\n"  # its own: fine
        "gateway.connections.spawn(work)\n"  # the connections: fine
        "conns = gateway.connections.of_match(match_id)\n"  # fine
        "store._script(keys)\n"  # another object's private, not the gateway's: not this check
    )
    found = reaches(sample, "sample.py", privates)
    assert [line.split(":")[1] for line in found] == ["1", "2", "3", "4", "5", "6"], found
