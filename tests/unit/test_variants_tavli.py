"""The Tavli match: the rotation, the Greek scoring, who opens each game, and whole matches of
random play through the variants' common interface."""

import random

import pytest

from engine.errors import ErrorCode, MatchError
from engine.variants import TavliMatch, rules
from engine.variants.variant import Opening, Side


def test_the_games_rotate_portes_plakoto_fevga():
    m = TavliMatch.new(25)
    names = []
    for game in range(7):
        names.append(m.next_variant.name)
        assert m.next_variant is rules("tavli").game(game + 1)
        m = m.record(winner=game % 2, points=1)
    assert names == ["portes", "plakoto", "fevga"] * 2 + ["portes"]


def test_the_winner_of_a_game_opens_the_next_and_a_draw_goes_back_to_the_roll_off():
    m = TavliMatch.new(5)
    assert m.opener is None  # the first game: roll-off
    m = m.record(winner=1, points=1)
    assert m.opener == 1
    m = m.record(winner=None, points=0)  # a drawn plakoto
    assert (m.opener, m.score, m.games, m.next_variant.name) == (None, (0, 1), 2, "fevga")
    assert m.record(winner=0, points=2).opener == 0


def test_the_first_to_the_target_wins_and_doubles_may_pass_it():
    m = TavliMatch.new(5).record(0, 2).record(1, 1).record(0, 2)
    assert (m.score, m.is_over, m.winner) == ((4, 1), False, None)
    m = m.record(0, 2)
    assert (m.score, m.is_over, m.winner) == ((6, 1), True, 0)
    with pytest.raises(MatchError) as over:
        m.record(1, 1)
    assert over.value.code is ErrorCode.MATCH_OVER


@pytest.mark.parametrize(
    ("winner", "points", "code"),
    [(0, 3, ErrorCode.BAD_OPTIONS), (0, 0, ErrorCode.BAD_OPTIONS), (None, 1, ErrorCode.BAD_OPTIONS),
     (2, 1, ErrorCode.BAD_SEAT), (True, 1, ErrorCode.BAD_SEAT), (0, 1.0, ErrorCode.BAD_OPTIONS)],
)
def test_impossible_results_are_refused(winner, points, code):
    with pytest.raises(MatchError) as caught:
        TavliMatch.new(3).record(winner, points)
    assert caught.value.code is code


@pytest.mark.parametrize("target", [0, 26, -1, "5", 5.0, None])
def test_the_target_is_1_to_25_points(target):
    with pytest.raises(MatchError) as caught:
        TavliMatch.new(target)
    assert caught.value.code is ErrorCode.BAD_OPTIONS


def play_match(seed: int, target: int) -> tuple[TavliMatch, list]:
    """A whole Tavli match of uniformly random legal plays, through the common interface only:
    the roll-off (when no one opens), the opener's fresh roll, plays until a game ends."""
    rng = random.Random(seed)
    match = TavliMatch.new(target)
    log = []
    while not match.is_over:
        game = match.next_variant
        assert game.opening is Opening.REROLL and not game.cube
        seat = match.opener
        while seat is None:  # roll-off: one die each, ties again
            a, b = rng.randint(1, 6), rng.randint(1, 6)
            seat = None if a == b else (0 if a > b else 1)
        position = game.start()  # seen by `seat`, who rolls both dice for the first play
        for _ in range(2000):
            d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
            plays = game.legal_plays(position, d1, d2)
            assert game.can_play(position, d1, d2) == bool(plays)
            if plays:
                play = rng.choice(plays)
                assert game.validate(position, d1, d2, list(play.moves)) == play
                position = play.position
                end = game.ending(position)
                if end is not None:
                    break
            position, seat = position.swapped(), 1 - seat
        else:
            raise AssertionError("a game of random play did not end")
        assert end.winner in (Side.MOVER, None)
        winner = seat if end.winner is Side.MOVER else None
        assert end.points <= int(game.worst_possible(position.swapped()))
        log.append((game.name, winner, end.points, end.finish.value))
        match = match.record(winner, end.points)
    return match, log


def test_whole_matches_of_random_play():
    finishes = set()
    for seed in range(4):
        match, log = play_match(seed, target=5)
        assert match.is_over and max(match.score) >= 5
        assert [name for name, *_ in log] == [
            ["portes", "plakoto", "fevga"][i % 3] for i in range(len(log))
        ]
        assert sum(points for _, w, points, _ in log if w == match.winner) == max(match.score)
        finishes |= {finish for *_, finish in log}
    assert "bear_off" in finishes
