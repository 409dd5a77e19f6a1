"""The opening roll-off and the kinds of rolls.

Roll-off rolls use the ordinary derivation: ``d1`` is seat 0's die, ``d2`` seat 1's. Equal dice
repeat with the next roll index; otherwise the seat with the higher die moves first and plays
both numbers, so the deciding roll-off roll is also the first turn's roll. After it, turn rolls
alternate strictly, starting with the roll-off loser. In the Greek games (``reroll``: portes,
plakoto, fevga) nobody plays the deciding roll-off roll: turn rolls start with the winner (or,
in a game opened without a roll-off, with the opener).

>>> rolloff_winner(5, 3), rolloff_winner(2, 6), rolloff_winner(4, 4)
(0, 1, None)
"""

from __future__ import annotations

import enum


class RollKind(enum.StrEnum):
    """``rolloff``: a roll of the opening roll-off; ``turn``: a player's roll for a turn."""

    ROLLOFF = "rolloff"
    TURN = "turn"


def rolloff_winner(d1: int, d2: int) -> int | None:
    """The seat that moves first after a roll-off roll ``d1``-``d2``, or None on a tie."""
    if d1 == d2:
        return None
    return 0 if d1 > d2 else 1


def turn_roller(first_mover: int, turn_index: int, reroll: bool = False) -> int:
    """The seat rolling the ``turn_index``-th turn roll (0-based) after the roll-off.

    The roll-off winner played the deciding roll-off roll, so turn roll 0 is the other seat's;
    with ``reroll`` (a Greek game) nobody played it and turn roll 0 is the winner's (or the
    opener's, in a game opened without a roll-off).

    >>> [turn_roller(1, i) for i in range(4)], [turn_roller(1, i, reroll=True) for i in range(3)]
    ([0, 1, 0, 1], [1, 0, 1])
    """
    return (first_mover + turn_index + (0 if reroll else 1)) % 2
