"""The match history (:mod:`server.match.history`, the facts read back from the wire events)
says what the replay (:mod:`server.match.replay`, the recorded commands through the machine
and so through the engine) says, for every game of many matches.

The matches are played through the pure machine with random legal play and random disruptions
— timeouts in every phase, both seats silent, leaving in and between games, invalid reveals,
stopped money sessions, resignations, doubles, beavers, Crawford games, roll-off ties — and
kept exactly as the server stores them: each event's frame, and the record of the command
that caused each transition on its first event. History reads that log; the replay reads its
command records alone. Per game both must give the same dice, plays, cube actions,
resignations, result and points, the same match end, and each finished game's fair-dice
transcript the same dice and result. A part of the corpus plays the variants (nackgammon,
hypergammon, portes, plakoto, fevga, Tavli matches): there every finished game's transcript
must also verify, its plays replayed by its variant's rules.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from engine import events as ev
from engine.match import MatchOptions, Mode
from engine.record import GameRecord, MatchRecord
from engine.variants import NAMES, rules
from harness.machine_driver import Seat
from protocol import events as pe
from protocol.codec import encode
from protocol.fairdice import verify_transcript
from protocol.messages import Event
from server.machine import core
from server.machine.commands import Command, Join, Leave, Reveal, Roll, Stop
from server.machine.state import Config, MatchState, Phase, owing
from server.match import replay
from server.match.history import Logged, finished_games, match_record, parse_log, transcript
from server.match.stored import command_record

CLOCK = 30_000
GRACE = 500


@dataclass
class Stored:
    """One match kept as the store keeps it (``Store.log_entries``, ``Store.commands``)."""

    match_id: str
    state: MatchState
    now: int
    entries: list[tuple[int, dict[bytes, bytes]]] = field(default_factory=list)

    def keep(self, events: tuple[Event, ...], record: bytes) -> None:
        assert events, "a transition without events would lose its command record"
        for i, event in enumerate(events):
            fields = {b"e": encode(event)}
            if i == 0:
                fields[b"c"] = record
            self.entries.append((event.v, fields))

    @property
    def records(self) -> list[bytes]:
        return [fields[b"c"] for _, fields in self.entries if b"c" in fields]

    @property
    def log(self) -> list[Logged]:
        return parse_log(self.entries)


class Player:
    """Plays one match: honest random seats, and now and then something else."""

    def __init__(self, seed: int, variant: str = "backgammon") -> None:
        rng = self.rng = random.Random(seed)
        played = rules(variant)
        choices = [
            MatchOptions.single_game(played),
            MatchOptions.match(rng.choice((1, 3, 5, 7)), played),
            MatchOptions.match(rng.choice((3, 5)), played),
        ]
        if played.cube:
            choices.append(
                MatchOptions.money(
                    jacoby=rng.random() < 0.5, beavers=rng.random() < 0.5, variant=played
                )
            )
        self.options = rng.choice(choices)
        self.seats = [Seat(s, random.Random(rng.random())) for s in (0, 1)]
        for seat in self.seats:
            seat.double_rate = rng.choice((0.0, 0.05, 0.3))
            seat.resign_rate = rng.choice((0.0, 0.01, 0.05))
        self.disrupt = rng.choice((0.0, 0.002, 0.01, 0.05))
        self.stop_after = rng.randint(1, 4)  # games of a money session
        reserve = rng.choice((0, 0, 20_000))
        config = Config(self.options, clock_ms=CLOCK, grace_ms=GRACE, reserve_ms=reserve)
        match_id = f"{seed:032x}"
        state, events = core.create(match_id, config, "Ann", 1_000)
        self.stored = Stored(match_id, state, 1_000)
        self.stored.keep(events, command_record(config, 1_000, "Ann"))

    @property
    def state(self) -> MatchState:
        return self.stored.state

    def apply(self, command: Command) -> None:
        stored = self.stored
        stored.now += self.rng.randint(1, 2_000)
        outcome = core.apply(stored.state, command, stored.now)
        assert isinstance(outcome, core.Accepted), outcome
        stored.state = outcome.state
        stored.keep(outcome.events, command_record(command, stored.now))

    def expire(self) -> None:
        stored = self.stored
        assert stored.state.deadline is not None
        stored.now = stored.state.deadline + GRACE + 1
        outcome = core.expire(stored.state, stored.now)
        assert outcome is not None
        stored.state = outcome.state
        stored.keep(outcome.events, command_record(None, stored.now))

    def play(self) -> Stored:
        rng = self.rng
        if rng.random() < 0.03:
            self.apply(Leave(0, self.seats[0].next_seq()))  # the creator leaves before anyone came
            return self.stored
        self.apply(Join(1, name="Bob"))
        for _ in range(20_000):
            state = self.state
            if state.is_over:
                return self.stored
            if self._money_stops(state):
                seat = self.seats[rng.randint(0, 1)]
                self.apply(Stop(seat.seat, seat.next_seq()))
            elif rng.random() < self.disrupt:
                self._disruption(state)
            else:
                seats, _ = owing(state)
                command = self.seats[rng.choice(seats)].decide(state)
                assert command is not None
                self.apply(command)
        raise AssertionError("the match did not end")

    def _money_stops(self, state: MatchState) -> bool:
        games = state.match.game_number
        return (
            self.options.mode is Mode.MONEY
            and state.phase is Phase.COMMIT
            and state.dice.commitments == (None, None)
            and games >= self.stop_after
        )

    def _disruption(self, state: MatchState) -> None:
        rng = self.rng
        seats, decision = owing(state)
        what = rng.choice(("expire", "expire", "leave", "bad_reveal"))
        if what == "leave":
            seat = rng.randint(0, 1)
            self.apply(Leave(seat, self.seats[seat].next_seq()))
        elif what == "bad_reveal" and decision in ("rolloff", "reveal", "decide"):
            seat = self.seats[seats[0]]
            bad = bytes(rng.randrange(256) for _ in range(32))
            game, k = state.dice.game, state.dice.k
            if decision == "decide":
                self.apply(Roll(seat.seat, seat.next_seq(), game=game, k=k, reveal=bad))
            else:
                self.apply(Reveal(seat.seat, seat.next_seq(), game=game, k=k, reveal=bad))
        else:
            if decision in ("commit", "rolloff") and len(seats) == 2 and rng.random() < 0.5:
                # One seat acts, the other stays silent and forfeits (not both: abandoned).
                self.apply(self.seats[seats[0]].decide(state))  # type: ignore[arg-type]
                if self.state.is_over or self.state.deadline is None:
                    return
            self.expire()


# ---------------------------------------------------------------- the facts of a game


def facts(game: GameRecord) -> dict[str, object]:
    """What a game's record says, fact by fact (a failing comparison names the fact)."""
    events = game.events

    def of(*kinds: type) -> list[ev.GameEvent]:
        return [e for e in events if isinstance(e, kinds)]

    return {
        "start": (game.number, game.score, game.crawford, game.cube),
        "dice": [e.dice for e in of(ev.RolledOff, ev.Rolled)],
        "roll-off": of(ev.RolledOff),
        "plays": of(ev.Moved, ev.Passed),
        "cube": of(ev.Doubled, ev.Taken, ev.Beavered, ev.Dropped),
        "resignations": of(ev.ResignOffered, ev.ResignAccepted, ev.ResignRejected),
        "forfeit": of(ev.Forfeited),
        "result": game.result,
        "points": (game.points, game.final_score),
    }


