"""threats.md, "Dice", against a real server process: commitments are checked and published
only in pairs; a reveal that does not verify forfeits, with the bad reveal kept as evidence
in the transcript; a held reveal is never forwarded before the other seat's (every frame each
client receives is checked); nothing about roll k exists before the roller rolls."""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets

import msgpack
import pytest

from harness.failure_kit import until
from harness.srv_support import (
    Peer,
    Recorder,
    check_barrier,
    check_stream,
    first_mover,
    legal,
    play_out,
    refused,
    rejected,
    seat_two,
    server_fixture,
    stored_frames,
    stored_state,
    stored_version,
)
from protocol import events as pe
from protocol import messages as m
from protocol.client import play_random
from protocol.client.lobby import get_text
from protocol.fairdice import GameId, TranscriptError, derive_dice, link_ok, verify_json
from server.match.history import read_log
from server.match.store import Store

server = server_fixture()


async def test_commitments_are_checked_and_published_only_in_pairs(server):
    seated = await seat_two(server.base)
    seen_by_b = Recorder()
    a = seated.client(server.ws, 0, auto_commit=False)
    b = seated.client(server.ws, 1, auto_commit=False, on_event=seen_by_b)
    async with a, b:
        await a.wait_for(lambda t: a.owes() == "commit")
        before = await stored_state(server.redis_url, seated.match_id)
        for length in (0, 31, 33):
            frame = msgpack.packb(
                {"t": "commit", "s": a.seq + 1, "p": {"game": 1, "commitment": b"\x05" * length}}
            )
            reject = await rejected(a, lambda f=frame: a.send_raw(f))
            assert (reject.code, reject.seq) == ("bad_field", a.seq + 1)
        await refused(a.act(lambda s: m.Commit(s, 1, bytes(32))), "bad_commitment")
        assert await stored_state(server.redis_url, seated.match_id) == before
        mine = a.chain(1).commitment
        assert isinstance(await a.commit(), m.Ack)
        # A second commitment, different or the same, under a new seq: refused.
        await refused(a.act(lambda s: m.Commit(s, 1, os.urandom(32))), "bad_commitment")
        await refused(a.act(lambda s: m.Commit(s, 1, mine)), "bad_commitment")
        # The other seat cannot copy it (it has not even seen it) nor commit zeros.
        await refused(b.act(lambda s: m.Commit(s, 1, mine)), "bad_commitment")
        await refused(b.act(lambda s: m.Commit(s, 1, bytes(32))), "bad_commitment")
        await b.wait_for(lambda t: any(isinstance(e, pe.CommitReceived) for e in t.history))
        assert not any(mine in f for f in seen_by_b.frames())
        assert isinstance(await b.commit(), m.Ack)
        await b.wait_for(lambda t: t.commitments != (None, None))
        assert b.tracker.commitments == (mine, b.chain(1).commitment)
        # Once both are in, no phase takes another one.
        await refused(a.act(lambda s: m.Commit(s, 1, os.urandom(32))), "wrong_phase")
        await a.wait_for(lambda t: t.clock.phase == "move")


async def finished_transcript(server, match_id: str) -> dict:  # type: ignore[no-untyped-def]
    path = f"/api/matches/{match_id}/games/1/transcript.json"
    return json.loads(await get_text(server.base, path))


@pytest.mark.parametrize("where", ["rolloff", "roll", "reveal"])
async def test_a_reveal_that_does_not_verify_forfeits_with_the_evidence_kept(server, where):
    seated = await seat_two(server.base, mode="match", length=5)
    a = seated.client(server.ws, 0, auto_reveal=where != "rolloff")
    b = seated.client(server.ws, 1)
    bad = os.urandom(32)
    async with a, b:
        if where == "rolloff":
            cheat = a
            await a.wait_for(lambda t: a.owes() == "rolloff")
            reply = await a.act(lambda s: m.Reveal(s, 1, 1, bad))
        else:
            await a.wait_for(lambda t: t.clock.phase == "move" and t.clock.seats != ())
            mover, other = (a, b) if a.owes() == "move" else (b, a)
            await mover.wait_for(lambda t: mover.owes() == "move")
            mover.auto_reveal = other.auto_reveal = False
            assert isinstance(await mover.move(legal(mover)), m.Ack)
            await other.wait_for(lambda t: other.owes() == "decide")
            game, k = other.tracker.game, other.tracker.k
            if where == "roll":
                cheat = other
                reply = await other.act(lambda s: m.Roll(s, game, k, bad))
            else:
                cheat = mover
                assert isinstance(await other.roll(), m.Ack)
                await mover.wait_for(lambda t: mover.owes() == "reveal")
                reply = await mover.act(lambda s: m.Reveal(s, game, k, bad))
        # The bad reveal is an action like any other: stored (acknowledged), then it forfeits.
        assert isinstance(reply, m.Ack)
        await a.wait_for(lambda t: t.over is not None)
        forfeit = next(e for e in a.tracker.history if isinstance(e, pe.Forfeit))
        assert (forfeit.seat, forfeit.reason, forfeit.evidence) == (
            cheat.seat,
            "invalid_reveal",
            bad,
        )
        assert a.tracker.over.winner == 1 - cheat.seat
    transcript = await finished_transcript(server, seated.match_id)
    result = transcript["result"]
    assert result["reason"] == "invalid_reveal" and result["winner"] == 1 - cheat.seat
    assert result["evidence"]["reveal"] == bad.hex()
    assert result["evidence"]["seat"] == cheat.seat
    verdict = verify_json(json.dumps(transcript))  # the forfeit is justified by the evidence
    assert verdict.game.game_no == 1
    # Evidence that did verify would not justify it: the verifier checks the evidence itself.
    honest = cheat.chain(1).link(result["evidence"]["k"])
    result["evidence"]["reveal"] = honest.hex()
    with pytest.raises(TranscriptError):
        verify_json(json.dumps(transcript))


