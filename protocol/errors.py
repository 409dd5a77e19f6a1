"""The protocol's stable error codes, and the codec's own exceptions.

``ErrorCode`` values travel on the wire (``reject.code``, ``error.code``) and never change
meaning; the codec uses the first few, the server's rejections the rest.

>>> ErrorCode.BAD_FIELD.value
'bad_field'
>>> e = DecodeError(ErrorCode.UNKNOWN_TYPE, "unknown message type 'jump'")
>>> e.code is ErrorCode.UNKNOWN_TYPE, str(e)
(True, "unknown_type: unknown message type 'jump'")
"""

from __future__ import annotations

import enum


class ErrorCode(enum.StrEnum):
    """Why a frame or an action was refused, or why a connection is being closed."""

    # Frames (the codec)
    BAD_FRAME = "bad_frame"
    TOO_LARGE = "too_large"
    UNSUPPORTED = "unsupported"
    UNSUPPORTED_VERSION = "unsupported_version"
    UNKNOWN_TYPE = "unknown_type"
    BAD_FIELD = "bad_field"
    # Connection and identity
    NOT_AUTHENTICATED = "not_authenticated"
    AUTH_FAILED = "auth_failed"
    AUTH_TIMEOUT = "auth_timeout"
    FORBIDDEN_ORIGIN = "forbidden_origin"
    REPLACED = "replaced"
    # Turn order and rules
    NOT_A_PLAYER = "not_a_player"
    NOT_YOUR_TURN = "not_your_turn"
    WRONG_PHASE = "wrong_phase"
    ILLEGAL_PLAY = "illegal_play"
    STALE = "stale"
    DUPLICATE = "duplicate"
    TOO_LATE = "too_late"
    GAME_OVER = "game_over"
    NO_GAME = "no_game"
    GAME_IN_PROGRESS = "game_in_progress"
    BAD_SEAT = "bad_seat"
    BAD_DICE = "bad_dice"
    # Lobby
    SEAT_TAKEN = "seat_taken"
    FORBIDDEN = "forbidden"
    BAD_OPTIONS = "bad_options"
    REMATCH_OFFERED = "rematch_offered"
    TOO_MANY_OPEN = "too_many_open"
    NO_BOTS = "no_bots"
    HINTS_UNAVAILABLE = "hints_unavailable"
    NO_DECISION = "no_decision"
    # Dice
    BAD_COMMITMENT = "bad_commitment"
    BAD_REVEAL = "bad_reveal"
    # Cube and resignation
    CUBE_UNAVAILABLE = "cube_unavailable"
    NO_DOUBLE_PENDING = "no_double_pending"
    NO_RESIGNATION_PENDING = "no_resignation_pending"
    BEAVER_UNAVAILABLE = "beaver_unavailable"
    BAD_RESIGNATION_LEVEL = "bad_resignation_level"
    RESIGNATION_DECLINED = "resignation_declined"
    BAD_FORFEIT_REASON = "bad_forfeit_reason"
    NOT_MONEY = "not_money"
    # Load, lifecycle, faults
    RATE_LIMITED = "rate_limited"
    RETRY_LATER = "retry_later"
    UNRESPONSIVE = "unresponsive"
    MATCH_OVER = "match_over"
    NOT_FOUND = "not_found"
    INTERNAL = "internal"


