"""Rollouts with bgsage: a position played out many times by the nets, in batches, with the
figures and their standard errors combined as the batches come, so that a caller can show an
interval that narrows while it runs, stop between batches or in one, and resume later.

A **batch** is :data:`BATCH` trials (every first roll once: bgsage stratifies the first roll
over 36 trials) of bgsage's cubeful rollout (``RolloutStrategy.cube_decision``) of a position
before the roll, seen by the player on roll (the *roller*): its outcome chances, cubeless
equity, and the cubeful equities of no double and double/take, each with the standard error
bgsage reports (``equity_dp``, double/pass, is exact). Batch ``k`` of a rollout is seeded
``seed * 1_000_003 + k``: the same settings give the same batches, so a rollout stopped after
batch ``k`` and resumed from its :class:`Tally` gives what an unbroken one gives, and the
plays of one rollout meet the same dice in batch ``k`` (common random numbers: their
differences are estimated more tightly than their equities).

Combining batches: batch ``i`` of ``n_i`` trials gives a mean ``m_i`` with standard error
``s_i``; the rollout's mean is ``Σ n_i m_i / N`` and its standard error ``sqrt(Σ n_i² s_i²) /
N`` (the batches are independent). :class:`Tally` is that sum, pure and storable
(:meth:`Tally.as_dict`).

API
---

``RolloutSettings(trials, truncation, variance_reduction, seed, ply)``
    ``trials`` a multiple of :data:`BATCH` up to :data:`MAX_TRIALS`; ``truncation`` the
    half-moves after which a trial is scored by the net (0: played to the end); variance
    reduction (bgsage's luck correction: dearer per trial, a far smaller error per second for
    full rollouts: docs/analysis.md, "Rollouts"); ``ply`` the depth of the trials' checker play
    and cube decisions (1: the net). :meth:`RolloutSettings.check` raises
    :class:`RolloutError` for anything else.

``Roller(settings, loaded=None)``
    ``batch(position, context, index, progress=None) -> Sample``: batch ``index`` of the
    roller's position (``context``: the roller's cube and score); ``progress(done, total)`` is
    called from bgsage's thread after each trial. ``cancel()`` (thread-safe) stops the
    rollout: the batch in progress raises :class:`Cancelled` (bgsage may play its remaining
    trials first: a cancel takes effect within one batch, about 2.5 s for a full rollout with
    variance reduction), and so does every later one.

``Tally``
    ``Tally().add(sample)``; ``estimate(name)`` → :class:`Estimate` (``mean``, ``se``,
    ``interval()`` at 95%); ``cube(context)`` → :class:`CubeFigures` (the roller's cube
    decision, as the analysis board's); ``as_dict()`` / ``Tally.of(dict)``.

``play_figures(tally, mover_context)`` — a checker play's figures for the player who made it,
from the tally of the position after the play, rolled out with the opponent on roll.
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import bgbot_cpp

from brain.board import to_board
from brain.context import CubeContext, Owner
from brain.nets import Nets, Probs, nets
from engine.position import Position

BATCH = 36
"""Trials per batch: every first roll once."""
MAX_TRIALS = 1296
"""The most trials a rollout plays (36 batches)."""
Z95 = 1.959964
"""The normal quantile of a two-sided 95% interval."""

QUANTITIES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon",
              "cubeless", "no_double", "double_take")
"""What a batch estimates, for the roller (the stored names of :class:`Tally`)."""

_OWNER = {
    Owner.CENTRED: bgbot_cpp.CubeOwner.CENTERED,
    Owner.MOVER: bgbot_cpp.CubeOwner.PLAYER,
    Owner.OPPONENT: bgbot_cpp.CubeOwner.OPPONENT,
}


class RolloutError(ValueError):
    """Settings a rollout cannot run with; ``code`` is stable."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Cancelled(Exception):
    """The batch was cancelled (:meth:`Roller.cancel`)."""


