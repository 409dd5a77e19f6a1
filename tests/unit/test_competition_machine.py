"""The tournament machine's contract, whatever the kind: typed refusals that change nothing,
idempotent commands, the stored form of states, commands and effects, and determinism (the
same commands at the same times give the same states: a log replays)."""

from __future__ import annotations

import dataclasses
import random

import msgpack
import pytest

from engine.match import MatchOptions
from harness.tournament_driver import TID, Driver, config, entrants, random_results
from server.competition import commands, effects, machine
from server.competition.commands import Connected, Join, MatchFinished, Tick, Withdraw
from server.competition.errors import Refused
from server.competition.state import (
    Config,
    Game,
    How,
    Kind,
    Pairing,
    TournamentState,
    dumps,
    loads,
)
from server.machine import serial

MIN = 60_000


def refused(state: TournamentState, command: object, now: int = 0) -> str:
    before = dumps(state)
    with pytest.raises(Refused) as caught:
        machine.apply(state, command, now)  # type: ignore[arg-type]
    assert dumps(state) == before
    assert caught.value.message
    return caught.value.code


@pytest.mark.parametrize(
    ("terms", "words"),
    [
        ({"kind": Kind.KNOCKOUT, "max_players": 3}, "4..256 players"),
        ({"kind": Kind.KNOCKOUT, "max_players": 257}, "4..256 players"),
        ({"kind": Kind.ARENA, "max_players": 1001, "duration_ms": MIN}, "2..1000"),
        ({"kind": Kind.SWISS, "rounds": 0}, "1..20 rounds"),
        ({"kind": Kind.SWISS, "rounds": 21}, "1..20 rounds"),
        ({"kind": Kind.KNOCKOUT, "rounds": 3}, "rounds is for Swiss"),
        ({"kind": Kind.SWISS, "rounds": 3, "duration_ms": MIN}, "arenas only"),
        ({"kind": Kind.ARENA}, "1..720 minutes"),
        ({"kind": Kind.ARENA, "duration_ms": 721 * MIN}, "1..720 minutes"),
        ({"kind": Kind.ARENA, "duration_ms": MIN, "cutoff_ms": MIN}, "cutoff_ms"),
        ({"kind": Kind.KNOCKOUT, "options": MatchOptions.money()}, "single games or matches"),
        ({"kind": Kind.KNOCKOUT, "start_at": -1}, "start_at"),
        ({"kind": Kind.KNOCKOUT, "start_at": 31 * 24 * 60 * MIN}, "start_at"),
        ({"kind": Kind.KNOCKOUT, "no_show_ms": 9_999}, "no_show_ms"),
        ({"kind": Kind.KNOCKOUT, "clock_ms": 0}, "clock_ms"),
        ({"kind": Kind.KNOCKOUT, "max_players": 8.0}, "whole number"),
        ({"kind": Kind.KNOCKOUT, "rated": "yes"}, "true or false"),
        ({"kind": "ladder"}, "kind is one of"),
    ],
)
def test_terms_outside_the_limits_are_refused_by_name(terms: dict, words: str) -> None:
    base = {"options": MatchOptions.match(3), "max_players": 8}
    with pytest.raises(Refused) as caught:
        machine.create(TID, Config(**(base | terms)), "ann", now=0)
    assert caught.value.code == "bad_config" and words in caught.value.message


def test_ids_are_checked() -> None:
    good = config(Kind.KNOCKOUT, max_players=8)
    for bad in ("", "a b", "x" * 65, "tab\t", 7):
        with pytest.raises(Refused) as caught:
            machine.create(bad, good, "ann", now=0)  # type: ignore[arg-type]
        assert caught.value.code == "bad_field"


