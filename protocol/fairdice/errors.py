"""Typed errors of the fair-dice scheme.

Every error has a stable ``code`` (a short snake_case string that may travel in error replies
and that other implementations reproduce) and a human message. Errors are ordinary exception
classes, not frozen dataclasses, so that tools which attach notes to exceptions keep working.
"""

from __future__ import annotations

import enum


class FairDiceError(Exception):
    """Base class of every error raised by :mod:`protocol.fairdice`."""

    code: str = "fairdice"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class EncodingError(FairDiceError, ValueError):
    """A value of the wrong shape: bad hex, wrong byte length, out-of-range integer.

    >>> raise EncodingError("match_id: expected 16 bytes, got 3")
    Traceback (most recent call last):
    ...
    protocol.fairdice.errors.EncodingError: match_id: expected 16 bytes, got 3
    """

    code = "encoding"


class Problem(enum.StrEnum):
    """What kind of check a transcript failed. The values are stable codes; the message of a
    :class:`TranscriptError` says precisely where and what."""

    JSON = "json"  # not JSON at all, duplicate keys, NaN
    SCHEMA = "schema"  # a missing, extra or mistyped field
    VERSION = "version"  # an unsupported format or scheme
    COMMITMENT = "commitment"  # a commitment or re-commitment breaking the commitment rules
    RECOMMITMENT = "recommitment"  # too many, or applying from an impossible roll
    SEQUENCE = "sequence"  # roll indexes not 1, 2, 3, ...
    LINK = "link"  # a reveal that does not hash to its seat's previous link
    DICE = "dice"  # recorded dice that differ from the derived ones
    ROLLOFF = "rolloff"  # roll kinds or rollers that break the roll-off and turn order
    ORDER = "order"  # event versions or times out of order
    ACTION = "action"  # an action inconsistent with the rolls (wrong seat, unknown roll)
    PLAY = "play"  # a move the rules do not allow (engine replay)
    RESULT = "result"  # a result inconsistent with the game
    EVIDENCE = "evidence"  # forfeit evidence that does not show a bad reveal


class TranscriptError(FairDiceError):
    """A transcript that does not verify: ``problem`` (a :class:`Problem`; ``code`` is its
    value), the roll ``k`` and ``seat`` concerned when there is one, and the JSON ``path``.

    >>> e = TranscriptError(Problem.LINK, "seat 1 reveal does not hash to its previous link",
    ...                     k=7, seat=1, path="rolls[6].reveals[1]")
    >>> str(e), e.code
    ('roll 7: seat 1 reveal does not hash to its previous link', 'link')
    """

    def __init__(
        self,
        problem: Problem,
        message: str,
        *,
        k: int | None = None,
        seat: int | None = None,
        path: str | None = None,
    ) -> None:
        prefix = f"roll {k}: " if k is not None else ""
        super().__init__(prefix + message)
        self.problem = problem
        self.code = problem.value
        self.k = k
        self.seat = seat
        self.path = path
