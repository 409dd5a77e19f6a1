"""After a restart every client comes back at once: a fresh process subscribes to many matches'
channels concurrently, and must not lose one (else presence, and events stored by other
processes, never reach that match's connections)."""

from __future__ import annotations

import asyncio

from server.match.hub import Follower, Hub
from server.match.store import Store


class Frames:
    def __init__(self) -> None:
        self.frames: list[bytes] = []

    def send(self, frame: bytes) -> bool:
        self.frames.append(frame)
        return True


async def test_a_fresh_hub_following_many_matches_at_once_hears_every_channel(redis_url):
    store = Store.from_url(redis_url)
    hub = Hub(store, redis_url)
    hub.start()
    matches = [f"{i:032x}" for i in range(1, 21)]
    sinks = {m: Frames() for m in matches}
    try:
        await asyncio.gather(
            *(hub.follow(m, Follower(store, m, sinks[m], next_version=1)) for m in matches)
        )
        # Presence-like frames travel only through the channel (no fast path, no log).
        for m in matches:
            await store.publish(m, m.encode())
        loop = asyncio.get_running_loop()
        end = loop.time() + 5
        while loop.time() < end and not all(s.frames for s in sinks.values()):
            await asyncio.sleep(0.01)
        deaf = [m for m in matches if sinks[m].frames != [m.encode()]]
        assert deaf == []
    finally:
        await hub.stop()
        await store.close()