def reaches(messages: list[m.ServerMessage], version: int) -> bool:
    """Whether a connection got its match up to ``version`` (that event, or a snapshot)."""
    return any(isinstance(x, m.Event | m.Snapshot) and x.v >= version for x in messages)


async def no_leak(  # type: ignore[no-untyped-def]
    server, match_id: str, peers: list[Peer], clients: list[Recorder], link: bytes
) -> None:
    """Check that no frame carries ``link``, once every connection has the match up to its
    stored version (the events or a snapshot; then, for the peers, a ping round trip): a leak
    in any of it, or in any frame the server queued for them before, has arrived by then."""
    version = await stored_version(server.redis_url, match_id)
    for peer in peers:
        await peer.wait(lambda p=peer: reaches(p.messages, version))
        await peer.sync()
    for recorder in clients:
        await until(lambda r=recorder: reaches(r.messages, version), what=f"version {version}")
    for peer in peers:
        assert not any(link in f for f in peer.raw)
    for recorder in clients:
        assert not any(link in f for f in recorder.frames())


async def late_watchers(server, match_id: str) -> list[Peer]:  # type: ignore[no-untyped-def]
    """Spectators joining now: one resuming from the first event, one from a snapshot."""
    full, snap = await Peer.open(server.ws), await Peer.open(server.ws)
    await full.hello(match_id, None, last_v=0)
    await snap.hello(match_id, None)
    return [full, snap]


async def test_a_held_reveal_never_reaches_anyone_before_the_barrier(server):
    seated = await seat_two(server.base, mode="single_game")
    logs = [Recorder(), Recorder(), Recorder()]
    a = seated.client(server.ws, 0, auto_reveal=False, on_event=logs[0])
    b = seated.client(server.ws, 1, auto_reveal=False, on_event=logs[1])
    w = seated.client(server.ws, None, on_event=logs[2])
    watchers: list[Peer] = []
    async with a, b, w:
        game_id = GameId(bytes.fromhex(seated.match_id), 1)
        # The roll-off: seat 0 reveals first, seat 1 waits; then the other way round.
        k = 1
        while True:
            first, second = (a, b) if k % 2 else (b, a)
            await first.wait_for(lambda t, c=first: c.owes() == "rolloff")
            assert isinstance(await first.reveal(1, k), m.Ack)
            await second.wait_for(
                lambda t, k=k: sum(isinstance(e, pe.Revealed) for e in t.history) == k
            )
            watchers += await late_watchers(server, seated.match_id)
            await no_leak(server, seated.match_id, watchers, logs, first.chain(1).link(k))
            assert isinstance(await second.reveal(1, k), m.Ack)
            await w.wait_for(lambda t, k=k: t.k > k)
            dice = [e for e in w.tracker.history if isinstance(e, pe.Dice)][-1]
            assert link_ok(game_id, 0, k, dice.reveal0, a.chain(1).link(k - 1))
            assert derive_dice(game_id, k, dice.reveal0, dice.reveal1) == (dice.d1, dice.d2)
            if dice.d1 != dice.d2:
                break
            k += 1
        await a.wait_for(lambda t: t.clock.phase == "move" and t.clock.seats != ())
        mover, roller = (a, b) if a.owes() == "move" else (b, a)
        await mover.wait_for(lambda t: mover.owes() == "move")
        assert isinstance(await mover.move(legal(mover)), m.Ack)
        await roller.wait_for(lambda t: roller.owes() == "decide")
        k = roller.tracker.k
        game = roller.tracker.game
        # Nothing about roll k before the roller rolls: an early reveal is refused, unseen.
        early = mover.chain(1).link(k)
        await refused(mover.act(lambda s: m.Reveal(s, game, k, early)), "wrong_phase")
        await no_leak(server, seated.match_id, watchers, logs, early)
        # A roll for a later link (or another game) is stale.
        later = roller.chain(1).link(k + 1)
        await refused(roller.act(lambda s: m.Roll(s, game, k + 1, later)), "stale")
        await refused(roller.act(lambda s: m.Roll(s, game + 1, k, later)), "stale")
        await no_leak(server, seated.match_id, watchers, logs, later)
        # The roll: the roller's link is held until the mover reveals.
        assert isinstance(await roller.roll(), m.Ack)
        await mover.wait_for(lambda t: mover.owes() == "reveal")
        watchers += await late_watchers(server, seated.match_id)
        await no_leak(server, seated.match_id, watchers, logs, roller.chain(1).link(k))
        assert isinstance(await mover.reveal(game, k), m.Ack)
        await roller.wait_for(lambda t: roller.owes() in ("move", "decide") and t.k > k)
        # The rest of the game, with automatic reveals.
        for client in (a, b):
            client.auto_reveal = True
        await play_out(a, b, seed=5, timeout=60)
        await w.wait_for(lambda t: t.over is not None)
    log = await stored_frames(server.redis_url, seated.match_id)
    for recorder in logs:
        check_stream(recorder.messages, log)
        assert check_barrier(recorder.messages) >= 2
    for peer in watchers:
        await peer.sync()
        assert check_barrier(peer.messages) >= 1
        await peer.close()


