"""Correspondence matches through real server processes and Redis (docs/correspondence.md).

Two accounts play a match to 3 with days per move, a day shortened by the test setting
``FAIRGAMMON_DAY_MS``. Neither keeps a connection: a player's client connects only when its
list of games says it is its turn, makes that decision, lets its automation deposit what it
may (docs/fairness.md, section 15) and disconnects. The server process is killed and
restarted half-way. The match ends without a forfeit, nobody ever owes a reveal, and every
game's transcript, fetched from the server, verifies with the existing verifier.
"""

from __future__ import annotations

import asyncio
import random
from typing import Any

from websockets.asyncio.client import connect

from engine.movegen import legal_plays
from harness.accounts import Browser, signed_up
from harness.failure_kit import stack_fixture
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient
from protocol.fairdice import verify_json
from protocol.limits import DAY_MS

stack = stack_fixture()

DAY = 20_000
"""A day on the test server's clocks (ms): far more than a visit takes, far less than a day."""


async def my_row(browser: Browser, match: str) -> dict[str, Any] | None:
    reply = await browser.get("/api/my/games")
    assert reply.status == 200, reply.body
    return next((g for g in reply.body["games"] if g["match"] == match), None)


async def visit(
    url: str, match: str, token: str, keep: dict[str, bytes], rng: random.Random
) -> str:
    """A page opened only to act: connect, play the decision owed (if any), let the seat's
    automation finish, close. Returns the decision it found owed."""
    client = MatchClient(url, match, token, secrets_store=keep, rng=rng)
    async with client:
        await client.wait_for(lambda t: client.core.caught_up)
        owed = client.owes() or ""
        t = client.tracker
        if owed == "decide":
            if t.may_double(client.seat or 0) and rng.random() < 0.1:
                await client.double()
            else:
                await client.roll()
        elif owed == "move":
            assert t.dice is not None
            plays = legal_plays(t.position(client.seat or 0), *t.dice)
            await client.move(rng.choice(plays).moves if plays else ())
        elif owed == "take":
            await client.take()
        elif owed == "resign":
            await client.answer_resignation(False)
        await client.settled()
    return owed


