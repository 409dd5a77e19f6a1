"""A Tavli match: portes, plakoto and fevga in turn, scored as they are in Greece.

The conventions (docs/rules.md, "Tavli", with sources):

* the games rotate **portes, plakoto, fevga**, then portes again, until the match ends;
* a game scores for its winner **1 point** (single) or **2 points** (double: the loser bore off
  no checker, or lost its mother in plakoto); no cube, no triple;
* a drawn plakoto (both mothers pinned) scores nothing and still takes its turn in the
  rotation;
* the first player to reach the **target** (commonly 3, 5 or 7; 1 to 25 here) wins the match;
  scores may pass it (a double at 4 of 5 ends 6-x); there is no Crawford rule;
* the first game opens with the roll-off; each later game is opened by the **winner of the
  previous game** (after a draw, by a new roll-off), who rolls both dice for the first play
  (:attr:`~engine.variants.variant.Opening.REROLL`).

A :class:`TavliMatch` is an immutable value: :meth:`TavliMatch.record` a finished game,
get the next one.

>>> m = TavliMatch.new(3)
>>> m.next_variant.name, m.opener
('portes', None)
>>> m = m.record(winner=1, points=2)
>>> m.score, m.next_variant.name, m.opener, m.is_over
((0, 2), 'plakoto', 1, False)
>>> m = m.record(winner=None, points=0).record(winner=0, points=1)
>>> m.games, m.next_variant.name, m.opener
(3, 'portes', 0)
>>> m.record(winner=1, points=1).winner
1
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.errors import ErrorCode, MatchError
from engine.variants.fevga import FEVGA
from engine.variants.plakoto import PLAKOTO
from engine.variants.portes import PORTES
from engine.variants.variant import Variant

ROTATION: tuple[Variant, ...] = (PORTES, PLAKOTO, FEVGA)
"""The order of the games of a Tavli match."""

MAX_TARGET = 25


@dataclass(frozen=True, slots=True)
class TavliMatch:
    """A Tavli match: ``target`` points to win, the ``score`` of seats 0 and 1, ``games``
    finished so far, and the seat that opens the next game (``None``: a roll-off decides)."""

    target: int
    score: tuple[int, int] = (0, 0)
    games: int = 0
    opener: int | None = None

    @classmethod
    def new(cls, target: int) -> TavliMatch:
        """A match to ``target`` points (1..25), or :class:`~engine.errors.MatchError`.

        >>> TavliMatch.new(0)
        Traceback (most recent call last):
        ...
        engine.errors.MatchError: bad_options: a Tavli match is played to 1..25 points, got 0
        """
        if type(target) is not int or not 1 <= target <= MAX_TARGET:
            raise MatchError(
                ErrorCode.BAD_OPTIONS,
                f"a Tavli match is played to 1..{MAX_TARGET} points, got {target!r}",
            )
        return cls(target)

    @property
    def next_variant(self) -> Variant:
        """The variant of the next game (the rotation goes on from the games played)."""
        return ROTATION[self.games % len(ROTATION)]

    @property
    def winner(self) -> int | None:
        """The seat that has reached the target, if any."""
        for seat in (0, 1):
            if self.score[seat] >= self.target:
                return seat
        return None

    @property
    def is_over(self) -> bool:
        return self.winner is not None

    def record(self, winner: int | None, points: int) -> TavliMatch:
        """The match after a game won by seat ``winner`` for ``points`` (1 or 2), or drawn
        (``winner`` None, ``points`` 0); :class:`~engine.errors.MatchError` if the match is
        over or the result is not one a Tavli game can have."""
        if self.is_over:
            raise MatchError(ErrorCode.MATCH_OVER, "the match is over")
        if winner is None:
            if points != 0:
                raise MatchError(ErrorCode.BAD_OPTIONS, "a drawn game scores no points")
            return replace(self, games=self.games + 1, opener=None)
        if winner not in (0, 1) or type(winner) is not int:
            raise MatchError(ErrorCode.BAD_SEAT, f"a seat is 0 or 1, got {winner!r}")
        if type(points) is not int or points not in (1, 2):
            raise MatchError(ErrorCode.BAD_OPTIONS, f"a Tavli game scores 1 or 2, got {points!r}")
        score = list(self.score)
        score[winner] += points
        return replace(self, score=(score[0], score[1]), games=self.games + 1, opener=winner)
