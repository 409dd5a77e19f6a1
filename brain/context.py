"""The cube and the score, seen by one player: what an equity depends on besides the board.

>>> from engine.match import Match, MatchOptions
>>> m, _ = Match.new(MatchOptions.match(5)).start_game()
>>> c = context_for(m, 0)
>>> c.value, c.owner, c.away, c.crawford, c.may_double
(1, <Owner.CENTRED: 'centered'>, (5, 5), False, True)
>>> context_for(Match.new(MatchOptions.single_game()).start_game()[0], 1).away
(1, 1)
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from engine.cube import MAX_CUBE
from engine.match import Match, Mode


class Owner(enum.StrEnum):
    """Who owns the cube, seen by the player the context belongs to."""

    CENTRED = "centered"
    MOVER = "player"
    OPPONENT = "opponent"

    def flipped(self) -> Owner:
        if self is Owner.MOVER:
            return Owner.OPPONENT
        if self is Owner.OPPONENT:
            return Owner.MOVER
        return self


@dataclass(frozen=True, slots=True)
class CubeContext:
    """Cube value and owner, points each side still needs, and the rules in force.

    ``away`` is ``(points this player needs, points the opponent needs)``; ``(0, 0)`` is money
    play. A single game counts like a 1-away/1-away match (only winning matters, the cube is
    dead). ``cube_in_play`` is false in a cubeless game and the Crawford game.
    """

    value: int = 1
    owner: Owner = Owner.CENTRED
    away: tuple[int, int] = (0, 0)
    crawford: bool = False
    jacoby: bool = False
    beavers: bool = False
    cube_in_play: bool = True

    @property
    def is_match(self) -> bool:
        return self.away != (0, 0)

    @property
    def may_double(self) -> bool:
        """The cube rules let this player double now (ignoring the phase of the turn): the cube
        in play, centred or theirs, and not dead in match play (a cube that already wins the
        match for this player is never turned)."""
        if not self.cube_in_play or self.crawford or self.owner is Owner.OPPONENT:
            return False
        if self.value * 2 > MAX_CUBE:
            return False
        return not (self.is_match and self.value >= self.away[0])

    def flipped(self) -> CubeContext:
        """The same context seen by the other player."""
        return replace(self, owner=self.owner.flipped(), away=(self.away[1], self.away[0]))


MONEY = CubeContext()
"""Money play, cube centred at 1, no Jacoby rule, no beavers."""


def seat_context(mode: Mode, seat: int, *, value: int = 1, owner: int | None = None,
                 length: int = 0, score: tuple[int, int] = (0, 0), crawford: bool = False,
                 jacoby: bool = False, beavers: bool = False) -> CubeContext:
    """The context of ``seat`` from the match's scoring ``mode`` and the cube (``owner`` a seat,
    None while centred), score and rules: the one mapping every caller (a
    :class:`~engine.match.Match`, a client's tracker, a game record) goes through.

    A single game counts as 1-away/1-away with a dead cube; in a match the cube is dead in the
    Crawford game.

    >>> seat_context(Mode.MATCH, 1, value=2, owner=1, length=5, score=(3, 1)).away
    (4, 2)
    >>> seat_context(Mode.MONEY, 0, value=2, owner=1, jacoby=True).owner
    <Owner.OPPONENT: 'opponent'>
    """
    if mode is Mode.SINGLE_GAME:
        return CubeContext(value=1, away=(1, 1), cube_in_play=False)
    own = Owner.CENTRED if owner is None else Owner.MOVER if owner == seat else Owner.OPPONENT
    if mode is Mode.MATCH:
        away = (length - score[seat], length - score[1 - seat])
        return CubeContext(value=value, owner=own, away=away, crawford=crawford,
                           cube_in_play=not crawford)
    return CubeContext(value=value, owner=own, jacoby=jacoby, beavers=beavers)


def context_for(match: Match, seat: int) -> CubeContext:
    """The context of ``seat`` in the current (or last) game of ``match``."""
    cube = match.game.cube if match.game is not None else None
    options = match.options
    return seat_context(options.mode, seat, value=cube.value if cube is not None else 1,
                        owner=cube.owner if cube is not None else None, length=options.length,
                        score=match.score, crawford=match.is_crawford, jacoby=options.jacoby,
                        beavers=options.beavers)
