"""Where the store lives and how to reach it: one Redis, a Redis Cluster, or a primary watched
by Redis Sentinel. Everything that opens a connection to the store goes through here.

* :class:`RedisTarget` says which of the three it is (from the settings);
* :func:`connect` opens the command client (a :class:`redis.asyncio.Redis` or
  :class:`redis.asyncio.cluster.RedisCluster`, same commands);
* :func:`masters` opens one plain client per master (a cluster has several), for checks that
  must read each of them, such as the durability settings;
* :func:`open_link` makes the bare pipelined connection of :mod:`server.ops.lean_link` the
  store's batched scripts and reads go through on one plain Redis (None elsewhere: they keep
  redis-py's pool);
* :func:`open_pubsub` makes one node's pub/sub connection (see :mod:`server.match.fanout`):
  on one plain Redis the bare one of :mod:`server.ops.lean_pubsub`, which reads messages at a
  fraction of redis-py's cost, elsewhere redis-py's from :func:`pubsub_client`;
* :func:`follow_primary` moves a Sentinel client's connections to a new primary as soon as
  the Sentinels name one (redis-py only asks them when it opens a connection, and a demoted
  primary keeps accepting writes until the Sentinels reconfigure it).

On a cluster, match channels are *sharded* channels (``SSUBSCRIBE``/``SPUBLISH``): a message
travels only within the shard that owns the channel's slot, so fan-out grows with the shards.
Plain ``PUBLISH`` on a cluster is broadcast to every node, which would make every master carry
every match's traffic. A single Redis (or a Sentinel-managed one) keeps plain ``PUBLISH``,
which Redis 6 also has.
"""

from __future__ import annotations

import asyncio
import inspect
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import redis.asyncio as aioredis
from redis.asyncio.cluster import RedisCluster
from redis.asyncio.connection import AbstractConnection
from redis.asyncio.retry import Retry
from redis.asyncio.sentinel import Sentinel
from redis.backoff import NoBackoff
from redis.exceptions import ConnectionError as RedisConnectionError

from server.ops import logs
from server.ops.lean_link import LeanLink, lean_link
from server.ops.lean_pubsub import lean_pubsub

log = logs.get("store")


@dataclass(frozen=True, slots=True)
class RedisTarget:
    """The store's address: ``url`` of one Redis (or of any one node of a cluster), or the
    Sentinels that know the primary named ``sentinel_master``."""

    url: str = ""
    cluster: bool = False
    sentinels: tuple[tuple[str, int], ...] = ()
    sentinel_master: str = ""

    def __post_init__(self) -> None:
        if self.cluster and self.sentinels:
            raise ValueError("a Redis Cluster and Redis Sentinel cannot be used together")
        if self.sentinels and not self.sentinel_master:
            raise ValueError("Sentinel needs the name of the master it watches")
        if not self.sentinels and not self.url:
            raise ValueError("no Redis URL")

    @classmethod
    def of(cls, target: str | RedisTarget) -> RedisTarget:
        """A target from a plain URL (one Redis) or a target as it is."""
        return target if isinstance(target, RedisTarget) else cls(url=target)

    @property
    def publish(self) -> str:
        """The command that publishes on a match channel: ``SPUBLISH`` on a cluster."""
        return "SPUBLISH" if self.cluster else "PUBLISH"

    @property
    def subscribe(self) -> str:
        """How a pub/sub connection follows a match channel: ``ssubscribe`` on a cluster."""
        return "ssubscribe" if self.cluster else "subscribe"

    def describe(self) -> str:
        """For logs: no password."""
        if self.sentinels:
            hosts = ",".join(f"{h}:{p}" for h, p in self.sentinels)
            return f"sentinel {hosts} master {self.sentinel_master}"
        parts = urlsplit(self.url)
        where = f"{parts.hostname}:{parts.port or 6379}"
        return f"cluster via {where}" if self.cluster else f"redis {where}"


