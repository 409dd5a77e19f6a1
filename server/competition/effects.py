"""What a tournament asks the world to do, or tells it, after a transition.

The shell carries effects out after it has stored the new state; each is safe to carry out
twice (a match's id is derived from its tournament, round and board: :func:`match_id`, so
creating it again finds it made). Standings travel in :class:`RoundOver` and :class:`Finish`
(and :func:`server.competition.scoring.standings` gives them at any time).

>>> match_id("t1", 2, 3)
'c75f1175a015bef44a6b26061e495736'
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from server.machine import serial


def match_id(tournament: str, round: int, board: int) -> str:
    """The id (32 hex digits) of the match of ``round``/``board`` of ``tournament``: the first
    16 bytes of SHA-256 of ``fairgammon/tournament-match/<tournament>/<round>/<board>``. As
    hard to guess as the tournament's id (a private tournament's is its secret)."""
    label = f"fairgammon/tournament-match/{tournament}/{round}/{board}".encode()
    return hashlib.sha256(label).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class Standing:
    """One line of the standings. ``points`` as in :class:`~server.competition.state.Player`;
    ``tiebreaks`` the kind's tie-break values in the order they are applied (Swiss: Buchholz,
    Sonneborn-Berger; arena: matches won; knockout: none): docs/tournaments.md."""

    rank: int
    player: str
    name: str
    points: int
    tiebreaks: tuple[int, ...]
    won: int
    played: int
    streak: int
    withdrawn: bool


@dataclass(frozen=True, slots=True)
class Started:
    """The tournament began with these players (in seed order; an arena's in entry order)."""

    players: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StartRound:
    round: int


@dataclass(frozen=True, slots=True)
class Pair:
    """Create match ``match`` with ``players[0]`` in seat 0 and ``players[1]`` in seat 1, for
    ``round``/``board``; each must connect by ``deadline`` or lose it as a no-show."""

    match: str
    round: int
    board: int
    players: tuple[str, str]
    deadline: int


@dataclass(frozen=True, slots=True)
class Bye:
    """``player`` goes through ``round`` without a match: a ``bye`` or a ``walkover``."""

    round: int
    player: str
    how: str


@dataclass(frozen=True, slots=True)
class Forfeit:
    """End running match ``match``, lost by ``seats`` (both: nobody wins), because of a
    ``no_show`` or because the player ``withdrew``. The tournament has counted it already."""

    match: str
    seats: tuple[int, ...]
    why: str


@dataclass(frozen=True, slots=True)
class Withdrawn:
    """``player`` takes no more part: ``asked`` or ``no_shows``."""

    player: str
    why: str


@dataclass(frozen=True, slots=True)
class RoundOver:
    """A Swiss round is decided: the standings after it."""

    round: int
    standings: tuple[Standing, ...]


@dataclass(frozen=True, slots=True)
class Finish:
    """The end: ``end`` is ``completed``, ``cancelled`` or ``exhausted``
    (:class:`~server.competition.state.TournamentState`), ``winner`` first in the final
    standings (None when cancelled, or a knockout final nobody came to)."""

    end: str
    winner: str | None
    standings: tuple[Standing, ...]


Effect = Started | StartRound | Pair | Bye | Forfeit | Withdrawn | RoundOver | Finish

RECORD_KINDS: dict[str, type] = {
    "Started": Started,
    "StartRound": StartRound,
    "Pair": Pair,
    "Bye": Bye,
    "Forfeit": Forfeit,
    "Withdrawn": Withdrawn,
    "RoundOver": RoundOver,
    "Finish": Finish,
}
"""The stable name of each effect's kind, should the shell store effects (an outbox)."""

_KIND_OF = {effect: kind for kind, effect in RECORD_KINDS.items()}


def record(effect: Effect) -> list[object]:
    """``[kind, body]``: an effect's stored form.

    >>> record(Bye(1, "ann", "bye"))
    ['Bye', {'round': 1, 'player': 'ann', 'how': 'bye'}]
    >>> recorded_effect(*record(Bye(1, "ann", "bye")))
    Bye(round=1, player='ann', how='bye')
    """
    return [_KIND_OF[type(effect)], serial.dump(effect)]


def recorded_effect(kind: str, body: object) -> Effect:
    effect = RECORD_KINDS.get(kind)
    if effect is None:
        raise ValueError(f"unknown effect record kind {kind!r} (written by a newer version?)")
    loaded: Effect = serial.load(effect, body)
    return loaded
