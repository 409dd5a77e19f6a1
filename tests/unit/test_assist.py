"""The engine-assist detector (analysis/assist.py) on synthetic series and on figures of real
analyses: games played to the end, seat 0 always the nets' best play (an engine copier), seat 1
a random legal play, each analysed as the server analyses a finished game."""

from __future__ import annotations

import random

from analysis import assist
from analysis.equity import Evaluator
from analysis.report import to_json
from harness.analysis import analysed_games


def test_a_perfect_series_is_flagged_and_a_noisy_one_is_not():
    rng = random.Random(7)
    perfect = [assist.GameFigures(f"m{i}", 24, 0.0, 24) for i in range(8)]
    # A person's series: most decisions a small loss, some the best play, PR about 8.
    noisy = []
    for i in range(8):
        losses = [0.0 if rng.random() < 0.55 else abs(rng.gauss(0.0, 0.04)) for _ in range(24)]
        noisy.append(assist.GameFigures(f"n{i}", 24, sum(losses), losses.count(0.0)))
    assert assist.verdict(perfect).flagged
    v = assist.verdict(noisy)
    assert not v.flagged and v.pr > assist.MATCH_PR and v.decisions >= assist.MIN_DECISIONS
    # Consistency: one perfect game among noisy ones flags nothing; too few decisions neither.
    assert not assist.verdict(noisy[:7] + perfect[:1]).flagged
    assert not assist.verdict(perfect[:5]).flagged
    assert "PR 0.00 over 192" in assist.verdict(perfect).summary()


def test_real_analyses_flag_the_engine_copier_and_not_the_random_player():
    evaluator = Evaluator()
    games = analysed_games(
        evaluator, {f"g{seed}": (("best", "random"), seed, None) for seed in range(8)}
    )
    copier, random_player = [], []
    for name, (_game, report) in games.items():
        stored = to_json(report)
        copier.append(assist.figures(name, stored, 0))
        random_player.append(assist.figures(name, stored, 1))
    engine = assist.verdict(copier)
    assert engine.decisions >= assist.MIN_DECISIONS, engine.summary()
    assert engine.flagged and engine.pr == 0.0 and engine.best_share == 1.0
    other = assist.verdict(random_player)
    assert other.decisions >= assist.MIN_DECISIONS and not other.flagged, other.summary()
