"""The spectator count and the other seats' presence, as a connecting client gets them."""

from __future__ import annotations

from protocol import messages as m
from protocol.client import MatchClient, create_match, join_match


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
