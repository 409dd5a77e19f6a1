"""The FIBS rating formula on worked examples (figures worked out by hand from the formula in
docs/accounts.md, to two decimals as players see them)."""

from __future__ import annotations

import pytest

from server.players.ratings import Standing, k_factor, rate, win_probability

NEW = Standing(1500.0, 0)


def after(a: Standing, b: Standing, winner: int, length: int) -> tuple[float, float]:
    change = rate(a, b, winner, length)
    return round(a.rating + change.deltas[0], 2), round(b.rating + change.deltas[1], 2)


def test_two_new_players_one_point_match():
    assert after(NEW, NEW, 0, 1) == (1510.00, 1490.00)
    assert after(NEW, NEW, 1, 1) == (1490.00, 1510.00)


@pytest.mark.parametrize(
    ("length", "winner_after", "loser_after"),
    [
        (1, 1510.00, 1490.00),
        # P = 1/2, K = 5: the winner gains 4 * sqrt(N) * 0.5 * 5 = 10 * sqrt(N).
        (5, 1522.36, 1477.64),
        (11, 1533.17, 1466.83),
    ],
)
def test_two_new_players_match_to_n(length, winner_after, loser_after):
    assert after(NEW, NEW, 0, length) == (winner_after, loser_after)
    assert rate(NEW, NEW, 0, length).experience == length


def test_an_experienced_favourite_beats_a_newcomer():
    # P_A = 1 / (10 ** (-100 * sqrt(5) / 2000) + 1) = 0.5640; K_A = 1 (500 points), K_B = 5.
    veteran = Standing(1600.0, 500)
    assert after(veteran, NEW, 0, 5) == (1603.90, 1480.50)


def test_an_upset_moves_both_ratings_further():
    # P_A = 1 / (10 ** (-300 * sqrt(11) / 2000) + 1) = 0.7587; K_A = 2.5 (250 points), K_B = 5.
    favourite = Standing(1800.0, 250)
    assert after(favourite, NEW, 1, 11) == (1774.84, 1550.33)
    # The same favourite winning gains far less than the underdog gained.
    gain = rate(favourite, NEW, 0, 11).deltas[0]
    assert 0 < gain < 4 * 11**0.5 * 0.25 * 2.5


def test_k_factor_and_probability():
    assert [k_factor(x) for x in (0, 100, 250, 400, 1000)] == [5, 4, 2.5, 1, 1]
    assert win_probability(1500, 1500, 7) == 0.5
    assert win_probability(1700, 1500, 1) + win_probability(1500, 1700, 1) == pytest.approx(1)
    assert win_probability(1700, 1500, 9) > win_probability(1700, 1500, 1)  # skill counts more


def test_bad_arguments_are_refused():
    with pytest.raises(ValueError):
        rate(NEW, NEW, 2, 1)
    with pytest.raises(ValueError):
        rate(NEW, NEW, 0, 0)