async def test_dice_follow_the_roll_in_every_stream(server):
    """Over whole matches with automatic reveals, no client (seats, spectators) ever gets a
    link before the dice event of its roll, and every turn's dice come after its roll."""
    seated = await seat_two(server.base, mode="match", length=3)
    clients, logs = seated.recorded((server.ws, 0), (server.ws, 1), (server.ws, None))
    async with clients[0], clients[1], clients[2]:
        seed = secrets.randbits(32)
        await asyncio.wait_for(
            asyncio.gather(
                play_random(clients[0], random.Random(seed)),
                play_random(clients[1], random.Random(seed + 1)),
            ),
            timeout=90,
        )
        await clients[2].wait_for(lambda t: t.over is not None)
    log = await stored_frames(server.redis_url, seated.match_id)
    for recorder in logs:
        check_stream(recorder.messages, log)
        assert check_barrier(recorder.messages) > 5
        rolled: set[tuple[int, int]] = set()
        for msg in recorder.messages:
            if isinstance(msg, m.Event) and isinstance(msg.data, pe.Rolling):
                rolled.add((msg.data.game, msg.data.k))
            dice = isinstance(msg, m.Event) and isinstance(msg.data, pe.Dice)
            if dice and msg.data.kind == "turn":
                assert (msg.data.game, msg.data.k) in rolled


async def test_a_missing_reveal_forfeits_the_silent_seat_at_its_deadline(server):
    seated = await seat_two(server.base, mode="match", length=3, clock=5)
    a, b = seated.client(server.ws, 0), seated.client(server.ws, 1)
    async with a, b:
        mover, roller = await first_mover(a, b)
        mover.auto_reveal = False  # it will never reveal
        assert isinstance(await mover.move(legal(mover)), m.Ack)
        await roller.wait_for(lambda t: roller.owes() == "decide")
        assert isinstance(await roller.roll(), m.Ack)
        await roller.wait_for(lambda t: t.clock.phase == "reveal")
        clock = roller.tracker.clock
        # The wait is on the silent seat's clock, not on the roller's.
        assert clock.seats == (mover.seat,) and clock.deadline is not None
        await a.wait_for(lambda t: t.over is not None, timeout=20)
    logged = await read_log_of(server, seated.match_id)
    forfeit = next(e for e in logged if isinstance(e.data, pe.Forfeit))
    assert (forfeit.data.seat, forfeit.data.reason, forfeit.data.evidence) == (
        mover.seat,
        "no_reveal",
        None,
    )
    assert forfeit.t > clock.deadline  # at the deadline, never before
    assert a.tracker.over is not None and a.tracker.over.winner == roller.seat
    transcript = await finished_transcript(server, seated.match_id)
    assert transcript["result"]["reason"] == "no_reveal"
    verify_json(json.dumps(transcript))


async def read_log_of(server, match_id: str) -> list:  # type: ignore[no-untyped-def]
    store = Store.from_url(server.redis_url)
    try:
        return await read_log(store, match_id)
    finally:
        await store.close()
