"""Game results: how a game ended, how big the win is, and what it scores.

A finished game is a single (×1), a gammon (×2: the loser bore off no checker) or a backgammon
(×3: a gammon where the loser still has a checker on the bar or in the winner's home board).
Points are that multiplier times the cube value; under the Jacoby rule (money sessions, optional)
gammons and backgammons count as singles while the cube was never turned.

>>> from engine.position import Position
>>> winner = (15,) + (0,) * 25
>>> result_kind(Position.start().mover, winner)   # two checkers still on the 24-point
<ResultKind.BACKGAMMON: 3>
>>> Result(winner=0, kind=ResultKind.GAMMON, cube=4, reason=EndReason.BEAR_OFF).points
8
>>> Result(0, ResultKind.GAMMON, 1, EndReason.BEAR_OFF, jacoby=True).points
1
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from engine.position import BAR, OFF, Board, Position


class ResultKind(enum.IntEnum):
    """Size of a win; the value is the multiplier (also the resignation level)."""

    SINGLE = 1
    GAMMON = 2
    BACKGAMMON = 3

    @property
    def word(self) -> str:
        """Its name on the wire, in records and exports: single, gammon or backgammon.

        >>> ResultKind.GAMMON.word, ResultKind.of_word("backgammon").value
        ('gammon', 3)
        """
        return self.name.lower()

    @classmethod
    def of_word(cls, word: str) -> ResultKind:
        return cls[word.upper()]


class EndReason(enum.StrEnum):
    """How a game ended."""

    BEAR_OFF = "bear_off"
    DROP = "drop"
    RESIGN = "resign"
    FORFEIT = "forfeit"
    MOTHER = "mother"
    """Plakoto: won by pinning the loser's mother checker (a double)."""
    MOTHERS = "mothers"
    """Plakoto: both mother checkers pinned: a draw (no winner, no points)."""


class ForfeitReason(enum.StrEnum):
    """Why a player forfeited (rules.md: timeout, missing or invalid dice reveal, abandoning)."""

    TIMEOUT = "timeout"
    NO_REVEAL = "no_reveal"
    INVALID_REVEAL = "invalid_reveal"
    ABANDONED = "abandoned"


@dataclass(frozen=True, slots=True)
class Result:
    """The end of one game, seen from the winner.

    ``kind`` is what happened on the board (or the level resigned or forfeited). ``jacoby`` is
    set when the Jacoby rule made it count as a single (:attr:`counted`). ``cube`` is the cube
    value the game ended at (for a drop: the value before the double). A drawn game (plakoto,
    both mothers pinned: reason ``mothers``) has neither ``winner`` nor ``kind`` and scores 0.

    >>> r = Result(1, ResultKind.GAMMON, 1, EndReason.BEAR_OFF, jacoby=True)
    >>> r.loser, r.counted, r.points
    (0, <ResultKind.SINGLE: 1>, 1)
    >>> Result(1, ResultKind.GAMMON, 1, EndReason.DROP)
    Traceback (most recent call last):
    ...
    ValueError: a dropped double is always a single
    >>> draw = Result(None, None, 1, EndReason.MOTHERS)
    >>> draw.loser, draw.counted, draw.points, draw.is_draw
    (None, None, 0, True)
    """

    winner: int | None
    kind: ResultKind | None
    cube: int
    reason: EndReason
    forfeit: ForfeitReason | None = None
    jacoby: bool = False

    def __post_init__(self) -> None:
        if self.reason is EndReason.MOTHERS:
            if self.winner is not None or self.kind is not None or self.jacoby:
                raise ValueError("a drawn game has no winner and no kind")
        else:
            if self.winner not in (0, 1):
                raise ValueError(f"winner must be seat 0 or 1, got {self.winner!r}")
            object.__setattr__(self, "kind", ResultKind(self.kind))
        if self.cube < 1 or self.cube & (self.cube - 1):
            raise ValueError(f"cube value must be a power of two, got {self.cube}")
        if self.reason is EndReason.DROP and self.kind is not ResultKind.SINGLE:
            raise ValueError("a dropped double is always a single")
        if (self.reason is EndReason.FORFEIT) != (self.forfeit is not None):
            raise ValueError("a forfeit reason goes with (and only with) a forfeit")
        if self.jacoby and self.reason in (EndReason.DROP, EndReason.FORFEIT):
            raise ValueError("the Jacoby rule applies to played and resigned games only")

    @property
    def is_draw(self) -> bool:
        return self.winner is None

    @property
    def loser(self) -> int | None:
        return None if self.winner is None else 1 - self.winner

    @property
    def counted(self) -> ResultKind | None:
        """The kind that scores (None for a draw)."""
        if self.kind is None:
            return None
        return ResultKind.SINGLE if self.jacoby else self.kind

    @property
    def points(self) -> int:
        """Points won: the counted multiplier times the cube value (0 for a draw)."""
        counted = self.counted
        return 0 if counted is None else int(counted) * self.cube


def result_kind(loser: Board, winner: Board) -> ResultKind:
    """The size of a win at the end of a game (``winner`` has borne off all 15).

    Boards are each counted from their owner's side, so the winner's home board (their points
    1–6) is the loser's points 19–24.

    >>> winner = (15,) + (0,) * 25
    >>> result_kind((1, 14) + (0,) * 24, winner)
    <ResultKind.SINGLE: 1>
    >>> result_kind((0, 0, 0, 0, 0, 0, 0, 15) + (0,) * 18, winner)
    <ResultKind.GAMMON: 2>
    """
    if loser[OFF]:
        return ResultKind.SINGLE
    if loser[BAR] or any(loser[19:25]):
        return ResultKind.BACKGAMMON
    return ResultKind.GAMMON


def worst_possible(loser: Board, winner: Board) -> ResultKind:
    """The largest loss still possible for ``loser``: the forfeit level of rules.md.

    ×1 once they have borne off a checker; otherwise ×3 while they have a checker on the bar or
    in the opponent's home board, or the two sides are still in contact (a hit can still send a
    checker back); otherwise ×2.

    >>> start = Position.start()
    >>> worst_possible(start.mover, start.opponent)
    <ResultKind.BACKGAMMON: 3>
    >>> race = Position.from_points({1: 15}, {1: 15})
    >>> worst_possible(race.mover, race.opponent)
    <ResultKind.GAMMON: 2>
    """
    if loser[OFF]:
        return ResultKind.SINGLE
    if loser[BAR] or any(loser[19:25]) or Position.unchecked(loser, winner).is_contact():
        return ResultKind.BACKGAMMON
    return ResultKind.GAMMON


def jacoby_applies(kind: ResultKind, *, jacoby: bool, cube_turned: bool) -> bool:
    """True when the Jacoby rule makes a gammon or backgammon count as a single.

    >>> jacoby_applies(ResultKind.GAMMON, jacoby=True, cube_turned=False)
    True
    >>> jacoby_applies(ResultKind.GAMMON, jacoby=True, cube_turned=True)
    False
    >>> jacoby_applies(ResultKind.SINGLE, jacoby=True, cube_turned=False)
    False
    """
    return jacoby and not cube_turned and kind > ResultKind.SINGLE
