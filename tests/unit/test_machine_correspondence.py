"""Correspondence matches in the pure machine: reveals deposited ahead (docs/fairness.md,
section 15), so that a seat acts only when it owes a decision of its own, and never leaks.

Whole matches are played by seats that act only when they owe a decision and then make every
deposit they may (``harness.machine_driver.ahead``), as a client that connects, acts and
disconnects does. Each is kept as the server stores it and checked: nobody ever owes a
reveal, the roll-off of a game prepared ahead never waits for anyone, every finished game's
transcript verifies (links, dice, order, the deposits' order, the plays), the log replays to
the same state, and no held reveal or commitment is ever on the wire before its time.
"""

from __future__ import annotations

import functools
import random
from dataclasses import dataclass, field, replace

import pytest

from engine.match import MatchOptions
from engine.variants import rules
from harness.machine_driver import Seat, ahead
from protocol import events as pe
from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.fairdice import verify_transcript
from protocol.limits import DAY_MS
from protocol.messages import Event
from server.machine import core, serial
from server.machine.commands import Command, Commit, Join, Recommit, Reveal, Roll, Vacation
from server.machine.state import Config, MatchState, owing
from server.machine.view import settings
from server.match import replay
from server.match.history import finished_games, parse_log, transcript
from server.match.stored import command_record

DAY = 60_000  # a day on this test's clock


def config(options: MatchOptions, days: int = 1) -> Config:
    return Config(options, clock_ms=days * DAY, grace_ms=1000, days=days)


@dataclass
class Kept:
    """One match as the store keeps it: each event's frame, each transition's command record."""

    match_id: str
    state: MatchState
    now: int
    entries: list[tuple[int, dict[bytes, bytes]]] = field(default_factory=list)
    wire: bytearray = field(default_factory=bytearray)

    def keep(self, events: tuple[Event, ...], record: bytes) -> None:
        for i, event in enumerate(events):
            frame = encode(event)
            self.wire += frame
            self.entries.append((event.v, {b"e": frame, **({b"c": record} if i == 0 else {})}))

    def apply(self, command: Command, rng: random.Random) -> tuple[Event, ...]:
        self.now += rng.randint(1, 5_000)
        outcome = core.apply(self.state, command, self.now)
        assert isinstance(outcome, core.Accepted), (command, outcome)
        self.state = outcome.state
        self.keep(outcome.events, command_record(command, self.now))
        return outcome.events

    @property
    def records(self) -> list[bytes]:
        return [fields[b"c"] for _, fields in self.entries if b"c" in fields]


def held_secrets(state: MatchState) -> list[bytes]:
    """Every reveal the server holds back now, and the next game's commitments."""
    out = [r for r in state.dice.pending if r is not None]
    if state.ahead is not None:
        out += [r for r in state.ahead.pending if r is not None]
        out += [c for c in state.ahead.commitments if c is not None]
        for roll in state.ahead.held:
            out += [roll.reveal0, roll.reveal1]
    return out


def new(options: MatchOptions, seed: int) -> tuple[Kept, list[Seat], random.Random]:
    rng = random.Random(seed)
    cfg = config(options, days=rng.choice((1, 2, 3, 5, 7)))
    match_id = f"{seed:032x}"
    state, events = core.create(match_id, cfg, "Ann", 1_000)
    kept = Kept(match_id, state, 1_000)
    kept.keep(events, command_record(cfg, 1_000, "Ann"))
    kept.apply(Join(1, name="Bob"), rng)
    seats = [Seat(s, random.Random(rng.random())) for s in (0, 1)]
    for seat in seats:
        seat.double_rate = rng.choice((0.0, 0.1))
        seat.resign_rate = rng.choice((0.0, 0.01))
    return kept, seats, rng


def play(
    options: MatchOptions, seed: int, both: bool = False
) -> tuple[Kept, dict[str, int]]:
    """Seats that act only when they owe a decision, then deposit all they may (``both``:
    both seats look after each action, as a client does on each event it is sent — a Greek
    game's roll-off winner rolls next, so the loser's deposit is due after the winner's
    own reveal)."""
    kept, seats, rng = new(options, seed)
    seen = {"games": 0, "prepared": 0, "live_rolloffs": 0}
    for _ in range(20_000):
        state = kept.state
        if state.is_over:
            return kept, seen
        owed, decision = owing(state)
        assert decision != "reveal", "a seat had to be there to reveal"
        if decision in ("commit", "rolloff") and state.dice.game > 1:
            seen["live_rolloffs"] += 1
        seat = seats[rng.choice(owed)]
        command = seat.decide(state)
        assert command is not None
        game_before = state.dice.game
        prepared = state.ahead is not None and state.ahead.rolled_off
        events = kept.apply(command, rng)
        if kept.state.dice.game != game_before and not kept.state.is_over:
            seen["games"] += 1
            if prepared:
                seen["prepared"] += 1
                # A game prepared ahead starts with its roll-off decided: its winner moves.
                assert owing(kept.state)[1] == "move", [type(e.data).__name__ for e in events]
        for looking in seats if both else [seat]:
            while (extra := ahead(looking, kept.state)) is not None:
                kept.apply(extra, rng)
                for secret in held_secrets(kept.state):
                    assert secret not in kept.wire, "a held reveal or commitment is on the wire"
    raise AssertionError("the match did not finish")


