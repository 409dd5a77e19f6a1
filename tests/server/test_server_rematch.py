"""Rematches through real server processes and a real Redis: the offer reaches both players
and the spectators of the finished match (from another process too), only the other player
can take the rematch's seat, and the new match starts."""

from __future__ import annotations

import secrets

import pytest

from harness.serverproc import ServerProcess
from harness.srv_support import seat_two, stored_state, stored_version
from protocol import events as pe
from protocol.client import LobbyError, MatchClient, create_match, join_match
from protocol.client.lobby import accept_rematch, decline_rematch, get, offer_rematch
from server.machine import serial
from server.machine.state import MatchState
from server.match.history import read_log
from server.match.replay import rebuild_from_store
from server.match.store import Store


async def refused(call, status: int, code: str) -> None:
    with pytest.raises(LobbyError) as caught:
        await call
    assert (caught.value.status, caught.value.code) == (status, code), caught.value


def playing(t) -> bool:
    """The first game of the match is under way: the roll-off decided who plays first."""
    return t.game >= 1 and t.on_roll is not None


async def test_rematch_offered_heard_accepted_and_started(server, redis_url):
    seated = await seat_two(server.base, mode="match", length=3, clock=60)
    a_id, (ann, bob) = seated.match_id, seated.tokens
    a = MatchClient(server.ws, a_id, ann)
    b = MatchClient(server.ws, a_id, bob)
    watcher = MatchClient(server.ws, a_id)
    other = ServerProcess(redis_url)  # the offer is made on another process
    other.start()
    try:
        async with a, b, watcher:
            await refused(offer_rematch(server.base, a_id, ann), 409, "wrong_phase")
            await a.leave()  # the fastest end: Ann forfeits
            for client in (a, b, watcher):
                await client.wait_for(lambda t: t.over is not None, timeout=10)

            offer = await offer_rematch(other.base, a_id, ann)
            b_id = offer["match"]
            assert offer["seat"] == 0 and offer["offered_by"] == 0 and offer["rematch_of"] == a_id
            assert offer["page"].endswith(f"/m/{b_id}")
            for client in (a, b, watcher):
                await client.wait_for(lambda t: t.rematch is not None, timeout=10)
                assert client.tracker.rematch == pe.RematchOffered(0, b_id)
                assert client.tracker.gaps == 0
            # Asking again: the same match and the same token, and nothing new in A's log.
            version = await stored_version(redis_url, a_id)
            again = await offer_rematch(server.base, a_id, ann)
            assert (again["match"], again["token"]) == (b_id, offer["token"])
            assert await stored_version(redis_url, a_id) == version

        # B: A's settings, Ann seated, the other seat kept for Bob, never listed as open.
        summary = await get(server.base, f"/api/matches/{b_id}")
        assert (summary["mode"], summary["length"], summary["clock"]) == ("match", 3, 60)
        assert summary["names"] == ["Ann", None] and summary["rematch_of"] == a_id
        assert (await get(server.base, f"/api/matches/{a_id}"))["rematch"] == b_id
        listed = await get(server.base, "/api/matches?status=open")
        assert b_id not in [m["id"] for m in listed["matches"]]

        # Nobody else can take Bob's seat: not a stranger, not Ann, not a made-up token.
        before = await stored_version(redis_url, b_id)
        await refused(join_match(server.base, b_id, name="Eve"), 403, "forbidden")
        await refused(accept_rematch(server.base, b_id, ann), 403, "forbidden")
        made_up = secrets.token_urlsafe(32)
        await refused(accept_rematch(server.base, b_id, made_up), 403, "forbidden")
        await refused(accept_rematch(server.base, a_id, bob), 403, "forbidden")  # A is no rematch
        await refused(offer_rematch(server.base, a_id, "x" * 43), 403, "forbidden")
        await refused(offer_rematch(server.base, b_id, offer["token"]), 409, "wrong_phase")
        assert await stored_version(redis_url, b_id) == before

        joined = await accept_rematch(other.base, b_id, bob)
        assert joined["seat"] == 1 and joined["match"] == b_id
        # A retried accept is answered the same; the seat is now taken for everybody else.
        assert (await accept_rematch(server.base, b_id, bob))["token"] == joined["token"]
        await refused(join_match(server.base, b_id, name="Eve"), 403, "forbidden")

        a2 = MatchClient(server.ws, b_id, offer["token"])
        b2 = MatchClient(other.ws, b_id, joined["token"])
        async with a2, b2:
            assert (a2.seat, b2.seat) == (0, 1)
            for client in (a2, b2):
                await client.wait_for(playing, timeout=20)
                assert client.tracker.names == ["Ann", "Bob"]

        # A late spectator of A sees the offer in its snapshot.
        late = MatchClient(server.ws, a_id)
        async with late:
            await late.wait_for(lambda t: t.rematch is not None, timeout=10)
            assert late.tracker.rematch == pe.RematchOffered(0, b_id)
    finally:
        other.stop()

    # The offer is in A's log and replays to the stored state; the transcripts still export.
    store = Store.from_url(redis_url)
    logged = [e.data for e in await read_log(store, a_id)]
    assert logged[-1] == pe.RematchOffered(0, b_id)
    assert [type(d) for d in logged].count(pe.RematchOffered) == 1
    assert await rebuild_from_store(store, a_id) == await stored_state(redis_url, a_id)
    state = await stored_state(redis_url, b_id)
    assert isinstance(state, MatchState) and state.config.rematch_of == a_id
    assert state.config.rematch_for == 1
    assert serial.loads(MatchState, serial.dumps(state)) == state


