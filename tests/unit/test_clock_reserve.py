"""The time reserve (docs/protocol.md, "The time reserve") on the pure match machine, at exact
instants: a player's own decisions may run past the plain clock into a per-match time bank;
what they use is charged when the decision ends and shown on the next clock; the automatic
decisions never touch it; passing the deadline still forfeits on time."""

from __future__ import annotations

import random
from dataclasses import MISSING, fields, replace

import msgpack
import pytest

from engine.match import MatchOptions
from harness.machine_driver import Seat, play_until
from harness.stored_forms import positional
from protocol import events as pe
from server.machine import core, serial
from server.machine.commands import Double, Join, Resign, ResignReply, Take
from server.machine.state import Config, MatchState, owing, reserve_owed
from server.machine.view import public_view

MID = "00112233445566778899aabbccddeeff"
CLOCK = 30_000
GRACE = 1_000
RESERVE = 120_000


def new_match(reserve_ms: int = RESERVE) -> MatchState:
    config = Config(MatchOptions.match(5), clock_ms=CLOCK, grace_ms=GRACE, reserve_ms=reserve_ms)
    state, events = core.create(MID, config, "ann", 0)
    assert events[0].data == pe.MatchCreated("match", 5, False, False, CLOCK, reserve_ms)
    return core.apply(state, Join(1, name="bob"), 0).state


def at(decision: str, reserve_ms: int = RESERVE, seed: int = 3, now: int = 500):
    """A match where a seat owes ``decision`` (reached in time at ``now``); the seats."""
    rng = random.Random(seed)
    seats = [Seat(s, random.Random(rng.random()), double_rate=0, resign_rate=0) for s in (0, 1)]
    return play_until(new_match(reserve_ms), seats, decision, now), seats


def act(state: MatchState, seats: list[Seat], now: int, lag: int = 0) -> core.Accepted:
    (seat,) = owing(state)[0]
    command = seats[seat].decide(state)
    assert command is not None
    outcome = core.apply(state, replace(command, lag_ms=lag), now)
    assert isinstance(outcome, core.Accepted)
    return outcome


def started(state: MatchState) -> int:
    """When the current decision's plain clock started (its deadline less clock and reserve)."""
    _, reserve = reserve_owed(state)
    assert state.deadline is not None
    return state.deadline - CLOCK - reserve


def test_automatic_decisions_run_on_the_plain_clock_and_show_both_reserves():
    state = new_match()
    assert owing(state) == ((0, 1), "commit")
    assert state.deadline == CLOCK  # joined at 0: no reserve on the commitments
    assert state.reserves == (RESERVE, RESERVE)
    rolled, _ = at("reveal")
    assert reserve_owed(rolled) == (None, 0)
    assert rolled.deadline == 500 + CLOCK


@pytest.mark.parametrize("decision", ["decide", "move"])
def test_a_players_decision_may_run_into_its_reserve(decision):
    state, seats = at(decision)
    (seat,) = owing(state)[0]
    assert state.deadline == 500 + CLOCK + RESERVE
    # The clock the clients see says so: both reserves, the deadline with the reserve in it.
    assert public_view(state).game.clock == pe.Clock(
        decision, (seat,), 500 + CLOCK + RESERVE, (RESERVE, RESERVE)
    )
    # 45 s in: 15 s of the reserve used.
    after = act(state, seats, 500 + 45_000)
    expected = (RESERVE - 15_000, RESERVE) if seat == 0 else (RESERVE, RESERVE - 15_000)
    assert after.state.reserves == expected
    assert after.events[-1].next.reserves == expected


def test_a_decision_within_the_plain_clock_costs_no_reserve():
    state, seats = at("move")
    after = act(state, seats, started(state) + CLOCK)  # the last instant of the plain clock
    assert after.state.reserves == (RESERVE, RESERVE)


def test_the_reserve_left_carries_to_the_seats_next_decisions_and_runs_out():
    state, seats = at("move")
    (slow,) = owing(state)[0]
    now = started(state)

    def until_slow_decides(state: MatchState, now: int) -> tuple[MatchState, int]:
        # The other seat (and both seats' automatic decisions) act at once, 100 ms apart.
        while reserve_owed(state)[0] != slow:
            assert not state.is_over
            now += 100
            for seat in owing(state)[0]:
                command = seats[seat].decide(state)
                state = core.apply(state, command, now).state
        return state, now

    # The slow seat takes 70 s on each of its decisions: 40 s of its reserve each time.
    slow_decisions = 0
    while state.reserves[slow] > 0:
        state, now = until_slow_decides(state, now)
        assert state.deadline == now + CLOCK + state.reserves[slow]
        before = state.reserves[slow]
        now += 70_000
        state = act(state, seats, now).state
        slow_decisions += 1
        assert state.reserves[slow] == max(0, before - 40_000)
        assert state.reserves[1 - slow] == RESERVE
    assert slow_decisions == 3  # 120 s of reserve for 40 s per decision
    # Nothing left: the next decision runs on the plain clock, and passing it forfeits.
    state, now = until_slow_decides(state, now)
    assert state.deadline == now + CLOCK
    assert core.expire(state, state.deadline + GRACE) is None
    expired = core.expire(state, state.deadline + GRACE + 1)
    assert expired is not None and expired.state.is_over
    forfeit = [e.data for e in expired.events if isinstance(e.data, pe.Forfeit)]
    assert [(f.seat, f.reason) for f in forfeit] == [(slow, "timeout")]


