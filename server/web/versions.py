"""``GET /api/protocol``: the wire protocol versions this server speaks, the newest, and the
deprecated ones with the last day each is kept (docs/protocol.md, "Versions and deprecation").

    GET /api/protocol  -> {version, versions, deprecated: [{version, until}]}
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from protocol.versions import info


async def protocol_versions(request: Request) -> Response:
    return JSONResponse(info(), headers={"Cache-Control": "max-age=3600"})


routes = [Route("/api/protocol", protocol_versions, methods=["GET"])]
