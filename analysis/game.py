"""The input of an analysis: one game's turns and what their equities depend on (the match
score, the Crawford rule, money rules)."""

from __future__ import annotations

from dataclasses import dataclass

from engine.match import Mode
from engine.record import GameRecord, MatchRecord
from engine.turns import Turn, game_turns


@dataclass(frozen=True, slots=True)
class GameInput:
    turns: tuple[Turn, ...]
    mode: Mode
    length: int  # the match length in match play, else 0
    score: tuple[int, int]  # before the game
    crawford: bool
    jacoby: bool = False
    beavers: bool = False
    result: tuple[int, int] | None = None  # (winner, points) once the game is over

    @classmethod
    def of(cls, record: MatchRecord, game: GameRecord) -> GameInput:
        options = record.options
        result = None
        if game.result is not None:
            points = game.points if game.points is not None else game.result.points
            result = (game.result.winner, points)
        return cls(
            turns=game_turns(game),
            mode=options.mode,
            length=options.length if options.mode is Mode.MATCH else 0,
            score=game.score,
            crawford=game.crawford,
            jacoby=options.jacoby,
            beavers=options.beavers,
            result=result,
        )
