"""The machine's rematch offer: the one command of a finished match (once, from a seat)."""

from __future__ import annotations

import dataclasses

import msgpack
import pytest

from engine.match import MatchOptions
from harness.stored_forms import positional
from protocol import events as pe
from protocol.codec import encode
from server.machine import core, serial
from server.machine.commands import DeclineRematch, Join, Leave, OfferRematch
from server.machine.state import Config, MatchState, Phase
from server.machine.view import public_view
from server.match.replay import rebuild

MID = "0123456789abcdef0123456789abcdef"
B = "fedcba9876543210fedcba9876543210"


def seated() -> MatchState:
    state, _ = core.create(MID, Config(MatchOptions.match(3), clock_ms=30_000), "ann", 0)
    return core.apply(state, Join(1, name="bob"), 10).state


def finished() -> MatchState:
    """Over by a forfeit (bob leaves): the fastest way to end a match."""
    return core.apply(seated(), Leave(1), 20).state


def rejected(state: MatchState, command, code: str) -> None:
    with pytest.raises(core.Rejected) as caught:
        core.apply(state, command, 30)
    assert caught.value.code == code


def test_a_seat_of_a_finished_match_offers_a_rematch_once():
    state = finished()
    assert state.phase is Phase.OVER
    outcome = core.apply(state, OfferRematch(1, match=B), 30)
    assert isinstance(outcome, core.Accepted)
    (event,) = outcome.events
    assert event.v == state.version + 1
    assert event.data == pe.RematchOffered(1, B)
    assert event.next == pe.Clock("over", (), None)
    encode(event)  # a valid wire event
    after = outcome.state
    assert after.rematch is not None and (after.rematch.by, after.rematch.match) == (1, B)
    assert public_view(after).rematch == pe.RematchOffered(1, B)
    assert public_view(state).rematch is None
    # Once per match, whichever seat asks again.
    rejected(after, OfferRematch(1, match=B), "rematch_offered")
    rejected(after, OfferRematch(0, match="ab" * 16), "rematch_offered")
    # Every other command is still refused: the match is over.
    rejected(after, Leave(0), "match_over")


def test_a_rematch_is_refused_before_the_end_without_an_opponent_and_to_spectators():
    rejected(seated(), OfferRematch(0, match=B), "wrong_phase")
    waiting, _ = core.create(MID, Config(MatchOptions.single_game()), "ann", 0)
    rejected(waiting, OfferRematch(0, match=B), "wrong_phase")
    cancelled = core.apply(waiting, Leave(0), 5).state
    assert cancelled.is_over
    rejected(cancelled, OfferRematch(0, match=B), "wrong_phase")  # nobody else played
    rejected(finished(), OfferRematch(2, match=B), "not_a_player")
    rejected(finished(), OfferRematch(0, match=MID), "bad_field")
    rejected(finished(), OfferRematch(0, match="not a match id"), "bad_field")


def test_the_offer_survives_serialization_and_replays_from_the_log():
    from server.match.stored import command_record

    state, _ = core.create(MID, Config(MatchOptions.match(3)), "ann", 0)
    records = [command_record(state.config, 0, "ann")]
    for command, now in ((Join(1, name="bob"), 10), (Leave(1), 20), (OfferRematch(0, match=B), 30)):
        state = core.apply(state, command, now).state
        records.append(command_record(command, now))
    assert serial.loads(MatchState, serial.dumps(state)) == state
    assert rebuild(MID, records) == state


def test_snapshots_stored_before_rematches_existed_still_load():
    state = finished()
    state_fields = [f.name for f in dataclasses.fields(MatchState)]
    config_fields = [f.name for f in dataclasses.fields(Config)]
    # In the legacy positional form: a state and a config stored before the rematch fields
    # (and the reserve, added after them), their trailing fields missing.
    data = positional(state)
    old = data[: state_fields.index("rematch")]
    old[1] = data[1][: config_fields.index("rematch_of")]
    loaded = serial.load(MatchState, msgpack.unpackb(msgpack.packb(old)))
    assert dataclasses.replace(loaded, updated=state.updated) == state  # (newer than that form)
    assert loaded.rematch is None and loaded.config.rematch_of is None
    too_many = f"{len(state_fields) + 1} values for {len(state_fields)} fields"
    with pytest.raises(ValueError, match=too_many):
        # (data lacks the fields newer than the positional form: one value too many in all)
        serial.load(MatchState, [*data, *[None] * (len(state_fields) + 1 - len(data))])
    # In the map form: the same fields missing take their defaults; an unknown one is refused.
    keyed = serial.dump(state)
    for name in state_fields[state_fields.index("rematch") :]:
        del keyed[name]
    for name in config_fields[config_fields.index("rematch_of") :]:
        del keyed["config"][name]
    loaded = serial.load(MatchState, msgpack.unpackb(msgpack.packb(keyed)))
    assert dataclasses.replace(loaded, updated=state.updated) == state
    with pytest.raises(ValueError, match="MatchState: unknown field 'rematches'"):
        serial.load(MatchState, {**keyed, "rematches": []})


def waiting_rematch() -> MatchState:
    config = Config(MatchOptions.match(3), clock_ms=30_000, rematch_of=MID, rematch_for=0)
    state, _ = core.create(B, config, "bob", 0)
    return state


def test_the_invited_player_declines_a_waiting_rematch_once():
    state = waiting_rematch()
    rejected(state, DeclineRematch(0), "not_a_player")  # the offerer cancels by leaving
    done = core.apply(state, DeclineRematch(1), 40)
    assert done.state.phase is Phase.OVER
    assert [e.data for e in done.events] == [pe.MatchOver(None, (0, 0), "declined")]
    rejected(done.state, DeclineRematch(1), "match_over")
    # An accepted rematch cannot be declined any more; an ordinary match never.
    joined = core.apply(state, Join(1, name="ann"), 40).state
    rejected(joined, DeclineRematch(1), "wrong_phase")
    plain, _ = core.create(MID, Config(MatchOptions.match(3), clock_ms=30_000), "ann", 0)
    rejected(plain, DeclineRematch(1), "wrong_phase")
