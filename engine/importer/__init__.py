"""Import matches played elsewhere: ``.mat`` (GNU Backgammon, eXtreme Gammon, Backgammon Galaxy
and our own export) and GNU Backgammon's ``.sgf``, into the project's own match record.

API
---

``read_match(data, format=None, max_bytes=MAX_BYTES) -> Imported``
    ``data`` is the file (bytes or text); ``format`` is ``"mat"`` or ``"sgf"``, or None to
    recognise it from the content. Returns :class:`Imported`: ``record`` (an
    :class:`engine.record.MatchRecord`: options, names, games with their events — what
    :class:`analysis.game.GameInput` and the replay read), ``format``, ``tags`` (the header's
    named fields), ``comments`` (the file's own comment lines) and ``notes`` (what was read but
    not kept). Every roll, play and cube action went through the engine's transitions.
    Anything else raises :class:`MatchFileError` with a :class:`FileErrorCode` and the line
    (and column) at fault: never another exception.

``detect_format(text) -> "mat" | "sgf"``
    Which parser a text is for (SGF starts with ``(;``).

The parts: :mod:`engine.importer.mat` and :mod:`engine.importer.sgf` read the text into the
neutral :mod:`engine.importer.steps`; :mod:`engine.importer.build` replays them through the
engine (:mod:`engine.importer.plays` finds the legal play a written play is;
:mod:`engine.importer.own` reads the sentences our export adds). docs/analysis.md ("Import")
lists what each format may hold and what is ignored.

>>> from engine.importer import read_match
>>> imported = read_match(b" 1 point match\\n\\n Game 1\\n Ann : 0   Bob : 0\\n"
...                       b"  1) 31: 8/5 6/5\\n      Wins 1 point and the match\\n")
>>> game = imported.record.games[0]
>>> imported.format, game.result.winner, game.result.kind.word, imported.record.end.winner
('mat', 0, 'single', 0)
>>> read_match(b"\\x00\\x01\\x02")
Traceback (most recent call last):
...
engine.importer.errors.MatchFileError: not a text file (control character 0x00)
"""

from __future__ import annotations

import re

from engine.importer.build import Imported, build
from engine.importer.errors import FileErrorCode, MatchFileError, Where
from engine.importer.mat import parse_mat
from engine.importer.sgf import parse_sgf

__all__ = ["MAX_BYTES", "FileErrorCode", "Imported", "MatchFileError", "Where", "detect_format",
           "read_match"]

MAX_BYTES = 4 * 1024 * 1024
"""The largest file read (an SGF with gnubg's full analysis of a long match fits)."""

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_CHARSET = re.compile(rb"CA\[([A-Za-z0-9_.:-]{1,40})\]")


def read_match(data: bytes | str, format: str | None = None,
               max_bytes: int = MAX_BYTES) -> Imported:
    """The match in ``data`` (see the module docstring)."""
    if format not in (None, "mat", "sgf"):
        raise MatchFileError(FileErrorCode.UNKNOWN_FORMAT, f"no import format {format!r}")
    text = _text(data, max_bytes)
    kind = format or detect_format(text)
    parsed = parse_sgf(text) if kind == "sgf" else parse_mat(text)
    return build(parsed)


def detect_format(text: str) -> str:
    """``"sgf"`` for a text that starts (after blanks) with ``(;``, else ``"mat"``."""
    return "sgf" if re.match(r"\s*\(\s*;", text) else "mat"


def _text(data: bytes | str, max_bytes: int) -> str:
    if isinstance(data, str):
        if len(data) > max_bytes:
            raise MatchFileError(FileErrorCode.TOO_LARGE, f"over {max_bytes} characters")
        text = data
    else:
        if len(data) > max_bytes:
            raise MatchFileError(FileErrorCode.TOO_LARGE, f"over {max_bytes} bytes")
        text = _decode(data)
    text = text.removeprefix("\ufeff")
    bad = _CONTROL.search(text)
    if bad is not None:
        raise MatchFileError(FileErrorCode.NOT_TEXT,
                             f"not a text file (control character 0x{ord(bad.group()):02x})")
    if not text.strip():
        raise MatchFileError(FileErrorCode.UNKNOWN_FORMAT, "the file is empty")
    return text


def _decode(data: bytes) -> str:
    """UTF-8 (with or without its byte-order mark); else the SGF's own ``CA[...]`` charset;
    else Latin-1, which every byte string is."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    declared = _CHARSET.search(data[:4096])
    if declared is not None:
        try:
            return data.decode(declared.group(1).decode("ascii"))
        except (LookupError, UnicodeDecodeError):
            pass
    return data.decode("latin-1")