def test_bad_commands_are_refused_and_change_nothing() -> None:
    driver = Driver.new(config(Kind.KNOCKOUT, max_players=4))
    state = driver.state
    assert refused(state, Join("", "Ann")) == "bad_field"
    assert refused(state, Join("ann", "")) == "bad_field"
    assert refused(state, Join("ann", "A\nB")) == "bad_field"
    assert refused(state, Join("ann", "Ann", float("nan"))) == "bad_field"
    assert refused(state, Join("ann", "Ann", True)) == "bad_field"  # type: ignore[arg-type]
    assert refused(state, Withdraw("ann")) == "not_a_player"
    assert refused(state, Connected("0" * 32, 0)) == "unknown_match"
    assert refused(state, MatchFinished("0" * 32, 0)) == "unknown_match"
    assert refused(state, "join") == "unknown_command"
    with pytest.raises(Refused) as caught:
        machine.apply(state, Tick(), now=1.5)  # type: ignore[arg-type]
    assert caught.value.code == "bad_field"
    driver.join(entrants(4), at=1)
    state = driver.state
    match = driver.running()[0].match
    assert refused(state, Connected(match, 2)) == "bad_field"  # type: ignore[arg-type]
    assert refused(state, MatchFinished(match, 2)) == "bad_field"  # type: ignore[arg-type]
    assert refused(state, MatchFinished(match, True)) == "bad_field"  # type: ignore[arg-type]
    assert refused(state, MatchFinished(match, 0, (1, -1))) == "bad_field"  # type: ignore[arg-type]
    bad_game = Game(0, "triple", "bear_off")
    assert refused(state, MatchFinished(match, 0, (1, 0), (bad_game,))) == "bad_field"  # type: ignore[arg-type]
    assert refused(state, Join("new", "New")) == "started"


def test_repeated_commands_change_nothing() -> None:
    driver = Driver.new(config(Kind.SWISS, max_players=4, rounds=2, start_at=10))
    driver.join(entrants(4), at=0)
    state = driver.state
    assert machine.apply(state, entrants(4)[0], 1) == machine.Unchanged("already in")
    assert machine.apply(state, Tick(), 9) == machine.Unchanged("nothing to do")
    driver.tick(10)
    pairing = driver.running()[0]
    driver.connect(pairing)
    state = driver.state
    assert isinstance(machine.apply(state, Connected(pairing.match, 0), 11), machine.Unchanged)  # type: ignore[arg-type]
    driver.finish(pairing, 1)
    state = driver.state
    again = machine.apply(state, MatchFinished(pairing.match, 0, (0, 1)), 12)  # type: ignore[arg-type]
    assert again == machine.Unchanged("already counted")  # even with another result
    driver.do(Withdraw(pairing.players[0]))  # type: ignore[arg-type]
    assert machine.apply(driver.state, Withdraw(pairing.players[0]), 13) == machine.Unchanged(  # type: ignore[arg-type]
        "already withdrawn"
    )


def test_a_finished_tournament_refuses_joins_and_withdrawals() -> None:
    driver = Driver.new(config(Kind.KNOCKOUT, max_players=4))
    driver.join(entrants(4), at=0)
    driver.play(random_results(random.Random(1)))
    state = driver.state
    assert state.phase.value == "finished"
    assert refused(state, Join("new", "New"), 10**6) == "finished"
    assert refused(state, Withdraw("p000"), 10**6) == "finished"
    assert machine.next_due(state) is None


def every_kind_of_state() -> list[TournamentState]:
    """States holding every kind of outcome, phase and player, from three short runs."""
    out = []
    ko = Driver.new(config(Kind.KNOCKOUT, max_players=8))
    ko.join(entrants(8), at=0)
    out.append(ko.state)
    _, _, b3, b4 = sorted(ko.running(), key=lambda p: p.board)
    ko.do(Connected(b3.match, 0))  # type: ignore[arg-type]
    ko.connect(b4)
    ko.do(Withdraw(b4.players[0]))  # type: ignore[arg-type]  # withdrew
    ko.tick(ko.now + 120_000)  # boards 1 and 2: nobody came (empty next); board 3: a no-show
    out.append(ko.state)
    ko.play(random_results(random.Random(2)))  # round 2 board 2 played; the final a walkover
    out.append(ko.state)
    sw = Driver.new(config(Kind.SWISS, max_players=5, rounds=2))
    sw.join(entrants(5), at=0)
    sw.play(random_results(random.Random(3)))
    out.append(sw.state)
    ar = Driver.new(config(Kind.ARENA, max_players=3, duration_ms=10 * MIN))
    ar.join(entrants(3), at=0)
    ar.play(random_results(random.Random(4)), step_ms=60_000)
    out.append(ar.state)
    hows = {p.outcome.how for s in out for p in s.pairings if p.outcome}
    assert hows == set(How), hows
    return out