SEEDS = range(12)


@functools.cache
def played(seed: int) -> tuple[Kept, dict[str, int]]:
    return play(MatchOptions.match(3 if seed % 2 else 5), seed)


@pytest.mark.parametrize("seed", SEEDS)
def test_correspondence_matches_need_nobody_to_reveal(seed: int) -> None:
    kept, seen = played(seed)
    log = parse_log(kept.entries)
    for game_no in finished_games(log):
        t = transcript(kept.match_id, log, game_no)
        verify_transcript(t, replay=True)
        deposits = [a for a in t.actions if a.type == "reveal"]
        assert deposits, "a correspondence game is played with deposits"
    assert replay.rebuild(kept.match_id, kept.records) == kept.state
    # Every game whose roll-off was rolled ahead started without anybody.
    assert seen["live_rolloffs"] <= seen["games"] - seen["prepared"]


def test_most_later_games_are_prepared_ahead() -> None:
    totals = {"games": 0, "prepared": 0}
    for seed in SEEDS:
        _, seen = played(seed)
        totals["games"] += seen["games"]
        totals["prepared"] += seen["prepared"]
    assert totals["games"] >= 16
    assert totals["prepared"] >= totals["games"] * 0.8, totals


def test_single_games_deposit_turn_reveals() -> None:
    kept, _ = play(MatchOptions.single_game(), 7)
    log = parse_log(kept.entries)
    t = transcript(kept.match_id, log, 1)
    verify_transcript(t)
    assert kept.state.ahead is None


# ---------------------------------------------------------------- refusals and secrets


def to_decide(seed: int = 3) -> tuple[Kept, list[Seat], random.Random]:
    """A correspondence match at a roll decision, the roller's opponent's deposit held (the
    seats deposit only their turn's reveals: the next game is not prepared)."""
    kept, seats, rng = new(MatchOptions.match(5), seed)
    for _ in range(200):
        state = kept.state
        owed, decision = owing(state)
        if decision == "decide" and state.dice.pending[1 - owed[0]] is not None:
            return kept, seats, rng
        seat = seats[rng.choice(owed)]
        command = seat.decide(state)
        assert command is not None
        kept.apply(command, rng)
        extra = ahead(seat, kept.state)
        if isinstance(extra, Reveal) and extra.game == kept.state.dice.game:
            kept.apply(extra, rng)
    raise AssertionError("no decision with a deposit held")


def commit_next(kept: Kept, seat: Seat, game: int, rng: random.Random) -> tuple[Event, ...]:
    commitment = seat.chain(kept.match_id, game).commitment
    return kept.apply(Commit(seat.seat, seat.next_seq(), game=game, commitment=commitment), rng)


def refused(state: MatchState, command: Command) -> core.Rejected:
    with pytest.raises(core.Rejected) as info:
        core.apply(state, command, state.deadline - 1 if state.deadline else 10**9)
    return info.value


def test_a_deposit_completes_the_roll_at_once_and_is_never_shown_before() -> None:
    kept, seats, rng = to_decide()
    state = kept.state
    roller = owing(state)[0][0]
    deposit = state.dice.pending[1 - roller]
    assert deposit is not None and deposit not in kept.wire
    k = state.dice.k
    link = seats[roller].chain(kept.match_id, state.dice.game).link(k)
    events = kept.apply(Roll(roller, seats[roller].next_seq(), game=state.dice.game, k=k,
                             reveal=link), rng)  # fmt: skip
    names = [type(e.data).__name__ for e in events]
    assert names[:2] == ["Rolling", "Dice"]
    dice = events[1].data
    assert isinstance(dice, pe.Dice)
    assert (dice.reveal0, dice.reveal1)[1 - roller] == deposit
    assert events[-1].next is not None and events[-1].next.phase in ("move", "decide")


