"""Every variant online: a complete match of each (backgammon, nackgammon, hypergammon, portes,
plakoto, fevga, and a short Tavli match) between two clients of protocol/client against a real
server process, with every game's fair-dice transcript verified by the variant's rules; the
lobby's typed refusals; an older client refused a match of another variant; a rated match of a
variant moving that variant's rating alone."""

from __future__ import annotations

import asyncio
import json
import random

import pytest
from websockets.asyncio.client import connect

from engine.variants import NAMES, rules
from harness.accounts import signed_up
from harness.srv_support import doing, server_fixture
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient, create_match, join_match, play_random
from protocol.client.lobby import LobbyError, get, get_text
from protocol.fairdice import verify_json
from server.machine import serial
from server.machine.state import MatchState
from server.match.store import Store
from server.players.ratings import Standing, rate

# One server process for the module, started on an emptied Redis (each test starts from an
# empty Redis too).
one_server = server_fixture()


@pytest.fixture
async def server(one_server, redis_url):
    return one_server


def terms(name: str) -> dict:
    """A short match of ``name``: a single game, or a Tavli match to 3 (each game scores 1 or
    2: two games or more, portes then plakoto; the whole rotation is checked through the pure
    machine, tests/unit/test_variant_machine.py)."""
    if name == "tavli":
        return {"mode": "match", "length": 3, "variant": name}
    return {"mode": "single_game", "variant": name}


async def seated(server, name: str) -> tuple[str, MatchClient, MatchClient]:
    created = await create_match(server.base, name="Ann", **terms(name))
    match_id = created["match"]
    joined = await join_match(server.base, match_id, name="Bob")
    summary = await get(server.base, f"/api/matches/{match_id}")
    assert summary["variant"] == name
    a = MatchClient(server.ws, match_id, created["token"])
    b = MatchClient(server.ws, match_id, joined["token"])
    return match_id, a, b


async def played(name: str, a: MatchClient, b: MatchClient) -> None:
    async with a, b:
        seed = random.Random(name)
        results = await asyncio.gather(
            play_random(a, random.Random(seed.random())),
            play_random(b, random.Random(seed.random())),
        )
    # (On failure, say how it ended: a forfeit names its seat, game and reason, and what each
    # seat core was doing.)
    ended = [d for d in a.tracker.history if isinstance(d, pe.Forfeit | pe.MatchOver)]
    why = (name, ended, a.rejects, b.rejects, doing(a), doing(b))
    assert results[0] == results[1] and results[0].reason == "completed", why


async def check(server, store: Store, name: str, match_id: str, a: MatchClient) -> None:
    """What a finished match of ``name`` must show: its games' variants, the client's boards
    the server's, verified transcripts, its record, no .mat unless backgammon."""
    assert a.rejects == [], (name, a.rejects)  # nothing legal was refused
    assert a.tracker.settings.variant == name
    # Each game played the variant of its number.
    started = [e for e in a.tracker.history if type(e).__name__ == "GameStarted"]
    assert [e.variant for e in started] == [
        rules(name).game(n).name for n in range(1, len(started) + 1)
    ], name
    # The client followed the boards (and plakoto's pins) by playing the moves itself.
    state = serial.loads(MatchState, (await store.load(match_id)).state)
    game = state.match.game
    assert (a.tracker.variant, a.tracker.pinned) == (game.variant.name, game.pinned), name
    assert a.tracker.boards == list(game.boards), name
    assert list(a.tracker.score) == list(state.match.score)
    # Every finished game's transcript verifies, its plays replayed by the variant's rules.
    bundle = json.loads(await get_text(server.base, f"/api/matches/{match_id}/transcript.json"))
    assert len(bundle["games"]) == len(started)
    for game_json, start in zip(bundle["games"], started, strict=True):
        assert game_json.get("variant", "backgammon") == start.variant
        verdict = verify_json(json.dumps(game_json))  # raises TranscriptError unless it verifies
        assert verdict.rolls > 0 and verdict.plays_replayed
    record = await get(server.base, f"/api/matches/{match_id}/games/1/record.json")
    assert record["variant"] == started[0].variant and record["turns"]
    # The .mat format holds backgammon only: another variant's match has no export.
    if name == "backgammon":
        assert " 0 point match" in await get_text(server.base, f"/api/matches/{match_id}/match.mat")
    else:
        with pytest.raises(LobbyError) as caught:
            await get(server.base, f"/api/matches/{match_id}/match.mat")
        assert (caught.value.status, caught.value.code) == (404, "not_found")
    if name == "tavli":  # game 2 was opened by game 1's winner (a portes game has one)
        over = [e for e in a.tracker.history if type(e).__name__ == "GameOver"]
        assert len(started) >= 2 and over[0].winner is not None
        assert "opener" not in bundle["games"][0]
        assert bundle["games"][1]["opener"] == over[0].winner


