"""The spectator count and the other seats' presence, as a connecting client gets them."""

from __future__ import annotations

import asyncio

from harness.srv_support import store_at
from protocol import messages as m
from protocol.client import MatchClient, create_match, join_match
from server.match.store import GONE_DUE


async def test_watcher_count_and_presence_reach_players_and_spectators(server):
    created = await create_match(server.base, name="Ann", mode="single_game")
    joined = await join_match(server.base, created["match"], name="Bob")
    match_id = created["match"]
    seen: list[m.ServerMessage] = []
    ann = MatchClient(server.ws, match_id, created["token"], on_event=seen.append)
    async with ann:
        # On connecting: the count (nobody watches yet); Bob never connected, so no presence.
        await ann.wait_for(lambda t: any(isinstance(x, m.Watchers) for x in seen), timeout=15)
        assert [x.count for x in seen if isinstance(x, m.Watchers)] == [0]
        assert not [x for x in seen if isinstance(x, m.Presence) and x.seat == 1]
        watchers = [MatchClient(server.ws, match_id) for _ in range(3)]
        greeted: list[m.ServerMessage] = []
        watchers[0].on_event = greeted.append
        for w in watchers:
            await w.start()
        # The greeting ends with the count (after the presence of the seats).
        await watchers[0].wait_for(
            lambda t: any(isinstance(x, m.Watchers) for x in greeted), timeout=10
        )
        # A spectator is told Ann is online (she connected; her own announcement may arrive
        # too) and nothing about Bob.
        told = {(x.seat, x.status) for x in greeted if isinstance(x, m.Presence)}
        assert told == {(0, "online")}
        await ann.wait_for(lambda t: ann.watchers == 3, timeout=15)
        await watchers[0].close()
        await ann.wait_for(lambda t: ann.watchers == 2, timeout=15)
        bob = MatchClient(server.ws, match_id, joined["token"])
        async with bob:
            # Bob hears the count at once, and that Ann is online.
            await bob.wait_for(lambda t: bob.watchers == 2 and bob.presence.get(0) == "online")
        await ann.wait_for(lambda t: ann.presence.get(1) == "reconnecting", timeout=15)
        for w in watchers[1:]:
            await w.close()
        await ann.wait_for(lambda t: ann.watchers == 0, timeout=15)
    # Every count announced was a real number of connected spectators, in steps the clients
    # saw: never negative, never more than were connected.
    counts = [x.count for x in seen if isinstance(x, m.Watchers)]
    assert counts[0] == 0 and counts[-1] == 0 and max(counts) == 3


async def test_a_seat_taken_by_a_connection_leaves_the_gone_index_at_once(server):
    """A seat waiting to be shown gone (claimed over HTTP, or dropped) that a connection takes
    is out of the gone index in the handshake's round trip: the sweeper does not read it
    again twenty seconds later."""
    created = await create_match(server.base, name="Ann", mode="single_game")
    await join_match(server.base, created["match"], name="Bob")
    match_id = created["match"]

    async def waiting() -> set[str]:
        async with store_at(server.redis_url) as store:
            members = await store.redis.zrange(GONE_DUE, 0, -1)
        return {b.decode().split(":", 1)[1] for b in members if b.decode().startswith(match_id)}

    assert await waiting() == {"0:claimed", "1:claimed"}
    ann = MatchClient(server.ws, match_id, created["token"])
    async with ann:
        await ann.wait_for(lambda t: ann.watchers == 0, timeout=15)
        assert await waiting() == {"1:claimed"}  # Bob, who never came, still waits
    # Ann dropped: her seat waits to be shown gone under her connection's id ...
    for _ in range(200):
        dropped = await waiting() - {"1:claimed"}
        if dropped:
            break
        await asyncio.sleep(0.05)
    assert len(dropped) == 1 and dropped.pop().startswith("0:")
    # ... until she is back.
    again = MatchClient(server.ws, match_id, created["token"])
    async with again:
        await again.wait_for(lambda t: again.watchers == 0, timeout=15)
        assert await waiting() == {"1:claimed"}
