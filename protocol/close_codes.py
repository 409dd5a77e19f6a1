"""WebSocket close codes the server uses, and what a client should do on each.

1000-1015 are RFC 6455 codes; 4000-4999 are reserved for applications: these are ours.

>>> int(CloseCode.AUTH_FAILED), CloseCode.AUTH_FAILED.reconnect
(4001, False)
>>> close_code_for(ErrorCode.RATE_LIMITED)
<CloseCode.RATE_LIMITED: 4008>
"""

from __future__ import annotations

import enum

from protocol.errors import ErrorCode
from protocol.limits import MAX_BAD_FRAMES


class CloseCode(enum.IntEnum):
    """A close code, with ``meaning`` and ``reconnect`` (should a client try again)."""

    NORMAL = 1000
    GOING_AWAY = 1001
    UNSUPPORTED_DATA = 1003
    ABNORMAL = 1006
    POLICY_VIOLATION = 1008
    MESSAGE_TOO_BIG = 1009
    INTERNAL_ERROR = 1011
    SERVICE_RESTART = 1012
    TRY_AGAIN_LATER = 1013
    PROTOCOL_VIOLATION = 4000
    AUTH_FAILED = 4001
    AUTH_TIMEOUT = 4002
    REPLACED = 4003
    MATCH_NOT_FOUND = 4004
    UNSUPPORTED_VERSION = 4005
    RATE_LIMITED = 4008
    TOO_SLOW = 4009
    UNRESPONSIVE = 4010

    @property
    def meaning(self) -> str:
        return _MEANINGS[self][0]

    @property
    def reconnect(self) -> bool:
        """True when reconnecting (with backoff) may succeed; False when it cannot help."""
        return _MEANINGS[self][1]


_MEANINGS: dict[CloseCode, tuple[str, bool]] = {
    CloseCode.NORMAL: (
        "normal closure (the client left, or the match is over); the server never closes a live "
        "seat with it: a 1000 while the match is live comes from an intermediary and is a drop",
        False,
    ),
    CloseCode.GOING_AWAY: ("the endpoint is going away (page closed, server shutting down)", True),
    CloseCode.UNSUPPORTED_DATA: ("a text frame: this protocol uses binary frames only", False),
    CloseCode.ABNORMAL: (
        "never sent: what a client observes when the connection dropped without a close frame",
        True,
    ),
    CloseCode.POLICY_VIOLATION: ("policy violation (for example a forbidden Origin)", False),
    CloseCode.MESSAGE_TOO_BIG: ("a frame larger than the maximum frame size", False),
    CloseCode.INTERNAL_ERROR: ("a server fault", True),
    CloseCode.SERVICE_RESTART: ("the server is restarting: reconnect (to any node)", True),
    CloseCode.TRY_AGAIN_LATER: (
        "this server cannot reach its store (after error{retry_later}): reconnect, to another "
        "server if there is one",
        True,
    ),
    CloseCode.PROTOCOL_VIOLATION: (
        "protocol violation: the first frame was not a valid hello, or MAX_BAD_FRAMES "
        f"({MAX_BAD_FRAMES}) undecodable frames in a row",
        False,
    ),
    CloseCode.AUTH_FAILED: ("authentication failed (bad or foreign seat token)", False),
    CloseCode.AUTH_TIMEOUT: ("no hello within the handshake timeout", True),
    CloseCode.REPLACED: ("a newer connection took over this seat", False),
    CloseCode.MATCH_NOT_FOUND: ("no match with this id", False),
    CloseCode.UNSUPPORTED_VERSION: ("hello.proto is a version the server does not speak", False),
    CloseCode.RATE_LIMITED: ("too many frames after rate_limited warnings", True),
    CloseCode.TOO_SLOW: (
        "the client did not read fast enough: its send queue on the server filled up "
        "(no error frame: reconnect at once and resume)",
        True,
    ),
    CloseCode.UNRESPONSIVE: (
        "nothing came from the client within the probe timeout (4 s unless the operator set "
        "another) after a probe: "
        "a dead link, or a client that does not answer probe with echo",
        True,
    ),
}

_FOR_ERROR: dict[ErrorCode, CloseCode] = {
    ErrorCode.TOO_LARGE: CloseCode.MESSAGE_TOO_BIG,
    ErrorCode.UNSUPPORTED: CloseCode.UNSUPPORTED_DATA,
    ErrorCode.UNSUPPORTED_VERSION: CloseCode.UNSUPPORTED_VERSION,
    ErrorCode.NOT_AUTHENTICATED: CloseCode.PROTOCOL_VIOLATION,
    # Undecodable frames are rejected one by one, and end the connection as the first frame
    # (instead of hello) or when MAX_BAD_FRAMES come in a row.
    ErrorCode.BAD_FRAME: CloseCode.PROTOCOL_VIOLATION,
    ErrorCode.UNKNOWN_TYPE: CloseCode.PROTOCOL_VIOLATION,
    ErrorCode.BAD_FIELD: CloseCode.PROTOCOL_VIOLATION,
    ErrorCode.AUTH_FAILED: CloseCode.AUTH_FAILED,
    ErrorCode.AUTH_TIMEOUT: CloseCode.AUTH_TIMEOUT,
    ErrorCode.FORBIDDEN_ORIGIN: CloseCode.POLICY_VIOLATION,
    ErrorCode.REPLACED: CloseCode.REPLACED,
    ErrorCode.NOT_FOUND: CloseCode.MATCH_NOT_FOUND,
    ErrorCode.RATE_LIMITED: CloseCode.RATE_LIMITED,
    ErrorCode.RETRY_LATER: CloseCode.TRY_AGAIN_LATER,
    ErrorCode.UNRESPONSIVE: CloseCode.UNRESPONSIVE,
    ErrorCode.INTERNAL: CloseCode.INTERNAL_ERROR,
}


def close_code_for(code: ErrorCode) -> CloseCode | None:
    """The close code that follows an ``error`` with this code when the server ends the
    connection for it; None for codes that only ever reject one frame or action."""
    return _FOR_ERROR.get(code)
