"""Every way a match can end, exported as ``.mat`` and imported into Debian's GNU Backgammon.

The matches are played through the pure match machine (the server's own core) and exported
from their wire event log exactly as ``GET /api/matches/{id}/match.mat`` does. One gnubg process
imports them all; for each file gnubg must find the same games, the same plays, each game won by
the right player for what the game's fair-dice transcript says it was worth, and so the same
score. gnubg is part of the test setup: when it is missing the test fails.
"""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest

from engine.match import MatchOptions
from harness.gnubg import gnubg_command, import_mats
from harness.machine_driver import Seat
from protocol import events as pe
from server.machine import core
from server.machine.commands import (
    Beaver,
    Double,
    Drop,
    Join,
    Leave,
    Resign,
    ResignReply,
    Reveal,
    Stop,
    Take,
)
from server.machine.state import Config, MatchState, Phase, owing
from server.match.history import Logged, mat_text, transcript

MID = "00112233445566778899aabbccddeeff"
CLOCK = 30_000


class Play:
    """One match through the machine, with its wire log (what the server stores)."""

    def __init__(self, options: MatchOptions, seed: int) -> None:
        self.now = 0
        state, events = core.create(MID, Config(options, clock_ms=CLOCK, grace_ms=500), "Ann", 0)
        self.log = [Logged(i + 1, 0, e.data) for i, e in enumerate(events)]
        self.state = state
        self.rng = random.Random(seed)
        self.seats = [Seat(0, random.Random(seed * 2 + 1)), Seat(1, random.Random(seed * 2 + 2))]
        for s in self.seats:
            s.double_rate = 0.0
            s.resign_rate = 0.0
        self.apply(Join(1, name="Bob"))

    def apply(self, command) -> None:
        self.now += 1000
        outcome = core.apply(self.state, command, self.now)
        assert isinstance(outcome, core.Accepted), outcome
        self._took(outcome)

    def expire(self) -> None:
        assert self.state.deadline is not None
        self.now = self.state.deadline + 10_000
        outcome = core.expire(self.state, self.now)
        assert outcome is not None
        self._took(outcome)

    def _took(self, outcome: core.Accepted) -> None:
        self.state = outcome.state
        base = self.log[-1].v if self.log else 0
        self.log += [Logged(base + i + 1, self.now, e.data) for i, e in enumerate(outcome.events)]

    def until(self, done: Callable[[MatchState], bool], limit: int = 5000) -> None:
        """Both seats play honestly until ``done(state)`` holds."""
        for _ in range(limit):
            if done(self.state):
                return
            assert not self.state.is_over, "the match ended before the scenario's moment"
            for seat in self.rng.sample(self.seats, 2):
                command = seat.decide(self.state)
                if command is not None:
                    self.apply(command)
                    break
        raise AssertionError("the scenario's moment never came")

    def seq(self, seat: int) -> int:
        return self.seats[seat].next_seq()

    @property
    def game(self) -> int:
        return self.state.dice.game

    def moves(self) -> int:
        return sum(isinstance(e.data, pe.Moved | pe.Passed) for e in self.log)


def owes(decision: str, min_moves: int = 0) -> Callable[[MatchState], bool]:
    def check(state: MatchState) -> bool:
        return owing(state)[1] == decision and (
            state.match.game is None or state.match.game.turns >= min_moves
        )

    return check


def can_double(state: MatchState) -> bool:
    game = state.match.game
    if owing(state)[1] != "decide" or game is None or game.turns < 4:
        return False
    from engine.game import Action

    return Action.DOUBLE in game.expected().actions


# ------------------------------------------------------------------ the endings


def time_in_a_match() -> Play:
    """The issue's case: lost on time in a 5-point match (the match is forfeited)."""
    p = Play(MatchOptions.match(5), 1)
    p.until(owes("move", 6))
    p.expire()
    return p


def time_in_the_bear_off() -> Play:
    """Lost on time in a 5-point match after bearing a checker off: the game is worth one point
    (the transcript's), the match goes to the winner by forfeit."""
    p = Play(MatchOptions.match(5), 8)

    def bearing_off(state: MatchState) -> bool:
        seats, decision = owing(state)
        game = state.match.game
        return decision == "move" and game is not None and game.boards[seats[0]][0] > 0

    p.until(bearing_off, limit=20_000)
    p.expire()
    return p


def time_in_the_second_game() -> Play:
    p = Play(MatchOptions.match(7), 2)
    p.until(lambda s: s.match.game_number == 2 and owes("move", 3)(s))
    p.expire()
    return p


def no_reveal() -> Play:
    p = Play(MatchOptions.match(3), 3)
    p.until(lambda s: owing(s)[1] == "reveal" and s.match.game is not None
            and s.match.game.turns >= 4)
    p.expire()
    return p


