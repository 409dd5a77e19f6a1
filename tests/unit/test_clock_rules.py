"""The clock rules of threats.md ("Clock") on the pure match machine, at exact instants:
a command is in time up to the deadline plus its lag allowance (its connection's measured
round trip, at most the match's allowance) and too late one millisecond after; the clock
settles only after the whole allowance; a move and a timeout at the same instant have one
outcome whatever reaches the server first; cube, resignation and reveal decisions run on the
clock of the seat that owes them."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from engine.match import MatchOptions
from harness.machine_driver import Seat, play_until
from protocol import events as pe
from server.machine import core
from server.machine.commands import Double, Join, Resign, Roll
from server.machine.state import Config, MatchState, owing

MID = "00112233445566778899aabbccddeeff"
CLOCK = 30_000
GRACE = 1_000


def new_match(options: MatchOptions) -> MatchState:
    state, _ = core.create(MID, Config(options, clock_ms=CLOCK, grace_ms=GRACE), "ann", 0)
    return core.apply(state, Join(1, name="bob"), 0).state


def at(decision: str, seed: int = 1, options: MatchOptions | None = None):
    """A match where a seat owes ``decision``; that seat's next command; the seats."""
    rng = random.Random(seed)
    seats = [Seat(s, random.Random(rng.random()), double_rate=0, resign_rate=0) for s in (0, 1)]
    state = play_until(new_match(options or MatchOptions.match(5)), seats, decision, now=500)
    owner = owing(state)[0][0]  # the first of them when both owe it (commit, roll-off)
    return state, seats[owner].decide(state), seats


def forfeits(outcome: core.Accepted | None) -> list[tuple[int, str]]:
    assert outcome is not None
    return [(e.data.seat, e.data.reason) for e in outcome.events if isinstance(e.data, pe.Forfeit)]


@pytest.mark.parametrize("lag", [0, 300, GRACE, 60_000])
@pytest.mark.parametrize("decision", ["rolloff", "move", "decide", "reveal", "commit"])
def test_in_time_up_to_the_deadline_plus_its_lag_allowance_too_late_one_ms_after(decision, lag):
    state, command, _ = at(decision)
    command = replace(command, lag_ms=lag)
    deadline, allowed = state.deadline, min(lag, GRACE)  # never more than the match allows
    assert isinstance(core.apply(state, command, deadline + allowed), core.Accepted)
    with pytest.raises(core.Rejected) as refused:
        core.apply(state, command, deadline + allowed + 1)
    assert refused.value.code == "too_late"
    # The clock settles only once nobody's allowance can still make a command in time.
    assert core.expire(state, deadline + GRACE) is None
    assert core.expire(state, deadline + GRACE + 1) is not None


def move_first(state: MatchState, move, now: int) -> tuple[str, MatchState]:
    """The move reaches the server before the sweeper looks at the clock."""
    try:
        moved = core.apply(state, move, now)
    except core.Rejected as exc:
        assert exc.code == "too_late"
        expired = core.expire(state, now)
        return ("refused", state) if expired is None else ("forfeit", expired.state)
    assert isinstance(moved, core.Accepted)
    assert core.expire(moved.state, now) is None  # the next decision has its own clock
    return "moved", moved.state


def timeout_first(state: MatchState, move, now: int) -> tuple[str, MatchState]:
    """The sweeper looks at the clock before the move arrives."""
    expired = core.expire(state, now)
    if expired is not None:
        with pytest.raises(core.Rejected) as refused:
            core.apply(expired.state, move, now)
        assert refused.value.code == "match_over"
        return "forfeit", expired.state
    try:
        return "moved", core.apply(state, move, now).state
    except core.Rejected as exc:
        assert exc.code == "too_late"
        return "refused", state


@pytest.mark.parametrize("lag", [0, 400, GRACE])
@pytest.mark.parametrize("seed", range(2))
def test_move_and_timeout_at_the_same_instant_have_one_outcome_whatever_comes_first(seed, lag):
    state, move, _ = at("move", seed)
    move = replace(move, lag_ms=lag)
    deadline = state.deadline
    # Around the end of the move's allowance and the clock's settling time (the same instant
    # for a connection whose round trip reaches the whole allowance).
    for now in sorted({deadline + b + d for b in (lag, GRACE) for d in (-1, 0, 1)}):
        one, two = move_first(state, move, now), timeout_first(state, move, now)
        assert one == two  # same outcome, same state, for everyone
        if now <= deadline + lag:
            assert one[0] == "moved"
        elif now <= deadline + GRACE:
            assert one[0] == "refused"  # too late for this move; the clock settles later
        else:
            assert one[0] == "forfeit"


def test_a_double_is_answered_on_the_takers_clock():
    state, _, _ = at("decide")
    (doubler,) = owing(state)[0]
    taker = 1 - doubler
    doubled = core.apply(state, Double(doubler, 900, game=state.dice.game), 10_000)
    assert isinstance(doubled, core.Accepted)
    after = doubled.state
    assert owing(after) == ((taker,), "take")
    assert after.deadline == 10_000 + CLOCK  # a fresh clock for the taker's decision
    assert doubled.events[-1].next == pe.Clock("take", (taker,), 10_000 + CLOCK)
    assert core.expire(after, after.deadline + GRACE) is None
    assert forfeits(core.expire(after, after.deadline + GRACE + 1)) == [(taker, "timeout")]


def test_the_roll_or_double_decision_runs_on_the_rollers_clock():
    state, _, _ = at("decide")
    (roller,) = owing(state)[0]
    assert forfeits(core.expire(state, state.deadline + GRACE + 1)) == [(roller, "timeout")]


def test_a_resignation_offer_is_answered_on_the_opponents_clock():
    state, _, _ = at("decide")
    (offerer,) = owing(state)[0]
    offered = core.apply(state, Resign(offerer, 900, game=state.dice.game, level=1), 12_000)
    assert isinstance(offered, core.Accepted)
    after = offered.state
    assert owing(after) == ((1 - offerer,), "resign")
    assert after.deadline == 12_000 + CLOCK
    assert forfeits(core.expire(after, after.deadline + GRACE + 1)) == [(1 - offerer, "timeout")]


def test_a_missing_reveal_is_charged_to_the_seat_that_owes_it():
    state, roll, _ = at("decide")
    assert isinstance(roll, Roll)
    rolled = core.apply(state, roll, 20_000)
    assert isinstance(rolled, core.Accepted)
    after = rolled.state
    assert owing(after) == ((1 - roll.seat,), "reveal")
    assert after.deadline == 20_000 + CLOCK
    expired = core.expire(after, after.deadline + GRACE + 1)
    assert forfeits(expired) == [(1 - roll.seat, "no_reveal")]


def test_a_timeout_is_settled_exactly_once():
    state, _, _ = at("move")
    settled = core.expire(state, state.deadline + GRACE + 1)
    assert settled is not None and settled.state.is_over
    for later in (1, 1_000, 10**9):
        assert core.expire(settled.state, state.deadline + GRACE + later) is None
