"""Graceful shutdown (SIGTERM): a write in flight is finished, clients are told to reconnect
(close code 1012) and resume on the restarted server without losing clock time."""

from __future__ import annotations

import asyncio
import contextlib
import random
import signal
import time

import redis.asyncio as aioredis
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

from harness.failure_kit import (
    Table,
    a_play,
    assert_saw_the_log,
    clock_credit,
    count_kind,
    play_until,
    stored_log,
)
from harness.serverproc import ServerProcess
from harness.srv_support import play_out
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.close_codes import CloseCode
from protocol.limits import PROTOCOL_VERSION


async def watch_until_closed(ws_url: str, match_id: str) -> int | None:
    """A bare spectator connection: read everything until the server closes it; the close code."""
    async with connect(ws_url) as ws:
        await ws.send(codec.encode(m.Hello(PROTOCOL_VERSION, match_id, None, None, None)))
        with contextlib.suppress(ConnectionClosed):
            async for _ in ws:
                pass
        return ws.close_code


async def test_sigterm_finishes_the_write_in_flight_says_1012_and_costs_no_clock_time(redis_url):
    procs = [ServerProcess(redis_url)]
    procs[0].start()
    redis = aioredis.from_url(redis_url)
    try:
        old = procs[0]
        table = await Table.open(old, mode="single_game")
        async with table:
            await play_until(table.seats, lambda: table.owing("move") is not None)
            watcher = asyncio.create_task(watch_until_closed(old.ws, table.match_id))
            mover = table.owing("move")
            turn = mover.tracker.turn
            credit_before = await clock_credit(old.base)
            # Hold every write in Redis for a second, so that the move below is still being
            # stored when the server is told to stop.
            await redis.execute_command("CLIENT", "PAUSE", 1000, "WRITE")
            moving = asyncio.create_task(mover.move(a_play(mover, random.Random(1))))
            await asyncio.sleep(0.3)
            old.process.send_signal(signal.SIGTERM)
            assert await asyncio.wait_for(watcher, 10) == CloseCode.SERVICE_RESTART
            assert not moving.done()  # not acknowledged: the connection closed first
            assert await asyncio.to_thread(old.process.wait, 30) == 0
            exited = time.monotonic()
            # The write in flight was finished before the process exited.
            log = await stored_log(redis_url, table.match_id)
            assert [e.data.turn for e in log if isinstance(e.data, pe.Moved)] == [turn]

            # A restart that takes a moment (gaps under the 1 s outage threshold are not
            # detected; the 1 s lag allowance covers those).
            await asyncio.sleep(1.0)
            procs.append(ServerProcess(redis_url, port=old.port))
            await asyncio.to_thread(procs[1].start)
            down = time.monotonic() - exited
            reply = await asyncio.wait_for(moving, 20)  # acknowledged by the new welcome
            assert isinstance(reply, m.Ack) and reply.seq == mover.seq
            resumed = time.monotonic() - exited
            credit_added = await clock_credit(procs[1].base) - credit_before
            # The restart gap is not charged to anybody's clock.
            assert credit_added >= (down - 0.3) * 1000, (credit_added, down)
            results = await play_out(table.a, table.b, seed=2, timeout=60)
            await table.w.wait_for(lambda t: t.over is not None, timeout=10)
            assert all(c.welcomes == 2 for c in table.clients.values())
        assert results[0].reason == "completed"
        log = await stored_log(redis_url, table.match_id)
        assert count_kind(log, pe.Forfeit) == 0
        for seen in table.seen.values():
            assert_saw_the_log(seen, log)
        print(f"\nserver down {down:.2f} s; client resumed {resumed:.2f} s after the old exit;"
              f" clock credit added {credit_added / 1000:.2f} s")  # fmt: skip
    finally:
        await redis.aclose()
        for proc in procs:
            proc.kill()