def test_refusals_while_a_deposit_is_held() -> None:
    kept, seats, _ = to_decide()
    state = kept.state
    roller = owing(state)[0][0]
    other = 1 - roller
    game, k = state.dice.game, state.dice.k
    fresh = bytes(range(32))
    # No seat may change its chain once a link of the next roll is held.
    for seat in (roller, other):
        err = refused(state, Recommit(seat, 99, game=game, commitment=fresh))
        assert err.code is ErrorCode.BAD_COMMITMENT and "roll_in_progress" in err.message
    # The roller's reveal comes with its roll, never ahead.
    link = seats[roller].chain(kept.match_id, game).link(k)
    err = refused(state, Reveal(roller, 99, game=game, k=k, reveal=link))
    assert err.code is ErrorCode.NOT_YOUR_TURN
    # A second deposit, or one for another roll.
    link = seats[other].chain(kept.match_id, game).link(k)
    assert refused(state, Reveal(other, 99, game=game, k=k, reveal=link)).code is (
        ErrorCode.DUPLICATE
    )
    nxt = seats[other].chain(kept.match_id, game).link(k + 1)
    assert refused(state, Reveal(other, 99, game=game, k=k + 1, reveal=nxt)).code is (
        ErrorCode.STALE
    )


def test_an_invalid_deposit_forfeits_with_evidence() -> None:
    kept, seats, rng = new(MatchOptions.match(3), 5)
    for _ in range(200):
        state = kept.state
        owed, decision = owing(state)
        if decision == "decide":
            break
        seat = seats[rng.choice(owed)]
        command = seat.decide(state)
        assert command is not None
        kept.apply(command, rng)
    state = kept.state
    other = 1 - owing(state)[0][0]
    bad = bytes(32 * [7])
    outcome = core.apply(state, Reveal(other, 50, game=state.dice.game, k=state.dice.k,
                                       reveal=bad), kept.now + 1)  # fmt: skip
    assert isinstance(outcome, core.Accepted)
    forfeit = next(e.data for e in outcome.events if isinstance(e.data, pe.Forfeit))
    assert (forfeit.seat, forfeit.reason, forfeit.evidence) == (other, "invalid_reveal", bad)


def test_the_next_game_is_prepared_only_under_the_rules() -> None:
    kept, seats, rng = to_decide(11)
    state = kept.state
    game = state.dice.game + 1
    a, b = seats
    link = a.chain(kept.match_id, game).link(1)
    # No roll-off reveal before both seats committed to that game.
    assert refused(state, Reveal(0, 99, game=game, k=1, reveal=link)).code is (
        ErrorCode.WRONG_PHASE
    )
    events = commit_next(kept, a, game, rng)
    assert [type(e.data).__name__ for e in events] == ["CommitReceived"]
    assert refused(kept.state, Reveal(0, 99, game=game, k=1, reveal=link)).code is (
        ErrorCode.WRONG_PHASE
    )
    events = commit_next(kept, b, game, rng)
    assert [e.data for e in events][-1] == pe.RolloffAhead(game, 1)
    # Neither commitment is on the wire before that game starts.
    for c in kept.state.ahead.commitments:
        assert c is not None and c not in kept.wire
    # A reveal that does not follow the commitment is refused (the game has not started).
    err = refused(kept.state, Reveal(0, 99, game=game, k=1, reveal=bytes(32)))
    assert err.code is ErrorCode.BAD_REVEAL
    # Two games ahead, or in a single game, nothing is prepared.
    assert refused(kept.state, Commit(0, 99, game=game + 1, commitment=bytes(range(32)))).code in (
        ErrorCode.WRONG_PHASE,
        ErrorCode.STALE,
    )
    single, _, _ = new(MatchOptions.single_game(), 2)
    assert refused(single.state, Commit(0, 99, game=2, commitment=bytes(range(32)))).code in (
        ErrorCode.WRONG_PHASE,
        ErrorCode.STALE,
    )


def test_a_match_in_real_time_takes_no_deposit() -> None:
    kept, seats, _ = to_decide()
    live = replace(kept.state, config=replace(kept.state.config, days=0),
                   dice=replace(kept.state.dice, pending=(None, None)))  # fmt: skip
    roller = owing(live)[0][0]
    game, k = live.dice.game, live.dice.k
    link = seats[1 - roller].chain(kept.match_id, game).link(k)
    err = refused(live, Reveal(1 - roller, 99, game=game, k=k, reveal=link))
    assert err.code is ErrorCode.WRONG_PHASE
    commit = Commit(0, 99, game=game + 1, commitment=bytes(range(32)))
    assert refused(live, commit).code in (ErrorCode.WRONG_PHASE, ErrorCode.STALE)


