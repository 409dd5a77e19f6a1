"""GNU Backgammon's judgement of checker plays (``gnubg-nn``, a test-only oracle), for comparing
the analysis board's rankings: the fast test and ``bench/analysis_board.py`` share these.

gnubg counts plies from 0 (its 0-ply is the net itself, our 1-ply): ``plies`` here are gnubg's.
Its equities are cubeless money equities of the mover after the play.
"""

from __future__ import annotations

import random

import gnubg_nn as gnubg

from engine.movegen import legal_plays
from engine.position import Position
from harness.corpus import from_gnubg, random_play, to_gnubg

Case = tuple[Position, int, int]


def played_games(rng: random.Random, games: int, noise: float = 0.15) -> list[Position]:
    """Every position on roll in ``games`` games where both sides play gnubg's 0-ply choice,
    or with probability ``noise`` a random legal play: positions like those of real games
    (uniformly random play reaches absurd ones: races where one side is still in the other's
    home board while that one bears off)."""
    found: list[Position] = []
    for _ in range(games):
        position = Position.start()
        for _ in range(400):
            if position.is_over():
                break
            found.append(position)
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            plays = legal_plays(position, d1, d2)
            if plays:
                if rng.random() < noise:
                    position = rng.choice(plays).position
                else:
                    position = gnubg_ranking(position, d1, d2, 0)[0][0]
            position = position.swapped()
    return found


def board_cases(seed: int, contact: int, race: int, games: int = 60,
                realistic: bool = True) -> list[Case]:
    """Positions from seeded games (:func:`played_games`, or uniformly random play) with a
    roll that has more than one legal play: ``contact`` of them where the sides can still
    hit, ``race`` where they cannot."""
    rng = random.Random(seed)
    pool = played_games(rng, games) if realistic else random_play(rng, games)
    rng.shuffle(pool)
    found: dict[bool, list[Case]] = {True: [], False: []}
    want = {True: contact, False: race}
    for position in pool:
        kind = position.is_contact()
        if len(found[kind]) >= want[kind]:
            continue
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        if len(legal_plays(position, d1, d2)) > 1:
            found[kind].append((position, d1, d2))
        if all(len(found[k]) >= want[k] for k in found):
            break
    if any(len(found[k]) < want[k] for k in found):
        raise ValueError("not enough positions: play more games")
    return found[True] + found[False]


def gnubg_ranking(position: Position, d1: int, d2: int, plies: int) -> list[tuple[Position, float]]:
    """gnubg's best plays at ``plies`` (those its move filters keep, best first): the position
    after each (seen by the mover) and its equity."""
    board = [list(side) for side in to_gnubg(position)]
    _, ranked = gnubg.best_move(board, d1, d2, n=plies, list=1)[:2]
    return [(from_gnubg(gnubg.board_from_position_key(key)).swapped(), float(equity))
            for key, _moves, _probs, equity in ranked]


def gnubg_equity(after: Position, plies: int) -> float:
    """gnubg's cubeless equity, at ``plies``, for the player who just played into ``after``
    (seen by that player)."""
    probs = gnubg.probabilities([list(side) for side in to_gnubg(after.swapped())], plies)
    return -(2 * probs[0] - 1 + probs[1] - probs[3] + probs[2] - probs[4])
