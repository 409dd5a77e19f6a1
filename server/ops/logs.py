"""Structured logs: one JSON object per line on standard error.

>>> import io, logging
>>> stream = io.StringIO()
>>> log = setup("info", stream=stream, name="fairgammon.example")
>>> log.info("match created", extra={"fields": {"match": "ab12"}})
>>> record = json.loads(stream.getvalue())
>>> record["msg"], record["match"], record["level"]
('match created', 'ab12', 'info')
"""

from __future__ import annotations

import json
import logging
import sys
import time
from typing import IO


class JsonFormatter(logging.Formatter):
    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "ts": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": record.getMessage(),
        }
        entry.update(getattr(record, "fields", {}))
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
    """``log.info("msg", extra=fields(match=m, seat=s))``."""
    return {"fields": values}
