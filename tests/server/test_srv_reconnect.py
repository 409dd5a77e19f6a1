"""Reconnecting against a real server process: mid-turn, mid-reveal, after a "reload" (a new
client that knows only the seat token and the secrets store), and at random moments of whole
matches. No event is lost or duplicated (each client's stream is compared with the stored
log, byte for byte), an action resent with its sequence number is applied once, and the
matches finish with transcripts that verify."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

from harness.srv_support import (
    Recorder,
    check_barrier,
    check_stream,
    crash,
    first_mover,
    legal,
    play_out,
    seat_two,
    server_fixture,
    stored_frames,
    to_move,
)
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient, play_random
from protocol.client.lobby import get_text
from protocol.fairdice import verify_json

server = server_fixture()


def moved(log: dict[int, bytes], seat: int | None, turn: int) -> int:
    """How many stored ``moved`` events the seat has for the turn."""
    found = 0
    for frame in log.values():
        event = codec.decode_from_server(frame)
        assert isinstance(event, m.Event)
        data = event.data
        found += isinstance(data, pe.Moved) and (data.seat, data.turn) == (seat, turn)
    return found


async def verified(server: Any, match_id: str) -> int:
    """Every finished game's transcript verifies; returns how many there are."""
    text = await get_text(server.base, f"/api/matches/{match_id}/transcript.json")
    games = json.loads(text)["games"]
    for game in games:
        verify_json(json.dumps(game))
    return len(games)


async def test_reconnect_mid_turn_resends_the_move_once(server):
    seated = await seat_two(server.base, mode="match", length=3)
    (a, b, w), logs = seated.recorded((server.ws, 0), (server.ws, 1), (server.ws, None))
    async with a, b, w:
        mover, other = await first_mover(a, b)
        # 1. The move never reaches the server: the connection drops instead of sending it.
        turn = mover.tracker.turn
        mover.drop_next = True
        assert isinstance(await mover.move(legal(mover)), m.Ack)
        assert mover.welcomes == 2  # the ack came on the new connection, after a resend
        seq = mover.seq
        assert len(logs[mover.seat].replies(seq)) == 1
        # 2. The move is applied but the connection drops before the ack arrives; the client
        #    sends the very same frame again on its new connection.
        assert await to_move(other)
        turn2 = other.tracker.turn
        other.seq += 1
        frame = codec.encode(m.Move(other.seq, other.tracker.game, turn2, legal(other)))
        applied_at = other.tracker.version
        await other.send_raw(frame)
        await other.wait_for(lambda t: t.version > applied_at)  # the moved event: applied
        await other.drop()
        await other.wait_for(lambda t: other.welcomes == 2)
        welcome = [x for x in logs[other.seat].messages if isinstance(x, m.Welcome)][-1]
        assert welcome.seq == other.seq  # the server says: applied
        await other.send_raw(frame)
        await other.wait_for(lambda t: bool(logs[other.seat].acks(other.seq)))
        acks = logs[other.seat].acks(other.seq)
        assert {ack.v for ack in acks} == {applied_at + 1}
        log = await stored_frames(server.redis_url, seated.match_id)
        assert moved(log, mover.seat, turn) == 1
        assert moved(log, other.seat, turn2) == 1
        await play_out(a, b, seed=1)
        await w.wait_for(lambda t: t.over is not None)
    log = await stored_frames(server.redis_url, seated.match_id)
    for recorder in logs:
        check_stream(recorder.messages, log)
        check_barrier(recorder.messages)
    assert await verified(server, seated.match_id) >= 1


async def test_reconnect_mid_reveal(server):
    seated = await seat_two(server.base, mode="single_game")
    (a, b), logs = seated.recorded((server.ws, 0), (server.ws, 1))
    async with a, b:
        mover, roller = await first_mover(a, b)
        mover.auto_reveal = False
        assert isinstance(await mover.move(legal(mover)), m.Ack)
        await roller.wait_for(lambda t: roller.owes() == "decide")
        k = roller.tracker.k
        assert isinstance(await roller.roll(), m.Ack)
        # The roller drops while the opponent's reveal is outstanding, and comes back.
        await roller.drop()
        await roller.wait_for(lambda t: roller.welcomes == 2 and roller.owes() is None)
        assert roller.tracker.clock.phase == "reveal"
        # The opponent's reveal is lost on the way: its connection drops instead.
        await mover.wait_for(lambda t: mover.owes() == "reveal")
        mover.drop_next = True
        assert isinstance(await mover.reveal(roller.tracker.game, k), m.Ack)
        assert mover.welcomes == 2
        await roller.wait_for(lambda t: t.k > k)
        mover.auto_reveal = True
        await play_out(a, b, seed=2)
    log = await stored_frames(server.redis_url, seated.match_id)
    for recorder in logs:
        check_stream(recorder.messages, log)
        assert check_barrier(recorder.messages) >= 2
    assert await verified(server, seated.match_id) == 1


