"""The crash credit on the pure match machine (``CrashCredit``, docs/operations.md "A crashed
process costs nobody clock"): the seat whose server process died while it owed the decision
gets the time back, from the dead process's last heartbeat until the seat was back; once per
match and dead process, never when nobody died or the seat owed nothing, never more than the
gap (nor :data:`MAX_CRASH_CREDIT_MS`)."""

from __future__ import annotations

import asyncio
import random
from dataclasses import replace

import msgpack
import pytest

from engine.match import MatchOptions
from harness.machine_driver import Seat, play_until
from protocol import events as pe
from protocol.codec import decode_from_server, encode
from protocol.errors import ErrorCode
from protocol.limits import MAX_CRASH_CREDIT_MS
from protocol.messages import Event
from server.machine import core, serial
from server.machine.commands import CrashCredit, Join, record_kind, recorded_command
from server.machine.state import CREDITED_KEPT, Config, MatchState, owing, reserve_owed
from server.machine.view import public_view
from server.match.crash_credit import CrashCredits
from server.match.service import Unavailable
from server.match.stored import command_record

MID = "00112233445566778899aabbccddeeff"
CLOCK = 30_000
GRACE = 1_000
T = 100_000
"""When the mover's decision began (server ms)."""


def moving(reserve_ms: int = 0) -> tuple[MatchState, list[Seat]]:
    """A match where a seat owes a move since ``T``."""
    config = Config(MatchOptions.match(5), clock_ms=CLOCK, grace_ms=GRACE, reserve_ms=reserve_ms)
    state, _ = core.create(MID, config, "ann", T - 1_000)
    state = core.apply(state, Join(1, name="bob"), T - 1_000).state
    rng = random.Random(4)
    seats = [Seat(s, random.Random(rng.random()), double_rate=0, resign_rate=0) for s in (0, 1)]
    state = play_until(state, seats, "move", T)
    assert state.updated == T and state.deadline == T + CLOCK + reserve_ms
    return state, seats


def mover(state: MatchState) -> int:
    (seat,) = owing(state)[0]
    return seat


def crash(seat: int, since: int, back: int, process: str = "p1", seen: int | None = None):
    """The process ``process`` that served ``seat`` beat last at ``since``; found dead (still
    that beat) at ``seen``, by default as soon as it could be (the machine's rule)."""
    if seen is None:
        seen = max(back, since + core.DEAD_AFTER_MS)
    return CrashCredit(seat, process=process, since=since, seen=seen, back=back)


def credited(state: MatchState, command: CrashCredit, now: int) -> core.Accepted:
    outcome = core.apply(state, command, now)
    assert isinstance(outcome, core.Accepted)
    return outcome


def refused(state: MatchState, command: CrashCredit, now: int) -> ErrorCode:
    with pytest.raises(core.Rejected) as info:
        core.apply(state, command, now)
    return info.value.code


def test_the_seat_on_move_gets_back_the_time_from_the_last_heartbeat_until_it_was_back():
    state, _ = moving()
    seat = mover(state)
    # Its process beat last 5 s into the move, the seat was back on another 1.2 s later.
    step = credited(state, crash(seat, since=T + 5_000, back=T + 6_200), now=T + 7_000)
    assert [e.data for e in step.events] == [pe.ClockCredit(seat, 1_200)]
    assert step.state.deadline == T + CLOCK + 1_200 == step.events[-1].next.deadline
    assert step.events[-1].next.seats == (seat,) and step.events[-1].next.phase == "move"
    assert step.events[-1].v == state.version + 1 and step.state.credited == ("p1",)
    # Not due on its old deadline, due on the new one.
    assert core.expire(step.state, T + CLOCK + GRACE + 1) is None
    assert core.expire(step.state, T + CLOCK + 1_200 + GRACE + 1) is not None
    # The snapshot shows the same clock; the record and the state round-trip.
    assert public_view(step.state, ("online", "online")).game.clock.deadline == T + CLOCK + 1_200
    assert serial.loads(MatchState, serial.dumps(step.state)) == step.state
    command = crash(seat, since=T + 5_000, back=T + 6_200)
    kind, body, _ = msgpack.unpackb(command_record(command, T + 7_000, "ann"))
    assert kind == record_kind(command) == "CrashCredit"
    assert recorded_command(kind, body) == command
    frame = encode(Event(step.events[-1].v, pe.ClockCredit(seat, 1_200), step.events[-1].next))
    assert decode_from_server(frame).data == pe.ClockCredit(seat, 1_200)


