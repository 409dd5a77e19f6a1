"""``fairgammon serve``: run the server under uvicorn.

With no ``REDIS_URL`` it first starts (and supervises) a private redis-server with its AOF under
``--data-dir``; every worker process then talks to it through ``REDIS_URL``.
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from server.ops.redis_link import RedisTarget


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host", help="interface to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, help="TCP port (default 8000)")
    parser.add_argument("--redis-url", help="use this Redis instead of the embedded one")
    parser.add_argument(
        "--redis-cluster",
        action="store_true",
        default=None,
        help="the Redis URL names one node of a Redis Cluster (REDIS_CLUSTER=1)",
    )
    parser.add_argument(
        "--redis-sentinel",
        help="Redis Sentinel addresses host:port,... instead of --redis-url (REDIS_SENTINEL)",
    )
    parser.add_argument(
        "--redis-sentinel-master",
        help="the name of the master the Sentinels watch (REDIS_SENTINEL_MASTER)",
    )
    parser.add_argument("--data-dir", help="where the embedded Redis keeps its data (default var)")
    parser.add_argument("--workers", type=int, help="server processes sharing the port")
    parser.add_argument("--clock-seconds", type=int, help="default move clock of new matches")
    parser.add_argument(
        "--allowed-origins", help="comma-separated browser Origins allowed to open WebSockets"
    )
    parser.add_argument(
        "--trusted-proxies",
        help="comma-separated proxy addresses or networks (or *) whose X-Forwarded-For names "
        "the client (default: none, the TCP peer is the client)",
    )
    parser.add_argument(
        "--durability",
        choices=["required", "degraded"],
        help="when Redis could lose acknowledged writes: refuse to start (required, the "
        "default) or run and say so (degraded)",
    )
    parser.add_argument("--log-level", help="debug, info, warning or error")
    parser.add_argument(
        "--moderators", help="comma-separated account names that may moderate (docs/moderation.md)"
    )
    parser.add_argument(
        "--bots", type=int, help="bot worker processes alongside (default FAIRGAMMON_BOTS, else 1)"
    )
    parser.add_argument(
        "--analysers",
        type=int,
        help="analysis worker processes alongside (default FAIRGAMMON_ANALYSERS, else 1)",
    )


def run(args: argparse.Namespace) -> int:
    from pathlib import Path

    import uvicorn

    from server.cli import UsageError
    from server.ops import logs
    from server.ops.embedded_redis import SupervisedRedis
    from server.ops.redis_process import RedisNotFound
    from server.ops.settings import Settings, SettingsError

    origins = proxies = moderators = None
    if args.moderators:
        moderators = tuple(n.strip() for n in args.moderators.split(",") if n.strip())
    if args.allowed_origins:
        origins = tuple(o.strip() for o in args.allowed_origins.split(",") if o.strip())
    if args.trusted_proxies:
        proxies = tuple(p.strip() for p in args.trusted_proxies.split(",") if p.strip())
    try:
        settings = Settings.from_env(
            host=args.host,
            port=args.port,
            redis_url=args.redis_url,
            redis_cluster=args.redis_cluster,
            redis_sentinel=args.redis_sentinel,
            redis_sentinel_master=args.redis_sentinel_master,
            data_dir=Path(args.data_dir) if args.data_dir else None,
            workers=args.workers,
            clock_seconds=args.clock_seconds,
            allowed_origins=origins,
            trusted_proxies=proxies,
            durability=args.durability,
            log_level=args.log_level,
            moderators=moderators,
        )
    except SettingsError as exc:
        raise UsageError(str(exc)) from None

    log = logs.setup(settings.log_level)
    embedded = None
    if settings.redis_target() is None:
        try:
            embedded = SupervisedRedis(settings.data_dir)
            embedded.start()
        except RedisNotFound as exc:
            print(f"fairgammon serve: {exc}", file=sys.stderr)
            return 1
        os.environ["REDIS_URL"] = embedded.url
    # Workers re-read the settings from the environment (uvicorn spawns them fresh).
    for name, value in (
        ("FAIRGAMMON_HOST", settings.host),
        ("FAIRGAMMON_PORT", str(settings.port)),
        ("FAIRGAMMON_CLOCK_SECONDS", str(settings.clock_seconds)),
        ("FAIRGAMMON_ALLOWED_ORIGINS", ",".join(settings.allowed_origins)),
        ("FAIRGAMMON_TRUSTED_PROXIES", ",".join(settings.trusted_proxies)),
        ("FAIRGAMMON_REQUEST_TIMEOUT_SECONDS", str(settings.request_timeout_seconds)),
        ("FAIRGAMMON_DURABILITY", settings.durability),
        ("FAIRGAMMON_LOG_LEVEL", settings.log_level),
        ("FAIRGAMMON_MODERATORS", ",".join(settings.moderators)),
    ):
        os.environ[name] = value
    if settings.redis_url:
        os.environ["REDIS_URL"] = settings.redis_url
    for name, value in (
        ("REDIS_CLUSTER", "1" if settings.redis_cluster else ""),
        ("REDIS_SENTINEL", settings.redis_sentinel),
        ("REDIS_SENTINEL_MASTER", settings.redis_sentinel_master),
    ):
        os.environ[name] = value
    target = Settings.from_env().redis_target()
    refusal = durability_refusal(target, settings.durability) if target else None
    if refusal:
        print(f"fairgammon serve: {refusal}", file=sys.stderr)
        if embedded:
            embedded.stop()
        return 1
    if settings.workers > 1 and not os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # Each worker writes its metrics here; /metrics on any worker sums them all.
        import shutil

        metrics_dir = settings.data_dir / f"metrics-{os.getpid()}"
        shutil.rmtree(metrics_dir, ignore_errors=True)
        metrics_dir.mkdir(parents=True)
        os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(metrics_dir)

    from server.cli import analyse, bots
    from server.ops.children import end

    bot_workers = bots.COMMAND.start_with_server(args.bots, settings.port)
    analysers = analyse.COMMAND.start_with_server(args.analysers, settings.port)
    print(f"fairgammon: open {settings.base_url}/ in your browser", file=sys.stderr, flush=True)
    # uvicorn re-raises SIGTERM after its graceful shutdown; turn it into SystemExit so the
    # embedded Redis below is stopped cleanly too.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        uvicorn.run(
            "server.app:create_app",
            factory=True,
            host=settings.host,
            port=settings.port,
            workers=settings.workers,
            # uvicorn's h11 protocol with a bound on the time to send a whole request.
            http="server.web.guard:GuardedH11Protocol",
            # uvicorn's websockets-sansio protocol, writing fewer system calls, with a drain.
            ws="server.web.websocket:FairWebSocketProtocol",
            ws_max_size=settings.max_frame_bytes,
            ws_max_queue=8,
            ws_per_message_deflate=False,
            # No WebSocket pings: liveness is the protocol's probe/echo, with its own timeout
            # and close code (docs/protocol.md, "Liveness").
            ws_ping_interval=None,
            ws_ping_timeout=None,
            # The client address (the lobby's limits count per address) is the TCP peer's,
            # or X-Forwarded-For's when the peer is a trusted proxy, and only then: uvicorn's
            # default would trust any local peer.
            proxy_headers=bool(settings.trusted_proxies),
            forwarded_allow_ips=list(settings.trusted_proxies) or None,
            log_config=None,
            access_log=False,
            timeout_graceful_shutdown=15,
        )
    finally:
        end([child for child in (bot_workers, analysers) if child is not None])
        if embedded:
            embedded.stop()
        log.info("server stopped")
    return 0


def durability_refusal(target: RedisTarget, mode: str) -> str | None:
    """Why the server must not start on this Redis (server/ops/durability.py), or None. Checked
    here too (every worker checks again) so that the refusal is one clear line."""
    import asyncio

    from server.ops.durability import Guard, NotDurable

    async def check() -> str | None:
        try:
            await Guard(target, mode).at_start()
        except NotDurable as exc:
            return str(exc)
        return None

    return asyncio.run(check())
