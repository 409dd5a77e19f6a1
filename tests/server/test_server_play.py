"""Whole matches through real server processes and a real Redis, with a spectator watching."""

from __future__ import annotations

import asyncio
import json
import random

import pytest

from protocol.client import MatchClient, create_match, join_match, play_random
from protocol.client.lobby import get, get_text
from protocol.fairdice import verify_json
from server.machine import serial
from server.machine.state import MatchState
from server.match.history import read_log
from server.match.replay import rebuild_from_store
from server.match.store import Store


async def seat_two_players(server, **options):
    created = await create_match(server.base, name="Ann", **options)
    joined = await join_match(server.base, created["match"], name="Bob")
    return created, joined


@pytest.mark.parametrize(
    "options",
    [
        {"mode": "single_game"},
        {"mode": "match", "length": 3},
        {"mode": "money", "jacoby": True, "beavers": True},
    ],
    ids=["single", "match3", "money"],
)
async def test_complete_match_with_spectator_verifies_and_replays(server, redis_url, options):
    created, joined = await seat_two_players(server, **options)
    match_id = created["match"]
    wire_log: list[str] = []

    def record(who):
        return lambda message: wire_log.append(f"{who} {str(message)[:160]}")

    a = MatchClient(server.ws, match_id, created["token"], on_event=record("A"))
    b = MatchClient(server.ws, match_id, joined["token"], on_event=record("B"))
    watcher = MatchClient(server.ws, match_id)
    async with a, b, watcher:
        assert (a.seat, b.seat, watcher.seat) == (0, 1, None)
        rng = random.Random(7)
        results = await asyncio.wait_for(
            asyncio.gather(
                play_random(a, random.Random(rng.random()), stop_money_after=1),
                play_random(b, random.Random(rng.random())),
            ),
            timeout=240,
        )
        await watcher.wait_for(lambda t: t.over is not None, timeout=10)
    assert results[0] == results[1] == watcher.tracker.over
    # Players and the spectator saw the stored events from where they joined, gap-free, and
    # nothing legal was refused.
    store = Store.from_url(redis_url)
    logged = [e.data for e in await read_log(store, match_id)]
    for client in (a, b, watcher):
        seen = client.tracker.history
        assert seen and seen == logged[-len(seen) :]
        assert client.tracker.gaps == 0
    # A commitment for the next money game may race the stop that ends the session.
    refused = [r for r in a.rejects + b.rejects if r.code != "match_over"]
    assert refused == [], "\n".join(wire_log)

    # Every finished game's transcript verifies.
    bundle = json.loads(await get_text(server.base, f"/api/matches/{match_id}/transcript.json"))
    assert bundle["games"]
    for game in bundle["games"]:
        verdict = verify_json(json.dumps(game))  # raises TranscriptError unless it verifies
        assert verdict.rolls > 0 and verdict.plays_replayed
    one = await get_text(server.base, f"/api/matches/{match_id}/games/1/transcript.json")
    assert verify_json(one).game.game_no == 1

    # The .mat export names both players and every game.
    mat = await get_text(server.base, f"/api/matches/{match_id}/match.mat")
    assert "Ann" in mat and "Bob" in mat and f"Game {len(bundle['games'])}" in mat

    # The state rebuilt from the log alone equals the stored state.
    stored = await store.load(match_id)
    assert await rebuild_from_store(store, match_id) == serial.loads(MatchState, stored.state)
    await store.close()
    info = await get(server.base, f"/api/matches/{match_id}")
    assert info["phase"] == "over"
