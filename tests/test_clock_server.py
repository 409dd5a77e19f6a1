"""The clock on a real server: a move racing its deadline has exactly one outcome, the same for
everyone; reconnecting (or taking the seat over from a new connection) never resets a clock;
presence changes reach the opponent and the spectators with the forfeit deadline."""

from __future__ import annotations

import asyncio
import random
import time

from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient
from tests.failure_kit import (
    Table,
    a_play,
    assert_saw_the_log,
    clock_credit,
    count_kind,
    play_until,
    stored_log,
    until,
)

# Milliseconds after the deadline at which the move is sent. On loopback the measured round
# trip — the lag allowance of the connection — is about a millisecond, so the deadline itself is
# the decisive instant; the clock settles the match 1 s (the largest allowance) later. The
# outer offsets are clear cases, the inner ones race the deadline.
OFFSETS = (-500, -30, -10, 0, 10, 30, 500)


def presence_of(seen, seat: int) -> list[tuple[str, int | None]]:
    return [(p.status, p.deadline) for p in seen.presence if p.seat == seat]


async def race(server, offset_ms: int, seed: int) -> str:
    table = await Table.open(server, mode="single_game", clock=5)
    async with table:
        rng = random.Random(seed)
        await play_until(table.seats, lambda: table.owing("move") is not None, rng)
        mover = table.owing("move")
        turn, deadline = mover.tracker.turn, mover.tracker.clock.deadline
        moves = a_play(mover, rng)
        credit = await clock_credit(server.base)  # server time = wall time - credit
        send_at = (deadline + offset_ms + credit) / 1000
        await asyncio.sleep(send_at - time.time())
        reply = await mover.move(moves)

        def settled(t) -> bool:
            return t.over is not None or any(
                isinstance(d, pe.Moved) and d.turn == turn for d in t.history
            )

        for client in table.clients.values():
            await client.wait_for(settled, timeout=10)
        log = await stored_log(server.redis_url, table.match_id)
        for seen in table.seen.values():
            assert_saw_the_log(seen, log)  # everyone saw the same single outcome
    moved = sum(isinstance(e.data, pe.Moved) and e.data.turn == turn for e in log)
    forfeited = count_kind(log, pe.Forfeit)
    assert moved + forfeited == 1, (moved, forfeited)
    if moved:
        assert isinstance(reply, m.Ack)
        return "moved"
    assert isinstance(reply, m.Reject) and reply.code in ("too_late", "match_over"), reply
    (forfeit,) = [e.data for e in log if isinstance(e.data, pe.Forfeit)]
    assert (forfeit.seat, forfeit.reason) == (mover.seat, "timeout")
    return "forfeit"


async def test_a_move_racing_its_deadline_has_one_outcome_the_same_for_everyone(server):
    outcomes = await asyncio.gather(*(race(server, off, i) for i, off in enumerate(OFFSETS)))
    by_offset = dict(zip(OFFSETS, outcomes, strict=True))
    assert by_offset[-500] == "moved"  # in time: accepted
    assert by_offset[500] == "forfeit"  # too late: the clock had run out
    print(f"\nrace outcomes by offset (ms): {by_offset}")


async def test_reconnecting_never_resets_the_clock_and_presence_reaches_everyone(server):
    table = await Table.open(server, mode="match", length=3)
    async with table:
        await play_until(table.seats, lambda: table.owing("move") is not None)
        mover = table.owing("move")
        other = table.other(mover)
        deadline = mover.tracker.clock.deadline
        await mover.drop()  # reconnects by itself at once
        await until(lambda: mover.welcomes == 2, what="the reconnect")
        wanted = [("reconnecting", deadline), ("online", None)]
        for watcher in (other, table.w):
            seen = table.seen_by(watcher)
            await until(lambda s=seen: presence_of(s, mover.seat)[-2:] == wanted, what="presence")
        # The same seat from a brand-new connection (another tab): still the same deadline.
        tab = MatchClient(server.ws, table.match_id, table.tokens[mover.seat],
                          secrets_store=table.secrets)  # fmt: skip
        async with tab:
            await tab.wait_for(lambda t: t.version > 0)  # its snapshot
            assert tab.tracker.clock == pe.Clock("move", (mover.seat,), deadline)
            reply = await tab.move(a_play(tab, random.Random(1)))
            assert isinstance(reply, m.Ack)
            await other.wait_for(lambda t: t.version >= reply.v)