async def test_a_correspondence_match_is_played_by_visits_across_a_restart(stack):
    proc = stack.server(FAIRGAMMON_DAY_MS=str(DAY))
    alice = await signed_up(proc.base, "alice")
    bob = await signed_up(proc.base, "bob")

    created = await alice.post("/api/matches", {"mode": "match", "length": 3, "days": 1})
    assert created.status == 201, created.body
    match = created.body["match"]
    info = (await alice.get(f"/api/matches/{match}")).body
    assert (info["days"], info["clock"]) == (1, DAY // 1000)
    joined = await bob.post(f"/api/matches/{match}/join", {})
    assert joined.status == 200, joined.body
    tokens = {0: created.body["token"], 1: joined.body["token"]}
    # The account gets its seat's token again, on any device.
    for browser, seat in ((alice, 0), (bob, 1)):
        again = await browser.post(f"/api/matches/{match}/seat", {})
        assert again.status == 200 and again.body["token"] == tokens[seat], again.body
    assert (await Browser(proc.base).post(f"/api/matches/{match}/seat", {})).status == 401

    browsers = {0: alice, 1: bob}
    keep: dict[int, dict[str, bytes]] = {0: {}, 1: {}}
    rng = random.Random(7)
    decisions: list[str] = []
    visits, restarted = 0, False
    for _ in range(600):
        rows = {seat: await my_row(browsers[seat], match) for seat in (0, 1)}
        if rows[0] is None and rows[1] is None:
            break  # over: it left both lists
        assert rows[0] is not None and rows[1] is not None
        due = [seat for seat in (0, 1) if rows[seat]["your_turn"]]  # type: ignore[index]
        assert due, rows
        for seat in due:
            row = rows[seat]
            # (a process stalled on a busy machine is credited its stall: a little over a day)
            assert row is not None and row["days"] == 1 and 0 < row["time_left"] <= DAY * 1.5
            decisions.append(row["decision"])
            await visit(proc.ws, match, tokens[seat], keep[seat], random.Random(rng.random()))
            visits += 1
        if visits >= 30 and not restarted:
            proc.kill()
            proc = await stack.restart(proc, FAIRGAMMON_DAY_MS=str(DAY))
            restarted = True
    else:
        raise AssertionError("the match did not finish")
    assert restarted
    assert "reveal" not in decisions, "a player had to come back to reveal"

    log = await stack.log(match)
    over = [e.data for e in log if isinstance(e.data, pe.MatchOver)]
    assert over and over[0].reason == "completed"
    assert not any(isinstance(e.data, pe.Forfeit) for e in log)
    games = [e.data.game for e in log if isinstance(e.data, pe.GameOver)]
    deposits = 0
    for game in games:
        reply = await Browser(proc.base).get(f"/api/matches/{match}/games/{game}/transcript.json")
        assert reply.status == 200
        verdict = verify_json(reply.body, replay=True)
        assert verdict.result.reason.value != "timeout"
        deposits += sum(1 for a in reply.body["actions"] if a["type"] == "reveal")
    assert deposits > len(games) * 3
    if len(games) > 1:
        assert any(isinstance(e.data, pe.RolloffAhead) for e in log)
    created_event = log[0].data
    assert isinstance(created_event, pe.MatchCreated) and created_event.move_time == DAY_MS


async def test_correspondence_needs_an_account_a_day_count_and_a_place(stack):
    proc = stack.server(FAIRGAMMON_DAY_MS=str(DAY), FAIRGAMMON_GAMES_PER_ACCOUNT="2")
    guest = Browser(proc.base, origin=proc.base)
    refused = await guest.post("/api/matches", {"mode": "match", "length": 3, "days": 1})
    assert (refused.status, refused.body["error"]) == (401, "needs_account")
    carol = await signed_up(proc.base, "carol")
    for body, why in (
        ({"mode": "match", "length": 3, "days": 4}, "days is one of 1, 2, 3, 5, 7"),
        ({"mode": "money", "days": 1}, "correspondence is for matches and single games"),
        ({"mode": "match", "length": 3, "days": 1, "clock": 30}, "has no clock"),
        ({"mode": "match", "length": 3, "days": 1, "bot": "easy"}, "does not play"),
    ):
        reply = await carol.post("/api/matches", body)
        assert (reply.status, reply.body["error"]) == (400, "bad_field"), reply.body
        assert why in reply.body["message"]
    for _ in range(2):
        ok = await carol.post("/api/matches", {"mode": "single_game", "days": 7})
        assert ok.status == 201, ok.body
    full = await carol.post("/api/matches", {"mode": "single_game", "days": 7})
    assert (full.status, full.body["error"]) == (409, "too_many_games")
    # A match in real time does not count.
    live = await carol.post("/api/matches", {"mode": "single_game"})
    assert live.status == 201
    games = (await carol.get("/api/my/games")).body
    assert (games["count"], games["correspondence"], games["limit"]) == (3, 2, 2)
    # A client of protocol version 2 is refused a correspondence match (before it takes a seat).
    refusal = await old_hello(proc.ws, ok.body["match"], ok.body["token"])
    assert refusal == ("unsupported_version", 4005)
    assert await old_hello(proc.ws, live.body["match"], live.body["token"]) == ("welcome", None)


async def old_hello(url: str, match: str, token: str) -> tuple[str, int | None]:
    """What a version-2 client's hello gets: the first frame's type (or error code) and the
    close code, if the server closed."""
    async with connect(url) as ws:
        await ws.send(codec.encode(m.Hello(2, match, token, None, None)))
        first = codec.decode_from_server(await asyncio.wait_for(ws.recv(), 10))
        if isinstance(first, m.Error):
            await asyncio.wait_for(ws.wait_closed(), 10)
            return first.code, ws.close_code
        return first.__class__.__name__.lower(), None


async def test_a_vacation_pauses_the_clocks_of_the_player_on_it(stack):
    day = 4_000
    proc = stack.server(FAIRGAMMON_DAY_MS=str(day), FAIRGAMMON_VACATION_DAYS="3")
    dora = await signed_up(proc.base, "dora")
    eric = await signed_up(proc.base, "eric")
    created = await dora.post("/api/matches", {"mode": "single_game", "days": 1})
    match = created.body["match"]
    joined = await eric.post(f"/api/matches/{match}/join", {})
    assert joined.status == 200
    # Eric commits at once; Dora owes her commitment, a day from now.
    await visit(proc.ws, match, joined.body["token"], {}, random.Random(1))
    row = await my_row(dora, match)
    assert row is not None and row["your_turn"] and row["decision"] == "commit"
    due = row["deadline"]

    status = (await dora.get("/api/my/vacation")).body
    assert (status["on"], status["days_left"], status["allowance"]) == (False, 3, 3)
    started = await dora.post("/api/my/vacation", {"days": 2})
    assert started.status == 200 and started.body["on"] is True, started.body
    assert 0.9 < started.body["days_left"] <= 1
    row = await my_row(dora, match)
    assert row is not None and row["deadline"] >= due + 2 * day - 100
    # Past her old deadline (and the grace), nothing happened: her clock stands still.
    await asyncio.sleep((day + 1_500) / 1000)
    info = (await dora.get(f"/api/matches/{match}")).body
    assert info["phase"] == "commit" and info["winner"] is None, info
    # Back early: the clock runs again, and the days not taken are given back.
    ended = await dora.call("DELETE", "/api/my/vacation")
    assert ended.status == 200 and ended.body["on"] is False
    assert 1.2 < ended.body["days_left"] < 2.5, ended.body
    refused = await dora.post("/api/my/vacation", {"days": 3})
    assert (refused.status, refused.body["error"]) == (409, "vacation_used")
    row = await my_row(dora, match)
    assert row is not None and row["deadline"] < due + 2 * day
    # The log says it: her seat's vacation, then its end.
    log = await stack.log(match)
    marks = [e.data.until for e in log if isinstance(e.data, pe.Vacation)]
    assert len(marks) == 2 and marks[0] is not None and marks[1] is None
    # And she can play on.
    await visit(proc.ws, match, created.body["token"], {}, random.Random(2))
    info = (await dora.get(f"/api/matches/{match}")).body
    assert info["phase"] != "over"
