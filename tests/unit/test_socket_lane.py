"""The match socket's lane (server/web/lane.py): /ws to the gateway, everything else on.

The whole suite's matches run through the lane; these check its choice of road, the road
to the app unchanged (the other sockets, HTTP, the lifespan), and that the app as built sends
/ws by it and no longer keeps a route for it.
"""

from __future__ import annotations

from starlette.routing import WebSocketRoute

from harness.offline_app import offline_app
from server.web.lane import SocketLane


class Recorder:
    """The app behind the lane and the gateway's endpoint, each noting what reached it."""

    def __init__(self) -> None:
        self.app: list[tuple[str, str]] = []
        self.endpoint: list[str] = []

    async def asgi(self, scope, receive, send) -> None:
        self.app.append((scope["type"], scope.get("path", "")))

    async def handle(self, ws) -> None:
        self.endpoint.append(ws.url.path)


async def nothing():  # pragma: no cover - never called: neither side reads here
    raise AssertionError


def scope(kind: str, path: str, root_path: str = "") -> dict:
    return {
        "type": kind,
        "path": path,
        "root_path": root_path,
        "headers": [],
        "query_string": b"",
        "server": ("testserver", 80),
        "scheme": "ws" if kind == "websocket" else "http",
    }


async def test_the_match_socket_goes_to_the_endpoint_and_nothing_else_does():
    r = Recorder()
    lane = SocketLane(r.asgi, "/ws", r.handle)
    await lane(scope("websocket", "/ws"), nothing, nothing)
    assert r.endpoint == ["/ws"] and r.app == []
    for kind, path in [
        ("websocket", "/ws/notices"),  # another socket: its route, through the router
        ("websocket", "/ws/seeks/abc"),
        ("websocket", "/wss"),
        ("http", "/ws"),  # a plain GET of the path: the app answers it (404)
        ("http", "/api/matches"),
    ]:
        await lane(scope(kind, path), nothing, nothing)
    await lane({"type": "lifespan"}, nothing, nothing)
    assert r.endpoint == ["/ws"]
    assert r.app == [
        ("websocket", "/ws/notices"),
        ("websocket", "/ws/seeks/abc"),
        ("websocket", "/wss"),
        ("http", "/ws"),
        ("http", "/api/matches"),
        ("lifespan", ""),
    ]


async def test_under_a_root_path_the_lane_matches_the_path_the_router_would():
    r = Recorder()
    lane = SocketLane(r.asgi, "/ws", r.handle)
    await lane(scope("websocket", "/game/ws", root_path="/game"), nothing, nothing)
    await lane(scope("websocket", "/game/ws/notices", root_path="/game"), nothing, nothing)
    assert r.endpoint == ["/game/ws"]
    assert r.app == [("websocket", "/game/ws/notices")]


def test_the_app_sends_the_match_socket_by_the_lane_and_keeps_no_route_for_it():
    app = offline_app()
    lanes = [m for m in app.user_middleware if m.cls is SocketLane]
    assert len(lanes) == 1 and lanes[0].kwargs["path"] == "/ws"
    assert app.user_middleware[0].cls is SocketLane  # the outermost: nothing runs before it
    sockets = {r.path for r in app.routes if isinstance(r, WebSocketRoute)}
    assert "/ws" not in sockets and "/ws/notices" in sockets