def test_a_crash_is_credited_once_however_often_it_is_told():
    state, _ = moving()
    seat = mover(state)
    once = credited(state, crash(seat, T + 5_000, T + 6_000), T + 6_500).state
    # The seat is taken over again (another tab, a second process) and the crash told again.
    assert refused(once, crash(seat, T + 5_000, T + 7_000), T + 7_500) is ErrorCode.DUPLICATE
    assert refused(once, crash(1 - seat, T + 5_000, T + 7_000), T + 7_500) is ErrorCode.DUPLICATE
    # Another process's crash later in the same decision is another credit.
    twice = credited(once, crash(seat, T + 9_000, T + 9_500, process="p2"), T + 9_600).state
    assert twice.deadline == T + CLOCK + 1_000 + 500 and twice.credited == ("p1", "p2")
    # The match remembers the newest crashes only, and still refuses each of them again.
    s = twice
    for i in range(CREDITED_KEPT + 2):
        at = T + 10_000 + 2_000 * i
        s = credited(s, crash(seat, at, at + 10, process=f"q{i}"), at + 10).state
    assert len(s.credited) == CREDITED_KEPT and s.credited[-1] == f"q{CREDITED_KEPT + 1}"
    assert refused(s, crash(seat, at, at + 10, process=s.credited[0]), at + 20) is (
        ErrorCode.DUPLICATE
    )


def test_no_credit_when_nobody_crashed_or_the_seat_owed_nothing():
    state, _ = moving()
    seat = mover(state)
    # The process beat 300 ms before it was looked at: alive (the seat just reconnected).
    alive = crash(seat, since=T + 5_000, back=T + 5_300, seen=T + 5_300)
    assert refused(state, alive, T + 5_400) is ErrorCode.FORBIDDEN
    # Its opponent's process died: the opponent's clock was not running.
    assert refused(state, crash(1 - seat, T + 5_000, T + 6_000), T + 6_500) is (
        ErrorCode.NO_DECISION
    )
    # The decision began after the seat was back (the opponent moved on another process).
    assert refused(state, crash(seat, T - 3_000, T - 1_000, seen=T), T + 10) is (
        ErrorCode.NO_DECISION
    )
    assert refused(state, replace(crash(seat, T, T + 2_000), process=""), T + 2_000) is (
        ErrorCode.BAD_FIELD
    )
    # Nothing was stored for any of them: the next credit is the first.
    assert credited(state, crash(seat, T + 5_000, T + 6_000), T + 6_000).state.credited == ("p1",)


def test_the_credit_is_capped_at_the_gap():
    state, _ = moving()
    seat = mover(state)
    # The process died before this decision began: only the time since it began is credited.
    step = credited(state, crash(seat, since=T - 4_000, back=T + 700), T + 800)
    assert step.events[0].data == pe.ClockCredit(seat, 700)
    # "Back" later than the transition is applied counts only up to now.
    step = credited(state, crash(seat, since=T + 1_000, back=T + 9_000), T + 2_500)
    assert step.events[0].data == pe.ClockCredit(seat, 1_500)
    # A seat that came back long after the crash was away for reasons of its own.
    step = credited(state, crash(seat, since=T + 1_000, back=T + 25_000), T + 25_000)
    assert step.events[0].data == pe.ClockCredit(seat, MAX_CRASH_CREDIT_MS)


def test_a_credit_may_come_after_the_deadline_that_it_moves_and_never_revives_a_settled_one():
    state, _ = moving()
    seat = mover(state)
    due = T + CLOCK
    # Past the deadline (the sweeper held it): in time while the credited deadline, with its
    # lag allowance, has not passed.
    late = due + GRACE + 500
    assert core.is_due(state, late)
    step = credited(state, crash(seat, due - 1_000, late - 200), late)  # 2.3 s lost
    assert step.state.deadline == due + 2_300
    assert not core.is_due(step.state, late)
    # Not when even the credited deadline has passed.
    later = due + GRACE + 2_000
    assert refused(state, crash(seat, due - 500, due - 200), later) is ErrorCode.TOO_LATE
    # Never once the clock settled it: the credit then meets a finished match.
    over = core.expire(state, later)
    assert over is not None
    assert refused(over.state, crash(seat, due - 500, later), later) is ErrorCode.MATCH_OVER


def test_the_credit_comes_off_the_time_charged_to_the_reserve():
    reserve = 60_000
    state, seats = moving(reserve)
    seat = mover(state)
    assert reserve_owed(state) == (seat, reserve)
    step = credited(state, crash(seat, T + 35_000, T + 37_000), T + 37_000)
    assert step.state.deadline == T + CLOCK + reserve + 2_000
    # The seat moves 45 s into the decision: 15 s past the plain clock, 2 s of them credited.
    command = seats[seat].decide(step.state)
    assert command is not None
    moved = core.apply(step.state, command, T + 45_000)
    assert isinstance(moved, core.Accepted)
    assert moved.state.reserves[seat] == reserve - 13_000


