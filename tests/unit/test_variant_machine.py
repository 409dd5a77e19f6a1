"""The match machine over the variants (server/machine, protocol version 5): the settings and
the snapshot name the variant and plakoto's pins, a Greek game opens with the roll-off winner's
roll (or the last winner's, without a roll-off), a double in a variant without the cube is
refused as in the Crawford game, and a client of version 4 or older is sent exactly the frames
it had (protocol/versions.py)."""

from __future__ import annotations

import json
import random

import msgpack
import pytest

from engine.match import MatchOptions
from engine.variants import NAMES, rules
from harness.machine_driver import Seat, play_out, play_until
from protocol import events as pe
from protocol.client.tracker import Tracker
from protocol.codec import encode
from protocol.errors import ErrorCode
from protocol.fairdice import TranscriptError, verify_json
from protocol.messages import Event, Snapshot
from protocol.versions import for_version
from server.machine import core
from server.machine.commands import Double, Join
from server.machine.state import Config, MatchState, owing
from server.machine.view import public_view
from server.match.history import Logged, transcripts


def seated(options: MatchOptions, seed: int = 1) -> tuple[MatchState, list[Seat]]:
    state, _ = core.create(f"{seed:032x}", Config(options), "Ann", now=0)
    outcome = core.apply(state, Join(1, name="Bob"), now=1)
    assert isinstance(outcome, core.Accepted)
    rng = random.Random(seed)
    return outcome.state, [Seat(s, random.Random(rng.random())) for s in (0, 1)]


def test_the_settings_and_the_snapshot_name_the_variant():
    state, seats = seated(MatchOptions.match(3, rules("tavli")))
    view = public_view(state)
    assert view.settings.variant == "tavli"
    assert (view.game.variant, view.game.pinned) == ("portes", (0, 0))  # before game 1
    state = play_until(state, seats, "decide", now=2)
    view = public_view(state)
    assert view.game.variant == "portes" and view.game.dice is None
    # The roll-off was decided (its dice published) and its winner now rolls both dice.
    assert view.game.on_roll is not None and view.game.turn == 1


def test_a_double_without_the_cube_is_refused_as_in_the_crawford_game():
    for name in ("portes", "plakoto", "fevga", "tavli"):
        state, seats = seated(MatchOptions.match(3, rules(name)))
        state = play_until(state, seats, "decide", now=2)
        seat = state.match.game.on_roll
        game = state.dice.game
        with pytest.raises(core.Rejected) as caught:
            core.apply(state, Double(seat, seats[seat].next_seq(), game=game), now=3)
        assert caught.value.code is ErrorCode.CUBE_UNAVAILABLE


def test_a_tavli_match_through_the_machine_opens_each_game_as_the_rules_say():
    for seed in range(3):
        state, _ = seated(MatchOptions.match(3, rules("tavli")), seed)
        state, log = play_out(state, seed)
        started = [e.data for e in log if isinstance(e.data, pe.GameStarted)]
        over = [e.data for e in log if isinstance(e.data, pe.GameOver)]
        assert [s.variant for s in started] == [
            rules("tavli").game(n).name for n in range(1, len(started) + 1)
        ]
        for n, start in enumerate(started[1:], 2):
            event = next(e for e in log if isinstance(e.data, pe.GameStarted) and e.data.game == n)
            if over[n - 2].winner is None:
                assert event.next.phase == "rolloff"
            else:  # the last winner rolls, without a roll-off
                assert (event.next.phase, event.next.seats) == ("decide", (over[n - 2].winner,))
            dice = [e.data for e in log if isinstance(e.data, pe.Dice) and e.data.game == n]
            assert dice[0].kind == ("rolloff" if over[n - 2].winner is None else "turn")
            assert start.variant in ("portes", "plakoto", "fevga")


def test_an_older_client_gets_the_frames_of_its_version():
    state, _ = seated(MatchOptions.match(3))
    snapshot = encode(Snapshot(state.version, public_view(state)))
    created = encode(Event(1, public_view(state).settings, None))
    started = encode(Event(5, pe.GameStarted(1, False, (0, 0)), None))
    for proto in (1, 2, 3, 4):
        for frame, where in ((created, "p"), (started, "p")):
            assert "variant" not in msgpack.unpackb(for_version(frame, proto))[where]
        state_map = msgpack.unpackb(for_version(snapshot, proto))["p"]["state"]
        assert "variant" not in state_map["settings"]
        assert not {"variant", "pinned"} & set(state_map["game"])
    assert for_version(snapshot, 5) == snapshot
    assert "variant" in msgpack.unpackb(created)["p"]


# ---------------------------------------------------------------- transcripts of the variants