@dataclass(frozen=True, slots=True)
class RolloutSettings:
    trials: int = 324
    truncation: int = 0
    variance_reduction: bool = True
    seed: int = 1
    ply: int = 1

    def check(self) -> RolloutSettings:
        """Itself when valid, else :class:`RolloutError`.

        >>> RolloutSettings(trials=72).check().batches
        2
        >>> RolloutSettings(trials=40).check()
        Traceback (most recent call last):
        ...
        brain.rollout.RolloutError: trials is a multiple of 36 from 36 to 1296, got 40
        """
        if (type(self.trials) is not int or self.trials % BATCH
                or not BATCH <= self.trials <= MAX_TRIALS):
            raise RolloutError("bad_trials", f"trials is a multiple of {BATCH} from {BATCH} "
                                             f"to {MAX_TRIALS}, got {self.trials!r}")
        if type(self.truncation) is not int or not 0 <= self.truncation <= 50:
            raise RolloutError("bad_truncation", "truncation is 0 (play every game to its end) "
                                                 f"or 1..50 half-moves, got {self.truncation!r}")
        if self.ply not in (1, 2):
            raise RolloutError("bad_ply", f"the trials play at 1- or 2-ply, got {self.ply!r}")
        if type(self.seed) is not int or not 0 <= self.seed < 2**31:
            raise RolloutError("bad_seed", "seed is 0..2^31-1")
        return self

    @property
    def batches(self) -> int:
        return self.trials // BATCH


@dataclass(frozen=True, slots=True)
class Sample:
    """One batch: ``trials`` and, per name of :data:`QUANTITIES`, the roller's mean and its
    standard error; ``double_pass`` (exact)."""

    trials: int
    means: Mapping[str, float]
    errors: Mapping[str, float]
    double_pass: float


@dataclass(frozen=True, slots=True)
class Estimate:
    mean: float
    se: float
    trials: int

    def interval(self, z: float = Z95) -> tuple[float, float]:
        """The two-sided interval at ``z`` standard errors (95% by default).

        >>> Estimate(0.25, 0.01, 360).interval()
        (0.23040036, 0.26959964)
        """
        return (round(self.mean - z * self.se, 8), round(self.mean + z * self.se, 8))


@dataclass(frozen=True, slots=True)
class CubeFigures:
    """The roller's cube decision from a rollout: the equities of no double, double/take and
    double/pass (per unit of the current cube), with the errors of the first two; ``action``
    and ``answer`` in the analysis board's words (``analysis.board.CubeView``); ``equity`` the
    roller's equity under the right cube actions, ``equity_se`` its error."""

    no_double: Estimate
    double_take: Estimate
    double_pass: float
    action: str | None
    answer: str
    equity: float
    equity_se: float


@dataclass(frozen=True, slots=True)
class Tally:
    """Batches combined (module docstring). Immutable: :meth:`add` returns a new one."""

    trials: int = 0
    sums: Mapping[str, float] = field(default_factory=dict)
    variances: Mapping[str, float] = field(default_factory=dict)
    double_pass: float = 1.0

    def add(self, sample: Sample) -> Tally:
        n = sample.trials
        sums = {q: self.sums.get(q, 0.0) + n * sample.means[q] for q in QUANTITIES}
        variances = {q: self.variances.get(q, 0.0) + (n * sample.errors[q]) ** 2
                     for q in QUANTITIES}
        return Tally(self.trials + n, sums, variances, sample.double_pass)

    def estimate(self, name: str) -> Estimate:
        if not self.trials:
            return Estimate(math.nan, math.inf, 0)
        return Estimate(self.sums[name] / self.trials,
                        math.sqrt(self.variances[name]) / self.trials, self.trials)

    def probs(self) -> Probs:
        return Probs(*(self.estimate(q).mean for q in QUANTITIES[:5]))

    def cube(self, context: CubeContext) -> CubeFigures:
        """The roller's cube decision: as the board's (``analysis.board.cube_view``) from the
        rolled-out equities. With beavers (money), a take the taker would beaver doubles the
        double/take equity (the rule of :meth:`brain.nets.Nets.cube_advice`)."""
        nd, dt = self.estimate("no_double"), self.estimate("double_take")
        dp = self.double_pass
        take = dt.mean <= dp
        beaver = bool(context.beavers and not context.is_match and take and dt.mean < 0.0)
        if beaver:
            dt = replace(dt, mean=2 * dt.mean, se=2 * dt.se)
        answer = "beaver" if beaver else "take" if take else "pass"
        doubled = min(dt.mean, dp)
        action: str | None = None
        equity, equity_se = nd.mean, nd.se
        if not context.cube_in_play and not context.is_match:
            cubeless = self.estimate("cubeless")
            return CubeFigures(nd, dt, dp, None, answer, cubeless.mean, cubeless.se)
        if context.may_double:
            if doubled > nd.mean:
                action = ("double_beaver" if beaver else "double_take" if take
                          else "double_pass")
                equity, equity_se = (dt.mean, dt.se) if take else (dp, 0.0)
            elif not take and nd.mean > dp:
                action = "too_good"
            else:
                action = "no_double"
        return CubeFigures(nd, dt, dp, action, answer, equity, equity_se)

    def as_dict(self) -> dict:
        """The stored form (field names, JSON-able)."""
        return {"trials": self.trials, "sums": dict(self.sums),
                "variances": dict(self.variances), "double_pass": self.double_pass}

    @classmethod
    def of(cls, stored: Mapping) -> Tally:
        """Read :meth:`as_dict` back; ``KeyError``/``ValueError``/``TypeError`` if it is not
        one."""
        trials = int(stored["trials"])
        sums = {q: float(stored["sums"][q]) for q in QUANTITIES} if trials else {}
        variances = {q: float(stored["variances"][q]) for q in QUANTITIES} if trials else {}
        return cls(trials, sums, variances, float(stored["double_pass"]))


