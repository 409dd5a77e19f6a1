"""A game report as the API's JSON (docs/analysis.md): stable keys, rounded numbers."""

from __future__ import annotations

from typing import Any

from analysis.core import BLUNDER, ERROR, GameReport

FORMAT = "fairgammon-analysis/1"


def _r(x: float | None, digits: int = 4) -> float | None:
    return None if x is None else round(x, digits)


def to_json(report: GameReport) -> dict[str, Any]:
    """The ``done`` answer of ``analysis.json``."""
    players = []
    for p in report.players:
        players.append({
            "seat": p.seat,
            "decisions": p.decisions,
            "checker_decisions": p.checker_decisions,
            "cube_decisions": p.cube_decisions,
            "resign_decisions": p.resign_decisions,
            "total_error": _r(p.total_error),
            "checker_error": _r(p.checker_error),
            "cube_error": _r(p.cube_error),
            "resign_error": _r(p.resign_error),
            "error_rate": _r(p.error_rate, 1),
            "pr": _r(p.pr, 1),
            "errors": p.errors,
            "blunders": p.blunders,
            "luck": _r(p.luck, 3),
            "rolls": p.rolls,
            "result": _r(p.result, 3),
            "luck_adjusted": _r(report.luck_adjusted(p.seat), 3),
        })
    turns = []
    for t in report.turns:
        turns.append({
            "seat": t.seat,
            "action": t.action.value,
            "dice": sorted(t.dice, reverse=True) if t.dice else None,
            "played": t.played,
            "best": t.best,
            "played_text": t.played_text,
            "best_text": t.best_text,
            "equity_lost": _r(t.equity_lost),
            "best_action": t.best_action,
            "cube_lost": _r(t.cube_lost),
            "luck": _r(t.luck),
            "equity": _r(t.equity),
            "forced": t.forced,
            "plays": t.plays,
            "mark": t.mark,
        })
    return {
        "format": FORMAT,
        "status": "done",
        "level": report.level,
        "units": {"equity": "EMG per unit cube", "error_rate": "mEMG per decision",
                  "luck": "points"},
        "thresholds": {"error": ERROR, "blunder": BLUNDER},
        "players": players,
        "turns": turns,
    }
