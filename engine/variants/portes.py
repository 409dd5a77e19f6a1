"""Portes: backgammon as the first game of Greek Tavli.

The board, the starting position and every move rule are backgammon's: hitting, the bar,
bearing off, both dice or the higher one, doubles four times — so the engine's generator,
validator and reference serve unchanged. The Greek conventions (docs/rules.md, "Portes", with
sources) are:

* **no doubling cube**;
* **no backgammon**: a win is single (1 point), or double (2 points) when the loser has borne
  off no checker, whatever stands in the winner's home board or on the bar;
* **the opening**: the player who wins the one-die roll-off throws both dice again for the first
  play (so it may be a double) — :attr:`~engine.variants.variant.Opening.REROLL`.

Hit-and-run in the home board (a checker that hits there moving on in the same turn) is
allowed here, as in backgammon: the Turkish tavla forbids it, and one revision of Wikipedia's
Tavli article says the same of portes, but the Greek sources we follow do not.

>>> from engine.position import Position
>>> lost = Position.from_points({}, {24: 15})  # backgammon would make this a triple
>>> ending(lost).kind, ending(Position.from_points({}, {6: 1})).kind
(<ResultKind.GAMMON: 2>, <ResultKind.SINGLE: 1>)
>>> worst_possible(Position.start()).word
'gammon'
"""

from __future__ import annotations

from dataclasses import replace

from engine.position import OFF, Position
from engine.results import ResultKind
from engine.variants.backgammon import BACKGAMMON
from engine.variants.variant import Ending, Finish, Opening, Side


def ending(position: Position) -> Ending | None:
    """After the mover's play: a win when its board is empty, double if the loser has borne
    off nothing, single otherwise."""
    if any(position.mover[1:]):
        return None
    return Ending(Side.MOVER, greek_kind(position.opponent[OFF]), Finish.BEAR_OFF)


def greek_kind(loser_off: int) -> ResultKind:
    """The Greek scoring of a game won by bearing off: single, or double (scored as a gammon,
    ×2) when the loser has borne off nothing. There is no triple."""
    return ResultKind.SINGLE if loser_off else ResultKind.GAMMON


def worst_possible(position: Position) -> ResultKind:
    """The largest loss still possible for the mover: single once it has borne off a checker,
    else double."""
    return greek_kind(position.mover[OFF])


PORTES = replace(
    BACKGAMMON,
    name="portes",
    cube=False,
    opening=Opening.REROLL,
    largest=ResultKind.GAMMON,
    ending=ending,
    worst_possible=worst_possible,
)
