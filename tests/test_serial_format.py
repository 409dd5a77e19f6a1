"""The stored formats of the match state and the log's command records, old and new.

``legacy_store.json`` holds snapshots and logs as the server stored them before dataclasses
were stored as maps keyed by field name (each dataclass a positional list): they must load
forever, and each log must replay to its snapshot.
"""

from __future__ import annotations

import json
from pathlib import Path

import msgpack
import pytest

from engine.cube import Cube
from engine.match import MatchOptions
from server.machine import serial
from server.machine.state import Config, MatchState, Phase, owing
from server.replay import rebuild

LEGACY = json.loads((Path(__file__).parent / "legacy_store.json").read_text(encoding="utf-8"))
SCENARIOS = sorted(k for k in LEGACY if k != "note")


def legacy_snapshot(name: str) -> MatchState:
    return serial.loads(MatchState, bytes.fromhex(LEGACY[name]["snapshot"]))


def legacy_log(name: str) -> list[bytes]:
    return [bytes.fromhex(r) for r in LEGACY[name]["log"]]


@pytest.mark.parametrize("name", SCENARIOS)
def test_a_legacy_snapshot_and_log_load_and_the_log_replays_to_the_snapshot(name):
    state = legacy_snapshot(name)
    assert rebuild(LEGACY[name]["match"], legacy_log(name)) == state
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