def test_a_move_in_the_lag_allowance_after_the_deadline_empties_the_reserve():
    state, seats = at("move")
    (seat,) = owing(state)[0]
    assert state.deadline is not None
    with pytest.raises(core.Rejected) as late:
        act(state, seats, state.deadline + 401, lag=400)
    assert late.value.code == "too_late"
    after = act(state, seats, state.deadline + 400, lag=400)
    assert after.state.reserves[seat] == 0
    assert after.state.reserves[1 - seat] == RESERVE


def test_the_clock_settles_only_after_the_reserve_and_the_allowance():
    state, _ = at("decide")
    (seat,) = owing(state)[0]
    assert core.expire(state, started(state) + CLOCK + GRACE + 1) is None  # the reserve runs
    assert core.expire(state, state.deadline + GRACE) is None
    expired = core.expire(state, state.deadline + GRACE + 1)
    forfeit = [e.data for e in expired.events if isinstance(e.data, pe.Forfeit)]
    assert [(f.seat, f.reason) for f in forfeit] == [(seat, "timeout")]


def test_a_double_charges_the_doubler_and_the_taker_answers_with_its_own_reserve():
    state, _ = at("decide")
    (doubler,) = owing(state)[0]
    taker = 1 - doubler
    now = started(state) + CLOCK + 20_000
    doubled = core.apply(state, Double(doubler, 900, game=state.dice.game), now)
    assert isinstance(doubled, core.Accepted)
    after = doubled.state
    assert after.reserves[doubler] == RESERVE - 20_000
    assert owing(after) == ((taker,), "take")
    assert after.deadline == now + CLOCK + RESERVE
    taken = core.apply(after, Take(taker, 900, game=state.dice.game), now + CLOCK + 5_000)
    assert isinstance(taken, core.Accepted)
    assert taken.state.reserves[taker] == RESERVE - 5_000
    assert taken.state.reserves[doubler] == RESERVE - 20_000


def test_time_spent_before_an_opponents_interruption_is_still_charged():
    # Seat A thinks 50 s, resigns; B answers at once with a rejection: A's clock for the same
    # decision starts again with 20 s less reserve.
    state, _ = at("decide")
    (a,) = owing(state)[0]
    now = started(state) + 50_000
    offered = core.apply(state, Resign(a, 900, game=state.dice.game, level=1), now)
    assert isinstance(offered, core.Accepted)
    assert offered.state.reserves[a] == RESERVE - 20_000
    rejected = core.apply(
        offered.state, ResignReply(1 - a, 901, game=state.dice.game, accept=False), now + 1_000
    )
    assert isinstance(rejected, core.Accepted)
    assert owing(rejected.state) == ((a,), "decide")
    assert rejected.state.deadline == now + 1_000 + CLOCK + RESERVE - 20_000


def test_without_a_reserve_the_clock_is_the_plain_clock():
    state, seats = at("move", reserve_ms=0)
    assert state.deadline == 500 + CLOCK and state.reserves == (0, 0)
    after = act(state, seats, 500 + CLOCK)
    assert after.state.reserves == (0, 0)
    assert after.events[-1].next.deadline == 500 + CLOCK + CLOCK


def test_a_state_stored_before_the_reserve_existed_loads_without_one():
    state, _ = at("move")
    assert state.reserves == (RESERVE, RESERVE)
    # The last fields of the positional form (later ones never were in it: NEWER_FIELDS).
    newer = ("ahead", "updated", "vacation", "credited")
    assert [f.name for f in fields(MatchState) if f.name not in newer][-1] == "reserves"
    names = [f.name for f in fields(Config)]
    later = names[names.index("reserve_ms") :]  # reserve_ms and the fields added after it
    assert all(f.default is not MISSING for f in fields(Config) if f.name in later)
    # The legacy positional form: each dataclass a list, the new trailing fields missing (the
    # writer leaves out those added after the map form when at their default).
    stored = positional(replace(state, updated=0))  # (a time the positional form never held)
    stored[1] = stored[1][:-1]  # a Config without reserve_ms
    old = serial.load(MatchState, msgpack.unpackb(msgpack.packb(stored[:-1])))
    assert old.config.reserve_ms == 0 and old.reserves == (0, 0)
    # (the time of the last transition is newer than the positional form too)
    assert replace(old, config=state.config, reserves=state.reserves, updated=state.updated) == (
        state
    )
    # The map form without those keys.
    keyed = serial.dump(state)
    del keyed["reserves"]
    for name in later:
        keyed["config"].pop(name, None)
    old = serial.load(MatchState, msgpack.unpackb(msgpack.packb(keyed)))
    assert old.config.reserve_ms == 0 and old.reserves == (0, 0)
    assert serial.loads(MatchState, serial.dumps(state)) == state