async def test_private_rematch_and_both_players_asking_meet_in_one_match(server, redis_url):
    created = await create_match(server.base, name="Ann", mode="single_game", private=True)
    a_id = created["match"]
    code = created["invite"].split("#join=")[1]
    joined = await join_match(server.base, a_id, name="Bob", invite=code)
    ann, bob = created["token"], joined["token"]
    b = MatchClient(server.ws, a_id, bob)
    async with b:
        await b.leave()
        await b.wait_for(lambda t: t.over is not None, timeout=10)

    offer = await offer_rematch(server.base, a_id, bob)  # the loser asks
    b_id = offer["match"]
    summary = await get(server.base, f"/api/matches/{b_id}")
    assert summary["private"] is True and summary["names"] == ["Bob", None]
    # A private rematch: an ordinary join (no invite exists) and a wrong token are refused.
    await refused(join_match(server.base, b_id, name="Eve"), 403, "forbidden")
    await refused(accept_rematch(server.base, b_id, bob), 403, "forbidden")
    # Ann clicks Rematch too, after Bob: she lands in Bob's rematch, in its open seat.
    mine = await offer_rematch(server.base, a_id, ann)
    assert (mine["match"], mine["seat"], mine["offered_by"]) == (b_id, 1, 1)
    assert (await accept_rematch(server.base, b_id, ann))["token"] == mine["token"]
    x = MatchClient(server.ws, b_id, offer["token"])
    y = MatchClient(server.ws, b_id, mine["token"])
    async with x, y:
        assert (x.seat, y.seat) == (0, 1)
        for client in (x, y):
            await client.wait_for(playing, timeout=20)
    assert (await get(server.base, f"/api/matches/{b_id}"))["names"] == ["Bob", "Ann"]
    # A's log has exactly one offer.
    logged = [e.data for e in await read_log(Store.from_url(redis_url), a_id)]
    assert [d for d in logged if isinstance(d, pe.RematchOffered)] == [pe.RematchOffered(1, b_id)]


async def test_the_invited_player_declines_and_the_offerer_hears_it(server):
    seated = await seat_two(server.base, mode="single_game")
    a_id, (ann, bob) = seated.match_id, seated.tokens
    b = MatchClient(server.ws, a_id, bob)
    async with b:
        await b.leave()
        await b.wait_for(lambda t: t.over is not None, timeout=10)
    offer = await offer_rematch(server.base, a_id, ann)
    b_id = offer["match"]
    waiting = MatchClient(server.ws, b_id, offer["token"])  # Ann waits on the rematch
    async with waiting:
        await waiting.wait_for(lambda t: t.version >= 1)
        # Only Bob can decline it: not Ann with her own token, not a stranger.
        await refused(decline_rematch(server.base, b_id, ann), 403, "forbidden")
        await refused(
            decline_rematch(server.base, b_id, secrets.token_urlsafe(32)), 403, "forbidden"
        )
        await decline_rematch(server.base, b_id, bob)
        await waiting.wait_for(lambda t: t.over is not None, timeout=10)
        assert (waiting.tracker.over.winner, waiting.tracker.over.reason) == (None, "declined")
    assert await decline_rematch(server.base, b_id, bob) == {"match": b_id, "declined": True}
    # Declined is over: nobody takes the seat any more.
    await refused(accept_rematch(server.base, b_id, bob), 409, "match_over")
    assert (await get(server.base, f"/api/matches/{b_id}"))["phase"] == "over"
    store = Store.from_url(server.redis_url)
    try:  # the decline is in B's log and replays to the stored state
        assert await rebuild_from_store(store, b_id) == await stored_state(server.redis_url, b_id)
    finally:
        await store.close()
