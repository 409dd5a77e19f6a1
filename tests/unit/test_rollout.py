"""Rollouts (``brain.rollout``): batches combine into the figures of one rollout, a rollout
resumed from its stored tally gives what an unbroken one gives, cancel stops a batch, bad
settings get typed errors, and a bear-off position whose equity is known exactly lands inside
the rollout's 95% interval.
"""

from __future__ import annotations

import threading

import pytest

from brain.context import CubeContext
from brain.rollout import (
    BATCH,
    Cancelled,
    Estimate,
    Roller,
    RolloutError,
    RolloutSettings,
    Sample,
    Tally,
    play_figures,
)
from engine.position import Position

# The roller has two checkers on its 6-point, the opponent one on its 1-point: the roller wins
# only by bearing both off at once, i.e. with 3-3, 4-4, 5-5 or 6-6 (4 of 36 rolls); cubeless
# equity 2 * 4/36 - 1.
LAST_ROLL = Position.from_points({6: 2}, {1: 1})
LAST_ROLL_EQUITY = 2 * 4 / 36 - 1


def test_known_bearoff_lands_in_its_interval() -> None:
    roller = Roller(RolloutSettings(trials=72, truncation=0))
    tally = Tally()
    for k in range(2):
        tally = tally.add(roller.batch(LAST_ROLL, CubeContext(cube_in_play=False), k))
    est = tally.estimate("cubeless")
    low, high = est.interval()
    assert tally.trials == 2 * BATCH
    assert low - 1e-9 <= LAST_ROLL_EQUITY <= high + 1e-9, (est, LAST_ROLL_EQUITY)
    assert abs(tally.estimate("win").mean - 4 / 36) < 0.05


def test_batches_are_reproducible_and_resume() -> None:
    settings = RolloutSettings(trials=72, truncation=4, variance_reduction=False, seed=7)
    context = CubeContext()
    start = Position.start()
    a = Roller(settings)
    whole = Tally().add(a.batch(start, context, 0)).add(a.batch(start, context, 1))
    first = Tally().add(Roller(settings).batch(start, context, 0))
    resumed = Tally.of(first.as_dict()).add(Roller(settings).batch(start, context, 1))
    assert resumed == whole
    other = Roller(RolloutSettings(trials=72, truncation=4, variance_reduction=False, seed=8))
    assert Tally().add(other.batch(start, context, 0)) != first


def test_progress_and_cancel() -> None:
    roller = Roller(RolloutSettings(trials=36, truncation=0, variance_reduction=True))
    seen: list[tuple[int, int]] = []

    def progress(done: int, total: int) -> None:
        seen.append((done, total))
        if done == 3:
            roller.cancel()

    with pytest.raises(Cancelled):
        roller.batch(Position.start(), CubeContext(), 0, progress)
    # bgsage may finish the batch's trials; its figures are never returned
    assert seen[0] == (1, BATCH) and seen[-1][0] <= BATCH
    with pytest.raises(Cancelled):
        roller.batch(Position.start(), CubeContext(), 1)
    # cancel from another thread while a batch runs
    other = Roller(RolloutSettings(trials=36, truncation=0))
    timer = threading.Timer(0.2, other.cancel)
    timer.start()
    with pytest.raises(Cancelled):
        other.batch(Position.start(), CubeContext(), 0)
    timer.join()


def test_combining_batches() -> None:
    names = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon",
             "cubeless", "no_double", "double_take")
    s1 = Sample(36, dict.fromkeys(names, 0.2), dict.fromkeys(names, 0.03), 1.0)
    s2 = Sample(72, dict.fromkeys(names, 0.5), dict.fromkeys(names, 0.02), 1.0)
    est = Tally().add(s1).add(s2).estimate("cubeless")
    assert est.trials == 108
    assert est.mean == pytest.approx((36 * 0.2 + 72 * 0.5) / 108)
    assert est.se == pytest.approx(((36 * 0.03) ** 2 + (72 * 0.02) ** 2) ** 0.5 / 108)
    assert Tally().estimate("win").trials == 0
    with pytest.raises(KeyError):
        Tally.of({"trials": 3})


def test_cube_and_play_figures() -> None:
    names = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon",
             "cubeless", "no_double", "double_take")
    means = dict(zip(names, (0.8, 0.2, 0.0, 0.05, 0.0, 0.75, 1.1, 1.3), strict=True))
    tally = Tally().add(Sample(36, means, dict.fromkeys(names, 0.01), 1.0))
    cube = tally.cube(CubeContext(beavers=False))
    assert (cube.action, cube.answer, cube.equity) == ("too_good", "pass", 1.1)
    means["double_take"], means["no_double"] = 0.95, 0.9
    tally = Tally().add(Sample(36, means, dict.fromkeys(names, 0.01), 1.0))
    cube = tally.cube(CubeContext(beavers=False))
    assert (cube.action, cube.answer, cube.equity) == ("double_take", "take", pytest.approx(0.95))
    play = play_figures(tally, CubeContext(beavers=False))
    assert play.equity.mean == pytest.approx(-0.95)
    assert play.probs.win == pytest.approx(0.2)
    assert play.cubeless.mean == pytest.approx(-0.75)


@pytest.mark.parametrize("kwargs, code", [
    ({"trials": 40}, "bad_trials"), ({"trials": 0}, "bad_trials"),
    ({"trials": 36 * 37}, "bad_trials"), ({"trials": True}, "bad_trials"),
    ({"truncation": -1}, "bad_truncation"), ({"truncation": 51}, "bad_truncation"),
    ({"ply": 3}, "bad_ply"), ({"seed": -1}, "bad_seed"), ({"seed": "1"}, "bad_seed"),
])
def test_bad_settings(kwargs, code) -> None:
    with pytest.raises(RolloutError) as caught:
        RolloutSettings(**kwargs).check()
    assert caught.value.code == code
    assert Estimate(0.0, 0.0, 1).interval() == (0.0, 0.0)