async def test_a_complete_online_match_of_every_variant_verifies(server, redis_url):
    """The seven matches are seated one after the other (the lobby's open-match limit) and
    played at once."""
    tables = {name: await seated(server, name) for name in NAMES}
    await asyncio.wait_for(
        asyncio.gather(*(played(name, a, b) for name, (_, a, b) in tables.items())), timeout=120
    )
    store = Store.from_url(redis_url)
    try:
        for name, (match_id, a, _) in tables.items():
            await check(server, store, name, match_id, a)
    finally:
        await store.close()


async def test_the_lobby_refuses_an_unknown_variant_and_money_without_the_cube(server):
    with pytest.raises(LobbyError) as caught:
        await create_match(server.base, mode="match", length=3, variant="chouette")
    assert (caught.value.status, caught.value.code) == (400, "bad_field")
    assert "backgammon, nackgammon" in str(caught.value) and "tavli" in str(caught.value)
    with pytest.raises(LobbyError) as caught:
        await create_match(server.base, mode="money", variant="plakoto")
    assert (caught.value.status, caught.value.code) == (400, "bad_field")
    assert "no cube" in str(caught.value)
    with pytest.raises(LobbyError) as caught:
        await create_match(server.base, mode="match", length=3, variant=3)
    assert caught.value.status == 400
    with pytest.raises(LobbyError) as caught:
        await create_match(server.base, mode="single_game", variant="fevga", bot="hard")
    assert (caught.value.status, caught.value.code) == (400, "bad_field")
    assert "plays fevga at easy only" in str(caught.value)  # bots.catalog.VARIANT_LEVELS
    # A backgammon match names its variant too.
    created = await create_match(server.base, mode="match", length=3)
    assert (await get(server.base, f"/api/matches/{created['match']}"))["variant"] == "backgammon"


async def first_answer(url: str, hello: m.Hello) -> tuple[str, int | None]:
    """The first frame's type (or error code) a hello gets, and the close code, if closed."""
    async with connect(url) as ws:
        await ws.send(codec.encode(hello))
        first = codec.decode_from_server(await asyncio.wait_for(ws.recv(), 10))
        if isinstance(first, m.Error):
            await asyncio.wait_for(ws.wait_closed(), 10)
            return first.code, ws.close_code
        return type(first).__name__.lower(), None


async def test_a_client_older_than_version_5_plays_backgammon_only(server):
    plakoto = await create_match(server.base, mode="single_game", variant="plakoto")
    backgammon = await create_match(server.base, mode="single_game")
    old = m.Hello(4, plakoto["match"], plakoto["token"], None, None)
    assert await first_answer(server.ws, old) == ("unsupported_version", 4005)
    old = m.Hello(4, backgammon["match"], backgammon["token"], None, None)
    assert await first_answer(server.ws, old) == ("welcome", None)
    new = m.Hello(5, plakoto["match"], plakoto["token"], None, None)
    assert await first_answer(server.ws, new) == ("welcome", None)


async def test_a_rated_variant_match_moves_that_variants_rating_only(server, redis_url):
    alice, bob = await signed_up(server.base, "alice"), await signed_up(server.base, "bob")
    created = await alice.post(
        "/api/matches", {"mode": "match", "length": 1, "rated": True, "variant": "portes"}
    )
    assert created.status == 201, created.body
    match_id = created.body["match"]
    joined = await bob.post(f"/api/matches/{match_id}/join", {})
    assert joined.status == 200, joined.body
    a = MatchClient(server.ws, match_id, created.body["token"])
    b = MatchClient(server.ws, match_id, joined.body["token"])
    async with a, b:
        await asyncio.wait_for(
            asyncio.gather(play_random(a, random.Random(1)), play_random(b, random.Random(2))),
            timeout=60,
        )
    winner = a.tracker.over.winner
    change = rate(Standing(), Standing(), winner, 1).deltas
    for seat, browser, name in ((0, alice, "alice"), (1, bob, "bob")):
        for _ in range(100):  # the result is recorded just after the match's last commit
            profile = (await browser.get(f"/api/players/{name}")).body
            if profile["matches"]:
                break
            await asyncio.sleep(0.05)
        # Backgammon's rating stands; portes has its own, moved by the FIBS formula.
        assert (profile["rating"], profile["experience"]) == (1500.0, 0)
        assert profile["variants"] == {
            "portes": {"rating": round(1500.0 + change[seat], 2), "experience": 1}
        }
        assert profile["history"][0]["variant"] == "portes" and profile["history"][0]["rated"]
    # The leaderboard ranks backgammon's rating: nobody is on it yet.
    assert (await alice.get("/api/leaderboard")).body["players"] == []