@dataclass(frozen=True, slots=True)
class PlayFigures:
    """A checker play rolled out, for the player who made it: ``equity`` (cubeful, per unit
    cube; cubeless where the cube is out of play) and its error, the outcome chances, the
    cubeless equity."""

    equity: Estimate
    probs: Probs
    cubeless: Estimate


def play_figures(tally: Tally, mover: CubeContext) -> PlayFigures:
    """The figures of a play for its mover, from the tally of the position after it, rolled
    out with the opponent on roll (its roller): the mover's equity is minus the opponent's
    under the opponent's right cube action, which the mover answers right."""
    them = tally.cube(mover.flipped())
    cubeless = tally.estimate("cubeless")
    mine_cubeless = replace(cubeless, mean=-cubeless.mean)
    if not mover.cube_in_play and not mover.is_match:
        equity = mine_cubeless
    else:
        equity = Estimate(-them.equity, them.equity_se, tally.trials)
    return PlayFigures(equity, tally.probs().inverted(), mine_cubeless)


class Roller:
    """One bgsage rollout strategy for a rollout's settings, used batch after batch (module
    docstring). A batch runs on the calling thread (bgsage releases the GIL)."""

    def __init__(self, settings: RolloutSettings, loaded: Nets | None = None) -> None:
        self.settings = settings.check()
        brain = loaded or nets()
        weights = brain.weights
        self._strategy = bgbot_cpp.create_rollout(
            weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list,
            n_trials=BATCH, truncation_depth=settings.truncation, decision_ply=settings.ply,
            n_threads=1, seed=settings.seed, parallelize_trials=False,
            enable_vr=settings.variance_reduction)
        if brain.bearoff is not None:
            bgbot_cpp.rollout_set_bearoff_db(self._strategy, brain.bearoff)
        self._cancelled = threading.Event()

    def cancel(self) -> None:
        """Stop: the batch running now (if any) and every later one raise :class:`Cancelled`."""
        self._cancelled.set()
        self._strategy.cancel()

    def batch(self, position: Position, context: CubeContext, index: int,
              progress: Callable[[int, int], None] | None = None) -> Sample:
        """Batch ``index`` of ``position`` (seen by the roller, whose ``context`` it is)."""
        if self._cancelled.is_set():
            raise Cancelled()
        strategy = self._strategy
        strategy.set_seed(self.settings.seed * 1_000_003 + index)
        if context.is_match:
            args = {"away1": context.away[0], "away2": context.away[1],
                    "is_crawford": context.crawford, "jacoby": False}
        else:
            args = {"jacoby": context.jacoby}
        try:
            raw = strategy.cube_decision(to_board(position), context.value,
                                         _OWNER[context.owner], beaver=False,
                                         progress=progress, **args)
        except bgbot_cpp.RolloutCancelled:
            raise Cancelled() from None
        if self._cancelled.is_set():
            raise Cancelled()
        probs, errors = list(raw["probs"]), list(raw["prob_std_errors"])
        means = dict(zip(QUANTITIES[:5], (float(p) for p in probs), strict=True))
        ses = dict(zip(QUANTITIES[:5], (float(e) for e in errors), strict=True))
        means["cubeless"] = float(raw["cubeless_equity"])
        ses["cubeless"] = float(raw["cubeless_se"])
        means["no_double"], ses["no_double"] = float(raw["equity_nd"]), float(raw["equity_nd_se"])
        means["double_take"], ses["double_take"] = (float(raw["equity_dt"]),
                                                    float(raw["equity_dt_se"]))
        return Sample(BATCH, means, ses, float(raw["equity_dp"]))
