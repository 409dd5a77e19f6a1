"""A crashed server process costs nobody clock (docs/operations.md, "A crashed process costs
nobody clock"): both seats play on process ``doomed``, which is SIGKILLed while a seat owes a
move; they resume on process ``running`` (their way there opens a while after the kill, as a
real resume takes about a second). The match is credited the gap from the dead process's last
heartbeat until the seat was back — once, as the event ``clock_credit`` — so the player on
move keeps its clock: the positive control is the same clock before the credit arrived, which
had lost the whole gap. A spectator of protocol version 3 (before ``clock_credit``) is sent a
snapshot with the new deadline instead. A player with under a second left when its server
died is not forfeited while it comes back (the deadline and its lag allowance pass meanwhile:
the sweeper of the other process holds the deadline), then moves in time on the credited
clock. And when the only process is killed and started again, the outage goes to the server
clock and is not credited twice."""

from __future__ import annotations

import asyncio
import dataclasses
import random
import signal
import time
from dataclasses import dataclass

import msgpack

from harness.failure_kit import (
    Cable,
    Stack,
    a_play,
    clock_credit,
    count_kind,
    play_until,
    server_offset,
    stored_commands,
    until,
)
from harness.srv_support import move_clock, seat_two
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient
from protocol.client import seat as sc
from server.machine.commands import CrashCredit


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
        # Version 3 has no variant fields (version 5's): a current reader gets their defaults.
        if obj.get("k") in ("match_created", "game_started"):
            assert "variant" not in obj["p"]
            obj["p"]["variant"] = "backgammon"
        elif obj["t"] == "snapshot":
            state = obj["p"]["state"]
            assert "variant" not in state["settings"]
            state["settings"]["variant"] = "backgammon"
            if state.get("game") is not None:
                state["game"].update(variant="backgammon", pinned=[0, 0])
        return codec.decode_from_server(msgpack.packb(obj, use_bin_type=True))


GRACE_MS = 1000
"""The servers' lag allowance (FAIRGAMMON_LAG_ALLOWANCE_MS) unless a scenario sets it."""


def wall_ms() -> int:
    return time.time_ns() // 1_000_000


@dataclass
class Figures:
    left: int
    """What the player on move had left when its process was killed (ms)."""
    late: int
    """How long after its deadline the player was back (ms; negative: before it)."""
    uncredited: int
    """Clock lost across the kill and the resume, on the deadline it had before the credit."""
    lost: int
    """Clock lost once credited, until the client was back and caught up."""
    credit: int
    at_server: int
    """Clock lost once credited, until the server had the seat back (the credit's ``back``)."""
    resume: int
    """From then until the client was back and caught up (its welcome and catch-up on their
    way): the resume's own delivery, ``lost - at_server``."""
    err_killed: int
    """How far the test's reading of the server clock at the kill may be off (ms): ``at_server``
    is known to within it."""
    err_back: int
    """The same for the reading when the client was back: ``resume`` is known to within it."""


async def server_back(stack: Stack, match_id: str, killed: int, credit: int) -> tuple[int, int]:
    """``(at_server, back)``: the clock the seat lost until the server had it back, per the
    credit's record in the log, and when that was (server time)."""
    (command,) = [
        c for c in await stored_commands(stack.redis.url, match_id) if isinstance(c, CrashCredit)
    ]
    return command.back - killed - credit, command.back


async def crash_on_move(
    stack: Stack, left_ms: int | None, reopens: float, grace_ms: int = GRACE_MS
) -> Figures:
    """Both seats on ``doomed``; a seat owes a move (with ``left_ms`` left if given: the
    server clock is moved on) when ``doomed`` is SIGKILLed; their way to ``running`` opens
    ``reopens`` seconds later. ``grace_ms``: the servers' lag allowance."""
    env = {"FAIRGAMMON_LAG_ALLOWANCE_MS": str(grace_ms)}
    doomed, running = await asyncio.gather(
        asyncio.to_thread(stack.server, **env), asyncio.to_thread(stack.server, **env)
    )
    way = Cable(running.port)  # closed until ``reopens`` after the kill
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
        if left_ms is not None:  # the clock runs on to ``left_ms`` before the deadline
            now = wall_ms() - await clock_credit(running.base)
            await move_clock(doomed, stack.redis.url, (due - left_ms - now) / 1000)
            moved = await clock_credit(doomed.base)
            while abs(await clock_credit(running.base) - moved) > 50:
                await asyncio.sleep(0.05)
        offset = await server_offset(running.base)  # wall time less server time

        killed = wall_ms() - offset.ms
        assert doomed.process is not None
        doomed.process.send_signal(signal.SIGKILL)
        left = due - killed
        assert left > 100, left  # (moving the clock took longer than thought)
        await asyncio.sleep(reopens)
        await way.mend()
        await mover.wait_for(lambda t: mover.welcomes == 2 and mover.core.caught_up, timeout=10)
        back = wall_ms() - offset.ms
        assert mover.tracker.over is None, "forfeited on time while its server was down"
        # The positive control: what the seat would have lost on the deadline it had before
        # the credit (``due``: nothing else moved it). Not read from the client's clock now:
        # the credit may already have reached it with its catch-up.
        uncredited = left - (due - back)
        await mover.wait_for(lambda t: t.last_credit is not None, timeout=5)
        credited = mover.tracker.clock.deadline
        lost = left - (credited - back)
        credit_v = mover.tracker.version
        # The player moves on the credited clock at once (it may have little left).
        reply = await mover.move(a_play(mover, random.Random(1)))
        assert isinstance(reply, m.Ack), reply
        # Every client had the same deadline: the other seat, and the version-3 spectator
        # through a snapshot in place of the event.
        other = b if mover is a else a
        for client in (other, w):
            await client.wait_for(lambda t: t.version >= credit_v, timeout=10)
        assert pe.ClockCredit(mover.seat, credited - due) in other.tracker.history
        assert w.snapshots == 2  # the second: in place of clock_credit
        await until(lambda: w.tracker.version >= mover.tracker.version, timeout=5)
    log = await stack.log(seated.match_id)
    assert count_kind(log, pe.ClockCredit) == 1  # both seats came back: one credit
    assert count_kind(log, pe.Forfeit) == 0
    (event,) = [e for e in log if isinstance(e.data, pe.ClockCredit)]
    assert event.data.seat == mover.seat and mover.tracker.last_credit == event.data
    at_server, server_back_at = await server_back(stack, seated.match_id, killed, event.data.ms)
    await way.cut()
    return Figures(
        left,
        back - due,
        uncredited,
        lost,
        event.data.ms,
        at_server,
        back - server_back_at,
        offset.error,
        offset.error,
    )


