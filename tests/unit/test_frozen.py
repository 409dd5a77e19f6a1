"""engine.frozen.evolve against dataclasses.replace, and the machine's shortcuts (owing without
the allowed actions, Game.expected's resignation test) against what they stand for, over the
states of seeded matches."""

import dataclasses
import random

import pytest

from engine.frozen import evolve
from engine.game import Action, Game
from engine.match import Match, MatchOptions
from engine.results import ResultKind
from harness.machine_driver import Seat
from server.machine import core
from server.machine.commands import Join
from server.machine.state import Config, Dice, MatchState, Phase, owing


def _states(seed: int) -> list[MatchState]:
    rng = random.Random(seed)
    rates = {"double_rate": 0.1, "resign_rate": 0.02}
    seats = [Seat(s, random.Random(rng.random()), **rates) for s in (0, 1)]
    state, _ = core.create("cd" * 16, Config(MatchOptions.match(3), reserve_ms=60_000), "a", 0)
    state = core.apply(state, Join(1, name="b"), 0).state
    out, now = [state], 0
    while not state.is_over and len(out) < 2000:
        for s in seats:
            c = s.decide(state)
            if c is not None:
                now += 100
                state = core.apply(state, c, now).state
                out.append(state)
                break
    return out


STATES = [s for seed in (1, 2) for s in _states(seed)]


def test_the_matches_cover_play() -> None:
    phases = {s.phase for s in STATES}
    assert {Phase.COMMIT, Phase.PLAY, Phase.REVEAL, Phase.OVER} <= phases
    assert any(s.match.game is not None and s.match.game.resignation is not None for s in STATES)


def test_evolve_is_replace() -> None:
    for state in STATES[::7]:
        assert evolve(state, version=7, reserves=(1, 2)) == dataclasses.replace(
            state, version=7, reserves=(1, 2)
        )
        assert evolve(state.dice, k=9) == dataclasses.replace(state.dice, k=9)
        assert evolve(state.match, score=(1, 1)) == dataclasses.replace(state.match, score=(1, 1))
        copy = evolve(state)
        assert copy == state and copy is not state


def test_evolve_refuses_what_replace_would_check_or_not_know() -> None:
    with pytest.raises(TypeError, match="no field 'nope'"):
        evolve(Dice(), nope=1)
    with pytest.raises(TypeError, match="plain dataclass"):
        evolve(MatchOptions.match(3), length=4)  # its __post_init__ checks the length

    @dataclasses.dataclass(frozen=True)
    class Derived:
        a: int
        b: int = dataclasses.field(init=False, default=0)

    with pytest.raises(TypeError, match="outside __init__"):
        evolve(Derived(1), a=2)


def _owing_by_expected(state: MatchState) -> tuple[tuple[int, ...], str]:
    expected = state.match.expected()
    if expected is None or expected.seat is None:
        return (), "over"
    return (expected.seat,), expected.phase.value


def test_owing_in_play_is_what_expected_says() -> None:
    played = [s for s in STATES if s.phase is Phase.PLAY]
    assert len(played) > 100
    for state in played:
        assert owing(state) == _owing_by_expected(state)


def test_resign_is_offered_exactly_when_there_are_levels() -> None:
    games: list[Game] = [
        s.match.game for s in STATES if isinstance(s.match, Match) and s.match.game is not None
    ]
    declined = (None, *ResultKind)  # every level a rejected resignation may have left
    for game in games:
        seat = game.to_act
        if seat is None:
            continue
        for level in declined:
            g = dataclasses.replace(game, declined=level)
            assert (Action.RESIGN in g.expected().actions) == bool(g.resignation_levels(seat))
    assert any(Action.RESIGN in g.expected().actions for g in games)
    assert any(g.to_act is not None and Action.RESIGN not in g.expected().actions for g in games)
