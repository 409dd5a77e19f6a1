"""Our own ``.mat`` exports import back to the same match: every ending the engine knows.

Matches are played through the engine (seeded random play with the cube, beavers, the Jacoby
rule, resignations and forfeits at any moment, plus hand-made endings: sessions stopped by a
player or by both, matches forfeited between games or before their first roll), exported with
:func:`engine.matfile.export` and imported with :func:`engine.importer.read_match`. Two checks:

* the imported record equals the original in everything a ``.mat`` file carries
  (:func:`harness.import_samples.essentials`): per game its number, score, Crawford flag and
  cube, every roll (as the pair of dice), play (the engine's moves), pass, cube action,
  accepted resignation, forfeit and result, the points scored and the score after it; and how
  the match ended;
* exporting the imported record gives the file back byte for byte.

What ``.mat`` cannot carry, and so is left out of the comparison: roll-off ties, the order in
which the two dice came, and resignation offers that were not accepted.
"""

from __future__ import annotations

import datetime
import random
from dataclasses import replace

import pytest

from engine.events import EndOfMatch, Rolled
from engine.importer import read_match
from engine.match import Match, MatchOptions, Mode
from engine.matfile import export
from engine.record import MatchRecord
from engine.results import EndReason
from harness.import_samples import essentials
from harness.random_play import Policy, choose, play_match

NAMES = ("Ann Lee", "Bob")


def roundtrip(record: MatchRecord, **export_args) -> MatchRecord:
    text = export(record, **export_args)
    imported = read_match(text.encode())
    assert imported.format == "mat"
    assert essentials(imported.record) == essentials(record), text
    date = imported.tags.get("EventDate")
    again = export(
        imported.record,
        site=imported.tags["Site"],
        date=datetime.date(*map(int, date.split("."))) if date else None,
        comments=imported.comments,
    )
    assert again == text
    return imported.record


# ------------------------------------------------------------------ random play, every mode

OPTIONS = [
    MatchOptions.match(1), MatchOptions.match(3), MatchOptions.match(5), MatchOptions.match(7),
    MatchOptions.match(11), MatchOptions.money(), MatchOptions.money(jacoby=True),
    MatchOptions.money(beavers=True), MatchOptions.money(jacoby=True, beavers=True),
    MatchOptions.single_game(),
]


@pytest.mark.parametrize("seed", range(40))
def test_random_matches_round_trip(seed):
    rng = random.Random(seed)
    options = OPTIONS[seed % len(OPTIONS)]
    policy = Policy(double=0.12, beaver=0.4, take=0.7, resign=0.02, accept=0.6)
    _, events = play_match(options, rng, policy, money_games=3,
                           forfeit=0.003 if seed % 3 == 0 else 0.0)
    record = MatchRecord.from_events(options, NAMES, tuple(events))
    roundtrip(record, date=datetime.date(2026, 3, 1 + seed % 28),
              comments=["imported from the test", ""] if seed % 4 == 0 else ())


def test_the_random_matches_meet_every_ending():
    """The seeds above are not luck: they hold resignations (some counted as singles by the
    Jacoby rule), drops, bear-offs, forfeits, beavers, Crawford games and passes."""
    seen = set()
    for seed in range(40):
        rng = random.Random(seed)
        options = OPTIONS[seed % len(OPTIONS)]
        policy = Policy(double=0.12, beaver=0.4, take=0.7, resign=0.02, accept=0.6)
        _, events = play_match(options, rng, policy, money_games=3,
                               forfeit=0.003 if seed % 3 == 0 else 0.0)
        record = MatchRecord.from_events(options, NAMES, tuple(events))
        for game in record.games:
            result = game.result
            if result is not None:
                seen.add(result.reason.value)
                if result.jacoby and result.reason is EndReason.RESIGN:
                    seen.add("jacoby resign")
            seen.update(type(e).__name__ for e in game.events)
            if game.crawford:
                seen.add("crawford")
    assert {"bear_off", "drop", "resign", "forfeit", "jacoby resign", "Beavered", "Passed",
            "ResignRejected", "crawford"} <= seen


# ------------------------------------------------------------------ hand-made endings


CALM = Policy(double=0.0, resign=0.0)
"""Random play that keeps matches going (no cube, no resignations)."""


