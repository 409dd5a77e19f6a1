"""Several server processes on one Redis: players and spectators on different processes,
seat takeovers across processes, two sockets of one seat racing on two processes, and a
process killed mid-match whose clients carry on with another one."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
from collections.abc import Iterator
from typing import Any

import pytest

from engine.movegen import legal_plays
from harness.serverproc import ServerProcess
from harness.srv_support import (
    Peer,
    Recorder,
    assert_log_replays,
    check_barrier,
    check_seat_taken_over,
    check_stream,
    empty_redis,
    play_out,
    seat_two,
    stored_frames,
    to_move,
)
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient, play_random
from protocol.client.lobby import get_text
from protocol.fairdice import verify_json
from server.ops.redis_process import free_port


@contextlib.contextmanager
def processes(redis_process: Any, n: int) -> Iterator[list[ServerProcess]]:
    empty_redis(redis_process)  # (why: harness.srv_support.server_fixture)
    procs = [ServerProcess(redis_process.url) for _ in range(n)]
    try:
        for proc in procs:
            proc.start()
        yield procs
    finally:
        for proc in procs:
            proc.stop()


@pytest.fixture(scope="module")
def pair(redis_process: Any) -> Iterator[list[ServerProcess]]:
    """Two server processes sharing the test Redis, for the whole module."""
    with processes(redis_process, 2) as procs:
        yield procs


async def verified_and_replayed(base: str, redis_url: str, match_id: str) -> int:
    """Every finished game's transcript verifies and the log replays to the stored state."""
    games = json.loads(await get_text(base, f"/api/matches/{match_id}/transcript.json"))["games"]
    for game in games:
        verify_json(json.dumps(game))
    await assert_log_replays(redis_url, match_id)
    return len(games)


async def test_players_and_spectators_on_different_processes(pair):
    p1, p2 = pair
    seated = await seat_two(p1.base, mode="match", length=3)
    (a, b, w1, w2), logs = seated.recorded((p1.ws, 0), (p2.ws, 1), (p1.ws, None), (p2.ws, None))
    async with a, b, w1, w2:
        results = await play_out(a, b, seed=21)
        for w in (w1, w2):
            await w.wait_for(lambda t: t.over is not None)
    assert results[0] == results[1] == w1.tracker.over == w2.tracker.over
    log = await stored_frames(p1.redis_url, seated.match_id)
    for recorder in logs:
        assert check_stream(recorder.messages, log) > 20
        check_barrier(recorder.messages)
    assert [r for r in a.rejects + b.rejects if r.code != "match_over"] == []
    assert await verified_and_replayed(p2.base, p2.redis_url, seated.match_id) >= 1


async def test_a_connection_on_another_process_replaces_the_seat(pair):
    p1, p2 = pair
    seated = await seat_two(p1.base)
    await check_seat_taken_over(seated, (p1.ws, p2.ws, p1.ws), lambda t: t.clock.phase == "move")


@pytest.mark.parametrize("order", ["p1 then p2", "p2 then p1"])
async def test_the_newest_connection_keeps_the_seat_across_processes(pair, order):
    """Both processes already watch the match (the other seat on one, a spectator on the
    other), so each hears every takeover notice, late or not."""
    p1, p2 = pair
    older_at, newer_at = (p1, p2) if order == "p1 then p2" else (p2, p1)
    for _ in range(5):
        seated = await seat_two(p1.base)
        watchers = [await Peer.open(p1.ws), await Peer.open(p2.ws)]
        await watchers[0].hello(seated.match_id, seated.tokens[1])
        await watchers[1].hello(seated.match_id, None)
        older, newer = await Peer.open(older_at.ws), await Peer.open(newer_at.ws)
        await older.hello(seated.match_id, seated.tokens[0])
        await newer.hello(seated.match_id, seated.tokens[0])
        assert await older.closed() == 4003
        # Both takeover notices reached newer's process before this line on the same channel
        # (and a replacement it started would have sent newer its error before the pong).
        await newer.through_the_channel()
        assert not any(isinstance(x, m.Error) for x in newer.messages)
        await newer.sync()
        for peer in (newer, *watchers):
            await peer.close()


