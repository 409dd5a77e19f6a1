"""A crashed server process costs nobody clock (docs/operations.md, "A crashed process costs
nobody clock"): both seats play on process ``doomed``, which is SIGKILLed while a seat owes a
move; they resume on process ``running`` (their way there opens a second after the kill, as a
real resume takes about that long). The match is credited the gap from the dead process's last
heartbeat until the seat was back — once, as the event ``clock_credit`` — so the player on
move keeps its clock: the positive control is the same clock before the credit arrived, which
had lost the whole gap. A spectator of protocol version 3 (before ``clock_credit``) is sent a
snapshot with the new deadline instead."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import signal
import time

import msgpack

from harness.failure_kit import (
    Cable,
    a_play,
    clock_credit,
    count_kind,
    play_until,
    stack_fixture,
    until,
)
from harness.srv_support import seat_two
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient
from protocol.client import seat as sc

stack = stack_fixture()

REOPENS_AFTER = 1.0
"""Seconds after the kill before the seats' way to the other process opens."""


class V3Spectator(MatchClient):
    """A spectator of protocol version 3: says ``hello.proto`` 3 and fails on any event kind
    version 3 did not have; it counts the snapshots it was sent."""

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.snapshots = 0
        opened = self.core.opened

        def opened_v3(now: float) -> list[sc.Effect]:
            return [
                sc.Send(dataclasses.replace(e.message, proto=3))
                if isinstance(e, sc.Send) and isinstance(e.message, m.Hello)
                else e
                for e in opened(now)
            ]

        self.core.opened = opened_v3  # type: ignore[method-assign]

    def decode(self, frame: bytes) -> m.ServerMessage:
        obj = msgpack.unpackb(frame, raw=False)
        assert obj.get("k") != "clock_credit", "a version-3 client was sent clock_credit"
        self.snapshots += obj["t"] == "snapshot"
        return codec.decode_from_server(frame)


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


async def test_a_sigkilled_process_costs_the_player_on_move_no_clock(stack):
    doomed, running = await asyncio.gather(
        asyncio.to_thread(stack.server), asyncio.to_thread(stack.server)
    )
    way = Cable(running.port)  # closed until REOPENS_AFTER after the kill
    seated = await seat_two(doomed.base, mode="match", length=3, clock=30)
    a, b = (seated.client(doomed.ws, s, fallback_urls=[way.ws]) for s in (0, 1))
    w = V3Spectator(running.ws, seated.match_id)
    async with a, b, w:
        await play_until((a, b), lambda: a.owes() == "move" or b.owes() == "move")
        mover = a if a.owes() == "move" else b
        version = mover.tracker.version
        await w.wait_for(lambda t: t.version == version, timeout=10)
        due = mover.tracker.clock.deadline
        assert due is not None and w.tracker.clock.deadline == due
        assert await clock_credit(running.base) < 50  # server time is wall time (no outage)

        killed = wall_ms()
        assert doomed.process is not None
        doomed.process.send_signal(signal.SIGKILL)
        left = due - killed  # what the player on move had left
        await asyncio.sleep(REOPENS_AFTER)
        await way.mend()
        await mover.wait_for(lambda t: mover.welcomes == 2 and mover.core.caught_up, timeout=10)
        back = wall_ms()
        uncredited = left - (mover.tracker.clock.deadline - back)  # the positive control
        await mover.wait_for(lambda t: any(isinstance(d, pe.ClockCredit) for d in t.history), 5)
        credited = mover.tracker.clock.deadline
        lost = left - (credited - back)

        # Before the credit the player had lost the whole gap; after it, at most 150 ms (and
        # gained at most the 250 ms between the dead process's last heartbeat and the kill).
        assert uncredited >= REOPENS_AFTER * 1000 - 50, uncredited
        assert -300 <= lost <= 150, (lost, uncredited)
        # Every client has the same deadline: the other seat, and the version-3 spectator
        # through a snapshot in place of the event.
        other = b if mover is a else a
        await other.wait_for(lambda t: t.clock.deadline == credited, timeout=5)
        await w.wait_for(lambda t: t.clock.deadline == credited, timeout=5)
        assert w.snapshots == 2 and w.tracker.version == mover.tracker.version
        # The player moves on the credited clock; the match plays on.
        reply = await mover.move(a_play(mover, random.Random(1)))
        assert isinstance(reply, m.Ack), reply
        await until(lambda: other.tracker.version >= mover.tracker.version, timeout=5)
    log = await stack.log(seated.match_id)
    assert count_kind(log, pe.ClockCredit) == 1  # both seats came back: one credit
    (event,) = [e for e in log if isinstance(e.data, pe.ClockCredit)]
    assert event.data.seat == mover.seat
    await way.cut()
    print(
        f"\nSIGKILL with a move due: clock lost {uncredited} ms before the credit "
        f"({event.data.ms} ms credited), {lost} ms after"
    )
