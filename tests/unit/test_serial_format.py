"""The stored formats of the match state and the log's command records, old and new.

``legacy_store.json`` holds snapshots and logs as the server stored them before dataclasses
were stored as maps keyed by field name (each dataclass a positional list): they must load
forever, and each log must replay to its snapshot.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import random
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import msgpack
import pytest

from engine.cube import Cube
from engine.game import Phase as GamePhase
from engine.match import MatchOptions
from harness.machine_driver import Seat
from harness.stored_forms import positional, positional_bytes
from server.machine import commands, core, serial
from server.machine.commands import Command, Join, MovePlay, OfferRematch, Stop
from server.machine.state import Config, MatchState, Phase, owing
from server.match.replay import rebuild
from server.match.stored import command_record

MID = "0123456789abcdef0123456789abcdef"
REMATCH = "fedcba9876543210fedcba9876543210"

LEGACY = json.loads((Path(__file__).parent / "legacy_store.json").read_text(encoding="utf-8"))
SCENARIOS = sorted(k for k in LEGACY if k != "note")


def legacy_snapshot(name: str) -> MatchState:
    return serial.loads(MatchState, bytes.fromhex(LEGACY[name]["snapshot"]))


def legacy_log(name: str) -> list[bytes]:
    return [bytes.fromhex(r) for r in LEGACY[name]["log"]]


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_legacy_snapshot_and_log_load_and_the_log_replays_to_the_snapshot(name):
    state = legacy_snapshot(name)
    rebuilt = rebuild(LEGACY[name]["match"], legacy_log(name))
    # All but the fingerprints of the last commands (see below), which hash their stored form,
    # and the time of the last transition, which snapshots of that form do not hold.
    assert state.updated == 0 and rebuilt.updated > 0
    assert replace(rebuilt, last_digest=state.last_digest, updated=0) == state
    assert serial.loads(MatchState, serial.dumps(state)) == state


def test_the_legacy_logs_hold_every_kind_of_record_but_recommit():
    kinds = {msgpack.unpackb(r, raw=False)[0] for name in SCENARIOS for r in legacy_log(name)}
    assert kinds == {
        "Create", "Expire", "Join", "Commit", "Reveal", "Roll", "MovePlay", "Double", "Take",
        "Drop", "Beaver", "Resign", "ResignReply", "Stop", "Leave", "OfferRematch",
        "DeclineRematch",
    }  # fmt: skip


def test_the_legacy_mid_game_snapshot_is_the_state_that_was_stored():
    state = legacy_snapshot("midgame")
    game = state.match.game
    assert game is not None
    assert state.config == Config(
        MatchOptions.match(5), clock_ms=30_000, grace_ms=1_000, reserve_ms=60_000
    )
    assert (state.names, state.phase, owing(state)[1]) == (("ann", "bob"), Phase.PLAY, "move")
    assert (state.match.score, state.dice.game, game.turns) == ((1, 0), 2, 11)
    assert game.cube == Cube(value=2, owner=0)
    assert state.reserves == (60_000, 60_000) and state.rematch is None
    over = legacy_snapshot("rematch")
    assert over.is_over and over.rematch is not None and over.rematch.by == 0
    assert over.config.options == MatchOptions.money(jacoby=True, beavers=True)
    declined = legacy_snapshot("declined")
    assert (declined.config.rematch_of, declined.config.rematch_for) == (over.match_id, 1)


# ---------------------------------------------------------------- engine phases' old names

PHASES = json.loads((Path(__file__).parent / "legacy_phases.json").read_text(encoding="utf-8"))
# A value the engine's Game.phase held before it took the protocol's names: the member it loads
# as, and the decision the match then owes.
OLD_PHASES = {
    "roll_off": (GamePhase.ROLLOFF, "rolloff"),
    "roll": (GamePhase.DECIDE, "decide"),
    "resignation": (GamePhase.RESIGN, "resign"),
}


@pytest.mark.parametrize("old", list(OLD_PHASES))
def test_a_snapshot_stored_with_an_old_engine_phase_loads_and_its_log_replays_to_it(old):
    phase, decision = OLD_PHASES[old]
    raw = bytes.fromhex(PHASES[old]["snapshot"])
    assert msgpack.unpackb(raw, raw=False)["match"]["game"]["phase"] == old
    state = serial.loads(MatchState, raw)
    game = state.match.game
    assert game is not None and game.phase is phase and owing(state)[1] == decision
    if game.resignation is not None:
        assert game.resignation.resumes is GamePhase.DECIDE  # stored as "roll"
    log = [bytes.fromhex(r) for r in PHASES["log"][: PHASES[old]["records"]]]
    assert replace(rebuild(PHASES["match"], log), updated=0) == state  # (stored before `updated`)
    # Stored again, it is stored under the new name.
    again = msgpack.unpackb(serial.dumps(state), raw=False)
    assert again["match"]["game"]["phase"] == phase.value != old
    assert serial.load(MatchState, again) == state


def test_an_unknown_phase_is_refused_and_the_old_names_are_the_engine_games_only():
    data = msgpack.unpackb(bytes.fromhex(PHASES["resignation"]["snapshot"]), raw=False)
    for where, value in [("phase", "doubling"), ("resumes", "rolling"), ("phase", "play")]:
        bad = msgpack.unpackb(msgpack.packb(data), raw=False)
        game = bad["match"]["game"]
        (game if where == "phase" else game["resignation"])[where] = value
        with pytest.raises(ValueError, match=f"'{value}' is not a valid Phase"):
            serial.load(MatchState, bad)
    # The match's own phase never had those names.
    with pytest.raises(ValueError, match="'roll_off' is not a valid Phase"):
        serial.load(MatchState, {**data, "phase": "roll_off"})


# ---------------------------------------------------------------- the legacy form, written here


@pytest.mark.parametrize("name", SCENARIOS)
def test_the_tests_legacy_writer_reproduces_the_stored_legacy_bytes(name):
    state = legacy_snapshot(name)
    assert positional_bytes(state) == bytes.fromhex(LEGACY[name]["snapshot"])
    for raw in legacy_log(name):
        kind, body, _ = msgpack.unpackb(raw, raw=False)
        if kind not in ("Create", "Expire"):
            command = commands.recorded_command(kind, body)
            assert positional(command) == body


@pytest.mark.parametrize("name", ["midgame", "money", "rematch"])  # with sequence numbers
def test_fingerprints_of_commands_applied_before_the_map_hash_the_legacy_form(name):
    """``last_digest`` hashes the stored form of each seat's last command: a state stored
    before the map keeps the old fingerprints, a replay now computes the new ones."""
    state = legacy_snapshot(name)
    last: dict[int, Command] = {}
    for raw in legacy_log(name):
        kind, body, _ = msgpack.unpackb(raw, raw=False)
        if kind not in ("Create", "Expire"):
            command = commands.recorded_command(kind, body)
            if command.seq:
                last[command.seat] = replace(command, lag_ms=0)
    assert last
    rebuilt = rebuild(LEGACY[name]["match"], legacy_log(name))
    for seat, command in last.items():
        assert state.last_digest[seat] == hashlib.sha256(positional_bytes(command)).digest()[:8]
        assert rebuilt.last_digest[seat] == core.digest(command) != state.last_digest[seat]
    assert replace(rebuilt, last_digest=state.last_digest, updated=0) == state  # (see above)


# ---------------------------------------------------------------- real matches, both forms


def played(
    options: MatchOptions, seed: int, *, reserve_ms: int = 0, games: int = 0, timeout: bool = False
) -> Iterator[MatchState]:
    """Every state of a match the test seats play (doubling, beavers, resignations): to its
    end, then a rematch offered; a money session stopped after ``games`` games; or, with
    ``timeout``, left to the clock in its second game."""
    config = Config(options, clock_ms=30_000, reserve_ms=reserve_ms)
    state, _ = core.create(MID, config, "ann", 0)
    yield state
    rng = random.Random(seed)
    now = 0

    def apply(command: Command) -> MatchState:
        outcome = core.apply(state, command, now)
        assert isinstance(outcome, core.Accepted), outcome
        return outcome.state

    state = apply(Join(1, name="bob"))
    yield state
    seats = [
        Seat(s, random.Random(rng.random()), double_rate=0.2, resign_rate=0.03) for s in (0, 1)
    ]
    for _ in range(5_000):
        now += rng.randint(100, 9_000)
        if state.is_over:
            break
        if games and state.phase is Phase.COMMIT and state.dice.game > games:
            state = apply(Stop(1, seats[1].next_seq()))
        elif timeout and state.phase is Phase.PLAY and state.dice.game == 2:
            assert state.deadline is not None
            now = state.deadline + state.config.grace_ms + 1
            outcome = core.expire(state, now)
            assert outcome is not None
            state = outcome.state
        else:
            command = next(c for c in (s.decide(state) for s in seats) if c is not None)
            state = apply(command)
        yield state
    assert state.is_over
    if not timeout:
        state = apply(OfferRematch(0, seats[0].next_seq(), match=REMATCH))
        assert state.rematch is not None
        yield state


MATCHES = {
    "5-point match with a reserve": lambda: played(MatchOptions.match(5), 1, reserve_ms=90_000),
    "money session with jacoby and beavers": lambda: played(
        MatchOptions.money(jacoby=True, beavers=True), 5, games=4
    ),
    "money session": lambda: played(MatchOptions.money(), 3, games=3),
    "single game": lambda: played(MatchOptions.single_game(), 4),
    "3-point match lost on time": lambda: played(MatchOptions.match(3), 5, timeout=True),
}


@pytest.mark.parametrize("scenario", list(MATCHES))
def test_every_state_of_real_matches_round_trips_in_the_map_and_the_legacy_form(scenario):
    states = list(MATCHES[scenario]())
    assert len(states) > 20
    for state in states:
        stored = serial.dumps(state)
        assert serial.loads(MatchState, stored) == state
        assert serial.loads(MatchState, positional_bytes(state)) == state
        data = msgpack.unpackb(stored, raw=False)
        assert list(data) == [f.name for f in dataclasses.fields(MatchState)]
        assert list(data["config"]) == [f.name for f in dataclasses.fields(Config)]


def test_the_matches_turn_cubes_beaver_resign_and_offer_a_rematch():
    seen: set[str] = set()
    for scenario in MATCHES.values():
        for state in scenario():
            game = state.match.game
            if game is not None and game.cube.value > 1:
                seen.add("cube")
            if game is not None and game.cube.beaver:
                seen.add("beaver")
            if game is not None and game.resignation is not None:
                seen.add("resignation")
            if game is not None and game.declined is not None:
                seen.add("rejected")
            if state.rematch is not None:
                seen.add("rematch")
    assert seen == {"cube", "beaver", "resignation", "rejected", "rematch"}


# ---------------------------------------------------------------- the map form's rules


def mid_game() -> MatchState:
    return legacy_snapshot("midgame")


def test_a_map_with_an_unknown_field_is_refused_with_a_clear_error():
    data = serial.dump(mid_game())
    with pytest.raises(ValueError, match=r"^MatchState: unknown field 'spin' \(stored by a newer"):
        serial.load(MatchState, {**data, "spin": 3})
    # Deep in the tree too, several at once.
    cube = {**data["match"]["game"]["cube"], "colour": "gold", "size": 2}
    data["match"]["game"]["cube"] = cube
    with pytest.raises(ValueError, match=r"^Cube: unknown fields 'colour', 'size' \("):
        serial.load(MatchState, data)
    with pytest.raises(ValueError, match="unknown field 7"):
        serial.load(Cube, {"value": 2, 7: 1})


def test_a_map_missing_fields_with_defaults_loads_them_with_their_defaults():
    state = mid_game()
    data = serial.dump(state)
    del data["reserves"], data["rematch"], data["config"]["reserve_ms"]
    del data["match"]["game"]["cube"]["beaver"]
    old = serial.load(MatchState, data)
    assert old.reserves == (0, 0) and old.rematch is None and old.config.reserve_ms == 0
    assert old.match.game is not None and old.match.game.cube == Cube(2, owner=0)
    assert replace(old, reserves=state.reserves, config=state.config) == state
    del data["match_id"]
    with pytest.raises(ValueError, match=r"MatchState\.match_id is missing and has no default"):
        serial.load(MatchState, data)


def test_a_command_is_stored_as_a_map_of_its_fields():
    move = MovePlay(1, 7, 30, game=2, turn=9, moves=((24, 18), (13, 11)))
    assert serial.dump(move) == {
        "seat": 1, "seq": 7, "lag_ms": 30, "game": 2, "turn": 9, "moves": [[24, 18], [13, 11]],
    }  # fmt: skip
    assert serial.loads(MovePlay, serial.dumps(move)) == move
    assert serial.loads(MovePlay, positional_bytes(move)) == move
    assert serial.load(MovePlay, [1, 7]) == MovePlay(1, 7)  # legacy: trailing defaults
    with pytest.raises(ValueError, match="7 values for 6 fields"):
        serial.load(MovePlay, [*positional(move), 0])


# ---------------------------------------------------------------- the log's record kinds


def test_the_record_kinds_are_the_names_the_log_has_always_used():
    historical = {
        "Join": commands.Join, "Commit": commands.Commit, "Recommit": commands.Recommit,
        "Roll": commands.Roll, "Reveal": commands.Reveal, "Double": commands.Double,
        "Take": commands.Take, "Drop": commands.Drop, "Beaver": commands.Beaver,
        "MovePlay": commands.MovePlay, "Resign": commands.Resign,
        "ResignReply": commands.ResignReply, "Stop": commands.Stop, "Leave": commands.Leave,
        "OfferRematch": commands.OfferRematch, "DeclineRematch": commands.DeclineRematch,
        "Vacation": commands.Vacation, "CrashCredit": commands.CrashCredit,
    }  # fmt: skip
    assert historical == commands.RECORD_KINDS
    assert (commands.CREATE, commands.EXPIRE) == ("Create", "Expire")
    # Every command the machine knows has exactly one kind.
    known = {
        kind
        for kind in vars(commands).values()
        if isinstance(kind, type) and issubclass(kind, Command) and kind is not Command
    }
    assert set(commands.RECORD_KINDS.values()) == known
    assert len(known) == len(commands.RECORD_KINDS)


def test_a_record_names_the_stable_kind_not_the_class():
    move = MovePlay(1, 7, 30, game=2, turn=9, moves=((24, 18), (13, 11)))
    names = MovePlay.__name__, MovePlay.__qualname__
    MovePlay.__name__ = MovePlay.__qualname__ = "PlayMoves"  # as if the class were renamed
    try:
        kind, body, now = msgpack.unpackb(command_record(move, 123), raw=False)
        assert (kind, now) == ("MovePlay", 123)
        assert commands.recorded_command(kind, body) == move
        rebuild(LEGACY["midgame"]["match"], legacy_log("midgame"))  # its plays still load
    finally:
        MovePlay.__name__, MovePlay.__qualname__ = names


def test_a_legacy_command_record_loads_to_its_command():
    kind, body, now = msgpack.unpackb(bytes.fromhex(LEGACY["midgame"]["log"][35]), raw=False)
    assert (kind, now) == ("MovePlay", 25_500)
    move = commands.recorded_command(kind, body)
    assert move == MovePlay(1, 18, 0, game=2, turn=8, moves=((23, 18), (13, 8), (8, 3), (8, 3)))


def test_an_unknown_record_kind_is_refused_with_a_clear_error():
    with pytest.raises(ValueError, match=r"unknown command record kind 'Teleport' \(written by"):
        commands.recorded_command("Teleport", {"seat": 0})
    with pytest.raises(ValueError, match="unknown command record kind 'Create'"):
        commands.recorded_command("Create", None)
    record = msgpack.packb(["Teleport", {"seat": 0}, 5])
    log = [*legacy_log("midgame"), record]
    with pytest.raises(ValueError, match="Teleport"):
        rebuild(LEGACY["midgame"]["match"], log)
