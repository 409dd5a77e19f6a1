"""Points, tie-breaks and standings (pure).

**Arena points** (:func:`arena_points`). Each game a player wins in an arena match scores by the
size of the win: a single 1, a gammon 2, a backgammon 3 (the cube does not count); a game that
ended by forfeit scores 1 whatever its size. A match won by the opponent's no-show or
withdrawal scores 1. A player *on a streak* — who won their last two matches or more — scores
double in the match they play next, whatever its result; a match won adds one to the streak,
any other end (lost, abandoned, no-show) sets it to 0.

**Swiss tie-breaks** (:func:`swiss_tiebreaks`), applied in this order after the score:

1. *Buchholz*: the sum of the final scores of every opponent the player was paired with
   (matches lost by a no-show or a withdrawal count, the opponent was paired); each bye counts
   as an opponent with the player's own final score;
2. *Sonneborn-Berger*: the sum of the final scores of the opponents the player beat;
3. the rating the player joined with (higher first), then entry order (earlier first).

**Standings** (:func:`standings`): Swiss by score, then the tie-breaks above; arena by points,
then matches won, rating and entry order; knockout by rounds won (byes and walkovers count),
then seed — players out in the same round share their rank (the two semi-final losers are both
3rd). Swiss and arena ranks are 1, 2, 3… down the list (every tie is broken).

>>> arena_points((), 0, how="no_show", on_streak=(False, True))
(1, 0)
>>> from server.competition.state import Game
>>> games = (Game(0, "gammon", "bear_off"), Game(1, "single", "drop"))
>>> games += (Game(0, "backgammon", "resign"),)
>>> arena_points(games, 0, how="played", on_streak=(True, False))
(10, 1)
"""

from __future__ import annotations

from collections.abc import Iterable

from server.competition.effects import Standing
from server.competition.state import Game, How, Kind, Pairing, Player, TournamentState

RESULT_VALUE = {"single": 1, "gammon": 2, "backgammon": 3}
"""An arena game's points by the size of the win (the ``result`` of its ``game_over``)."""
STREAK = 2
"""Match wins in a row after which a player's points count double."""


def arena_points(
    games: Iterable[Game], winner: int | None, how: How | str, on_streak: tuple[bool, bool]
) -> tuple[int, int]:
    """The arena points seat 0 and seat 1 get from a decided pairing."""
    points = [0, 0]
    if how == How.PLAYED:
        for game in games:
            points[game.winner] += 1 if game.reason == "forfeit" else RESULT_VALUE[game.result]
    elif winner is not None:
        points[winner] = 1  # the opponent did not come, or withdrew
    return (
        points[0] * (2 if on_streak[0] else 1),
        points[1] * (2 if on_streak[1] else 1),
    )


def on_streak(player: Player) -> bool:
    return player.streak >= STREAK


# ---------------------------------------------------------------- Swiss


def opponents(pairings: Iterable[Pairing]) -> dict[str, list[str | None]]:
    """Each player's opponents in the decided pairings, in order (None for a bye)."""
    seen: dict[str, list[str | None]] = {}
    for pairing in pairings:
        if pairing.outcome is None:
            continue
        a, b = pairing.players
        if a is not None:
            seen.setdefault(a, []).append(b)
        if b is not None:
            seen.setdefault(b, []).append(a)
    return seen


def swiss_tiebreaks(state: TournamentState) -> dict[str, tuple[int, int]]:
    """Each player's (Buchholz, Sonneborn-Berger) from the decided pairings so far."""
    points = {p.id: p.points for p in state.players}
    buchholz = dict.fromkeys(points, 0)
    berger = dict.fromkeys(points, 0)
    for pairing in state.pairings:
        outcome = pairing.outcome
        if outcome is None:
            continue
        a, b = pairing.players
        if a is None or b is None:  # a bye: an opponent with the player's own score
            me = a if a is not None else b
            if me is not None:
                buchholz[me] += points[me]
            continue
        buchholz[a] += points[b]
        buchholz[b] += points[a]
        if outcome.winner is not None:
            winner, loser = (a, b) if outcome.winner == 0 else (b, a)
            berger[winner] += points[loser]
    return {p: (buchholz[p], berger[p]) for p in points}


# ---------------------------------------------------------------- standings


def standings(state: TournamentState) -> tuple[Standing, ...]:
    """The standings now (the final ones once the tournament is finished)."""
    kind = state.config.kind
    players = state.players
    if kind is Kind.SWISS:
        ties = swiss_tiebreaks(state)
        order = sorted(
            players, key=lambda p: (-p.points, *(-t for t in ties[p.id]), -p.rating, p.entry)
        )
        return tuple(_line(i + 1, p, ties[p.id]) for i, p in enumerate(order))
    if kind is Kind.ARENA:
        order = sorted(players, key=arena_order)
        return tuple(_line(i + 1, p, (p.won,)) for i, p in enumerate(order))
    # Knockout: the seed order is rating then entry, so this is rounds won, then seed.
    order = sorted(players, key=lambda p: (-p.points, -p.rating, p.entry))
    lines = []
    for i, p in enumerate(order):
        shared = i > 0 and order[i - 1].points == p.points
        lines.append(_line(lines[-1].rank if shared else i + 1, p, ()))
    return tuple(lines)


def arena_order(player: Player) -> tuple[int, int, float, int]:
    """The arena's standings order (and its pairing's ranking): points, matches won, rating,
    entry."""
    return (-player.points, -player.won, -player.rating, player.entry)


def swiss_order(player: Player) -> tuple[int, float, int]:
    """The Swiss pairing order (the ranking of :mod:`server.competition.swiss`): score,
    rating, entry."""
    return (-player.points, -player.rating, player.entry)


def _line(rank: int, p: Player, tiebreaks: tuple[int, ...]) -> Standing:
    return Standing(
        rank, p.id, p.name, p.points, tiebreaks, p.won, p.played, p.streak, not p.active
    )