def parse_sentinels(raw: str) -> tuple[tuple[str, int], ...]:
    """``host:port,host:port`` -> ``((host, port), ...)``; ValueError on a bad entry.

    >>> parse_sentinels("10.0.0.1:26379, sentinel-b:26380")
    (('10.0.0.1', 26379), ('sentinel-b', 26380))
    """
    found = []
    for item in (x.strip() for x in raw.split(",")):
        if not item:
            continue
        host, sep, port = item.rpartition(":")
        if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise ValueError(f"{item!r} is not host:port")
        found.append((host.strip("[]"), int(port)))
    if not found:
        raise ValueError("no Sentinel address")
    return tuple(found)


def _no_client_name() -> dict[str, None]:
    """Connection options that leave the client library's name unset: redis-py would look
    its version up in the package metadata and send CLIENT SETINFO twice for every new
    connection (1.2 -> 0.5 ms each)."""
    parameters = inspect.signature(AbstractConnection.__init__).parameters
    if "driver_info" in parameters:  # redis-py 7+; lib_name and lib_version are deprecated
        return {"driver_info": None}
    return {"lib_name": None, "lib_version": None}


NO_CLIENT_NAME = _no_client_name()

_TIMEOUTS: dict[str, Any] = {
    "decode_responses": False,
    "socket_connect_timeout": 2,
    "socket_timeout": 5,
    "health_check_interval": 10,
}


def _retry_once() -> Retry:
    # After a Redis restart (or a failover) every pooled connection is dead and would fail its
    # next command once: retry that once on a fresh connection. Safe for every command the
    # store sends (pipelined commits too): a commit that did run before its connection broke
    # fails the retry's compare-and-set, and the service reloads and finds it applied.
    return Retry(NoBackoff(), 1, supported_errors=(RedisConnectionError,))


def connect(target: RedisTarget, max_connections: int = 64) -> Any:
    """The command client for ``target`` (not connected until first used)."""
    if target.cluster:
        # Per node: up to ``max_connections``; the topology is learnt from the node in the
        # URL and refreshed on MOVED/ASK replies and connection errors.
        return RedisCluster.from_url(
            target.url,
            max_connections=max_connections,
            require_full_coverage=False,  # a master that is down costs its slots, not all
            retry=_retry_once(),
            **_TIMEOUTS,
            **NO_CLIENT_NAME,
        )
    if target.sentinels:
        # Every new connection asks the Sentinels where the primary is; a connection to a
        # demoted primary fails (READONLY) and is replaced, so writes follow a failover.
        sentinel = Sentinel(list(target.sentinels), socket_timeout=1, **NO_CLIENT_NAME)
        # redis-py has no blocking Sentinel pool: this one is unbounded instead (a bound
        # would refuse a burst with "Too many connections", read as an outage).
        return sentinel.master_for(
            target.sentinel_master,
            retry=_retry_once(),
            **_TIMEOUTS,
            **NO_CLIENT_NAME,
        )
    # A blocking pool: under a burst (a reconnect storm, thousands of handshakes) callers
    # wait for a free connection instead of failing with "Too many connections", which
    # would read as "Redis is down" and refuse every command with retry_later.
    # 64 connections keep a Python process busy (Redis serves one command at a time, and
    # commits share pipelines); a restarted process opens them all in its first burst.
    # No timeout waiting for a pooled connection: a busy process queues its commands; a
    # dead Redis still fails every command within socket_timeout, which frees the pool.
    pool = aioredis.BlockingConnectionPool.from_url(
        target.url,
        max_connections=max_connections,
        timeout=None,
        retry=_retry_once(),
        **_TIMEOUTS,
        **NO_CLIENT_NAME,
    )
    return aioredis.Redis.from_pool(pool)


async def masters(target: RedisTarget) -> list[aioredis.Redis]:
    """One plain client per master of ``target`` (the caller closes them): the one Redis,
    the Sentinels' current primary, or every master of the cluster."""
    if target.cluster:
        cluster = connect(target)
        try:
            await cluster.initialize()
            nodes = cluster.get_primaries()
            return [
                aioredis.Redis(host=n.host, port=n.port, **_node_options(target), **_TIMEOUTS)
                for n in nodes
            ]
        finally:
            await cluster.aclose()
    return [connect(target, max_connections=2)]


