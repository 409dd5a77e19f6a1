"""The clock on a real server: a move racing its deadline (on a fast link, and on a link slow
enough to get the whole lag allowance) has exactly one outcome, the same for everyone;
reconnecting (or taking the seat over from a new connection) never resets a clock; presence
changes reach the opponent and the spectators with the forfeit deadline."""

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
    play_until,
    stored_log,
    until,
)
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient

GRACE_MS = 1000  # the match's lag allowance (the server's default)

# (link, milliseconds after the end of the move's allowance when it is sent). A fast link's
# allowance is its measured round trip (~0 on loopback): a move 300 ms late is refused, and
# the clock settles at the deadline plus the whole allowance. A link whose round trip reaches
# the whole allowance races the clock itself: the inner offsets race the sweeper (which looks
# every 100 ms); the outer ones are clear cases.
SLOW_OFFSETS = (-500, -30, -10, 0, 10, 30, 500)
CASES = (("fast", -300), ("fast", 300), *(("slow", off) for off in SLOW_OFFSETS))


def presence_of(seen, seat: int) -> list[tuple[str, int | None]]:
    return [(p.status, p.deadline) for p in seen.presence if p.seat == seat]


async def claim_slow_link(client: MatchClient, seen) -> None:
    """Answer the server's round-trip probe as over a link with a 20 s round trip (the server
    grants at most the match's allowance, whatever a client claims)."""
    await until(lambda: bool(seen.probes), what="a probe")
    for _ in range(4):
        await client.send_raw(codec.encode(m.Echo(seen.probes[0].t - 20_000)))


async def race(server, link: str, offset_ms: int, seed: int) -> tuple[str, str | None]:
    """The outcome of a move sent ``offset_ms`` after the end of its allowance, and the code
    of its refusal, if any."""
    table = await Table.open(server, mode="single_game", clock=5)
    async with table:
        if link == "slow":
            for seat in table.seats:
                await claim_slow_link(seat, table.seen_by(seat))
        rng = random.Random(seed)
        await play_until(table.seats, lambda: table.owing("move") is not None, rng)
        mover = table.owing("move")
        turn, deadline = mover.tracker.turn, mover.tracker.clock.deadline
        moves = a_play(mover, rng)
        credit = await clock_credit(server.base)  # server time = wall time - credit
        allowance = GRACE_MS if link == "slow" else 0
        send_at = (deadline + allowance + offset_ms + credit) / 1000
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
        return "moved", None
    assert isinstance(reply, m.Reject) and reply.code in ("too_late", "match_over"), reply
    (forfeit,) = [e.data for e in log if isinstance(e.data, pe.Forfeit)]
    assert (forfeit.seat, forfeit.reason) == (mover.seat, "timeout")
    return "forfeit", reply.code


async def test_a_move_racing_its_deadline_has_one_outcome_the_same_for_everyone(server):
    outcomes = await asyncio.gather(
        *(race(server, link, off, i) for i, (link, off) in enumerate(CASES))
    )
    by_case = dict(zip(CASES, outcomes, strict=True))
    assert by_case["fast", -300] == ("moved", None)  # in time: accepted
    assert by_case["fast", 300] == ("forfeit", "too_late")  # refused; the clock settles later
    assert by_case["slow", -500] == ("moved", None)  # within the whole allowance
    assert by_case["slow", 500][0] == "forfeit"  # the clock had run out
    print(f"\nrace outcomes: {by_case}")


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
