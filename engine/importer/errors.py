"""The one error an import raises: what is wrong, and where in the file.

Every malformed, contradictory or unsupported input ends in :class:`MatchFileError` (a
``ValueError``) with a stable :class:`FileErrorCode`, a message for people and, when the fault
has a place, the 1-based line and column. Nothing else escapes :func:`engine.importer.read_match`.

>>> err = MatchFileError(FileErrorCode.SYNTAX, "no dice before the play", Where(12, 6))
>>> str(err), err.line, err.column
('line 12, column 6: no dice before the play', 12, 6)
>>> err.as_dict()
{'code': 'syntax', 'message': 'no dice before the play', 'line': 12, 'column': 6}
"""

from __future__ import annotations

import enum
from dataclasses import dataclass


class FileErrorCode(enum.StrEnum):
    """Why a file was refused. The values are stable: the import API returns them."""

    NOT_TEXT = "not_text"
    """Not a text file (binary bytes, or not a known encoding)."""
    TOO_LARGE = "too_large"
    """Over the size, line or game limits."""
    UNKNOWN_FORMAT = "unknown_format"
    """Neither a ``.mat`` nor a backgammon ``.sgf`` file."""
    SYNTAX = "syntax"
    """A line or token that the format does not allow."""
    ILLEGAL = "illegal"
    """An action the rules refuse: an illegal play, a double out of turn, a take of nothing."""
    INCONSISTENT = "inconsistent"
    """The file contradicts itself: a score line, the points of a game, its winner."""
    UNSUPPORTED = "unsupported"
    """Valid in its own program, not here: a variant, a setup position, raccoons, a match
    longer than 25 points."""


@dataclass(frozen=True, slots=True)
class Where:
    """A place in the file: the 1-based line, and the 1-based column when it helps."""

    line: int
    column: int | None = None

    def __str__(self) -> str:
        return f"line {self.line}" + (f", column {self.column}" if self.column else "")


class MatchFileError(ValueError):
    """A file that cannot be imported: ``code``, ``message`` and ``where`` (or None)."""

    def __init__(self, code: FileErrorCode, message: str, where: Where | None = None) -> None:
        super().__init__(code, message, where)
        self.code = code
        self.message = message
        self.where = where

    @property
    def line(self) -> int | None:
        return self.where.line if self.where else None

    @property
    def column(self) -> int | None:
        return self.where.column if self.where else None

    def __str__(self) -> str:
        return f"{self.where}: {self.message}" if self.where else self.message

    def as_dict(self) -> dict[str, object]:
        """The error as the API answers it."""
        return {"code": self.code.value, "message": self.message, "line": self.line,
                "column": self.column}


def syntax(message: str, where: Where | None) -> MatchFileError:
    return MatchFileError(FileErrorCode.SYNTAX, message, where)


def illegal(message: str, where: Where | None) -> MatchFileError:
    return MatchFileError(FileErrorCode.ILLEGAL, message, where)


def inconsistent(message: str, where: Where | None) -> MatchFileError:
    return MatchFileError(FileErrorCode.INCONSISTENT, message, where)


def unsupported(message: str, where: Where | None) -> MatchFileError:
    return MatchFileError(FileErrorCode.UNSUPPORTED, message, where)
