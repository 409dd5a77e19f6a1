"""Engine-assisted play: is an account's play implausibly close to the engine's? Pure: figures
of analysed games in, a verdict with its evidence out (docs/moderation.md, "Engine-assisted
play"). A verdict is a flag for a moderator to review, never a sanction.

The statistic looks only at the **non-trivial checker decisions** of a player — rolls with
more than one legal play — in the games of a window (an account's latest rated games):

* ``pr``: 500 × the mean equity lost per such decision against the analysis's best play
  (the analysis's PR, restricted to decisions that are choices);
* ``best_share``: the share of those decisions where the play made was the analysis's best;
* ``clean_games``: the share of the window's games whose own PR is at most :data:`GAME_PR`.

An account is **flagged** when, over at least :data:`MIN_DECISIONS` decisions, its play is
*near-perfect* (``pr <= MAX_PR`` and ``best_share >= MIN_BEST_SHARE``) or *engine-matching*
(``best_share >= MATCH_BEST_SHARE`` at ``pr <= MATCH_PR``), and *consistent*
(``clean_games >= MIN_CLEAN_GAMES``: not one lucky game). The thresholds were
chosen from bench/assist.py's series of our own bot levels (the measured detection and false
positive rates are in docs/moderation.md): the strongest honest player we can simulate plays
several PR points above them.

>>> perfect = [GameFigures("m%d" % i, 25, 0.0, 25) for i in range(8)]
>>> verdict(perfect).flagged
True
>>> noisy = [GameFigures("m%d" % i, 25, 25 * 0.012, 14) for i in range(8)]
>>> v = verdict(noisy)
>>> v.flagged, round(v.pr, 1), round(v.best_share, 2)
(False, 6.0, 0.56)
>>> verdict(perfect[:2]).flagged  # too few decisions to say anything
False
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

PR_SCALE = 500
"""As the analysis's PR (analysis.core.PR_SCALE)."""
BEST_EPSILON = 0.0005
"""A play losing less than this (stored reports round to 4 decimals) counts as the best."""
MIN_DECISIONS = 150
"""Fewer non-trivial decisions than this in the window: no verdict (about 6 games)."""
MAX_PR = 1.6
MIN_BEST_SHARE = 0.80
"""Near-perfect play: a PR this low with the best play this often."""
MATCH_PR = 5.0
MATCH_BEST_SHARE = 0.86
"""Engine-matching play: the best play this often (an evasive copier's few deviations may
cost a few PR points, but a person's mistakes are many small ones: they miss the best play far
more often at the same PR)."""
GAME_PR = 6.0
MIN_CLEAN_GAMES = 0.75
"""Consistency: this share of the window's games each under ``GAME_PR``."""


@dataclass(frozen=True)
class GameFigures:
    """One player's non-trivial checker decisions in one analysed game."""

    match: str
    decisions: int
    error: float  # the equity lost over them, summed
    best: int  # how many were the best play
    seconds: float | None = None  # mean seconds per decision, when known

    @property
    def pr(self) -> float:
        return PR_SCALE * self.error / self.decisions if self.decisions else 0.0


@dataclass(frozen=True)
class Verdict:
    flagged: bool
    decisions: int
    pr: float
    best_share: float
    clean_games: float
    games: tuple[GameFigures, ...]

    def summary(self) -> str:
        """One line for a moderator."""
        return (
            f"PR {self.pr:.2f} over {self.decisions} non-trivial decisions in "
            f"{len(self.games)} games; best play {100 * self.best_share:.0f}% of the time; "
            f"{100 * self.clean_games:.0f}% of games under PR {GAME_PR:g}"
        )


def verdict(games: Sequence[GameFigures]) -> Verdict:
    """The window's figures and whether they flag the account."""
    decisions = sum(g.decisions for g in games)
    error = sum(g.error for g in games)
    best = sum(g.best for g in games)
    played = [g for g in games if g.decisions]
    pr = PR_SCALE * error / decisions if decisions else 0.0
    share = best / decisions if decisions else 0.0
    clean = sum(1 for g in played if g.pr <= GAME_PR) / len(played) if played else 0.0
    close = (pr <= MAX_PR and share >= MIN_BEST_SHARE) or (
        pr <= MATCH_PR and share >= MATCH_BEST_SHARE
    )
    flagged = decisions >= MIN_DECISIONS and close and clean >= MIN_CLEAN_GAMES
    return Verdict(flagged, decisions, pr, share, clean, tuple(games))


def figures(match: str, report: Mapping[str, Any], seat: int) -> GameFigures:
    """A seat's figures from a stored analysis report (``analysis.report.to_json``'s form).

    >>> turns = [{"seat": 0, "action": "move", "plays": 5, "forced": False, "equity_lost": 0.0},
    ...          {"seat": 0, "action": "move", "plays": 3, "forced": False, "equity_lost": 0.02},
    ...          {"seat": 0, "action": "move", "plays": 1, "forced": True, "equity_lost": 0.0},
    ...          {"seat": 1, "action": "move", "plays": 9, "forced": False, "equity_lost": 0.5}]
    >>> figures("m", {"turns": turns}, 0)
    GameFigures(match='m', decisions=2, error=0.02, best=1, seconds=None)
    """
    decisions, error, best = 0, 0.0, 0
    for turn in report.get("turns", ()):
        if turn.get("seat") != seat or turn.get("action") != "move":
            continue
        if turn.get("forced") or (turn.get("plays") or 0) < 2 or turn.get("equity_lost") is None:
            continue
        lost = float(turn["equity_lost"])
        decisions += 1
        error += lost
        best += lost < BEST_EPSILON
    return GameFigures(match, decisions, error, best)


def windows(games: Sequence[GameFigures], size: int) -> Iterable[Sequence[GameFigures]]:
    """Consecutive disjoint windows of ``size`` games (a shorter rest is left out).

    >>> [len(w) for w in windows([GameFigures("m", 1, 0, 1)] * 7, 3)]
    [3, 3]
    """
    for start in range(0, len(games) - size + 1, size):
        yield games[start : start + size]
