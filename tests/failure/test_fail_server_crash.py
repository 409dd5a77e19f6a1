"""A server process dies abruptly (``FAIRGAMMON_CRASH_AT``) in the middle of a transition; a
fresh process on the same port takes over. Nothing acknowledged is lost, nothing is applied or
seen twice, and a crash cannot re-roll the dice."""

from __future__ import annotations

import asyncio
import random
import time

import pytest

from harness.failure_kit import (
    Stack,
    Table,
    a_play,
    assert_saw_the_log,
    count_kind,
    play_until,
    stack_fixture,
    stored_commands,
    until,
)
from harness.srv_support import assert_log_replays
from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient, create_match, join_match, play_random
from protocol.client.lobby import get
from protocol.fairdice import GameId, derive_dice
from server.machine.commands import MovePlay, Reveal

CRASHED = 70  # server.ops.faults exits with this status


stack = stack_fixture()


async def test_killed_before_storing_a_move_the_client_resends_it_and_it_applies_once(stack):
    first = stack.server(FAIRGAMMON_CRASH_AT="before_store:MovePlay")
    table = await Table.open(first, mode="single_game")
    async with table:
        await play_until(table.seats, lambda: table.owing("move") is not None)
        mover = table.owing("move")
        turn = mover.tracker.turn
        moves = a_play(mover, random.Random(3))
        sending = asyncio.create_task(mover.move(moves))
        assert await stack.exited(first) == CRASHED
        crashed = time.monotonic()
        seq = mover.seq
        assert count_kind(await stack.log(table.match_id), pe.Moved) == 0  # nothing stored
        await stack.restart(first)
        reply = await asyncio.wait_for(sending, 30)
        recovered = time.monotonic() - crashed
        assert isinstance(reply, m.Ack) and reply.seq == seq
        for client in table.clients.values():
            await client.wait_for(lambda t: any(
                isinstance(d, pe.Moved) and d.turn == turn for d in t.history))  # fmt: skip
        assert mover.welcomes == 2  # it reconnected to the new process by itself
        log = await table.quiet(stack)
    assert [(e.data.seat, e.data.turn) for e in log if isinstance(e.data, pe.Moved)] == [
        (mover.seat, turn)
    ]
    # The stored command is the one sent before the crash, re-sent with its sequence number.
    stored = await stored_commands(stack.redis.url, table.match_id)
    (play,) = [c for c in stored if isinstance(c, MovePlay)]
    assert (play.seat, play.seq, play.turn, play.moves) == (mover.seat, seq, turn, tuple(moves))
    for seen in table.seen.values():
        assert_saw_the_log(seen, log)
    print(f"\nmove re-sent and acknowledged {recovered:.2f} s after the crash")


async def test_killed_after_storing_a_move_it_survives_and_everyone_sees_it_once(stack):
    first = stack.server(FAIRGAMMON_CRASH_AT="after_store:MovePlay")
    table = await Table.open(first, mode="single_game")
    async with table:
        rng = random.Random(11)
        games = asyncio.gather(
            play_random(table.a, random.Random(rng.random())),
            play_random(table.b, random.Random(rng.random())),
        )
        assert await stack.exited(first) == CRASHED
        at_crash = await stack.log(table.match_id)
        # Stored before the crash (whether or not anyone was told: the pub/sub copy may have
        # reached the connections before the committing task went on).
        assert count_kind(at_crash, pe.Moved) == 1
        crash_v = next(e.v for e in at_crash if isinstance(e.data, pe.Moved))
        await stack.restart(first)
        results = await asyncio.wait_for(games, 120)
        await table.w.wait_for(lambda t: t.over is not None, timeout=10)
    assert results[0] == results[1] == table.w.tracker.over
    log = await stack.log(table.match_id)
    assert log[crash_v - 1].data == at_crash[crash_v - 1].data
    for name, seen in table.seen.items():
        assert_saw_the_log(seen, log)
        assert [e.v for e in seen.events].count(crash_v) == 1, name
        assert table.clients[name].tracker.gaps == 0
    # Nothing legal was refused, and each of the mover's acknowledged plays was applied once.
    assert table.seen["a"].rejects == table.seen["b"].rejects == []
    stored = await stored_commands(stack.redis.url, table.match_id)
    keys = [(c.seat, c.seq) for c in stored if c.seq]
    assert len(keys) == len(set(keys))
    await assert_log_replays(stack.redis.url, table.match_id)


