"""News between server processes for the competition: "look again at seek X".

One plain pub/sub channel (``fg:competition:news``; plain ``PUBLISH``, which a Redis Cluster
carries to every node, so any node's subscriber hears it). A message is a key (a seek id) and
carries no state: whoever hears it reads the state again from the store, so a lost or
repeated message costs nothing but a delay or a read. While the subscription is down (Redis
restarting, a failover) nothing is heard; when it is back, :meth:`News.listen_forever` calls
the handler with ``None``: "you may have missed something, look at everything again".

>>> News.CHANNEL
'fg:competition:news'
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from server.ops import logs
from server.ops.redis_link import RedisTarget, pubsub_client

log = logs.get("competition")

Heard = Callable[[str | None], None]
"""Called with each key heard, or None after a gap in the subscription. Must not block."""


class News:
    CHANNEL = "fg:competition:news"

    def __init__(self, redis: Any, target: RedisTarget) -> None:
        self.redis = redis
        self.target = target

    async def tell(self, *keys: str) -> None:
        for key in keys:
            await self.redis.publish(self.CHANNEL, key)

    def _client(self) -> Any:
        if self.target.cluster:
            parts = urlsplit(self.target.url)
            return pubsub_client(self.target, parts.hostname, parts.port or 6379)
        return pubsub_client(self.target)

    async def listen_forever(self, heard: Heard, retry: float = 0.5) -> None:
        """Subscribe and hand every key heard to ``heard``, until cancelled."""
        first = True
        while True:
            client = self._client()
            pubsub = client.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self.CHANNEL)
                if not first:
                    heard(None)  # back after a gap: whatever happened meanwhile was missed
                first = False
                while True:
                    message = await pubsub.get_message(timeout=1.0)
                    if message is not None and message.get("type") == "message":
                        data = message["data"]
                        heard(data.decode() if isinstance(data, bytes) else str(data))
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("news subscription lost", extra=logs.fields(error=repr(exc)))
                first = False
                await asyncio.sleep(retry)
            finally:
                with contextlib.suppress(Exception):
                    await pubsub.aclose()
                with contextlib.suppress(Exception):
                    await client.aclose()
