"""The commitment rules: what a seat may commit (or re-commit) to, as pure checks.

The server calls :func:`check_commitment` when a seat sends its commitment ``s[0]`` and
:func:`check_recommitment` when a seat that lost its secret sends a fresh chain's link. Both
return the accepted 32 bytes or raise :class:`CommitmentRejected` with a stable code.

>>> good = bytes(range(1, 33))
>>> check_commitment(good, existing=None, other=None) == good
True
>>> check_commitment(bytes(32), existing=None, other=None)
Traceback (most recent call last):
...
protocol.fairdice.commitments.CommitmentRejected: all_zero: a commitment of all zero bytes
"""

from __future__ import annotations

import enum

from protocol.fairdice.encoding import LINK_SIZE
from protocol.fairdice.errors import FairDiceError

MAX_RECOMMITMENTS = 3
"""Re-commitments allowed per seat and game."""


class CommitmentCode(enum.StrEnum):
    """Why a commitment or re-commitment was refused. The values are stable wire codes."""

    WRONG_LENGTH = "wrong_length"
    ALL_ZERO = "all_zero"
    SAME_AS_OPPONENT = "same_as_opponent"
    ALREADY_COMMITTED = "already_committed"
    NOT_COMMITTED = "not_committed"
    TOO_MANY_RECOMMITMENTS = "too_many_recommitments"
    ROLL_IN_PROGRESS = "roll_in_progress"


class CommitmentRejected(FairDiceError):
    """A refused (re-)commitment; ``reason`` is a :class:`CommitmentCode` and ``code`` its
    value. Nothing changes: the server replies with the code and keeps the connection."""

    def __init__(self, reason: CommitmentCode, message: str) -> None:
        super().__init__(f"{reason.value}: {message}")
        self.reason = reason
        self.code = reason.value


def _check_value(value: object, other: bytes | None) -> bytes:
    if not isinstance(value, bytes | bytearray) or len(value) != LINK_SIZE:
        size = len(value) if isinstance(value, bytes | bytearray) else type(value).__name__
        raise CommitmentRejected(
            CommitmentCode.WRONG_LENGTH, f"expected {LINK_SIZE} bytes, got {size}"
        )
    value = bytes(value)
    if not any(value):
        raise CommitmentRejected(CommitmentCode.ALL_ZERO, "a commitment of all zero bytes")
    if other is not None and value == other:
        raise CommitmentRejected(
            CommitmentCode.SAME_AS_OPPONENT, "equal to the other seat's commitment"
        )
    return value


def check_commitment(value: object, *, existing: bytes | None, other: bytes | None) -> bytes:
    """Accept a seat's first commitment ``s[0]`` for a game.

    ``existing`` is this seat's commitment if it already sent one (then the new one is refused
    even if equal: a commitment is made exactly once), ``other`` the other seat's if known.

    >>> check_commitment(bytes([7]) * 32, existing=bytes([7]) * 32, other=None)
    Traceback (most recent call last):
    ...
    protocol.fairdice.commitments.CommitmentRejected: already_committed: this seat already committed for this game
    """  # noqa: E501
    if existing is not None:
        raise CommitmentRejected(
            CommitmentCode.ALREADY_COMMITTED, "this seat already committed for this game"
        )
    return _check_value(value, other)


def check_recommitment(
    value: object,
    *,
    committed: bool,
    recommitments_so_far: int,
    other_head: bytes | None,
    roll_in_progress: bool,
) -> bytes:
    """Accept a re-commitment: the link ``s'[k0 - 1]`` of a fresh chain, where ``k0`` is the
    next roll index (the first roll it applies to).

    Allowed only after the seat's first commitment, only between rolls, and at most
    :data:`MAX_RECOMMITMENTS` times per game. "Between rolls" means no reveal of the next roll is
    held yet: a fresh chain chosen after the roller's reveal could be ground against that reveal
    by a seat colluding with whoever holds it. ``other_head`` is the other seat's current link.

    >>> check_recommitment(bytes([9]) * 32, committed=True, recommitments_so_far=3,
    ...                    other_head=None, roll_in_progress=False)
    Traceback (most recent call last):
    ...
    protocol.fairdice.commitments.CommitmentRejected: too_many_recommitments: at most 3 re-commitments per seat and game
    """  # noqa: E501
    if not committed:
        raise CommitmentRejected(
            CommitmentCode.NOT_COMMITTED, "a re-commitment needs a first commitment"
        )
    if roll_in_progress:
        raise CommitmentRejected(
            CommitmentCode.ROLL_IN_PROGRESS, "re-commit between rolls, not during one"
        )
    if recommitments_so_far >= MAX_RECOMMITMENTS:
        raise CommitmentRejected(
            CommitmentCode.TOO_MANY_RECOMMITMENTS,
            f"at most {MAX_RECOMMITMENTS} re-commitments per seat and game",
        )
    return _check_value(value, other_head)
