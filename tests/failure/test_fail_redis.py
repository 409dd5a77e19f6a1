"""Redis dies (SIGKILL, restarted from its AOF) or is away for a while during a match: every
acknowledged event survives, the server refuses with ``retry_later`` meanwhile, clocks stop,
and nobody forfeits because of it."""

from __future__ import annotations

import asyncio
import random
import time

from harness.failure_kit import (
    Table,
    a_play,
    assert_saw_the_log,
    clock_credit,
    count_kind,
    health,
    metric,
    play_until,
    stack_fixture,
    stored_commands,
    until,
)
from harness.srv_support import play_out
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.client import play_random
from server.match.store import Store

stack = stack_fixture()


async def test_redis_killed_and_restarted_from_its_aof_keeps_every_acknowledged_event(stack):
    proc = stack.server()
    table = await Table.open(proc, mode="single_game")
    async with table:
        rng = random.Random(21)
        games = asyncio.gather(
            play_random(table.a, random.Random(rng.random()), think=(0.0, 0.01)),
            play_random(table.b, random.Random(rng.random()), think=(0.0, 0.01)),
        )
        await until(lambda: table.w.tracker.version >= 30, what="a game under way")
        stack.redis.kill()
        # What the clients had been told when Redis died (acks and events).
        told = {name: (list(seen.acks), list(seen.events)) for name, seen in table.seen.items()}
        await asyncio.sleep(1.0)
        await asyncio.to_thread(stack.redis.start)
        back = time.monotonic()
        at_restart = table.w.tracker.version
        await until(lambda: table.w.tracker.version > at_restart, what="play after the restart")
        resumed = time.monotonic() - back
        await asyncio.wait_for(games, 180)
        await table.w.wait_for(lambda t: t.over is not None, timeout=10)
    log = await stack.log(table.match_id)
    stored = {e.v: e.data for e in log}
    applied = {(c.seat, c.seq) for c in await stored_commands(stack.redis.url, table.match_id)}
    seats = {"a": 0, "b": 1}
    for name, (acks, events) in told.items():
        for event in events:
            assert stored.get(event.v) == event.data, (name, event.v)
        for ack in acks:
            assert ack.v <= log[-1].v
            assert (seats[name], ack.seq) in applied, (name, ack)
    assert sum(len(events) for _, events in told.values()) > 40
    for seen in table.seen.values():
        assert_saw_the_log(seen, log)
    print(f"\nplay resumed {resumed:.2f} s after Redis came back")


async def test_after_a_redis_restart_pooled_connections_do_not_fail_commands(stack):
    store = Store.from_url(stack.redis.url)
    try:
        # Several connections in the pool, all of them dead once Redis restarts.
        assert all(await asyncio.gather(*(store.redis.ping() for _ in range(6))))
        stack.redis.kill()
        await asyncio.to_thread(stack.redis.start)
        assert all(await asyncio.gather(*(store.ping() for _ in range(6))))
        assert await store.commit("a" * 32, -1, b"s", b"m", [b"e"]) == 1
    finally:
        await store.close()


async def test_redis_away_longer_than_the_clock_refuses_with_retry_later_and_forfeits_nobody(
    stack,
):
    proc = stack.server()
    table = await Table.open(proc, mode="single_game", clock=5)
    async with table:
        await play_until(table.seats, lambda: table.owing("move") is not None)
        mover = table.owing("move")
        owed_since = time.monotonic()  # the decision's clock started (just) before this
        deadline = mover.tracker.clock.deadline
        assert deadline is not None
        credit_before = await clock_credit(proc.base)
        retry_later_before = await metric(
            proc.base, "fairgammon_rejections_total", '{code="retry_later"}'
        )
        await asyncio.sleep(2.0)  # 3 s of the 5-second clock remain

        stack.redis.kill()
        stopped = time.monotonic()
        while (await health(proc.base))[0] != 503:  # the server noticed
            await asyncio.sleep(0.05)
        game, turn = mover.tracker.game, mover.tracker.turn
        moves = a_play(mover, random.Random(2))
        # A raw action while Redis is away (a sequence number the library will not reach):
        # refused with retry_later, nothing stored.
        raw_seq = mover.seq + 1000
        await mover.send_raw(codec.encode(m.Move(raw_seq, game, turn, moves)))
        seen = table.seen_by(mover)
        await until(lambda: any(r.seq == raw_seq for r in seen.rejects), what="the refusal")
        assert [r.code for r in seen.rejects if r.seq == raw_seq] == ["retry_later"]
        # The library retries by itself until Redis is back.
        moving = asyncio.create_task(mover.move(moves))
        await asyncio.sleep(stopped + 4.5 - time.monotonic())
        await asyncio.to_thread(stack.redis.start)
        outage = time.monotonic() - stopped
        reply = await asyncio.wait_for(moving, 20)
        accepted_after = time.monotonic() - owed_since
        assert isinstance(reply, m.Ack), reply
        # Accepted although more than clock + allowance (6 s) of wall time went by: the
        # deadline was extended by the outage.
        assert accepted_after > 6.0
        credit_added = await clock_credit(proc.base) - credit_before
        assert credit_added >= (outage - 0.3) * 1000, (credit_added, outage)
        # The deadline seen before is still ahead on the server's (shifted) clock.
        status, body = await health(proc.base)
        assert status == 200 and body["time"] < deadline + 1000
        refused = await metric(proc.base, "fairgammon_rejections_total", '{code="retry_later"}')
        assert refused - retry_later_before >= 2
        # ... and the library's own action was refused too, and sent again until stored.
        assert any(r.code == "retry_later" and r.seq != raw_seq for r in seen.rejects)

        results = await play_out(table.a, table.b, seed=4, timeout=60)
        await table.w.wait_for(lambda t: t.over is not None, timeout=10)
    assert results[0].reason != "forfeit"
    log = await stack.log(table.match_id)
    assert count_kind(log, pe.Forfeit) == 0
    for seen in table.seen.values():
        assert_saw_the_log(seen, log)
    print(f"\noutage {outage:.2f} s, clock credit added {credit_added / 1000:.2f} s")