def invalid_reveal() -> Play:
    """The roller's opponent reveals a value that does not verify: it forfeits."""
    p = Play(MatchOptions.match(3), 9)
    p.until(lambda s: owing(s)[1] == "reveal" and s.match.game is not None
            and s.match.game.turns >= 3)
    seat = owing(p.state)[0][0]
    dice = p.state.dice
    p.apply(Reveal(seat, p.seq(seat), game=dice.game, k=dice.k, reveal=b"\x01" * 32))
    assert any(isinstance(e.data, pe.Forfeit) and e.data.reason == "invalid_reveal"
               for e in p.log)
    return p


def no_reveal_of_the_opening_roll() -> Play:
    p = Play(MatchOptions.money(), 4)
    p.until(owes("rolloff"))
    waiting = owing(p.state)[0]
    p.apply(p.seats[waiting[0]].decide(p.state))  # one reveals, the other never does
    p.expire()
    return p


def leave_mid_game() -> Play:
    p = Play(MatchOptions.match(5), 5)
    p.until(owes("move", 5))
    p.apply(Leave(1, p.seq(1)))
    return p


def leave_between_games() -> Play:
    p = Play(MatchOptions.match(9), 6)
    p.until(lambda s: s.match.game_number == 1 and s.match.game is not None
            and s.match.game.is_over and s.phase is Phase.COMMIT)
    p.apply(Leave(0, p.seq(0)))
    return p


def commit_missed_for_the_second_game() -> Play:
    p = Play(MatchOptions.match(9), 7)
    p.until(lambda s: s.match.game_number == 1 and s.phase is Phase.COMMIT
            and s.dice.game == 2)
    p.apply(p.seats[1].decide(p.state))  # seat 1 commits to game 2, seat 0 never does
    p.expire()
    return p


def resignation(level: int) -> Callable[[], Play]:
    """Resigning a 1-point match at ``level`` (or the highest level still possible)."""

    def scenario() -> Play:
        p = Play(MatchOptions.match(1), 10 + level)
        p.until(owes("decide", 5))
        seat = owing(p.state)[0][0]
        levels = [int(x) for x in p.state.match.game.resignation_levels(seat)]
        used = level if level in levels else levels[-1]
        p.apply(Resign(seat, p.seq(seat), game=p.game, level=used))
        p.apply(ResignReply(1 - seat, p.seq(1 - seat), game=p.game, accept=True))
        return p

    scenario.__name__ = f"resignation_{level}"
    return scenario


def resignation_with_a_beavered_cube() -> Play:
    p = Play(MatchOptions.money(jacoby=False, beavers=True), 15)
    p.until(can_double)
    seat = owing(p.state)[0][0]
    p.apply(Double(seat, p.seq(seat), game=p.game))
    p.apply(Beaver(1 - seat, p.seq(1 - seat), game=p.game))
    p.apply(Take(seat, p.seq(seat), game=p.game))
    p.until(owes("decide", 12))
    seat = owing(p.state)[0][0]
    p.apply(Resign(seat, p.seq(seat), game=p.game, level=1))
    p.apply(ResignReply(1 - seat, p.seq(1 - seat), game=p.game, accept=True))
    p.apply(Stop(0, p.seq(0)))
    return p


def drop_in_money() -> Play:
    p = Play(MatchOptions.money(jacoby=True, beavers=True), 20)
    p.until(can_double)
    seat = owing(p.state)[0][0]
    p.apply(Double(seat, p.seq(seat), game=p.game))
    p.apply(Drop(1 - seat, p.seq(1 - seat), game=p.game))
    p.apply(Stop(1, p.seq(1)))
    return p


def drop_of_a_beaver() -> Play:
    """The doubler drops the beaver's redouble: the beaver wins the doubled cube (2), not the
    value the beaver named (4)."""
    p = Play(MatchOptions.money(jacoby=False, beavers=True), 24)
    p.until(can_double)
    seat = owing(p.state)[0][0]
    p.apply(Double(seat, p.seq(seat), game=p.game))
    p.apply(Beaver(1 - seat, p.seq(1 - seat), game=p.game))
    p.apply(Drop(seat, p.seq(seat), game=p.game))
    p.apply(Stop(0, p.seq(0)))
    return p


def drop_ends_a_match() -> Play:
    p = Play(MatchOptions.match(2), 23)
    p.until(can_double)
    seat = owing(p.state)[0][0]
    p.apply(Double(seat, p.seq(seat), game=p.game))
    p.apply(Drop(1 - seat, p.seq(1 - seat), game=p.game))
    p.until(lambda s: s.is_over or can_double(s))
    if not p.state.is_over:
        seat = owing(p.state)[0][0]
        p.apply(Double(seat, p.seq(seat), game=p.game))
        p.apply(Drop(1 - seat, p.seq(1 - seat), game=p.game))
    return p


