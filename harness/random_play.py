"""Random play for tests: drive games and matches with dice and choices from a seeded
random.Random (randomness lives here, never in engine/)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass

from engine.events import Event
from engine.game import Action, Game, Phase
from engine.match import Match, MatchOptions, Mode


@dataclass(frozen=True)
class Policy:
    """How often the random players use the cube and resign."""

    double: float = 0.05
    beaver: float = 0.2
    take: float = 0.7
    resign: float = 0.01
    accept: float = 0.5


def choose(game: Game, rng: random.Random, policy: Policy) -> tuple[str, tuple]:
    """A random legal action in ``game`` (which must not be over): method name and arguments,
    valid for :class:`Game` and :class:`Match` alike."""
    expected = game.expected()
    seat = expected.seat
    if game.phase is Phase.ROLLOFF:
        return "roll_off", (rng.randint(1, 6), rng.randint(1, 6))
    assert seat is not None
    if Action.RESIGN in expected.actions and rng.random() < policy.resign:
        return "resign", (seat, rng.choice(game.resignation_levels(seat)))
    if game.phase is Phase.DECIDE:
        if Action.DOUBLE in expected.actions and rng.random() < policy.double:
            return "double", (seat,)
        return "roll", (seat, rng.randint(1, 6), rng.randint(1, 6))
    if game.phase is Phase.MOVE:
        return "move", (seat, rng.choice(game.legal_plays()).moves)
    if game.phase is Phase.TAKE:
        if Action.BEAVER in expected.actions and rng.random() < policy.beaver:
            return "beaver", (seat,)
        return ("take" if rng.random() < policy.take else "drop"), (seat,)
    assert game.phase is Phase.RESIGN
    if rng.random() < policy.accept:
        return "accept_resignation", (seat,)
    return "reject_resignation", (seat,)


def game_step(game: Game, rng: random.Random, policy: Policy) -> tuple[Game, tuple]:
    """One random legal action in ``game``."""
    name, args = choose(game, rng, policy)
    return getattr(game, name)(*args)


def play_game(
    game: Game,
    rng: random.Random,
    policy: Policy = Policy(),
    visit: Callable[[Game], None] | None = None,
) -> tuple[Game, list]:
    """Play ``game`` to its end; ``visit`` sees every state before each action."""
    events: list = []
    while not game.is_over:
        if visit is not None:
            visit(game)
        game, new = game_step(game, rng, policy)
        events.extend(new)
    return game, events


def play_match(
    options: MatchOptions,
    rng: random.Random,
    policy: Policy = Policy(),
    money_games: int = 4,
    forfeit: float = 0.0,
) -> tuple[Match, list[Event]]:
    """Play a whole match (money sessions stop after ``money_games`` games); ``forfeit`` is the
    chance per action that the seat to act forfeits instead."""
    match = Match.new(options)
    events: list[Event] = []
    while not match.is_over:
        if not match.in_game:
            if options.mode is Mode.MONEY and match.game_number >= money_games:
                match, new = match.stop(rng.randrange(2))
            else:
                match, new = match.start_game()
        elif forfeit and rng.random() < forfeit:
            seat = match.game.to_act if match.game.to_act is not None else rng.randrange(2)
            match, new = match.forfeit(seat, rng.choice(["timeout", "no_reveal", "abandoned"]))
        else:
            name, args = choose(match.game, rng, policy)
            match, new = getattr(match, name)(*args)
        events.extend(new)
    return match, events
