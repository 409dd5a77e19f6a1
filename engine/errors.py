"""Typed refusals of the game, cube and match rules, each with a stable string code.

The codes travel in error replies to clients, so their values never change.

>>> err = GameError(ErrorCode.NOT_YOUR_TURN, "seat 1 is to act")
>>> err.code == 'not_your_turn', str(err)
(True, 'not_your_turn: seat 1 is to act')
>>> isinstance(CubeError(ErrorCode.CUBE_UNAVAILABLE), GameError)
True
"""

from __future__ import annotations

import enum


class ErrorCode(enum.StrEnum):
    """Why an action was refused."""

    BAD_SEAT = "bad_seat"
    BAD_DICE = "bad_dice"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    ILLEGAL_PLAY = "illegal_play"
    CUBE_UNAVAILABLE = "cube_unavailable"
    BEAVER_UNAVAILABLE = "beaver_unavailable"
    NO_DOUBLE_PENDING = "no_double_pending"
    NO_RESIGNATION_PENDING = "no_resignation_pending"
    BAD_RESIGNATION_LEVEL = "bad_resignation_level"
    RESIGNATION_DECLINED = "resignation_declined"
    BAD_FORFEIT_REASON = "bad_forfeit_reason"
    GAME_OVER = "game_over"
    GAME_IN_PROGRESS = "game_in_progress"
    NO_GAME = "no_game"
    MATCH_OVER = "match_over"
    NOT_MONEY = "not_money"
    BAD_OPTIONS = "bad_options"


class GameError(Exception):
    """An action the rules refuse. ``code`` is stable; ``detail`` is for humans."""

    def __init__(self, code: ErrorCode, detail: str = "") -> None:
        super().__init__(code, detail)
        self.code = code
        self.detail = detail

    def __str__(self) -> str:
        return f"{self.code.value}: {self.detail}" if self.detail else self.code.value


class CubeError(GameError):
    """A refused cube action (double, take, drop, beaver)."""


class MatchError(GameError):
    """A refused match-level action (starting a game, stopping a session, bad options)."""