def replayed_record(stored: Stored) -> MatchRecord:
    """The engine's record of the match, from the replay of its command records alone."""
    outcomes = list(replay.replay(stored.match_id, stored.records))
    assert outcomes[-1].state == stored.state  # the replay is the match
    events = tuple(e for outcome in outcomes for e in outcome.engine)
    assert events == replay.engine_events(stored.match_id, stored.records)
    return MatchRecord.from_events(stored.state.config.options, ("", ""), events)


def compare(stored: Stored, rebuilt: MatchRecord) -> None:
    log = stored.log
    told = match_record(log)
    assert [g.number for g in told.games] == [g.number for g in rebuilt.games]
    for said, was in zip(told.games, rebuilt.games, strict=True):
        for fact, value in facts(was).items():
            assert facts(said)[fact] == value, f"game {was.number}: {fact}"
        assert said.events == was.events
    assert told.end == rebuilt.end
    by_number = {g.number: g for g in rebuilt.games}
    for number in finished_games(log):
        game = by_number[number]
        assert game.result is not None
        if not any(isinstance(e.data, pe.Committed) and e.data.game == number for e in log):
            # Forfeited before both seats committed: no dice, no transcript.
            assert not facts(game)["dice"]
            with pytest.raises(KeyError):
                transcript(stored.match_id, log, number)
            continue
        dice = transcript(stored.match_id, log, number)
        assert [(r.d1, r.d2) for r in dice.rolls] == facts(game)["dice"]
        result = dice.result
        kept = (result.winner, result.multiplier, result.cube, result.points)
        assert kept == (
            game.result.winner,
            int(game.result.counted or 0),
            game.result.cube,
            game.result.points,
        )
        assert dice.variant == game.variant and dice.opener == game.opener
        options = stored.state.config.options
        assert dice.jacoby == options.jacoby  # said only in a money session under the rule
        if options.variant.name != "backgammon" or game.result.jacoby:
            # Raises on any fault: the plays replayed by the variant; a game the Jacoby rule
            # counted as a single (test_fairdice_jacoby.py has games borne off so).
            verify_transcript(dice)