DESCRIPTIONS: dict[ErrorCode, str] = {
    ErrorCode.BAD_FRAME: "not exactly one well-formed msgpack map: invalid or truncated msgpack, "
    "trailing bytes, ext types, invalid UTF-8, non-string or duplicate map keys, or beyond the "
    "decoder's limits (claimed lengths, number of maps and arrays, nesting)",
    ErrorCode.TOO_LARGE: "frame larger than the maximum frame size",
    ErrorCode.UNSUPPORTED: "text frame where a binary frame is expected",
    ErrorCode.UNSUPPORTED_VERSION: "`hello.proto` names a protocol version the server does not "
    "speak",
    ErrorCode.UNKNOWN_TYPE: "unknown message type or event kind, or a type the other side sends",
    ErrorCode.BAD_FIELD: "schema violation: missing, extra or mistyped field, value out of range, "
    "string or binary of the wrong length",
    ErrorCode.NOT_AUTHENTICATED: "anything but `hello` before the handshake completed",
    ErrorCode.AUTH_FAILED: "missing, malformed, unknown or another match's seat token",
    ErrorCode.AUTH_TIMEOUT: "no `hello` within the handshake timeout",
    ErrorCode.FORBIDDEN_ORIGIN: "the WebSocket upgrade came from an Origin not on the allowlist",
    ErrorCode.REPLACED: "a newer connection took over this seat",
    ErrorCode.NOT_A_PLAYER: "a spectator sent a game action",
    ErrorCode.NOT_YOUR_TURN: "the action belongs to the other seat now",
    ErrorCode.WRONG_PHASE: "the action is not possible in the current phase of the game (or "
    "of the connection: a second `hello`)",
    ErrorCode.ILLEGAL_PLAY: "the play breaks the rules (the message says which step and why)",
    ErrorCode.STALE: "the action names an old game, turn or roll",
    ErrorCode.DUPLICATE: "this sequence number was already used for a different action",
    ErrorCode.TOO_LATE: "the deadline had passed when the action arrived (the clock settles it)",
    ErrorCode.GAME_OVER: "the game has ended",
    ErrorCode.NO_GAME: "no game is in progress (between games)",
    ErrorCode.GAME_IN_PROGRESS: "only possible between games",
    ErrorCode.BAD_SEAT: "not a seat of this match",
    ErrorCode.BAD_DICE: "dice out of range (a server fault: dice come from the reveals)",
    ErrorCode.SEAT_TAKEN: "the match already has two players",
    ErrorCode.FORBIDDEN: "a private match needs its invite link; a rematch's seat needs the "
    "token of the invited seat of the finished match",
    ErrorCode.BAD_OPTIONS: "match options out of range",
    ErrorCode.REMATCH_OFFERED: "a rematch of this match was already offered (once per match)",
    ErrorCode.TOO_MANY_OPEN: "HTTP lobby: this address already has as many matches waiting for "
    "an opponent as allowed (429, `Retry-After`)",
    ErrorCode.NO_BOTS: "no bot worker is running: a match against the computer cannot start",
    ErrorCode.HINTS_UNAVAILABLE: "hints (and the computer's pace) are only given in matches "
    "against the computer",
    ErrorCode.NO_DECISION: "a hint was asked for while the seat owes no move or cube decision",
    ErrorCode.BAD_COMMITMENT: "commitment of the wrong length, all zeros, equal to the "
    "opponent's, sent twice, or re-committed too often",
    ErrorCode.BAD_REVEAL: "reveal for a roll that is not being asked for",
    ErrorCode.CUBE_UNAVAILABLE: "doubling is not allowed now (cube owned by the opponent, "
    "Crawford game, cube at its maximum, cubeless mode, already rolled)",
    ErrorCode.NO_DOUBLE_PENDING: "take, drop or beaver with no double to answer",
    ErrorCode.NO_RESIGNATION_PENDING: "resign_reply with no resignation offered",
    ErrorCode.BEAVER_UNAVAILABLE: "beavers are off in this match, or no double to beaver",
    ErrorCode.BAD_RESIGNATION_LEVEL: "resigning more than is still possible, or not a level",
    ErrorCode.RESIGNATION_DECLINED: "after a rejection only a higher level may be offered",
    ErrorCode.BAD_FORFEIT_REASON: "not a forfeit reason",
    ErrorCode.NOT_MONEY: "only a money session can be stopped",
    ErrorCode.RATE_LIMITED: "too many frames (the connection is closed if it goes on); in the "
    "HTTP lobby: too many matches created from one address (429, `Retry-After`)",
    ErrorCode.RETRY_LATER: "the server cannot store anything right now; resend the same action "
    "(same seq) later",
    ErrorCode.UNRESPONSIVE: "nothing came from the client within the probe timeout after a "
    "probe (answer every probe with echo at once); sent before close 4010",
    ErrorCode.MATCH_OVER: "the match has ended",
    ErrorCode.NOT_FOUND: "no match with this id",
    ErrorCode.INTERNAL: "a server fault; nothing was changed",
}


class ProtocolError(Exception):
    """Base of the codec's errors: a stable ``code`` and a human-readable ``message``."""

    def __init__(self, code: ErrorCode, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code.value}: {self.message}"


class DecodeError(ProtocolError):
    """A frame that is not a valid message. The only exception the decoder raises.

    ``msg_type`` is the frame's message type and ``seq`` its client sequence number when the
    envelope got that far, so a server can answer ``reject{seq}`` for a bad action.
    """

    def __init__(
        self,
        code: ErrorCode,
        message: str,
        *,
        msg_type: str | None = None,
        seq: int | None = None,
    ) -> None:
        super().__init__(code, message)
        self.msg_type = msg_type
        self.seq = seq


class EncodeError(ProtocolError):
    """A value that does not fit its schema: a bug in the sender, never sent on the wire."""
