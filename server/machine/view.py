"""The public snapshot of a match (``snapshot.state`` on the wire): everything a player or a
spectator needs to show the match as it stands, and nothing secret (a held reveal never
appears; commitments appear only once both are in).

>>> from engine.match import MatchOptions
>>> from server.machine import core
>>> from server.machine.state import Config
>>> state, _ = core.create("ab" * 16, Config(MatchOptions.match(3)), "ann", now=0)
>>> view = public_view(state)
>>> view.settings.length, view.seats[0].name, view.seats[1].status, view.game
(3, 'ann', 'empty', None)
"""

from __future__ import annotations

from protocol import events as pe
from protocol import state as ps
from protocol.limits import DAY_MS
from server.machine.state import Config, MatchState, Phase, owing

Presence = tuple[str, str]
"""Each seat's connection status: online, reconnecting or gone."""


def settings(config: Config) -> pe.MatchCreated:
    """The match's settings as the wire shows them (its first event and every snapshot). A
    correspondence match's ``move_time`` is its days per decision in whole days (what makes it
    one on the wire), whatever a day lasts on this server (only tests shorten it: its clocks'
    deadlines are what they are)."""
    options = config.options
    length = options.length if options.mode.value == "match" else None
    return pe.MatchCreated(
        options.mode.value,
        length,
        options.jacoby,
        options.beavers,
        config.days * DAY_MS if config.correspondence else config.clock_ms,
        config.reserve_ms,
        options.variant.name,
    )


def public_view(state: MatchState, presence: Presence = ("online", "online")) -> ps.MatchState:
    match = state.match
    seats = tuple(
        ps.SeatState(name, "empty" if name is None else presence[i])
        for i, name in enumerate(state.names)
    )
    result = None
    if state.is_over:
        reason = "abandoned" if state.abandoned else (match.end.value if match.end else "completed")
        if state.abandoned and match.game is None and state.names[1] is None:
            reason = "cancelled"
        result = pe.MatchOver(match.winner, match.score, reason)
    return ps.MatchState(
        state.match_id,
        settings(state.config),
        (seats[0], seats[1]),
        match.score,
        _game_view(state),
        result,
        pe.RematchOffered(state.rematch.by, state.rematch.match) if state.rematch else None,
    )


def _game_view(state: MatchState) -> ps.GameState | None:
    if state.phase is Phase.WAITING:
        return None
    match = state.match
    dice = state.dice
    seats, decision = owing(state)
    clock = pe.Clock(decision, seats, state.deadline, state.reserves)
    game = match.game
    current = game is not None and match.game_number == dice.game
    if not current or game is None:
        # Between games (commitments for the next one): show its starting position.
        variant = match.options.variant.game(max(dice.game, 1))
        start = variant.start()
        return ps.GameState(
            dice.game, match.next_game_is_crawford(), decision, 0, None, dice.k - 1, None,
            (start.mover, start.opponent), ps.CubeState(1, None), None, None,
            _commitments(state), dice.recommits, clock, _last_result(state), _heads(state),
            variant.name,
        )  # fmt: skip
    cube = game.cube
    double = None
    if cube.pending and cube.offered_by is not None:
        double = ps.DoubleOffer(cube.offered_by, cube.value * 2)
    resignation = None
    if game.resignation is not None:
        resignation = ps.ResignOffer(game.resignation.seat, int(game.resignation.level))
    phase = "over" if game.is_over else decision
    return ps.GameState(
        dice.game,
        match.is_crawford,
        phase,
        game.turns + 1 if game.on_roll is not None else 0,
        game.on_roll,
        dice.k - 1,
        game.dice if decision == "move" else None,
        (game.boards[0], game.boards[1]),
        ps.CubeState(cube.value, cube.owner),
        double,
        resignation,
        _commitments(state),
        dice.recommits,
        clock if not game.is_over else None,
        _last_result(state) if game.is_over else None,
        _heads(state),
        game.variant.name,
        game.pinned,
    )


def _commitments(state: MatchState) -> tuple[bytes | None, bytes | None]:
    c = state.dice.commitments
    return c if None not in c else (None, None)


def _heads(state: MatchState) -> tuple[bytes | None, bytes | None]:
    # Public once both seats committed: commitments, re-commitments, revealed links (a reveal
    # held back during a roll is in ``pending``, never here).
    return state.dice.heads if None not in state.dice.commitments else (None, None)


def _last_result(state: MatchState) -> pe.GameOver | None:
    game = state.match.game
    if game is None or game.result is None:
        return None
    r = game.result
    counted = r.counted
    return pe.GameOver(
        state.match.game_number,
        r.winner,
        0 if r.is_draw else max(1, r.points),
        None if counted is None else counted.word,
        r.reason.value,
        state.match.score,
    )
