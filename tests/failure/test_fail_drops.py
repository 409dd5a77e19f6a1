"""A player's connection drops: back within 10 s (on move or off move) the match goes on; away
for 40 s while on move, the player loses on time, once, and everyone is told.

The three cases run at the same time, each on its own Redis and server, whose server time the
test moves on (:func:`harness.srv_support.move_clock`) instead of waiting for the seconds to
pass."""

from __future__ import annotations

import asyncio
import random
import time

from harness.failure_kit import (
    Stack,
    Table,
    assert_saw_the_log,
    count_kind,
    play_until,
    until,
)
from harness.srv_support import move_clock
from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient, play_random

LAG_ALLOWANCE_MS = 1000  # the server's default grace on every deadline


def statuses(presence: list[m.Presence], seat: int) -> list[tuple[str, int | None]]:
    return [(p.status, p.deadline) for p in presence if p.seat == seat]


def in_order(items: list[object], wanted: list[object]) -> bool:
    """``wanted`` is a subsequence of ``items``."""
    rest = iter(items)
    return all(any(x == w for x in rest) for w in wanted)


async def short_drop(stack: Stack, on_move: bool, seed: int) -> None:
    server = await asyncio.to_thread(stack.server)
    table = await Table.open(server, cables=True, mode="single_game")
    async with table:
        rng = random.Random(seed)
        if on_move:
            await play_until(table.seats, lambda: table.owing("move") is not None, rng)
            away = table.owing("move")
        else:
            await play_until(table.seats, lambda: table.owing("decide") is not None, rng)
            away = table.other(table.owing("decide"))
        other = table.other(away)
        owed = away.tracker.clock.deadline if on_move else None
        await table.cable(away).cut()
        for watcher in (other, table.w):
            await until(lambda w=watcher: ("reconnecting", owed) in statuses(
                table.seen_by(w).presence, away.seat),
                what=f"reconnecting {owed} {table.seen_by(watcher).presence}")  # fmt: skip
        if not on_move:
            # The opponent rolls; the missing seat's reveal is awaited on its own clock.
            assert isinstance(await other.roll(), m.Ack)
            await other.wait_for(lambda t: t.owes(away.seat) == "reveal")
        # Ten seconds away: the clock runs on meanwhile.
        await move_clock(server, stack.redis.url, 10)
        await table.cable(away).mend()
        await until(lambda: away.welcomes == 2, timeout=10, what="the reconnect")
        if on_move:
            # Back after 10 s, the clock is where it was: not reset, not extended.
            fresh = MatchClient(server.ws, table.match_id)
            async with fresh:
                await fresh.wait_for(lambda t: t.version > 0)  # its snapshot
                assert fresh.tracker.clock.deadline == owed
                assert fresh.tracker.clock.seats == (away.seat,)
        results = await asyncio.wait_for(
            asyncio.gather(
                play_random(away, random.Random(rng.random())),
                play_random(other, random.Random(rng.random())),
            ),
            60,
        )
        await table.w.wait_for(lambda t: t.over is not None, timeout=10)
        for watcher in (other, table.w):
            await until(lambda w=watcher: in_order(
                statuses(table.seen_by(w).presence, away.seat),
                [("reconnecting", owed), ("online", None)]), what="online")  # fmt: skip
    assert results[0] == results[1] == table.w.tracker.over
    assert results[0].reason == "completed"
    log = await stack.log(table.match_id)
    assert count_kind(log, pe.Forfeit) == 0
    for seen in table.seen.values():
        assert_saw_the_log(seen, log)