def test_the_stored_form_is_maps_of_field_names() -> None:
    for state in every_kind_of_state():
        blob = dumps(state)
        assert loads(blob) == state
        stored = msgpack.unpackb(blob)
        assert set(stored) == {f.name for f in dataclasses.fields(TournamentState)}
        pairing = stored["pairings"][0]
        assert set(pairing) == {f.name for f in dataclasses.fields(Pairing)}
        assert stored["config"]["kind"] in ("knockout", "swiss", "arena")
        assert b"TournamentState" not in blob and b"Pairing" not in blob
        # a map in another order, and one missing a field with a default, load the same
        shuffled = dict(reversed(list(stored.items())))
        del shuffled["version"]
        assert serial.load(TournamentState, shuffled) == dataclasses.replace(state, version=0)


def test_commands_and_effects_have_stable_records() -> None:
    said = [
        Join("ann", "Ann", 1620.5),
        Withdraw("ann"),
        Connected("a" * 32, 1),
        MatchFinished("a" * 32, 1, (1, 3), (Game(1, "gammon", "bear_off"),)),
        Tick(),
    ]
    assert {commands.record_kind(c) for c in said} == set(commands.RECORD_KINDS)
    for command in said:
        body = msgpack.unpackb(msgpack.packb(serial.dump(command)))
        assert commands.recorded_command(commands.record_kind(command), body) == command
    driver = Driver.new(config(Kind.SWISS, max_players=5, rounds=2))
    driver.join(entrants(5), at=0)
    driver.do(Withdraw("p004"))
    driver.play(random_results(random.Random(5)))
    kinds = set()
    for effect in driver.effects:
        kind, body = effects.record(effect)
        kinds.add(kind)
        assert effects.recorded_effect(kind, msgpack.unpackb(msgpack.packb(body))) == effect
    assert kinds >= set(effects.RECORD_KINDS) - {"Forfeit"}
    with pytest.raises(ValueError, match="newer version"):
        commands.recorded_command("Promote", {})


def test_the_same_commands_at_the_same_times_give_the_same_tournament() -> None:
    """Record every command a run applies with its time; replaying the log from the creation
    gives the same states and the same effects (the machine reads nothing else)."""
    log: list[tuple[object, int]] = []

    class Recording(Driver):
        def do(self, command, at=None):  # type: ignore[no-untyped-def]
            log.append((command, at if at is not None else self.now))
            return super().do(command, at)

    run = Recording.new(config(Kind.ARENA, max_players=8, duration_ms=15 * MIN))
    run.join(entrants(8), at=0)
    while run.state.phase.value == "running":
        run.play(random_results(random.Random(6)), step_ms=30_000)
        run.tick(run.now + 30_000)
    state = machine.create(TID, run.state.config, "creator", 0)
    replayed = []
    for command, now in log:
        step = machine.apply(state, command, now)  # type: ignore[arg-type]
        if isinstance(step, machine.Accepted):
            state = step.state
            replayed.extend(step.effects)
    assert state == run.state and replayed == run.effects


def test_next_due_names_the_start_or_the_expiry_of_an_open_tournament() -> None:
    timed = Driver.new(config(Kind.KNOCKOUT, max_players=8, start_at=5 * MIN))
    assert machine.next_due(timed.state) == 5 * MIN
    full = Driver.new(config(Kind.KNOCKOUT, max_players=8, open_ms=10 * MIN), now=7)
    assert machine.next_due(full.state) == 7 + 10 * MIN