async def restart_on_move(stack: Stack) -> Figures:
    """The only process is SIGKILLed while a seat owes a move, and started again a second
    later: the server clock stood still meanwhile (the clock credit of an outage of every
    process); the crash credit adds only what the seat lost after the restart, never the
    outage again.

    The seats' way back opens half a second after the restart. The server clock resumes at
    the dead process's last heartbeat, which may be up to a beat (250 ms) before the match's
    last transition: a seat back sooner than that lost nothing, and is rightly not credited
    (``tests/unit/test_crash_credit.py``); then no event would come for this test to wait for
    (it failed so once in about a hundred runs)."""
    only = await asyncio.to_thread(stack.server)
    way = Cable(only.port)
    await way.mend()
    seated = await seat_two(only.base, mode="match", length=3, clock=30)
    a, b = (seated.client(way.ws, s) for s in (0, 1))
    async with a, b:
        await play_until((a, b), lambda: a.owes() == "move" or b.owes() == "move")
        mover = a if a.owes() == "move" else b
        due = mover.tracker.clock.deadline
        assert due is not None
        before = await server_offset(only.base)
        killed = wall_ms() - before.ms
        assert only.process is not None
        only.process.send_signal(signal.SIGKILL)
        left = due - killed
        await stack.exited(only)
        await way.cut()
        await asyncio.sleep(1.0)
        again = await stack.restart(only)
        await asyncio.sleep(0.5)
        await way.mend()
        await mover.wait_for(lambda t: mover.welcomes == 2 and mover.core.caught_up, timeout=10)
        after = await server_offset(again.base)
        back = wall_ms() - after.ms
        assert mover.tracker.over is None
        uncredited = left - (due - back)  # (the deadline before any credit: as above)
        await mover.wait_for(lambda t: t.last_credit is not None, timeout=5)
        lost = left - (mover.tracker.clock.deadline - back)
        reply = await mover.move(a_play(mover, random.Random(1)))
        assert isinstance(reply, m.Ack), reply
        assert mover.tracker.last_credit is not None
        credit = mover.tracker.last_credit.ms
    at_server, server_back_at = await server_back(stack, seated.match_id, killed, credit)
    await way.cut()
    return Figures(
        left,
        back - due,
        uncredited,
        lost,
        credit,
        at_server,
        back - server_back_at,
        before.error,
        after.error,
    )


async def test_a_sigkilled_process_costs_the_player_on_move_no_clock(tmp_path):
    stacks = [Stack(tmp_path / name) for name in ("plenty", "short", "only")]
    try:
        for s in stacks:
            s.start()
        plenty, short, only = await asyncio.gather(
            crash_on_move(stacks[0], left_ms=None, reopens=1.0),
            crash_on_move(stacks[1], left_ms=800, reopens=1.5, grace_ms=300),
            restart_on_move(stacks[2]),
        )
    finally:
        for s in stacks:
            s.close()
    # What a seat loses once credited is split in two: until the server had the seat back
    # (the credit's record says when), nothing, or a gain of at most the 250 ms between the
    # dead process's last heartbeat and the kill (the test reads the server clock to ~50 ms);
    # then the resume's own delivery, the welcome and the catch-up on their way to the client,
    # a few ms on a quiet machine, a few hundred when the suite loads it (it was 167 ms once).
    # The split is only as good as the test's readings of the server clock: each bound is
    # widened by the reading's own error (a single reading in a loaded CI run was off by over
    # 100 ms: at_server -79, resume -173, their sum -252 exact).
    for f in (plenty, short, only):
        assert -300 - f.err_killed <= f.at_server <= 50 + f.err_killed, f
        assert -50 - f.err_back <= f.resume <= 500 + f.err_back, f
    # The only process restarted: the outage was credited to the server clock, and not again.
    assert only.credit >= 250, only  # back 500 ms after the restart, at most a beat before
    for f in (plenty, short):
        # Before the credit the player had lost the whole gap.
        assert f.uncredited >= 950, f
    # The short clock's deadline and its lag allowance (here 300 ms) had passed when the seat
    # was back: the other process's sweeper would have forfeited it but for the hold.
    assert short.left <= 800 and short.late > 300 + 100, short
    print(
        f"\nSIGKILL with a move due: clock lost {plenty.uncredited} ms before the credit "
        f"({plenty.credit} ms credited), {plenty.lost} ms after; with {short.left} ms left, "
        f"back {short.late} ms after the deadline, not forfeited, lost {short.lost} ms; "
        f"the only process restarted: lost {only.lost} ms ({only.credit} ms crash credit); "
        f"the resumes' own delivery {plenty.resume}, {short.resume}, {only.resume} ms"
    )