async def test_reload_with_nothing_but_the_token_and_the_secrets(server):
    """The page of seat 0 is reloaded twice: mid-turn, then while its own reveal is owed.
    Each new client starts from scratch (a snapshot) with the token and the secrets store."""
    seated = await seat_two(server.base, mode="single_game")
    seat0, seat1 = Recorder(), Recorder()
    b = seated.client(server.ws, 1, on_event=seat1)
    async with b:
        other = asyncio.create_task(play_random(b, random.Random(3), timeout=60))
        first = seated.client(server.ws, 0, on_event=seat0)
        await first.start()
        # Seat 0 plays a few turns, then dies with a move to make.
        while True:
            assert await to_move(first)
            if first.tracker.version >= 14:
                break
            assert isinstance(await first.move(legal(first)), m.Ack)
        turn = first.tracker.turn
        await crash(first)
        second = seated.client(server.ws, 0, on_event=seat0, auto_reveal=False)
        await second.start()
        await second.wait_for(lambda t: second.owes() == "move")
        assert second.tracker.turn == turn
        assert second.seq == first.seq  # learnt from the welcome
        playing = asyncio.create_task(play_random(second, random.Random(4), timeout=60))
        await second.wait_for(lambda t: second.owes() == "reveal")
        playing.cancel()
        await crash(second)
        third = seated.client(server.ws, 0, on_event=seat0)
        async with third:
            # Its snapshot (version > 0) owes the reveal; the reveal sent by itself, it owes
            # none. (Not "the dice are shown": seat 1 may have moved them off already, and a
            # waiter woken after both events would wait for ever.)
            await third.wait_for(
                lambda t: t.over is not None or (t.version > 0 and third.owes() != "reveal"))
            await asyncio.wait_for(
                asyncio.gather(play_random(third, random.Random(5)), other), timeout=90
            )
    log = await stored_frames(server.redis_url, seated.match_id)
    assert sum(isinstance(x, m.Snapshot) for x in seat0.messages) == 3
    for recorder in (seat0, seat1):
        check_stream(recorder.messages, log)
        check_barrier(recorder.messages)
    assert await verified(server, seated.match_id) == 1


class Chaos(Recorder):
    """Records a seat's messages and cuts its connection at the worst moments, a few times
    each: just before its move or reveal is sent, and just after its move was applied."""

    def __init__(self, budget: int = 2) -> None:
        super().__init__()
        self.client: MatchClient | None = None
        self.budget = {"move": budget, "reveal": budget, "applied": budget}
        self.drops = 0
        self._tasks: set[asyncio.Task[None]] = set()

    def __call__(self, message: m.ServerMessage) -> None:
        super().__call__(message)
        c = self.client
        if c is None or not isinstance(message, m.Event) or c.tracker.over is not None:
            return
        owes = message.next.phase if message.next and c.seat in message.next.seats else None
        if owes in ("move", "reveal") and self.budget[owes]:
            self.budget[owes] -= 1
            c.drop_next = True  # the next frame it sends is lost with the connection
            self.drops += 1
        mine = isinstance(message.data, pe.Moved) and message.data.seat == c.seat
        if mine and self.budget["applied"]:
            self.budget["applied"] -= 1
            task = asyncio.ensure_future(c.drop())  # the ack may be lost
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
            self.drops += 1


async def test_matches_survive_drops_at_every_kind_of_moment(server):
    seated = await seat_two(server.base, mode="match", length=3)
    chaos = [Chaos(), Chaos()]
    watcher_log = Recorder()
    a = seated.client(server.ws, 0, on_event=chaos[0])
    b = seated.client(server.ws, 1, on_event=chaos[1])
    w = seated.client(server.ws, None, on_event=watcher_log)
    chaos[0].client, chaos[1].client = a, b
    async with a, b, w:
        await play_out(a, b, seed=6)
        await w.wait_for(lambda t: t.over is not None)
    assert sum(c.drops for c in chaos) >= 6
    assert a.welcomes > 1 and b.welcomes > 1
    log = await stored_frames(server.redis_url, seated.match_id)
    for recorder in (*chaos, watcher_log):
        check_stream(recorder.messages, log)
        check_barrier(recorder.messages)
    # No action was refused: every resend was recognised as the same action.
    assert [r for r in a.rejects + b.rejects if r.code != "match_over"] == []
    assert await verified(server, seated.match_id) >= 1