def drive(options: MatchOptions, seed: int, until, policy: Policy = CALM) -> tuple:
    """Random play until ``until(match)`` holds (checked between actions)."""
    rng = random.Random(seed)
    match = Match.new(options)
    events: list = []
    for _ in range(20_000):
        if until(match):
            return match, events
        if not match.in_game:
            match, new = match.start_game()
        else:
            name, args = choose(match.game, rng, policy)
            match, new = getattr(match, name)(*args)
        events.extend(new)
    raise AssertionError("never reached")


def test_a_session_stopped_by_one_player_and_by_both():
    options = MatchOptions.money(jacoby=True, beavers=True)
    match, events = drive(options, 3, lambda m: m.game_number == 2 and not m.in_game,
                          Policy(double=0.1, resign=0.0))
    _, stop = match.stop(1)
    record = roundtrip(MatchRecord.from_events(options, NAMES, (*events, *stop)))
    assert record.end.reason is EndOfMatch.STOPPED and record.end.by == 1
    # The server does not say who stopped a session: both did (by None).
    both = (*events, replace(stop[0], by=None))
    record = roundtrip(MatchRecord.from_events(options, NAMES, both))
    assert record.end.by is None


def test_forfeits_between_games_and_before_the_first():
    for options in (MatchOptions.match(15), MatchOptions.money()):
        match, events = drive(options, 4, lambda m: m.game_number == 1 and not m.in_game)
        assert not match.is_over
        _, over = match.forfeit(0, "abandoned")
        record = roundtrip(MatchRecord.from_events(options, NAMES, (*events, *over)))
        assert record.end.reason is EndOfMatch.FORFEIT and record.end.by == 0
    options = MatchOptions.match(3)
    _, over = Match.new(options).forfeit(1, "no_reveal")
    record = roundtrip(MatchRecord.from_events(options, NAMES, over))
    assert record.games == () and record.end.winner == 0


def test_games_forfeited_before_any_roll_use_a_placeholder_roll():
    options = MatchOptions.single_game()
    _, events = Match.new(options).forfeit(0, "timeout")  # the creator never came
    record = roundtrip(MatchRecord.from_events(options, NAMES, events))
    assert record.games[0].result.reason is EndReason.FORFEIT
    # In a match, the second game forfeited during its roll-off (after a tie).
    options = MatchOptions.match(7)
    match, events = drive(options, 6, lambda m: m.game_number == 1 and not m.in_game)
    match, more = match.start_game()
    match, tie = match.roll_off(4, 4)
    _, forfeit = match.forfeit(1, "no_reveal")
    record = roundtrip(MatchRecord.from_events(options, NAMES, (*events, *more, *tie, *forfeit)))
    assert record.end.by == 1 and record.end.score[0] == 7


def test_a_match_stopped_in_the_middle_of_a_game():
    """An export of a match still being played: the last game has no result."""
    options = MatchOptions.match(9)
    _, events = drive(options, 8, lambda m: m.game_number == 2 and m.game.turns >= 7)
    record = roundtrip(MatchRecord.from_events(options, NAMES, tuple(events)))
    assert record.end is None and not record.games[-1].is_over


def test_a_resignation_offered_after_the_roll():
    options = MatchOptions.match(3)
    match, events = drive(options, 9, lambda m: m.in_game and m.game.turns >= 6
                          and m.game.phase.value == "move")
    seat = match.game.on_roll
    match, offer = match.resign(seat, 1)
    _, accept = match.accept_resignation(1 - seat)
    record = roundtrip(MatchRecord.from_events(options, NAMES, (*events, *offer, *accept)))
    last = record.games[-1]
    assert isinstance(last.events[-4], Rolled) and last.result.reason is EndReason.RESIGN


def test_the_same_name_twice():
    options = MatchOptions.match(3)
    _, events = play_match(options, random.Random(2), Policy(double=0.1))
    record = MatchRecord.from_events(options, ("Guest", "Guest"), tuple(events))
    assert roundtrip(record).names == ("Guest", "Guest")


def test_the_engine_modes_survive():
    for options in OPTIONS:
        _, events = play_match(options, random.Random(1), Policy(), money_games=1)
        record = roundtrip(MatchRecord.from_events(options, NAMES, tuple(events)))
        assert record.options == options
        assert (record.options.mode is Mode.SINGLE_GAME) == (options.mode is Mode.SINGLE_GAME)