# ---------------------------------------------------------------- the shell's look


class FakeClock:
    process = "me"
    credit = 0
    t = 10_900

    def now(self) -> int:
        return self.t


class FakeStore:
    def __init__(self) -> None:
        self.beats: dict[str, int] = {"a": 10_000}
        self.reads = 0

    async def process_beat(self, process: str) -> int | None:
        self.reads += 1
        return self.beats.get(process)


class FakeMatches:
    def __init__(self) -> None:
        self.clock, self.store = FakeClock(), FakeStore()


async def test_a_process_is_found_dead_once_for_all_its_seats_and_alive_only_for_now():
    matches = FakeMatches()
    credits = CrashCredits(matches, asyncio.ensure_future)  # type: ignore[arg-type]

    async def beats_again() -> None:
        await asyncio.sleep(0.05)
        matches.store.beats["a"] = 11_000

    # Two seats of "a" come back while its record is 0.9 s old: one look (wait until it is
    # 1 s old), and "a" beat meanwhile: alive, for both; not remembered.
    again = asyncio.ensure_future(beats_again())
    assert await asyncio.gather(credits._verdict("a"), credits._verdict("a")) == [None, None]
    await again
    assert matches.store.reads == 2 and "a" not in credits._verdicts
    # Later "a" stops beating: dead, from its last beat, and remembered for the next seats.
    matches.clock.t = 12_500
    assert await credits._verdict("a") == (11_000, 12_500)
    assert await credits._verdict("a") == (11_000, 12_500) and matches.store.reads == 3
    # A process without a record (stopped gracefully, or unknown): never dead.
    assert await credits._verdict("b") is None


async def test_the_seats_of_a_process_without_a_record_cost_one_look_between_them():
    matches = FakeMatches()
    spawned: list = []
    credits = CrashCredits(matches, spawned.append)  # type: ignore[arg-type]
    # A restart after a graceful stop: "b" has no record (it never beats again). The first seat
    # back looks; the seats after it are known to need no credit without a look of their own.
    credits.seat_back("m1", 0, b"online:b.01")
    assert len(spawned) == 1
    await spawned.pop()
    assert matches.store.reads == 1
    for i in range(5):
        credits.seat_back(f"m{i + 2}", 1, b"online:b.02")
    assert spawned == [] and await credits._verdict("b") is None and matches.store.reads == 1
    # A process with a record is still looked at (here: alive, so not remembered).
    matches.store.beats["c"] = matches.clock.t
    credits.seat_back("m9", 0, b"online:c.01")
    assert len(spawned) == 1
    spawned.pop().close()


class FailingMatches(FakeMatches):
    """The store refuses the first ``failures`` submissions, as during a failover; then the
    credit meets the real machine."""

    def __init__(self, state: MatchState, failures: int) -> None:
        super().__init__()
        self.state, self.failures = state, failures
        self.submitted: list[CrashCredit] = []
        self.outcomes: list[core.Accepted | core.Duplicate] = []

    async def submit(self, match_id: str, command: CrashCredit):
        self.submitted.append(command)
        if len(self.submitted) <= self.failures:
            raise Unavailable("the cluster is down")
        outcome = core.apply(self.state, command, self.clock.now())
        self.outcomes.append(outcome)
        return outcome


async def test_a_credit_the_store_refused_is_submitted_again_and_given_up_at_last():
    state, _ = moving()
    seat = mover(state)
    matches = FailingMatches(state, failures=2)
    matches.store.beats["a"] = T + 5_000
    matches.clock.t = T + 7_000  # "a" has not beaten for 2 s: dead
    credits = CrashCredits(matches, asyncio.ensure_future, (0.01, 0.01, 0.01))  # type: ignore[arg-type]
    await credits._credit(MID, seat, "a", back=T + 6_200)
    assert len(matches.submitted) == 3 and len(matches.outcomes) == 1
    (outcome,) = matches.outcomes
    assert isinstance(outcome, core.Accepted)
    assert [e.data for e in outcome.events] == [pe.ClockCredit(seat, 1_200)]
    # A store away for longer than the retries: given up after the last (the hold ends too).
    matches = FailingMatches(state, failures=10)
    matches.store.beats["a"] = T + 5_000
    matches.clock.t = T + 7_000
    credits = CrashCredits(matches, asyncio.ensure_future, (0.01, 0.01))  # type: ignore[arg-type]
    await credits._credit(MID, seat, "a", back=T + 6_200)
    assert len(matches.submitted) == 3 and matches.outcomes == []
