"""The move record: standard notation (shared with the browser through vectors), the turns of a
recorded game, and ``/api/matches/{id}/games/{n}/record.json`` on a real server."""

from __future__ import annotations

import pytest

from engine.match import Match, MatchOptions
from engine.notation import play_text
from engine.position import Position
from engine.position_id import decode, encode
from engine.record import MatchRecord
from engine.reference import apply_move
from engine.results import ResultKind
from engine.turns import TurnKind, game_turns
from harness.srv_support import play_out, store_at
from harness.web_tools import load_web_tool
from protocol import events as pe
from protocol.client import MatchClient, create_match, join_match
from protocol.client.lobby import LobbyError, get
from server.match.history import read_log


def test_notation_vectors_are_up_to_date() -> None:
    tool = load_web_tool("make_notation_vectors")
    assert tool.VECTORS.read_text(encoding="utf-8") == tool.render(tool.build_cases()), (
        "web-client/test/vectors/notation-vectors.json is stale: "
        "run .venv/bin/python web-client/tools/make_notation_vectors.py"
    )


@pytest.mark.parametrize(
    ("moves", "text"),
    [
        (((13, 7), (8, 7)), "13/7 8/7"),
        (((8, 7), (13, 7)), "13/7 8/7"),  # the order played does not matter
        (((24, 18), (18, 13)), "24/13"),
        (((24, 18), (24, 18), (18, 12), (18, 12)), "24/12(2)"),
        (((6, 5), (6, 5), (8, 7), (8, 7)), "8/7(2) 6/5(2)"),
        ((), ""),
    ],
)
def test_notation_from_the_start(moves, text) -> None:
    assert play_text(Position.start(), moves) == text


def test_notation_marks_hits_bar_and_off() -> None:
    blot_on_7 = Position.from_points({24: 2, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 18: 1})
    assert play_text(blot_on_7, ((13, 7), (7, 4))) == "13/7*/4"
    assert play_text(blot_on_7, ((13, 7), (8, 7))) == "13/7* 8/7"
    on_bar = Position.from_points(
        {25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 4, 3: 1}
    )
    assert play_text(on_bar, ((25, 22), (22, 16))) == "bar/22*/16"
    home = Position.from_points({6: 3, 5: 2, 3: 1}, {24: 2, 18: 13})
    assert play_text(home, ((6, 0), (5, 0))) == "6/off 5/off"


def test_game_turns_follow_plays_cube_and_resignation() -> None:
    options = MatchOptions.match(5)
    m, events = Match.new(options).start_game()
    log = list(events)
    for step in (
        lambda m: m.roll_off(3, 1),
        lambda m: m.move(0, ((8, 5), (6, 5))),
        lambda m: m.double(1),
        lambda m: m.take(0),
        lambda m: m.roll(1, 6, 4),
        lambda m: m.move(1, ((24, 18), (18, 14))),
        lambda m: m.roll(0, 5, 5),
    ):
        m, events = step(m)
        log.extend(events)
    m, events = m.resign(0, 1)
    log.extend(events)
    m, events = m.accept_resignation(1)
    log.extend(events)
    record = MatchRecord.from_events(options, ("A", "B"), tuple(log))
    turns = game_turns(record.games[0])
    assert [(t.seat, t.action, t.text) for t in turns] == [
        (0, TurnKind.MOVE, "8/5 6/5"),
        (1, TurnKind.DOUBLE, "doubles to 2"),
        (0, TurnKind.TAKE, "takes"),
        (1, TurnKind.MOVE, "24/14"),
        (0, TurnKind.RESIGN, "resigns a single"),
        (1, TurnKind.ACCEPT, "accepts"),
    ]
    assert turns[0].dice == (3, 1)
    assert (turns[1].cube, turns[1].owner) == (1, None)
    assert (turns[2].cube_after, turns[2].owner_after) == (2, 0)
    # Positions are seen by the acting seat: after seat 0's play, before seat 1's (swapped).
    assert turns[0].after.swapped() == turns[3].before
    assert turns[3].after.mover[14] == 1
    assert record.games[0].result.kind is ResultKind.SINGLE


async def test_record_json_of_every_game_of_a_real_match(server, redis_url) -> None:
    created = await create_match(server.base, name="Ann", mode="match", length=3)
    joined = await join_match(server.base, created["match"], name="Bob")
    match_id = created["match"]
    a = MatchClient(server.ws, match_id, created["token"])
    b = MatchClient(server.ws, match_id, joined["token"])
    async with a, b:
        await play_out(a, b, seed=13)
    async with store_at(redis_url) as store:
        log = await read_log(store, match_id)
    games = sorted({e.data.game for e in log if isinstance(e.data, pe.GameOver)})
    assert games
    for n in games:
        doc = await get(server.base, f"/api/matches/{match_id}/games/{n}/record.json")
        assert doc["game"] == n and doc["games"] == games and doc["names"] == ["Ann", "Bob"]
        assert doc["v"] == log[-1].v
        wire = [e.data for e in log if getattr(e.data, "game", None) == n]
        moved = [d for d in wire if isinstance(d, pe.Moved)]
        assert moved and len([t for t in doc["turns"] if t["action"] == "move"]) == len(moved)
        assert len([t for t in doc["turns"] if t["action"] == "pass"]) == len(
            [d for d in wire if isinstance(d, pe.Passed)]
        )
        # Each play's position is the wire's, and replaying the moves from the position before
        # gives it: the record's boards are the game's.
        plays = iter(moved)
        boards = [Position.start().mover, Position.start().mover]
        for t in doc["turns"]:
            seat = t["seat"]
            before = Position.unchecked(boards[seat], boards[1 - seat])
            if t["action"] == "move":
                assert t["position"] == next(plays).position_id
                after = before
                for mv in t["moves"]:
                    after = apply_move(after, tuple(mv))
                assert encode(after) == t["position"]
                assert play_text(before, [tuple(mv) for mv in t["moves"]]) == t["text"]
                assert t["dice"][0] >= t["dice"][1]
            else:
                assert t["position"] == encode(before)
            p = decode(t["position"])
            boards[seat], boards[1 - seat] = p.mover, p.opponent
        over = next(d for d in wire if isinstance(d, pe.GameOver))
        assert doc["result"]["winner"] == over.winner and doc["result"]["points"] == over.points
        assert doc["result"]["score"] == list(over.score)
    # Bad requests: a clear 404, nothing else.
    bad = (f"/api/matches/{match_id}/games/99/record.json", "/api/matches/zz/games/1/record.json")
    for path in bad:
        with pytest.raises(LobbyError) as err:
            await get(server.base, path)
        assert err.value.status == 404