def stop_after_two_money_games() -> Play:
    p = Play(MatchOptions.money(jacoby=False, beavers=True), 21)
    for s in p.seats:
        s.double_rate = 0.1
    p.until(lambda s: s.match.game_number == 2 and s.phase is Phase.COMMIT and s.dice.game == 3)
    p.apply(Stop(1, p.seq(1)))
    return p


def leave_a_money_session_mid_game() -> Play:
    p = Play(MatchOptions.money(jacoby=True, beavers=True), 22)
    for s in p.seats:
        s.double_rate = 0.1
    p.until(lambda s: s.match.game_number == 2 and owes("move", 4)(s))
    p.apply(Leave(0, p.seq(0)))
    return p


def played_out(options: MatchOptions, seed: int) -> Callable[[], Play]:
    def scenario() -> Play:
        p = Play(options, seed)
        for s in p.seats:
            s.double_rate = 0.08
            s.resign_rate = 0.005
        p.until(lambda s: s.is_over, limit=50_000)
        return p

    scenario.__name__ = f"played_out_{options.mode.value}_{seed}"
    return scenario


SCENARIOS = [
    time_in_a_match,
    time_in_the_bear_off,
    time_in_the_second_game,
    no_reveal,
    invalid_reveal,
    no_reveal_of_the_opening_roll,
    leave_mid_game,
    leave_between_games,
    commit_missed_for_the_second_game,
    resignation(1),
    resignation(2),
    resignation(3),
    resignation_with_a_beavered_cube,
    drop_in_money,
    drop_ends_a_match,
    stop_after_two_money_games,
    leave_a_money_session_mid_game,
    played_out(MatchOptions.match(3), 30),
    played_out(MatchOptions.single_game(), 31),
    # Last: after importing it, gnubg (1.07) misreads the first game of the next file it
    # imports in the same process (two of its plays are left), whatever that file is.
    drop_of_a_beaver,
]


# ------------------------------------------------------------------ what gnubg must read


def expected(p: Play) -> dict:
    """The games as the wire log has them: per game the winner, what the game was worth by its
    fair-dice transcript, and the number of turns played (moves and dances)."""
    games = []
    turns = 0
    for entry in p.log:
        d = entry.data
        if isinstance(d, pe.GameStarted):
            turns = 0
        elif isinstance(d, pe.Moved | pe.Passed):
            turns += 1
        elif isinstance(d, pe.GameOver):
            worth = transcript(MID, p.log, d.game).result
            games.append({"winner": d.winner, "points": worth.points, "turns": turns})
    return {"games": games}


@pytest.fixture(scope="module")
def imported() -> list[tuple[str, Play, str, dict]]:
    assert gnubg_command() is not None, "gnubg is missing: apt-get install gnubg"
    plays = [(s.__name__, s()) for s in SCENARIOS]
    texts: list[str | Exception] = []
    for _, p in plays:
        try:
            texts.append(mat_text(p.log))
        except Exception as e:  # reported by that scenario's test, not by all of them
            texts.append(e)
    readable = [t for t in texts if isinstance(t, str)]
    results = iter(import_mats(readable))
    return [
        (name, p, text, next(results) if isinstance(text, str) else {"error": repr(text)})
        for (name, p), text in zip(plays, texts, strict=True)
    ]


@pytest.mark.parametrize("index", range(len(SCENARIOS)), ids=[s.__name__ for s in SCENARIOS])
def test_gnubg_reads_every_ending(imported, index):
    name, p, text, got = imported[index]
    assert p.state.is_over
    assert "error" not in got, f"{name}: gnubg could not import:\n{text}"
    want = expected(p)
    assert got["names"] == ["Ann", "Bob"]
    options = p.state.config.options
    assert got["length"] == (options.length if options.mode.value == "match" else 0)
    assert len(got["games"]) == len(want["games"]), text
    score = [0, 0]
    for number, (g, w) in enumerate(zip(got["games"], want["games"], strict=True), 1):
        where = f"{name}, game {number}:\n{text}"
        assert g["score"] == score, where
        assert g["winner"] == "XO"[w["winner"]], where
        assert g["points"] == w["points"], where
        played = [a for a in g["actions"] if a[0] == "move"]
        assert len(played) == w["turns"], where
        score[w["winner"]] += w["points"]
    # A match won by forfeit, or a stopped session, says its real final score in the header.
    over = next(e.data for e in reversed(p.log) if isinstance(e.data, pe.MatchOver))
    if over.reason in ("forfeit", "stopped"):
        assert f"; Final score {over.score[0]}-{over.score[1]}, winner: " in text
    # The final score in gnubg's reading is the sum of what each game was worth.
    if got["games"]:
        last = got["games"][-1]
        final = list(last["score"])
        final["XO".index(last["winner"])] += last["points"]
        assert final == score
