"""The app as ``fairgammon serve`` builds it, for tests that read its routes or middleware."""

from __future__ import annotations

import logging

from starlette.applications import Starlette

from server.app import create_app
from server.ops.settings import Settings


def offline_app() -> Starlette:
    """``create_app`` on a Redis it never connects to (nothing is started until the lifespan
    runs), leaving the ``fairgammon`` logger as it found it (``create_app`` sets it up)."""
    fairgammon = logging.getLogger("fairgammon")
    saved = (fairgammon.handlers[:], fairgammon.level, fairgammon.propagate)
    try:
        return create_app(Settings(redis_url="redis://127.0.0.1:1"))
    finally:
        fairgammon.handlers[:], fairgammon.level, fairgammon.propagate = saved
