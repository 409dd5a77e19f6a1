"""Constructed games for the analysis tests and bench: both seats' plays chosen by a policy
(the nets' best play, the worst, or a random one), dice from a seeded generator."""

from __future__ import annotations

import random
from typing import Any

from analysis.core import GameReport, analyse, context_of
from analysis.equity import Evaluator
from analysis.game import GameInput
from engine.game import Phase
from engine.match import Match, MatchOptions
from engine.record import MatchRecord

POLICIES = ("best", "worst", "random")


def constructed_game(
    policies: tuple[str, str],
    seed: int,
    evaluator: Evaluator,
    options: MatchOptions | None = None,
    double_rate: float = 0.0,
    drop_rate: float = 0.0,
    beaver_rate: float = 0.0,
) -> tuple[MatchRecord, GameInput]:
    """One game of ``options`` (default: a single game) played to the end: seat s picks its
    plays by ``policies[s]``; a seat that may double does so with ``double_rate``, and the other
    beavers with ``beaver_rate`` (when it may), else drops with ``drop_rate``, else takes. The
    record and the analysis input of its first game."""
    rng = random.Random(seed)
    options = options or MatchOptions.single_game()
    m, events = Match.new(options).start_game()
    log = list(events)
    draft = GameInput((), options.mode, options.length, (0, 0), False,
                      jacoby=options.jacoby, beavers=options.beavers)
    while m.game is not None and not m.game.is_over:
        game = m.game
        expected = game.expected()
        seat = expected.seat
        if game.phase is Phase.ROLLOFF:
            m, events = m.roll_off(rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.DECIDE:
            assert seat is not None
            if double_rate and game.can_double(seat) and rng.random() < double_rate:
                m, events = m.double(seat)
            else:
                m, events = m.roll(seat, rng.randint(1, 6), rng.randint(1, 6))
        elif game.phase is Phase.TAKE:
            assert seat is not None
            if beaver_rate and game.can_beaver(seat) and rng.random() < beaver_rate:
                m, events = m.beaver(seat)
            elif drop_rate and rng.random() < drop_rate:
                m, events = m.drop(seat)
            else:
                m, events = m.take(seat)
        elif game.phase is Phase.MOVE:
            assert seat is not None
            plays = game.legal_plays()
            policy = policies[seat]
            if policy == "random":
                chosen = rng.choice(plays)
            else:
                cube = game.cube
                ctx = context_of(draft, seat, cube.value, cube.owner)
                d1, d2 = game.dice
                ranked = evaluator.rank(game.position(seat), d1, d2, ctx)
                chosen = (ranked[0] if policy == "best" else ranked[-1]).play
            m, events = m.move(seat, chosen.moves)
        else:
            raise AssertionError(f"unexpected phase {game.phase}")
        log.extend(events)
    record = MatchRecord.from_events(options, ("A", "B"), tuple(log))
    return record, GameInput.of(record, record.games[0])


def analysed_games(
    evaluator: Evaluator, games: dict[str, tuple[Any, ...]]
) -> dict[str, tuple[GameInput, GameReport]]:
    """Each of ``games`` (name -> policies, seed, options and then the double, drop and beaver
    rates of :func:`constructed_game`, as many as given) played to its end, with its report."""
    out = {}
    for name, (policies, seed, options, *rates) in games.items():
        record, game = constructed_game(policies, seed, evaluator, options, *rates)
        assert record.games[0].is_over
        out[name] = (game, analyse(game, evaluator))
    return out
