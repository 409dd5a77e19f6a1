"""How many rollout games per second bgsage plays on one core: truncated and full rollouts,
with and without variance reduction, cubeless and cubeful.

bgsage's rollouts (``bgbot_cpp.create_rollout``, what ``bgsage.BgBotAnalyzer`` builds for its
``rollout`` and ``truncatedN`` levels) play each trial game with its nets, 1-ply checker play
here (``decision_ply=1``), from the position after a play — the opening 31 played 8/5 6/5, the
opponent on roll. A truncated rollout stops each game after 7 half-moves and scores the position
with the net; a full one plays every game to its end. Variance reduction corrects each roll by
its luck (every roll's equity is computed at each step: far dearer per game, far fewer games
for the same error). One thread (``n_threads=1``), as a worker runs a job; the figure is games
(trials) per CPU second, with the standard error the rollout reports.

    .venv/bin/python bench/rollout_speed.py [--truncated-trials 720] [--full-trials 144]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

os.environ.setdefault("BGBOT_MULTIPLY_THREADS", "1")

import bgbot_cpp  # noqa: E402
from bgsage.weights import bearoff_db_path, default_weights  # noqa: E402

from brain.board import to_board  # noqa: E402
from engine.position import Position  # noqa: E402
from engine.reference import apply_move  # noqa: E402


def rollout(trials: int, truncation: int, vr: bool, cubeful: bool) -> tuple[float, float, dict]:
    weights = default_weights()
    strategy = bgbot_cpp.create_rollout(
        weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list,
        n_trials=trials, truncation_depth=truncation, decision_ply=1, n_threads=1, seed=1,
        parallelize_trials=False, enable_vr=vr)
    db = bgbot_cpp.BearoffDB()
    if db.load(bearoff_db_path()):
        bgbot_cpp.rollout_set_bearoff_db(strategy, db)
    start = Position.start()
    after = apply_move(apply_move(start, (8, 5)), (6, 5))
    post, pre = to_board(after), to_board(start)
    wall, cpu = time.perf_counter(), time.process_time()
    if cubeful:
        result = strategy.cubeful_evaluate_board(post, pre, cube_value=1,
                                                 owner=bgbot_cpp.CubeOwner.CENTERED)
    else:
        result = strategy.evaluate_board(post, pre)
    return time.perf_counter() - wall, time.process_time() - cpu, dict(result)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--truncated-trials", type=int, default=720)
    parser.add_argument("--full-trials", type=int, default=144)
    args = parser.parse_args()
    print("| rollout | variance reduction | cube | games | games/s (CPU) | wall s "
          "| equity ± s.e. |")
    print("|---|---|---|---|---|---|---|")
    for name, trials, truncation in (("truncated at 7", args.truncated_trials, 7),
                                     ("full", args.full_trials, 0)):
        for vr in (True, False):
            for cubeful in (False, True):
                wall, cpu, r = rollout(trials, truncation, vr, cubeful)
                equity = r["cubeful_equity"] if cubeful else r["equity"]
                error = r["cubeful_se"] if cubeful else r["std_error"]
                print(f"| {name} | {'on' if vr else 'off'} | "
                      f"{'cubeful' if cubeful else 'cubeless'} | {trials} | {trials / cpu:,.0f} | "
                      f"{wall:.1f} | {equity:+.3f} ± {error:.3f} |", flush=True)


if __name__ == "__main__":
    main()
