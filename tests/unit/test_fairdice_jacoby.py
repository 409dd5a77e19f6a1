"""The Jacoby rule in fair-dice transcripts: a money game played under it that ends in a gammon
or backgammon with the cube never turned counts as a single, and its transcript must verify
with multiplier 1 — while every other game still needs the final position's full multiplier.

The games are played through the pure match machine (honest seats, random legal plays, nobody
doubles or resigns) and their transcripts read back from the log as the server exports them
(:func:`server.match.history.transcript`): the path a user's ``/verify`` takes. The seeds are
fixed; each test first checks that its game is the one it needs (a gammon, a backgammon).
"""

from __future__ import annotations

import copy
import json
import random

import pytest

from engine.match import MatchOptions
from engine.results import ResultKind
from harness.machine_driver import Seat
from protocol import events as pe
from protocol.codec import encode
from protocol.fairdice import Problem, TranscriptError, parse_transcript, verify_json
from server.machine import core
from server.machine.commands import Join
from server.machine.state import Config, owing
from server.match.history import match_record, parse_log, transcript
from server.match.stored import command_record

GAMMON_SEED, BACKGAMMON_SEED = 0, 1  # game 1 ends in a gammon, a backgammon (checked below)


def first_game(seed: int, *, jacoby: bool) -> tuple[dict, ResultKind]:
    """Game 1 of a money session played to its end through the machine, nobody doubling: its
    transcript (JSON object, as exported) and what happened on the board."""
    rng = random.Random(seed)
    config = Config(MatchOptions.money(jacoby=jacoby))
    match_id, now = f"{seed:032x}", 1_000
    state, events = core.create(match_id, config, "Ann", now)
    entries: list[tuple[int, dict[bytes, bytes]]] = []

    def keep(events, record: bytes) -> None:
        for i, event in enumerate(events):
            fields = {b"e": encode(event)}
            if i == 0:
                fields[b"c"] = record
            entries.append((event.v, fields))

    keep(events, command_record(config, now, "Ann"))
    seats = [Seat(s, random.Random(rng.random()), double_rate=0.0, resign_rate=0.0)
             for s in (0, 1)]  # fmt: skip
    command = Join(1, name="Bob")
    while True:
        now += 1
        outcome = core.apply(state, command, now)
        assert isinstance(outcome, core.Accepted), outcome
        state = outcome.state
        keep(outcome.events, command_record(command, now))
        if any(isinstance(e.data, pe.GameOver) for e in outcome.events):
            break
        command = seats[owing(state)[0][0]].decide(state)
    log = parse_log(entries)
    game = match_record(log).games[0]
    assert game.result is not None and game.result.kind is not None
    return transcript(match_id, log, 1).to_obj(), game.result.kind


@pytest.fixture(scope="module")
def games() -> dict[tuple[int, bool], tuple[dict, ResultKind]]:
    return {
        (seed, jacoby): first_game(seed, jacoby=jacoby)
        for seed in (GAMMON_SEED, BACKGAMMON_SEED)
        for jacoby in (True, False)
    }


def refused(obj: dict) -> TranscriptError:
    with pytest.raises(TranscriptError) as caught:
        verify_json(json.dumps(obj))
    return caught.value


@pytest.mark.parametrize(
    ("seed", "kind"), [(GAMMON_SEED, ResultKind.GAMMON), (BACKGAMMON_SEED, ResultKind.BACKGAMMON)]
)
def test_an_uncubed_jacoby_gammon_verifies_as_a_single(games, seed, kind):
    obj, happened = games[(seed, True)]
    assert happened is kind  # the board's result; the Jacoby rule counted it as a single
    result = obj["result"]
    assert (result["reason"], result["multiplier"], result["cube"], result["points"]) == (
        "bear_off", 1, 1, 1,
    )
    verdict = verify_json(json.dumps(obj))  # the replay reaches the gammon and accepts the 1
    assert verdict.plays_replayed and verdict.result.multiplier == 1
    assert obj["jacoby"] is True
    assert parse_transcript(json.dumps(obj)).to_obj() == obj  # the field round-trips


@pytest.mark.parametrize(
    ("seed", "kind"), [(GAMMON_SEED, ResultKind.GAMMON), (BACKGAMMON_SEED, ResultKind.BACKGAMMON)]
)
def test_without_the_jacoby_rule_the_game_scores_the_full_multiplier(games, seed, kind):
    obj, happened = games[(seed, False)]
    assert happened is kind  # the same dice and plays, without the rule
    assert "jacoby" not in obj  # a transcript without the rule is as it always was
    assert obj["result"]["multiplier"] == int(kind)
    assert verify_json(json.dumps(obj)).result.multiplier == int(kind)
    single = copy.deepcopy(obj)
    single["result"] |= {"multiplier": 1, "points": 1}  # claimed as a single: refused
    e = refused(single)
    assert e.code == Problem.RESULT and e.path == "result.multiplier"
    assert str(e) == f"result: multiplier 1 but the final position scores {int(kind)}"


def test_a_jacoby_transcript_must_claim_what_the_rule_counts(games):
    obj, _ = games[(BACKGAMMON_SEED, True)]
    # Left out (an older transcript, or the rule not played): the full multiplier, as before.
    older = copy.deepcopy(obj)
    del older["jacoby"]
    assert str(refused(older)) == "result: multiplier 1 but the final position scores 3"
    older["result"] |= {"multiplier": 3, "points": 3}
    assert verify_json(json.dumps(older)).result.points == 3
    # Under the rule the uncubed backgammon counts 1: claiming 3 is refused.
    full = copy.deepcopy(obj)
    full["result"] |= {"multiplier": 3, "points": 3}
    e = refused(full)
    assert e.code == Problem.RESULT and e.path == "result.multiplier"
    assert "scores 1" in str(e) and "Jacoby" in str(e)
    # The cube turned (a game played for 2): the rule no longer applies, the full multiplier.
    cubed = copy.deepcopy(obj)
    cubed["result"] |= {"cube": 2, "points": 2}
    assert str(refused(cubed)) == "result: multiplier 1 but the final position scores 3"
    cubed["result"] |= {"multiplier": 3, "points": 6}
    assert verify_json(json.dumps(cubed)).result.points == 6


@pytest.mark.parametrize(
    ("value", "variant", "message"),
    [
        (False, None, "jacoby: expected true (a game without the Jacoby rule leaves it out)"),
        (1, None, "jacoby: expected true (a game without the Jacoby rule leaves it out)"),
        (True, "portes", "jacoby: portes has no cube: no money play, no Jacoby rule"),
    ],
)
def test_the_jacoby_field_is_true_or_absent(games, value, variant, message):
    obj = copy.deepcopy(games[(GAMMON_SEED, True)][0])
    obj["jacoby"] = value
    if variant is not None:
        obj["variant"] = variant
    e = refused(obj)
    assert (e.code, str(e)) == (Problem.SCHEMA, message)
