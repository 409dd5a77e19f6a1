"""Structured logs: one JSON object per line on standard error.

Every line has ``ts``, ``level`` (the severity: one of :data:`SEVERITIES`), ``logger`` and
``msg``, then the record's fields (``extra=fields(...)``), and ``exc`` with a traceback. Those
names are :data:`RESERVED`: :func:`fields` refuses them, and a field of that name that reaches
the formatter another way never replaces the line's own: it is written as ``field_<name>``, so
filtering logs by ``level`` always filters by severity.

>>> import io, logging
>>> stream = io.StringIO()
>>> log = setup("info", stream=stream, name="fairgammon.example")
>>> log.info("match created", extra={"fields": {"match": "ab12", "level": "2-ply"}})
>>> record = json.loads(stream.getvalue())
>>> record["msg"], record["match"], record["level"], record["field_level"]
('match created', 'ab12', 'info', '2-ply')
>>> fields(level="2-ply")
Traceback (most recent call last):
...
ValueError: the log field 'level' is reserved (the line's own ts, level, logger, msg, exc)
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import IO

SEVERITIES = ("debug", "info", "warning", "error", "critical")
"""The values of a line's ``level``: Python's levels, in lower case."""
RESERVED = ("ts", "level", "logger", "msg", "exc")
"""The names of a line's own fields, which no field of a record may take."""


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        for key, value in getattr(record, "fields", {}).items():
            entry[f"field_{key}" if key in RESERVED else key] = value
        if record.exc_info:
            entry["exc"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str, separators=(",", ":"))


def setup(
    level: str = "info", stream: IO[str] | None = None, name: str = "fairgammon"
) -> logging.Logger:
    """Route the ``fairgammon`` loggers (and uvicorn's) to JSON lines on ``stream``."""
    handler = logging.StreamHandler(stream or sys.stderr)
    handler.setFormatter(JsonFormatter())
    logger = logging.getLogger(name)
    logger.handlers[:] = [handler]
    logger.setLevel(level.upper())
    logger.propagate = False
    return logger


def get(name: str) -> logging.Logger:
    return logging.getLogger(f"fairgammon.{name}")


def fields(**values: object) -> dict[str, dict[str, object]]:
    """``log.info("msg", extra=fields(match=m, seat=s))``; ValueError for a :data:`RESERVED`
    name."""
    for key in values:
        if key in RESERVED:
            raise ValueError(f"the log field {key!r} is reserved (the line's own "
                             f"{', '.join(RESERVED)})")
    return {"fields": values}