async def test_two_sockets_racing_moves_for_one_seat_apply_exactly_one(pair):
    p1, p2 = pair
    seated = await seat_two(p1.base, mode="single_game")
    opponent_log = Recorder()
    b = seated.client(p2.ws, 1, on_event=opponent_log)
    raced: list[tuple[int, str, list[str]]] = []
    async with b:
        opponent = asyncio.create_task(play_random(b, random.Random(8), timeout=60))
        for i in range(6):
            here, there = (p1, p2) if i % 2 == 0 else (p2, p1)
            mine_log = Recorder()
            a = seated.client(here.ws, 0, on_event=mine_log)
            await a.start()
            if not await to_move(a):
                await a.close()
                break
            t = a.tracker
            game, turn = t.game, t.turn
            assert t.dice is not None
            plays = [p.moves for p in legal_plays(t.position(0), *t.dice)]
            seq = a.seq + 1
            mine = codec.encode(m.Move(seq, game, turn, plays[0]))
            theirs = codec.encode(m.Move(seq + 1, game, turn, plays[-1]))
            rival = await seated.peer(there.ws, 0)  # takes the seat over ...

            async def send_mine(a: MatchClient = a, frame: bytes = mine) -> None:
                with contextlib.suppress(Exception):  # ... and may have closed it already
                    await a.send_raw(frame)

            await asyncio.gather(send_mine(), rival.send(theirs))
            answer = await rival.next(m.Ack | m.Reject, lambda x, s=seq + 1: x.seq == s)
            await asyncio.sleep(0.1)
            log = await stored_frames(p1.redis_url, seated.match_id)
            moves = [
                e.data.moves for e in map(codec.decode_from_server, log.values())
                if isinstance(e, m.Event) and isinstance(e.data, pe.Moved)
                and (e.data.seat, e.data.turn) == (0, turn)
            ]  # fmt: skip
            assert len(moves) == 1, moves  # exactly one of the two plays was applied
            mine_answer = mine_log.replies(seq)  # none if its socket was closed first
            if isinstance(answer, m.Ack):
                assert moves[0] == plays[-1]
                assert all(isinstance(x, m.Reject) for x in mine_answer)
            else:
                assert answer.code in ("stale", "not_your_turn", "wrong_phase"), answer
                assert moves[0] == plays[0]
                assert all(isinstance(x, m.Ack) for x in mine_answer)
            raced.append((turn, type(answer).__name__, [type(x).__name__ for x in mine_answer]))
            await rival.close()
            await a.close()
        last = seated.client(p1.ws, 0)
        async with last:
            await asyncio.wait_for(
                asyncio.gather(play_random(last, random.Random(9)), opponent), timeout=90
            )
    assert len(raced) >= 3
    log = await stored_frames(p1.redis_url, seated.match_id)
    check_stream(opponent_log.messages, log)
    assert await verified_and_replayed(p1.base, p1.redis_url, seated.match_id) == 1


async def test_a_client_moves_on_to_the_next_url(pair):
    p1, _ = pair
    seated = await seat_two(p1.base)
    dead = f"ws://127.0.0.1:{free_port()}/ws"
    client = seated.client(dead, 0, fallback_urls=[p1.ws])
    async with client:
        assert client.url == p1.ws and client.welcomes == 1


async def test_a_killed_process_loses_no_match(redis_process):
    with processes(redis_process, 2) as (doomed, survivor):
        seated = await seat_two(doomed.base, mode="match", length=3)
        logs = [Recorder() for _ in range(4)]
        a = seated.client(doomed.ws, 0, on_event=logs[0], fallback_urls=[survivor.ws])
        b = seated.client(survivor.ws, 1, on_event=logs[1], fallback_urls=[doomed.ws])
        w1 = seated.client(doomed.ws, None, on_event=logs[2], fallback_urls=[survivor.ws])
        w2 = seated.client(survivor.ws, None, on_event=logs[3])
        async with a, b, w1, w2:
            rng = random.Random(31)
            match = asyncio.gather(
                play_random(a, random.Random(rng.random())),
                play_random(b, random.Random(rng.random())),
            )
            await a.wait_for(lambda t: t.version >= 30)
            doomed.kill()  # SIGKILL, mid-match
            results = await asyncio.wait_for(match, timeout=90)
            for w in (w1, w2):
                await w.wait_for(lambda t: t.over is not None)
            assert a.url == w1.url == survivor.ws  # where they carried on
        assert not doomed.alive()
        assert a.welcomes >= 2 and w1.welcomes >= 2
        assert results[0] == results[1] == w1.tracker.over == w2.tracker.over
        log = await stored_frames(survivor.redis_url, seated.match_id)
        for recorder in logs:
            check_stream(recorder.messages, log)
            check_barrier(recorder.messages)
        assert await verified_and_replayed(survivor.base, survivor.redis_url, seated.match_id)
