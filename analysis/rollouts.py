"""What a rollout on the server rolls out, and what its figures say: pure (the nets run in
:mod:`brain.rollout`; the queue and the worker are ``server/work/rollout_*``).

A :class:`RolloutSpec` is a position set up as on the analysis board (a Position ID with perhaps
a Match ID, or an XGID: :func:`analysis.board.setup_from_request`) and the rollout's settings
(:class:`brain.rollout.RolloutSettings`); with ``dice`` and ``play`` (the Position ID after the
play, seen by the mover, as the board's ranked plays give it) the play is rolled out: the
position after it, with the opponent on roll. Its stored form is :meth:`RolloutSpec.as_dict`
(field names).

API
---

``RolloutSpec.of(fields)``
    From the API's fields (``position_id``, ``match_id``, ``xgid``, ``dice``, ``play``,
    ``trials``, ``truncation``, ``variance_reduction``, ``seed``); raises
    :class:`analysis.board.SetupError` for the position (``bad_play``: not a legal play of the
    dice, or a play without dice) or :class:`brain.rollout.RolloutError` for the settings.
``spec.subject() -> (position, context)``
    What the roller rolls out: the position before the roll seen by the player on roll (the
    roller), and the roller's cube context.
``report(spec, tally) -> dict``
    The figures so far (docs/analysis.md, "Rollouts"): ``trials`` of ``of``, and for a position
    the roller's cube decision (``no_double``, ``double_take`` each ``{mean, se, low, high}``,
    ``double_pass``, ``action``, ``answer``, ``equity``); for a play the mover's ``equity``
    ``{mean, se, low, high}``; both with ``cubeless`` and the chances (of the roller, or of the
    mover for a play).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from analysis.board import Setup, SetupError, setup_from_request
from brain.context import CubeContext
from brain.nets import Probs
from brain.rollout import Estimate, RolloutError, RolloutSettings, Tally, play_figures
from engine import position_id as position_ids
from engine.movegen import legal_plays
from engine.position import Position

SPEC_FIELDS = ("position_id", "match_id", "xgid", "dice", "play", "trials", "truncation",
               "variance_reduction", "seed")


@dataclass(frozen=True, slots=True)
class RolloutSpec:
    position_id: str | None
    match_id: str | None
    xgid: str | None
    dice: tuple[int, int] | None
    play: str | None
    settings: RolloutSettings

    @classmethod
    def of(cls, fields: Mapping[str, Any]) -> RolloutSpec:
        """Checked: see the module docstring.

        >>> spec = RolloutSpec.of({"position_id": "4HPwATDgc/ABMA", "dice": [3, 1],
        ...                        "play": "4HPwATCwZ/ABMA", "trials": 72})
        >>> spec.settings.trials, spec.as_dict()["dice"]
        (72, [3, 1])
        >>> RolloutSpec.of({"position_id": "4HPwATDgc/ABMA", "dice": [3, 1],
        ...                 "play": "4HPwATDgc/ABMA"})
        Traceback (most recent call last):
        ...
        analysis.board.SetupError: bad_play: that is not a legal play of 3-1 here
        """
        defaults = RolloutSettings()
        settings = RolloutSettings(
            trials=fields.get("trials", defaults.trials),
            truncation=fields.get("truncation", defaults.truncation),
            variance_reduction=fields.get("variance_reduction", defaults.variance_reduction),
            seed=fields.get("seed", defaults.seed)).check()
        if type(settings.variance_reduction) is not bool:
            raise RolloutError("bad_variance_reduction", "variance_reduction is true or false")
        setup = setup_from_request(fields.get("position_id"), fields.get("match_id"),
                                   fields.get("xgid"), fields.get("dice"))
        play = fields.get("play")
        if play is not None:
            if setup.dice is None:
                raise SetupError("bad_play", "a play is rolled out with the dice it plays")
            if setup.key.doubled:
                raise SetupError("bad_play", "a double is pending: there is no play")
            try:
                after = position_ids.decode(play)
            except (position_ids.PositionIdError, TypeError, ValueError) as exc:
                raise SetupError("bad_play", f"play is the Position ID after it: {exc}") from None
            d1, d2 = setup.dice
            if after not in {p.position for p in legal_plays(setup.position, d1, d2)}:
                raise SetupError("bad_play", f"that is not a legal play of {d1}-{d2} here")
        spec = cls(fields.get("position_id"), fields.get("match_id"), fields.get("xgid"),
                   setup.dice if fields.get("dice") is not None else None, play, settings)
        return spec

    def setup(self) -> Setup:
        return setup_from_request(self.position_id, self.match_id, self.xgid,
                                  list(self.dice) if self.dice else None)

    def subject(self) -> tuple[Position, CubeContext]:
        setup = self.setup()
        if self.play is None:
            return setup.position, setup.context
        return position_ids.decode(self.play).swapped(), setup.context.flipped()

    def as_dict(self) -> dict[str, Any]:
        s = self.settings
        return {"position_id": self.position_id, "match_id": self.match_id, "xgid": self.xgid,
                "dice": list(self.dice) if self.dice else None, "play": self.play,
                "trials": s.trials, "truncation": s.truncation,
                "variance_reduction": s.variance_reduction, "seed": s.seed}


def _estimate(e: Estimate) -> dict[str, float | None]:
    if not e.trials:
        return {"mean": None, "se": None, "low": None, "high": None}
    low, high = e.interval()
    return {"mean": round(e.mean, 4), "se": round(e.se, 4), "low": round(low, 4),
            "high": round(high, 4)}


def _probs(p: Probs) -> dict[str, float | None]:
    values = (p.win, p.win_gammon, p.win_backgammon, p.lose_gammon, p.lose_backgammon)
    names = ("win", "gammon", "backgammon", "lose_gammon", "lose_backgammon")
    return {n: None if math.isnan(v) else round(v, 4) for n, v in zip(names, values, strict=True)}


def report(spec: RolloutSpec, tally: Tally) -> dict[str, Any]:
    """The figures of ``tally`` for ``spec`` (module docstring)."""
    out: dict[str, Any] = {"trials": tally.trials, "of": spec.settings.trials,
                           "subject": "play" if spec.play else "position"}
    if not tally.trials:
        return out
    setup = spec.setup()
    if spec.play is not None:
        figures = play_figures(tally, setup.context)
        out.update(equity=_estimate(figures.equity), cubeless=_estimate(figures.cubeless),
                   **_probs(figures.probs))
        return out
    cube = tally.cube(setup.context)
    out.update(no_double=_estimate(cube.no_double), double_take=_estimate(cube.double_take),
               double_pass=round(cube.double_pass, 4), action=cube.action, answer=cube.answer,
               equity=_estimate(Estimate(cube.equity, cube.equity_se, tally.trials)),
               cubeless=_estimate(tally.estimate("cubeless")), **_probs(tally.probs()))
    return out