SEEDS = range(120)
VARIANTS = [n for n in NAMES if n != "backgammon"]
VARIANT_SEEDS = range(1_000, 1_000 + 3 * len(VARIANTS))


def variant_of(seed: int) -> str:
    return "backgammon" if seed < 1_000 else VARIANTS[seed % len(VARIANTS)]


@pytest.fixture(scope="module")
def corpus() -> dict[int, tuple[Stored, MatchRecord]]:
    played = {seed: Player(seed, variant_of(seed)).play() for seed in (*SEEDS, *VARIANT_SEEDS)}
    return {seed: (stored, replayed_record(stored)) for seed, stored in played.items()}


@pytest.mark.parametrize("seed", [*SEEDS, *VARIANT_SEEDS])
def test_history_says_what_the_replay_says(corpus, seed: int) -> None:
    compare(*corpus[seed])


def test_the_variant_corpus_plays_every_variant_and_the_greek_openings(corpus) -> None:
    records = [corpus[seed][1] for seed in VARIANT_SEEDS]
    games = [g for record in records for g in record.games]
    assert {g.variant for g in games} >= {n for n in VARIANTS if n != "tavli"}
    assert any(record.options.variant.name == "tavli" and len(record.games) > 2
               for record in records)  # fmt: skip
    assert any(g.opener is not None for g in games)  # a Greek game opened by the last winner
    greek = [g for g in games if g.variant in ("portes", "plakoto", "fevga") and g.events]
    assert any(isinstance(g.events[0], ev.RolledOff) for g in greek)
    assert not any(isinstance(e, ev.Doubled) for g in greek for e in g.events)


def test_the_corpus_has_every_kind_of_game_and_end(corpus) -> None:
    """The corpus is worth its name: every ending, cube action and special game occurs."""
    games = [g for _, record in corpus.values() for g in record.games]
    states = [stored.state for stored, _ in corpus.values()]
    ends = {s.match.end.value if s.match.end else None for s in states}
    reasons = {g.result.reason.value for g in games if g.result}
    forfeits = {g.result.forfeit.value for g in games if g.result and g.result.forfeit}
    events = {type(e).__name__ for g in games for e in g.events}
    assert ends >= {"completed", "forfeit", "stopped", None}
    assert {s.abandoned for s in states} == {True, False}
    assert reasons >= {"bear_off", "drop", "resign", "forfeit"}
    assert forfeits >= {"timeout", "no_reveal", "invalid_reveal", "abandoned"}
    assert events >= {"Doubled", "Taken", "Beavered", "Dropped", "Passed", "ResignRejected"}
    assert any(g.crawford for g in games)
    assert any(e.first is None for g in games for e in g.events if isinstance(e, ev.RolledOff))
    assert any(g.result and g.result.jacoby for g in games)  # a gammon counted as a single
    assert any(
        isinstance(a, ev.Beavered) and isinstance(b, ev.Dropped)
        for g in games
        for a, b in zip(g.events, g.events[1:], strict=False)
    )  # a beaver's redouble dropped by the doubler
    assert any(g.points != g.result.points for g in games if g.result)  # a match forfeit's
