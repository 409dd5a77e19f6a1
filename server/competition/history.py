"""What a stored tournament state keeps, and what goes to its history (pure).

An arena pairs players again every few minutes, and its machine state keeps every pairing it
ever made: about 210 bytes each, 470 KiB for a 500-player, 30-minute arena, rewritten on every
transition. But an arena's machine never reads a decided pairing again: points, wins, streaks,
no-shows and the last opponent live in the players; the next pairing, the no-show deadlines
and ``next_due`` read only the undecided pairings. So the shell stores an arena's state
without its decided pairings (:func:`split`) and appends those to the tournament's history (a
list under the same hash tag, written by the same script as the state). Knockouts and Swiss
tournaments keep every pairing (their brackets, the pairs already met and the tie-breaks read
them; they are bounded: 255 pairings for 256 players in a knockout).

One difference shows: a ``MatchFinished`` (or ``Connected``) for an arena pairing that was
decided and moved out is refused ``unknown_match`` instead of being ``Unchanged``; the shell
knows the match is the tournament's (its id is derived from the tournament, round 0 and a
board the arena has used: :func:`decided_elsewhere`) and treats it as already counted: it
applies a ``Tick`` instead, which settles what is due by then exactly as the refused command
would have before and after doing nothing.
``tests/unit/test_competition_history.py`` plays arenas both ways and checks that every
effect and every player's line are the same.

>>> from engine.match import MatchOptions
>>> from server.competition.state import Config, Kind, Outcome, How, Pairing, TournamentState
>>> config = Config(Kind.ARENA, MatchOptions.single_game(), max_players=4, duration_ms=60_000)
>>> done = Pairing(0, 1, ("a", "b"), "m1", outcome=Outcome(0, How.PLAYED, 5))
>>> live = Pairing(0, 2, ("c", "d"), "m2")
>>> kept, moved = split(TournamentState("t", config, "a", 0, pairings=(done, live)))
>>> [p.match for p in kept.pairings], [p.match for p in moved]
(['m2'], ['m1'])
"""

from __future__ import annotations

from dataclasses import replace

from server.competition.effects import match_id
from server.competition.state import Kind, Pairing, TournamentState


def split(state: TournamentState) -> tuple[TournamentState, tuple[Pairing, ...]]:
    """The state to store and the decided pairings that leave it (an arena's only)."""
    if state.config.kind is not Kind.ARENA:
        return state, ()
    decided = tuple(p for p in state.pairings if p.outcome is not None)
    if not decided:
        return state, ()
    kept = tuple(p for p in state.pairings if p.outcome is None)
    return replace(state, pairings=kept), decided


def decided_elsewhere(state: TournamentState, match: str, board: int) -> bool:
    """Whether ``match`` is an arena pairing of ``state`` that was decided and moved to the
    history: the arena's match of ``board``, a board it has used, and no longer in the state.

    >>> from engine.match import MatchOptions
    >>> from server.competition.state import Config, Kind, TournamentState
    >>> config = Config(Kind.ARENA, MatchOptions.single_game(), max_players=4, duration_ms=60_000)
    >>> state = TournamentState("t", config, "a", 0, boards=3)
    >>> decided_elsewhere(state, match_id("t", 0, 2), 2), decided_elsewhere(state, "x", 2)
    (True, False)
    """
    if state.config.kind is not Kind.ARENA or not 1 <= board <= state.boards:
        return False
    if match != match_id(state.id, 0, board):
        return False
    return all(p.match != match for p in state.pairings)