def test_state_with_a_prepared_game_is_stored_and_loaded() -> None:
    for seed in range(20, 40):
        kept, seats, rng = new(MatchOptions.match(7), seed)
        for _ in range(400):
            state = kept.state
            if state.ahead is not None and state.ahead.held:
                assert serial.loads(MatchState, serial.dumps(state)) == state
                return
            owed, _ = owing(state)
            seat = seats[rng.choice(owed)]
            command = seat.decide(state)
            assert command is not None
            kept.apply(command, rng)
            while (extra := ahead(seat, kept.state)) is not None:
                kept.apply(extra, rng)
    raise AssertionError("no match prepared its next game's roll-off")


def test_the_wire_shows_days_in_move_time() -> None:
    assert settings(config(MatchOptions.match(5), days=3)).move_time == 3 * DAY_MS
    assert settings(Config(MatchOptions.match(5), clock_ms=30_000)).move_time == 30_000
    assert Config(MatchOptions.match(5)).correspondence is False


# ---------------------------------------------------------------- vacations


def test_a_vacation_stops_the_clock_of_the_seat_on_it_and_only_its() -> None:
    kept, seats, _ = to_decide(5)
    state = kept.state
    (roller,) = owing(state)[0]
    other = 1 - roller
    now = kept.now + 1_000
    due = state.deadline
    assert due is not None
    # The roller goes on vacation for 3 days: its decision is due 3 days later.
    until = now + 3 * DAY
    step = core.apply(state, Vacation(roller, until=until), now)
    assert isinstance(step, core.Accepted)
    assert [e.data for e in step.events] == [pe.Vacation(roller, until)]
    assert step.state.deadline == due + 3 * DAY == step.events[-1].next.deadline
    assert core.expire(step.state, due + 2 * DAY) is None  # not due on its old deadline
    # Back after one day: the clock runs again, two days' worth sooner.
    back = now + DAY
    ended = core.apply(step.state, Vacation(roller, until=0), back)
    assert isinstance(ended, core.Accepted)
    assert ended.state.deadline == due + DAY
    assert [e.data for e in ended.events] == [pe.Vacation(roller, None)]
    # The other seat's vacation does not touch the roller's clock, but the decisions it owes
    # start when it ends.
    away = core.apply(ended.state, Vacation(other, until=back + 5 * DAY), back + 1)
    assert isinstance(away, core.Accepted) and away.state.deadline == ended.state.deadline
    link = seats[roller].chain(kept.match_id, state.dice.game).link(state.dice.k)
    roll = Roll(roller, seats[roller].next_seq(), game=state.dice.game, k=state.dice.k,
                reveal=link)  # fmt: skip
    rolled = core.apply(away.state, roll, back + 2)
    assert isinstance(rolled, core.Accepted)
    s = rolled.state
    while owing(s)[0] != (other,):  # the roller plays; then the other seat owes a decision
        command = seats[owing(s)[0][0]].decide(s)
        assert command is not None
        outcome = core.apply(s, command, back + 3)
        assert isinstance(outcome, core.Accepted)
        s = outcome.state
    assert s.deadline == back + 5 * DAY + s.config.clock_ms


def test_a_vacation_is_for_correspondence_is_set_once_and_rescues_no_lost_game() -> None:
    kept, _, _ = to_decide(5)
    state = kept.state
    (roller,) = owing(state)[0]
    live = replace(state, config=replace(state.config, days=0))
    assert refused(live, Vacation(roller, until=10**9)).code is ErrorCode.WRONG_PHASE
    assert refused(state, Vacation(roller, until=0)).code is ErrorCode.DUPLICATE
    assert state.deadline is not None
    late = state.deadline + state.config.grace_ms + 1
    with pytest.raises(core.Rejected) as info:
        core.apply(state, Vacation(roller, until=late + DAY), late)
    assert info.value.code is ErrorCode.TOO_LATE


@pytest.mark.parametrize("seed", range(3))
def test_a_tavli_match_by_correspondence_commits_ahead_and_opens_without_anybody(seed):
    """A Greek game is opened by the last winner (docs/protocol.md, "Variants"): its
    commitments are made ahead, its roll-off never is (none is wanted, but after a draw)."""
    kept, seen = play(MatchOptions.match(3, rules("tavli")), seed, both=True)
    log = parse_log(kept.entries)
    assert not any(isinstance(e.data, pe.RolloffAhead) for e in log)
    assert seen["games"] >= 1 and seen["live_rolloffs"] <= sum(
        1 for e in log if isinstance(e.data, pe.GameOver) and e.data.winner is None
    )
    for game_no in finished_games(log):
        verify_transcript(transcript(kept.match_id, log, game_no), replay=True)
    assert replay.rebuild(kept.match_id, kept.records) == kept.state
