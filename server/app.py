"""The Starlette application: routes, and the process-wide services started in its lifespan."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route, WebSocketRoute

from protocol.codec import encode
from server import exports, hints, lobby, logs, metrics, pages
from server.clock import ServerClock, sweep_deadlines
from server.gateway import Gateway
from server.hub import Hub
from server.matches import MatchService
from server.settings import Settings
from server.store import Store
from server.tasks import cancel_all

log = logs.get("app")


@dataclass
class Services:
    """What every request handler may use; one set per process."""

    settings: Settings
    store: Store
    clock: ServerClock
    hub: Hub
    matches: MatchService
    gateway: Gateway


def services(request: Request) -> Services:
    return request.app.state.services


async def healthz(request: Request) -> JSONResponse:
    svc = services(request)
    redis_ok = await svc.store.ping()
    body = {"ok": redis_ok, "redis": "ok" if redis_ok else "unreachable", "time": svc.clock.now()}
    return JSONResponse(body, status_code=200 if redis_ok else 503)


def create_app(settings: Settings | None = None) -> Starlette:
    settings = settings or Settings.from_env()
    if not settings.redis_url:
        raise RuntimeError("REDIS_URL is not set (fairgammon serve starts an embedded Redis)")
    logs.setup(settings.log_level)

    url = settings.redis_url
    store = Store.from_url(url)
    clock = ServerClock(store)
    hub = Hub(store, url)
    matches = MatchService(store, hub, clock, encode, grace_ms=settings.lag_allowance_ms)
    gateway = Gateway(settings, matches)

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        with contextlib.suppress(Exception):
            await clock.beat()
        hub.start()
        app.state.services = Services(settings, store, clock, hub, matches, gateway)

        async def expire(match_id: str, now: int) -> None:
            await matches.expire(match_id, now)

        tasks = [
            asyncio.create_task(clock.run(), name="clock"),
            asyncio.create_task(sweep_deadlines(store, clock, expire), name="sweeper"),
            asyncio.create_task(gateway.probe_forever(), name="probes"),
            asyncio.create_task(gateway.presence.sweep_gone(), name="presence"),
        ]
        log.info("server process ready", extra=logs.fields(port=settings.port))
        try:
            yield
        finally:
            await gateway.shutdown()
            await cancel_all(tasks)  # one cancel() is not always enough: see server.tasks
            with contextlib.suppress(Exception):
                await store.mark_stopped()  # the restart's downtime will be credited
            await hub.stop()
            await store.close()

    routes = [
        Route("/healthz", healthz),
        Route("/metrics", metrics.endpoint),
        WebSocketRoute("/ws", gateway.handle),
        *lobby.routes,
        *hints.routes,
        *exports.routes,
        *pages.routes(settings.web_dist),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
