"""The record of one game as JSON: the move record and the replay board's data, for a match
played here (``GET /api/matches/{id}/games/{n}/record.json``, :mod:`server.web.records`) and for
an imported one (``GET /api/imports/{import}/games/{n}/record.json``, :mod:`server.web.imports`).
The shape is documented in docs/protocol.md ("record.json")."""

from __future__ import annotations

from typing import Any

from analysis.game import GameInput
from analysis.trainer import board_ids
from engine.match import Mode
from engine.position_id import encode
from engine.record import MatchRecord
from engine.turns import game_turns
from engine.variants import variant
from server.match.history import find_game


def record_body(record: MatchRecord, game_no: int, ident: str, v: int) -> dict[str, Any]:
    """The record of game ``game_no`` of ``record`` (KeyError when it has not started), named
    ``ident`` (a match, or an import: ``GET /api/imports/{import}/games/{n}/record.json``)."""
    game = find_game(record, game_no)
    options = record.options
    given = GameInput.of(record, game)
    rules = variant(game.variant)
    turns = []
    for t in game_turns(game, rules):
        ids = None
        if game.variant == "backgammon":  # gnubg's IDs name backgammon positions only
            ids = board_ids(t, length=given.length, score=given.score, crawford=given.crawford)
        turns.append({
            "seat": t.seat,
            "action": t.action.value,
            "dice": sorted(t.dice, reverse=True) if t.dice else None,
            "text": t.text,
            "moves": [list(m) for m in t.moves],
            "position": encode(t.after),
            "cube": t.cube_after,
            "owner": t.owner_after,
            "board": {"position_id": ids[0], "match_id": ids[1]} if ids else None,
        })
        if rules.name == "plakoto":  # the pins, which no Position ID holds: [mover, opponent]
            turns[-1]["pinned"] = list(rules.pins(t.after))
    result = None
    if game.result is not None:
        r = game.result
        result = {
            "winner": r.winner,
            "points": game.points if game.points is not None else r.points,
            "result": None if r.counted is None else r.counted.word,  # as game_over says
            "reason": r.reason.value,
            "score": list(game.final_score) if game.final_score else None,
        }
    return {
        "match": ident,
        "game": game.number,
        "games": [g.number for g in record.games],
        "v": v,
        "names": list(record.names),
        "mode": options.mode.value,
        "length": options.length if options.mode is Mode.MATCH else None,
        "score": list(game.score),
        "crawford": game.crawford,
        "variant": game.variant,
        "start": encode(rules.start()),
        "turns": turns,
        "result": result,
    }