def played_log(options: MatchOptions, seed: int) -> tuple[str, list[Logged]]:
    """A whole match through the machine, its events as the history reads them."""
    match_id = f"{seed:032x}"
    state, events = core.create(match_id, Config(options), "Ann", now=0)
    joined = core.apply(state, Join(1, name="Bob"), now=1)
    assert isinstance(joined, core.Accepted)
    state, rest = play_out(joined.state, seed)
    log = [*events, *joined.events, *rest]
    return match_id, [Logged(e.v, e.v, e.data) for e in log]


def refused(obj: dict, change) -> str:
    """The fault the verifier finds in ``obj`` once ``change`` is applied to a copy."""
    bad = json.loads(json.dumps(obj))
    change(bad)
    with pytest.raises(TranscriptError) as caught:
        verify_json(bad)
    return str(caught.value)


def test_a_drawn_plakoto_game_verifies_and_its_result_cannot_be_changed():
    match_id, log = played_log(MatchOptions.single_game(rules("plakoto")), seed=0)
    (drawn,) = transcripts(match_id, log).games
    obj = json.loads(drawn.to_json())
    assert obj["variant"] == "plakoto" and "opener" not in obj
    assert obj["result"]["winner"] is None and obj["result"]["reason"] == "mothers"
    assert verify_json(obj).summary().endswith("drawn (mothers)")
    # A win claimed instead, another reason, or the game replayed as backgammon: refused.
    assert "result" in refused(obj, lambda t: t["result"].update(winner=0, multiplier=1,
                                                                  points=1))  # fmt: skip
    assert "result" in refused(obj, lambda t: t["result"].update(reason="resign"))
    # Read as backgammon, the roll-off winner would have played the deciding roll.
    assert "roller is seat" in refused(obj, lambda t: t.pop("variant"))
    assert "ends only a plakoto game" in refused(obj, lambda t: t.update(variant="fevga"))


def test_a_tavli_transcript_names_its_opener_and_the_roll_order_follows_it():
    match_id, log = played_log(MatchOptions.match(3, rules("tavli")), seed=1)
    games = transcripts(match_id, log).games
    assert [t.variant for t in games[:2]] == ["portes", "plakoto"]
    first, second = (json.loads(t.to_json()) for t in games[:2])
    for obj in (first, second):
        verify_json(obj)
    # Game 1: the roll-off decides, its deciding roll is played by nobody, the winner rolls.
    assert "opener" not in first and first["rolls"][0]["kind"] == "rolloff"
    decided = next(r for r in first["rolls"] if r["kind"] == "rolloff" and r["d1"] != r["d2"])
    winner = 0 if decided["d1"] > decided["d2"] else 1
    after = first["rolls"][first["rolls"].index(decided) + 1]
    assert (after["kind"], after["roller"]) == ("turn", winner)
    # Game 2: opened by game 1's winner, without a roll-off.
    assert second["opener"] == first["result"]["winner"]
    assert second["rolls"][0] == {**second["rolls"][0], "kind": "turn",
                                  "roller": second["opener"]}  # fmt: skip
    assert "roller" in refused(second, lambda t: t.update(opener=1 - t["opener"]))
    assert "roll-off" in refused(second, lambda t: t.pop("opener"))


# ---------------------------------------------------------------- the client's picture


@pytest.mark.parametrize("name", NAMES)
def test_the_tracker_follows_every_variant_from_the_start_and_from_a_snapshot(name):
    """protocol/client/tracker.py plays each event's moves by the variant's rules: a tracker
    fed every event, and one fed a snapshot taken half way then the rest, both see the boards
    and pins the machine has, after every transition."""
    options = MatchOptions.match(3, rules(name)) if name == "tavli" else MatchOptions.single_game(
        rules(name)
    )
    state, events = core.create("cd" * 16, Config(options), "Ann", now=0)
    joined = core.apply(state, Join(1, name="Bob"), now=1)
    state, log = joined.state, [*events, *joined.events]
    rng = random.Random(name)
    seats = [Seat(s, random.Random(rng.random())) for s in (0, 1)]
    steps: list[tuple[MatchState, tuple[Event, ...]]] = []
    now = 2
    while not state.is_over:
        seat = seats[rng.choice(owing(state)[0])]
        now += 1
        outcome = core.apply(state, seat.decide(state), now)
        state = outcome.state
        steps.append((state, outcome.events))
    full = Tracker()
    for event in log:
        full.apply(event)
    half = len(steps) // 2
    checked = 0
    late = Tracker()
    late.apply(Snapshot(steps[half][0].version, public_view(steps[half][0])))
    for i, (after, events) in enumerate(steps):
        for event in events:
            full.apply(event)
            if i > half:
                late.apply(event)
        game = after.match.game
        if game is None or i < half:
            continue
        for tracker in (full, late):
            assert tracker.variant == game.variant.name
            assert (tracker.boards, tracker.pinned) == (list(game.boards), game.pinned), i
            checked += 1
    assert full.gaps == late.gaps == 0 and full.over is not None and checked > 20
