"""The input of an analysis: one game's turns and what their equities depend on (the match
score, the Crawford rule, money rules, whether the cube is in play).

Which variants are analysed (:data:`ANALYSED`): backgammon, and the variants that play its
moves with 15 checkers from another start or without the cube — nackgammon and portes — whose
turns start from the variant's own position. bgsage's nets know backgammon only: plakoto and
fevga have other moves, and in hypergammon the nets see twelve checkers a side borne off (so
they never see a gammon coming); their games are not analysed (:class:`NotAnalysed`, with the
reason the API gives: docs/analysis.md, "Variants").
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.match import Mode
from engine.record import GameRecord, MatchRecord
from engine.turns import Turn, game_turns
from engine.variants import variant

ANALYSED = frozenset({"backgammon", "nackgammon", "portes"})
"""The variants whose games are analysed."""


class NotAnalysed(Exception):
    """A game of a variant the analysis does not cover (``variant`` names it)."""

    reason = "variant"

    def __init__(self, name: str) -> None:
        super().__init__(f"no analysis for {name}: the nets know backgammon only")
        self.variant = name


def check_analysed(game: GameRecord) -> None:
    """:class:`NotAnalysed` unless ``game``'s variant is in :data:`ANALYSED`."""
    if game.variant not in ANALYSED:
        raise NotAnalysed(game.variant)


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
    variant: str = "backgammon"
    cube: bool = True  # False: no cube in this game (a single game, the Crawford game, portes)

    @classmethod
    def of(cls, record: MatchRecord, game: GameRecord) -> GameInput:
        """The input of ``game`` (its turns from its variant's start; :func:`check_analysed`
        says whether the analysis covers it)."""
        options = record.options
        result = None
        if game.result is not None:
            points = game.points if game.points is not None else game.result.points
            result = (game.result.winner, points)
        return cls(
            turns=game_turns(game, variant(game.variant)),
            mode=options.mode,
            length=options.length if options.mode is Mode.MATCH else 0,
            score=game.score,
            crawford=game.crawford,
            jacoby=options.jacoby,
            beavers=options.beavers,
            result=result,
            variant=game.variant,
            cube=game.cube,
        )
