"""The Starlette application: routes, and the process-wide services started in its lifespan."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from server import logs
from server.clock import ServerClock
from server.settings import Settings
from server.store import Store

log = logs.get("app")


@dataclass
class Services:
    """What every request handler may use; one set per process."""

    settings: Settings
    store: Store
    clock: ServerClock


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

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store.from_url(settings.redis_url or "")
        clock = ServerClock(store)
        with contextlib.suppress(Exception):
            await clock.beat()
        app.state.services = Services(settings, store, clock)
        tasks = [asyncio.create_task(clock.run(), name="clock")]
        log.info("server process ready", extra=logs.fields(port=settings.port))
        try:
            yield
        finally:
            for task in tasks:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            await store.close()

    return Starlette(routes=[Route("/healthz", healthz)], lifespan=lifespan)
