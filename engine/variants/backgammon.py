"""Backgammon as a :class:`~engine.variants.variant.Variant`: the engine's own rules, unchanged.

Nackgammon and hypergammon (:mod:`engine.variants.nackgammon`,
:mod:`engine.variants.hypergammon`) play by exactly these move and scoring rules from other
starting positions, and portes by these moves with Greek scoring; all of them reuse the
functions here.

>>> from engine.position import Position
>>> BACKGAMMON.start() == Position.start(), len(BACKGAMMON.legal_plays(Position.start(), 2, 1))
(True, 15)
>>> done = Position.from_points({}, {24: 15})  # the loser's 15 in the winner's home board
>>> ending(done).winner, ending(done).kind, ending(done).finish
(<Side.MOVER: 'mover'>, <ResultKind.BACKGAMMON: 3>, <Finish.BEAR_OFF: 'bear_off'>)
>>> ending(Position.start()) is None
True
"""

from __future__ import annotations

from engine import results
from engine.movegen import legal_plays
from engine.position import Position
from engine.reference import reference_plays
from engine.results import ResultKind
from engine.validate import can_play, validate_play
from engine.variants.variant import Ending, Finish, Opening, Side, Variant


def ending(position: Position) -> Ending | None:
    """After the mover's play: a win when its board is empty, as big as
    :func:`engine.results.result_kind` says (single, gammon or backgammon)."""
    if any(position.mover[1:]):
        return None
    kind = results.result_kind(position.opponent, position.mover)
    return Ending(Side.MOVER, kind, Finish.BEAR_OFF)


def check(position: Position) -> None:
    """Raise :class:`~engine.position.PositionError` unless ``position`` is a possible
    backgammon position (what ``Position(...)`` checks)."""
    Position(position.mover, position.opponent)


def worst_possible(position: Position) -> ResultKind:
    """The largest loss still possible for the mover (:func:`engine.results.worst_possible`)."""
    return results.worst_possible(position.mover, position.opponent)


BACKGAMMON = Variant(
    name="backgammon",
    checkers=15,
    cube=True,
    opening=Opening.ROLLOFF,
    largest=ResultKind.BACKGAMMON,
    start=Position.start,
    legal_plays=legal_plays,
    validate=validate_play,
    can_play=can_play,
    ending=ending,
    worst_possible=worst_possible,
    reference=reference_plays,
    check=check,
)