async def long_drop(stack: Stack) -> None:
    # Shown gone after 3 s away (20 s by default), so that it happens before the clock runs out.
    server = await asyncio.to_thread(stack.server, FAIRGAMMON_GONE_AFTER_SECONDS="3")
    table = await Table.open(server, cables=True, mode="match", length=3)
    async with table:
        await play_until(table.seats, lambda: table.owing("move") is not None, random.Random(8))
        away = table.owing("move")
        other = table.other(away)
        deadline = away.tracker.clock.deadline
        await table.cable(away).cut()
        for watcher in (other, table.w):
            await until(lambda w=watcher: ("gone", deadline) in statuses(
                table.seen_by(w).presence, away.seat), timeout=15, what="gone")  # fmt: skip
            assert watcher.tracker.over is None
        # Forty seconds away: the opponent and the spectator see the result as soon as the
        # clock runs out.
        await move_clock(server, stack.redis.url, 40)
        for watcher in (other, table.w):
            await watcher.wait_for(lambda t: t.over is not None, timeout=10)
        await table.cable(away).mend()
        await away.wait_for(lambda t: t.over is not None, timeout=10)
        for watcher in (other, table.w):
            await until(lambda w=watcher: in_order(
                statuses(table.seen_by(w).presence, away.seat),
                [("reconnecting", deadline), ("gone", deadline), ("online", None)],
            ), what=f"presence {statuses(table.seen_by(watcher).presence, away.seat)}")  # fmt: skip
    log = await stack.log(table.match_id)
    assert count_kind(log, pe.Forfeit) == count_kind(log, pe.MatchOver) == 1
    forfeit = next(e for e in log if isinstance(e.data, pe.Forfeit))
    assert (forfeit.data.seat, forfeit.data.reason) == (away.seat, "timeout")
    assert forfeit.t > deadline + LAG_ALLOWANCE_MS  # settled by the server's clock, not early
    winner = other.seat
    for seen in table.seen.values():
        assert_saw_the_log(seen, log)
        assert [(f.seat, f.reason) for f in seen.data(pe.Forfeit)] == [(away.seat, "timeout")]
        assert [(g.winner, g.reason) for g in seen.data(pe.GameOver)] == [(winner, "forfeit")]
        (over,) = seen.data(pe.MatchOver)
        assert (over.winner, over.reason) == (winner, "forfeit") and over.score[winner] >= 3


async def test_drops_of_10_s_continue_and_40_s_on_move_loses_on_time_once(tmp_path):
    stacks = [Stack(tmp_path / case) for case in ("on-move", "off-move", "long")]
    try:
        for stack in stacks:
            stack.start()
        await asyncio.gather(
            short_drop(stacks[0], on_move=True, seed=1),
            short_drop(stacks[1], on_move=False, seed=2),
            long_drop(stacks[2]),
        )
    finally:
        for stack in stacks:
            stack.close()


async def test_a_seat_away_is_shown_gone_even_when_the_server_restarts_meanwhile(tmp_path):
    """The process that saw the drop dies before the seat is due to be shown gone: the
    restarted one (any process) announces it on time, once."""
    stack = Stack(tmp_path)
    stack.start()
    try:
        first = await asyncio.to_thread(stack.server, FAIRGAMMON_GONE_AFTER_SECONDS="3")
        table = await Table.open(first, mode="single_game", clock=60)
        async with table:
            await play_until(table.seats, lambda: table.owing("decide") is not None)
            away, other = table.a, table.b
            await away.close()
            left = time.monotonic()
            told = {w: (lambda w=w: [s for s, _ in statuses(table.seen_by(w).presence, 0)])
                    for w in (other, table.w)}  # fmt: skip
            for watcher in (other, table.w):
                await until(lambda w=watcher: "reconnecting" in told[w](), what="reconnecting")
            first.kill()
            await stack.restart(first, FAIRGAMMON_GONE_AFTER_SECONDS="3")
            for watcher in (other, table.w):
                await until(lambda w=watcher: "gone" in told[w](), timeout=15, what="gone")
            assert time.monotonic() - left >= 3.0  # not before it was due
            # The sweeps go on: it is announced once. The barrier: the seat comes back and goes
            # again; its second "gone" comes from a sweep 3 s (six sweeps) later, on the same
            # channel, so a repeat of the first would have arrived before it.
            token = table.tokens[0]
            back = MatchClient(table.ws, table.match_id, token, secrets_store=table.secrets)
            async with back:
                for watcher in (other, table.w):
                    await until(lambda w=watcher: told[w]()[-1:] == ["online"], what="online")
            for watcher in (other, table.w):
                await until(lambda w=watcher: told[w]().count("gone") >= 2, timeout=15, what="gone")
            for watcher in (other, table.w):
                seen = told[watcher]()
                after = seen[seen.index("gone") :]
                assert after == ["gone", "online", "reconnecting", "gone"], seen
    finally:
        stack.close()
