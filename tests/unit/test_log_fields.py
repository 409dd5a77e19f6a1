"""A log line's ``level`` is its severity, whatever fields a record carries: the formatter
keeps the line's own names (``server.ops.logs.RESERVED``) and no call site in the code names a
field after one of them (a field ``level`` once replaced the severity of every "game analysed
deeper" line, so that filtering the logs by level lost them)."""

from __future__ import annotations

import ast
import io
import json
import logging
from pathlib import Path

import pytest

from server.ops import logs

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("analysis", "bots", "brain", "engine", "protocol", "server", "work", "harness", "bench")


def test_no_field_replaces_a_line_s_own() -> None:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logs.JsonFormatter())
    log = logging.getLogger("fairgammon.test_log_fields")
    log.addHandler(handler)
    log.propagate = False
    try:
        own = {name: f"a field named {name}" for name in logs.RESERVED}
        log.warning("something", extra={"fields": {**own, "match": "ab"}})
    finally:
        log.removeHandler(handler)
    line = json.loads(stream.getvalue())
    assert line["level"] == "warning" and line["msg"] == "something"
    assert line["logger"] == "fairgammon.test_log_fields" and "exc" not in line
    for name in logs.RESERVED:
        assert line[f"field_{name}"] == own[name]
    assert line["match"] == "ab"
    with pytest.raises(ValueError, match="reserved"):
        logs.fields(level="2-ply")


def _field_names(tree: ast.AST) -> list[tuple[int, str]]:
    """The names given to log fields: keywords of ``fields(...)`` calls and the keys of a
    ``{"fields": {...}}`` literal."""
    out: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            name = (f.attr if isinstance(f, ast.Attribute)
                    else f.id if isinstance(f, ast.Name) else "")
            if name == "fields":
                out += [(node.lineno, k.arg) for k in node.keywords if k.arg is not None]
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (isinstance(key, ast.Constant) and key.value == "fields"
                        and isinstance(value, ast.Dict)):
                    out += [(value.lineno, k.value) for k in value.keys
                            if isinstance(k, ast.Constant) and isinstance(k.value, str)]
    return out


def test_no_call_site_names_a_field_after_a_line_s_own() -> None:
    named = 0
    bad = []
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            for line, name in _field_names(ast.parse(path.read_text(), str(path))):
                named += 1
                if name in logs.RESERVED:
                    bad.append(f"{path.relative_to(ROOT)}:{line}: {name}")
    assert named > 20  # the scan finds the fields the code logs
    assert bad == []
