"""``GET /api/bots``: which levels the computer plays in each variant, for a page to offer
(docs/bots.md, "Variants"; the table is :data:`bots.catalog.VARIANT_LEVELS`).

    GET /api/bots  -> {levels: {<variant>: [<level>, ...], ...}}

Every name a match can be played under (``engine.variants.NAMES``) is a key, its levels
easiest first. ``POST /api/matches`` with a ``bot`` level the match's ``variant`` does not
offer is refused (400 ``bad_field``, naming the levels it has).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from bots.catalog import VARIANT_LEVELS


def levels_json() -> dict[str, list[str]]:
    """The table as JSON: variant -> level names, easiest first.

    >>> levels_json()["plakoto"], levels_json()["backgammon"][-1]
    (['easy'], 'expert')
    """
    return {name: [str(level) for level in levels] for name, levels in VARIANT_LEVELS.items()}


async def bot_levels(request: Request) -> Response:
    return JSONResponse({"levels": levels_json()}, headers={"Cache-Control": "max-age=3600"})


routes = [Route("/api/bots", bot_levels, methods=["GET"])]