async def test_killed_between_storing_a_roll_and_telling_anyone_the_dice_stay_the_same(stack):
    # The roll-off's reveals are Reveal commands too: play it on a normal process, then hand
    # the match to a process that dies right after storing the reveal that completes a roll.
    first = stack.server()
    table = await Table.open(first, mode="match", length=3)
    async with table:
        await play_until(table.seats, lambda: table.owing("decide") is not None)
        roller = table.owing("decide")
        opponent = table.other(roller)
        await asyncio.to_thread(first.stop)
        armed = await stack.restart(first, FAIRGAMMON_CRASH_AT="after_store:Reveal")
        await until(lambda: all(c.welcomes == 2 for c in table.clients.values()))
        game, k = roller.tracker.game, roller.tracker.k
        reply = await roller.roll()  # the opponent's client reveals by itself: the dice
        assert isinstance(reply, m.Ack)
        assert await stack.exited(armed) == CRASHED
        stored = [e.data for e in await stack.log(table.match_id)
                  if isinstance(e.data, pe.Dice) and e.data.k == k]  # fmt: skip
        assert len(stored) == 1
        dice = stored[0]
        await stack.restart(armed)
        await roller.wait_for(lambda t: t.owes(roller.seat) == "move")
        assert roller.tracker.dice == (dice.d1, dice.d2)
        # No second roll of the same index: the dice are settled.
        link = roller.chain(game).link(k)
        again = await roller.act(lambda s: m.Roll(s, game, k, link))
        assert isinstance(again, m.Reject) and again.code in ("wrong_phase", "stale")
        moved = await roller.move(a_play(roller, random.Random(5)))
        assert isinstance(moved, m.Ack)
        for client in table.clients.values():
            await client.wait_for(lambda t: t.version >= moved.v)
        log = await table.quiet(stack)
    assert (dice.d1, dice.d2) == derive_dice(
        GameId(bytes.fromhex(table.match_id), game), k, dice.reveal0, dice.reveal1
    )
    for seen in table.seen.values():
        assert_saw_the_log(seen, log)
        assert [d for d in seen.data(pe.Dice) if d.k == k] == [dice]
    # The opponent's reveal was stored once; the new process's welcome acknowledged it.
    stored = await stored_commands(stack.redis.url, table.match_id)
    (reveal,) = [
        c for c in stored if isinstance(c, Reveal) and c.seat == opponent.seat and c.k == k
    ]
    assert table.seen_by(opponent).welcomes[2].seq >= reveal.seq
    await assert_log_replays(stack.redis.url, table.match_id)


async def join_through_a_crash(stack: Stack) -> None:
    """The join gives the match its first deadline; nobody ever connects. The clock must still
    settle it (both seats silent before the game: abandoned), though the process that stored
    the join died before it could index the deadline."""
    first = await asyncio.to_thread(stack.server, FAIRGAMMON_CRASH_AT="after_store:Join")
    created = await create_match(first.base, name="Ann", mode="single_game", clock=5)
    with pytest.raises(OSError):  # the joiner never gets an answer
        await join_match(first.base, created["match"], name="Bob")
    assert await stack.exited(first) == CRASHED
    second = await stack.restart(first)
    path = f"/api/matches/{created['match']}"
    assert (await get(second.base, path))["phase"] == "commit"
    loop = asyncio.get_running_loop()
    end = loop.time() + 15
    while (await get(second.base, path))["phase"] != "over":
        assert loop.time() < end, "the match was never settled"
        await asyncio.sleep(0.2)
    log = await stack.log(created["match"])
    assert [(e.data.winner, e.data.reason) for e in log if isinstance(e.data, pe.MatchOver)] == [
        (None, "abandoned")
    ]


async def settle_through_a_crash(stack: Stack, point: str) -> None:
    first = await asyncio.to_thread(stack.server, FAIRGAMMON_CRASH_AT=f"{point}:Expire")
    table = await Table.open(first, mode="match", length=3, clock=5)
    async with table:
        await play_until(table.seats, lambda: table.owing("move") is not None)
        mover = table.owing("move")  # ... and never moves
        game, turn = mover.tracker.game, mover.tracker.turn
        assert await stack.exited(first, timeout=20) == CRASHED  # while settling the timeout
        stored = count_kind(await stack.log(table.match_id), pe.Forfeit)
        assert stored == (1 if point == "after_store" else 0)
        await stack.restart(first)
        # Before the crash the claim on the deadline was taken for a lease: the new process
        # settles it once the lease runs out (before_store) or just tells what is stored.
        for client in table.clients.values():
            await client.wait_for(lambda t: t.over is not None, timeout=20)
        # The clients may have heard the forfeit before the crash and stopped with the match:
        # the mover comes back on a new connection, too late.
        token = table.tokens[mover.seat]
        async with MatchClient(table.ws, table.match_id, token, reconnect=False) as back:
            late = await back.act(lambda s: m.Move(s, game, turn, ()))
        assert isinstance(late, m.Reject) and late.code == "match_over"
    log = await stack.log(table.match_id)
    assert count_kind(log, pe.Forfeit) == count_kind(log, pe.MatchOver) == 1
    for seen in table.seen.values():
        assert_saw_the_log(seen, log)
        assert [(f.seat, f.reason) for f in seen.data(pe.Forfeit)] == [(mover.seat, "timeout")]
        assert [o.winner for o in seen.data(pe.MatchOver)] == [1 - mover.seat]


async def test_clocks_run_out_through_crashes_and_a_forfeit_happens_once(tmp_path):
    # Three scenarios at once (each waits for a 5-second clock): killed after storing a join,
    # before storing a timeout's forfeit, after storing it.
    stacks = [Stack(tmp_path / name) for name in ("join", "before", "after")]
    try:
        for s in stacks:
            s.start()
        await asyncio.gather(
            join_through_a_crash(stacks[0]),
            settle_through_a_crash(stacks[1], "before_store"),
            settle_through_a_crash(stacks[2], "after_store"),
        )
    finally:
        for s in stacks:
            s.close()
