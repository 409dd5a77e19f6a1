"""How the analysis board's and the rollouts' routes answer a position or settings they refuse:
:class:`analysis.board.SetupError` and :class:`brain.rollout.RolloutError` codes, each with its
API code (shared by ``server/web/analyse.py`` and ``server/web/rollouts.py``)."""

from __future__ import annotations

from starlette.responses import JSONResponse

from analysis.board import SetupError
from brain.rollout import RolloutError
from protocol.errors import ErrorCode
from protocol.http_errors import ApiErrorCode, HttpCode
from server.web.common import error

CODES: dict[str, ApiErrorCode] = {
    "bad_position_id": HttpCode.BAD_POSITION_ID,
    "bad_match_id": HttpCode.BAD_MATCH_ID,
    "not_playing": HttpCode.BAD_MATCH_ID,
    "bad_xgid": HttpCode.BAD_XGID,
    "bad_play": HttpCode.BAD_PLAY,
    "bad_dice": ErrorCode.BAD_DICE,
    "bad_ply": ErrorCode.BAD_FIELD,
    "game_over": ErrorCode.GAME_OVER,
    "unsupported": ErrorCode.UNSUPPORTED,
}
"""The board's refusals and the API's codes; a rollout's settings refused are ``bad_field``."""


def refused(exc: SetupError | RolloutError) -> JSONResponse:
    """The 400 answer of a refused position or setting."""
    if isinstance(exc, RolloutError):
        return error(ErrorCode.BAD_FIELD, exc.message, 400)
    code = CODES[exc.code]
    return error(code, exc.message, None if isinstance(code, HttpCode) else 400)