def _node_options(target: RedisTarget) -> dict[str, Any]:
    """Credentials and TLS of the cluster URL, for direct connections to its other nodes."""
    parts = urlsplit(target.url)
    options: dict[str, Any] = {**NO_CLIENT_NAME}
    if parts.username:
        options["username"] = parts.username
    if parts.password:
        options["password"] = parts.password
    if parts.scheme == "rediss":
        options["ssl"] = True
    return options


def pubsub_client(target: RedisTarget, host: str | None = None, port: int | None = None) -> Any:
    """A client whose ``pubsub()`` is one node's pub/sub connection: the given cluster node,
    the Sentinels' current primary, or the one Redis. Errors are not retried inside redis-py
    (which would re-subscribe silently and hide the gap): :mod:`server.match.fanout` sees them."""
    no_retry = Retry(NoBackoff(), 0)
    if target.cluster:
        assert host is not None and port is not None
        return aioredis.Redis(
            host=host, port=port, retry=no_retry, **_node_options(target), **_TIMEOUTS
        )
    if target.sentinels:
        sentinel = Sentinel(list(target.sentinels), socket_timeout=1, **NO_CLIENT_NAME)
        return sentinel.master_for(
            target.sentinel_master, retry=no_retry, **_TIMEOUTS, **NO_CLIENT_NAME
        )
    return aioredis.Redis.from_url(target.url, retry=no_retry, **_TIMEOUTS, **NO_CLIENT_NAME)


def open_pubsub(target: RedisTarget, host: str | None = None, port: int | None = None) -> Any:
    """One node's pub/sub connection, not yet connected (its ``ping`` connects): the bare one
    of :mod:`server.ops.lean_pubsub` on one plain ``redis://`` Redis, else redis-py's
    ``PubSub`` of :func:`pubsub_client` (a cluster node, the Sentinels' primary, TLS, a Unix
    socket). Both offer what :mod:`server.match.fanout` uses, with the same timeouts."""
    if not target.cluster and not target.sentinels:
        lean = lean_pubsub(
            target.url,
            _TIMEOUTS["socket_connect_timeout"],
            _TIMEOUTS["socket_timeout"],
            _TIMEOUTS["health_check_interval"],
        )
        if lean is not None:
            return lean
    return pubsub_client(target, host, port).pubsub()


def open_link(target: RedisTarget) -> LeanLink | None:
    """The bare command connection for the store's batches on one plain ``redis://`` Redis
    (not yet connected), with the client's timeouts; None for a cluster, Sentinel, TLS or a
    Unix socket, where they go through the client of :func:`connect`."""
    if target.cluster or target.sentinels:
        return None
    return lean_link(target.url, _TIMEOUTS["socket_connect_timeout"], _TIMEOUTS["socket_timeout"])


def sentinel_primary(client: Any) -> Any:
    """The Sentinels' current address of the primary, or None: of a Sentinel client or of
    its ``PubSub`` (whatever holds its connection pool); None for any other."""
    pool = client.connection_pool
    manager = getattr(pool, "sentinel_manager", None)
    if manager is None:
        return None
    return manager.discover_master(pool.service_name)


async def follow_primary(target: RedisTarget, client: Any, every: float = 0.5) -> None:
    """Forever (Sentinel only): when the Sentinels name another primary, close every
    connection of ``client``; its next commands connect to the new primary. Without this a
    pooled connection would keep writing to the old one, which still accepts writes until the
    Sentinels have turned it into a replica — writes that would then be lost."""
    if not target.sentinels:
        return
    known = None
    while True:
        try:
            address = await sentinel_primary(client)
            if known is not None and address != known:
                moved = logs.fields(old=":".join(map(str, known)), new=":".join(map(str, address)))
                log.warning("sentinel: the primary moved", extra=moved)
                await client.connection_pool.disconnect()
            known = address
        except asyncio.CancelledError:
            raise
        except Exception:  # no Sentinel answers now: the connections stay as they are
            pass
        await asyncio.sleep(every)
