"""The tiers of the code base: imports run one way only.

Each top-level package, and each tier package of ``server/``, has a rank; a module may import
from its own package and from packages of a lower rank, never from a higher one nor from a
sibling of the same rank. Production code never imports the test suite (``tests``) or the test
harness (``harness``), and ``bench`` is imported by nobody. The ranks are the map of
docs/architecture.md; a new package must be given one here (the test fails until it is).

Imports inside ``if TYPE_CHECKING:`` count too: a type that must come from a higher tier is a
sign that the interface belongs lower (a Protocol in the lower tier). Within a tier, modules
import each other without a circle (``TYPE_CHECKING`` imports included): one that needs a type
from a module that imports it names an interface that belongs to neither (as
``server/match/connections.py`` does for the gateway, rewind and chat).

``work`` (the work queue's lease protocol, its Redis adapter and its loop) ranks beside
``protocol``, below ``bots``: both kinds of worker use it, the bots' (``bots/``, below the
server) and the server's own (``server/work/``); it imports no package of ours.
"""

from __future__ import annotations

import ast
import pathlib
from collections.abc import Iterable

ROOT = pathlib.Path(__file__).resolve().parents[2]

# (rank, name). Lower ranks may be imported by higher ones.
RANKS: dict[str, int] = {
    "engine": 0,
    # the variants' rules sit on the backgammon engine (they reuse its generator, validator and
    # results); the engine never imports them
    "engine.variants": 1,
    "protocol": 2,
    "work": 2,
    "brain": 3,
    "bots": 4,
    "analysis": 4,
    # the server's tiers
    "server.ops": 6,
    "server.machine": 7,
    "server.match": 8,
    "server.players": 9,
    "server.work": 9,
    # quick pairing and tournaments: listeners of finished matches (the match tier's bus), so
    # above server.match; beside players and work, which they neither use nor serve
    "server.competition": 9,
    "server.web": 10,
    "server": 11,  # server/app.py, server/cli/: the wiring and the command line
    "harness": 12,
    "tests": 13,
    "bench": 13,
}
PRODUCTION = ("engine", "protocol", "brain", "bots", "analysis", "work", "server")
# Lower-ranked packages a package may import although their rank is equal (none today).
SIBLINGS_ALLOWED: set[tuple[str, str]] = set()


def unit_of(module: str) -> str | None:
    """The ranked unit a dotted module name belongs to (the longest prefix in RANKS)."""
    parts = module.split(".")
    for n in range(len(parts), 0, -1):
        name = ".".join(parts[:n])
        if name in RANKS:
            return name
    return None


def module_name(path: pathlib.Path, root: pathlib.Path = ROOT) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imports_of(path: pathlib.Path, root: pathlib.Path = ROOT) -> list[tuple[int, str]]:
    tree = ast.parse(path.read_text(), filename=str(path))
    here = module_name(path, root).split(".")
    is_pkg = path.name == "__init__.py"
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here if is_pkg else here[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            # `from server import x` imports server.x: rank the submodule when it is one.
            for alias in node.names:
                full = f"{target}.{alias.name}"
                found.append((node.lineno, full if unit_of(full) != unit_of(target) else target))
    return found


def python_files(root: pathlib.Path = ROOT) -> list[pathlib.Path]:
    files = []
    for top in RANKS:
        if "." in top:
            continue
        base = root / top
        if base.is_dir():
            files += [p for p in base.rglob("*.py") if "node_modules" not in p.parts]
    return sorted(files)


def violations(root: pathlib.Path = ROOT) -> list[str]:
    bad = []
    for path in python_files(root):
        me = unit_of(module_name(path, root))
        if me is None:
            bad.append(f"{path.relative_to(root)}: in no tier (give its package a rank)")
            continue
        for line, target in imports_of(path, root):
            other = unit_of(target)
            if other is None or other == me:
                continue
            where = f"{path.relative_to(root)}:{line} imports {target}"
            test_side = ("tests", "harness", "bench")
            if me.split(".")[0] in PRODUCTION and other.split(".")[0] in test_side:
                bad.append(f"{where}: production code never imports the tests or their harness")
            elif RANKS[other] > RANKS[me]:
                bad.append(f"{where}: {other} ({RANKS[other]}) is above {me} ({RANKS[me]})")
            elif RANKS[other] == RANKS[me] and (me, other) not in SIBLINGS_ALLOWED and not (
                me == "server" or other.startswith(me + ".")
            ):
                bad.append(f"{where}: {me} and {other} are siblings of one rank")
    return bad


def module_imports(
    path: pathlib.Path, modules: Iterable[str], root: pathlib.Path = ROOT
) -> set[str]:
    """The modules of ``modules`` that the file imports: ``from pkg import mod`` imports the
    module ``pkg.mod`` (not ``pkg``, whose ``__init__`` may import ``mod`` too), ``from pkg.mod
    import name`` and ``import pkg.mod`` the module ``pkg.mod``."""
    known = set(modules)
    here = module_name(path, root)
    tree = ast.parse(path.read_text(), filename=str(path))
    is_pkg = path.name == "__init__.py"
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".") if is_pkg else here.split(".")[:-1]
                base = base[: len(base) - (node.level - 1)]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            targets = [f"{target}.{a.name}" for a in node.names]
        else:
            continue
        for target in targets:
            parts = target.split(".")
            for n in range(len(parts), 0, -1):
                name = ".".join(parts[:n])
                if name in known:
                    if name != here:
                        found.add(name)
                    break
    return found


def import_circles(root: pathlib.Path = ROOT) -> list[list[str]]:
    """The circles of imports among production modules (each a list of modules, sorted)."""
    paths = {module_name(p, root): p for p in python_files(root)}
    paths = {name: p for name, p in paths.items() if name.split(".")[0] in PRODUCTION}
    graph = {name: module_imports(p, paths, root) for name, p in paths.items()}
    # Tarjan's strongly connected components, iteratively.
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            for nxt in edges:
                if nxt not in index:
                    index[nxt] = low[nxt] = len(index)
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(graph[nxt]))))
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        circles.append(sorted(group))
    return circles


def test_modules_import_each_other_without_a_circle() -> None:
    assert import_circles() == []


def test_the_checker_sees_a_circle_hidden_under_type_checking(tmp_path) -> None:
    """Positive control: a circle closed only by a ``TYPE_CHECKING`` import (as rewind and the
    gateway had) is found; the same modules without it are not."""
    files = {
        "server/__init__.py": "",
        "server/match/__init__.py": "",
        "server/match/gateway.py": "from server.match import rewind\n",
        "server/match/rewind.py": (
            "from typing import TYPE_CHECKING\n"
            "if TYPE_CHECKING:\n"
            "    from server.match.gateway import Gateway\n"
        ),
        "server/match/hub.py": "from . import store\n",
        "server/match/store.py": "import server.ops.logs\n",
        "server/ops/logs.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert import_circles(tmp_path) == [["server.match.gateway", "server.match.rewind"]]
    (tmp_path / "server/match/rewind.py").write_text("from server.match import hub\n")
    assert import_circles(tmp_path) == []


def route_modules_importing_routes(root: pathlib.Path = ROOT) -> list[str]:
    """Route modules of ``server/web`` (those that define ``routes``) that import another one:
    what route modules share lives in ``server/web/common.py`` and ``server/web/http_input.py``
    (the lobby was once everybody's HTTP toolkit)."""
    web = sorted((root / "server" / "web").glob("*.py"))
    names = {module_name(p, root): p for p in web}
    routes = {
        name
        for name, p in names.items()
        if any(
            (isinstance(n, ast.Assign) and any(getattr(t, "id", "") == "routes" for t in n.targets))
            or (isinstance(n, ast.FunctionDef) and n.name == "routes")
            for n in ast.parse(p.read_text()).body
        )
    }
    return [
        f"{names[name].relative_to(root)} imports {other}"
        for name in sorted(routes)
        for other in sorted(module_imports(names[name], names, root) & routes)
    ]


def test_route_modules_share_helpers_not_each_other(tmp_path) -> None:
    assert route_modules_importing_routes() == []
    files = {  # the positive control: a route module borrowing the lobby's helpers
        "server/web/lobby.py": "from server.web.common import error\nroutes = []\n",
        "server/web/hints.py": "from server.web.lobby import match_id_of\nroutes = []\n",
        "server/web/common.py": "MATCH_ID = None\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert route_modules_importing_routes(tmp_path) == [
        "server/web/hints.py imports server.web.lobby"
    ]


def test_imports_run_from_higher_tiers_to_lower_ones_only() -> None:
    assert violations() == []


def test_every_server_package_has_a_rank_and_a_docstring() -> None:
    """Each tier package of ``server/`` is in the map and says what it owns and may import
    (``server/cli`` is the command line, part of the wiring; ``server/machine``, the pure
    machine, is a namespace package whose rule is checked here: engine and protocol only)."""
    for folder in sorted(p for p in (ROOT / "server").iterdir() if p.is_dir()):
        if folder.name in ("cli", "__pycache__"):
            continue
        name = f"server.{folder.name}"
        assert name in RANKS, f"{name} has no rank in this test's map"
        if folder.name == "machine":
            continue
        doc = ast.get_docstring(ast.parse((folder / "__init__.py").read_text()))
        assert doc and "may import" in doc, f"{name}'s docstring says what it owns and may import"


def test_the_pure_machine_imports_only_engine_protocol_and_itself() -> None:
    for path in sorted((ROOT / "server" / "machine").glob("*.py")):
        for line, target in imports_of(path):
            top = target.split(".")[0]
            if top in RANKS or top in ("server",):
                assert top in ("engine", "protocol") or target.startswith("server.machine"), (
                    f"{path.relative_to(ROOT)}:{line} imports {target}"
                )


PURE_STDLIB = {
    "__future__", "argparse", "collections", "dataclasses", "enum", "functools", "hashlib",
    "json", "math", "pathlib", "sys", "typing",
}  # fmt: skip


def impure_imports(path: pathlib.Path) -> list[str]:
    """The imports of ``path`` outside what a pure competition module may use: the engine, the
    match machine's stored form (``server.machine.serial``), its own package and
    :data:`PURE_STDLIB` (no I/O, no clock, no randomness)."""
    bad = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [f"{node.module}.{a.name}" for a in node.names]
        else:
            continue
        for name in names:
            ok = (
                name.split(".")[0] in ({"engine"} | PURE_STDLIB)
                or name.startswith("server.competition.")
                or name == "server.machine.serial"
            )
            if not ok:
                bad.append(f"{path.name}:{node.lineno} imports {name}")
    return bad


COMPETITION_SHELL = {"news.py", "quick.py", "seek_pool.py", "tournament_store.py", "tournaments.py"}
"""The I/O shell of ``server/competition``: every other module of it is pure."""


def test_the_competition_machines_stay_pure(tmp_path) -> None:
    """``server/competition`` is pure but for its shell, named above (see
    :func:`impure_imports`; ``make_vectors``, the generator of the vectors file, also writes
    that file)."""
    modules = sorted((ROOT / "server" / "competition").glob("*.py"))
    found = [v for p in modules if p.name not in COMPETITION_SHELL for v in impure_imports(p)]
    assert found == []
    assert {p.name for p in modules} >= {"machine.py", "seeks.py", "quick.py"}
    control = tmp_path / "shell.py"
    control.write_text("import time\nfrom server.machine import core, serial\nimport redis\n")
    assert impure_imports(control) == [
        "shell.py:1 imports time",
        "shell.py:2 imports server.machine.core",
        "shell.py:3 imports redis",
    ]


def test_the_checker_sees_imports_that_run_back(tmp_path) -> None:
    """Positive controls on a small tree of its own: an upward import, a sibling import and
    production code importing the tests are each found; the allowed directions are not."""
    files = {
        "server/ops/low.py": "from server.web import lobby\n",
        "server/players/chat.py": "from server.work import queue\n",
        "engine/rules.py": "from tests.support import helper\n",
        "server/web/lobby.py": "from server.match import store\nfrom server.ops import low\n",
        "server/app.py": "from server.web import lobby\n",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    found = violations(tmp_path)
    assert len(found) == 3, found
    assert any("server/ops/low.py" in v and "above" in v for v in found)
    assert any("server/players/chat.py" in v and "siblings" in v for v in found)
    assert any("engine/rules.py" in v and "never imports the tests" in v for v in found)


def test_few_modules_stay_directly_in_server() -> None:
    flat = [p.name for p in (ROOT / "server").glob("*.py")]
    assert len(flat) <= 10, flat
