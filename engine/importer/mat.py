"""Read the Jellyfish ``.mat`` text format (GNU Backgammon, eXtreme Gammon, Backgammon Galaxy
and our own :mod:`engine.matfile` write it) into :class:`engine.importer.steps.Parsed`.

The layout (docs/analysis.md, "Import", has the full list of what is read and what is ignored):

* header comment lines ``; ...`` (or ``# ...``), tags among them as ``; [Name "value"]``;
* the match length line `` 7 point match`` (0 for a money session or a single game);
* per game `` Game N``, the score line `` Ann : 2      Bob : 4`` (left player first), then
  numbered rows ``  3) 52: 13/8 13/11      Doubles => 2`` with the left player's action, then the
  right player's; ``Wins 2 points`` may stand alone on an unnumbered line.

An action is a roll ``52:`` with its play (nothing after it, ``Cannot Move`` or ``???`` when
nothing was played), ``Doubles => 2``, ``Beavers => 4``, ``Takes``, ``Drops`` or ``Wins N
point(s) [and the match]``; ``Resigns`` and ``Resigned Game`` are markers the ``Wins`` line
after them completes. Which player acted is told by the column: when a row has two actions the
first is the left player's; a lone action starting at column 17 or later is the right player's.

A play is written as checker paths: ``13/8``, ``bar/22`` (or ``25/22``), ``6/off`` (or
``6/0``), a hit marked ``*`` after the point, a path through several points ``24/18*/13``, the
same path for several checkers ``8/5(2)``; one path may span both dice (``24/13``).

>>> text = " 3 point match\\n\\n Game 1\\n Ann : 0     Bob : 0\\n  1) 31: 8/5 6/5\\n"
>>> parsed = parse_mat(text)
>>> parsed.names, parsed.length, parsed.games[0].steps[0].segments
(('Ann', 'Bob'), 3, ((8, 5), (6, 5)))
>>> parse_mat(" 3 point match\\n Game 1\\n Ann : 0     Bob : 0\\n  1) 31: 8/5 6/x\\n")
Traceback (most recent call last):
...
engine.importer.errors.MatchFileError: line 4, column 14: not a checker path: '6/x'
"""

from __future__ import annotations

import itertools
import re

from engine.importer.errors import Where, inconsistent, syntax, unsupported
from engine.importer.steps import (
    Beaver,
    Double,
    Drop,
    GameSteps,
    Parsed,
    Roll,
    Segment,
    Step,
    Take,
    Win,
)
from engine.matfile import clean_name

RIGHT_COLUMN = 16
"""0-based column from which a lone action belongs to the right (second) player."""
MAX_LINE = 10_000
"""Longest line read (characters)."""

_LINES = re.compile(r"\r\n|\r|\n")
_TAG = re.compile(r'^\[([A-Za-z][A-Za-z0-9 ]*?)\s+"(.*)"\]\s*$')
_LENGTH = re.compile(r"^\s*(\d{1,6})\s+point\s+match\b", re.IGNORECASE)
_GAME = re.compile(r"^\s*Game\s+(\d{1,6})\s*$", re.IGNORECASE)
_SCORE = re.compile(r"^\s*(.+?)\s*:\s*(\d{1,6})\s+(.+?)\s*:\s*(\d{1,6})\s*$")
_ROW = re.compile(r"^(\s*\d{1,6}\))(.*)$")
# The start of an action: dice, or one of the words (a letter or '/' before it would make it
# part of something else).
_CELL = re.compile(
    r"(?<![\w/])(\d\d:|(?:doubles?|beavers?|raccoons?|takes?|drops?|wins?|resign\w*|"
    r"illegal)\b)",
    re.IGNORECASE,
)
_DICE = re.compile(r"^(\d)(\d):(.*)$")
_DOUBLE = re.compile(r"^doubles?(?:\s*=>\s*(\d{1,6}))?$", re.IGNORECASE)
_BEAVER = re.compile(r"^beavers?(?:\s*=>\s*(\d{1,6}))?$", re.IGNORECASE)
_WINS = re.compile(r"^wins?\s+(\d{1,6})\s+points?(?:\s+and\s+the\s+match)?$", re.IGNORECASE)
_NOTHING_PLAYED = re.compile(r"^(?:\?+|cannot\s+move|can't\s+move|no\s+move)$", re.IGNORECASE)
_TOKEN = re.compile(r"\S+")
_PATH = re.compile(r"^((?:bar|off|\d{1,2})\*?(?:/(?:bar|off|\d{1,2})\*?)+)(?:\((\d)\))?$",
                   re.IGNORECASE)


def parse_mat(text: str) -> Parsed:
    """The ``.mat`` file ``text`` as written, or :class:`MatchFileError` naming the line."""
    lines = _LINES.split(text)
    tags: dict[str, str] = {}
    comments: list[tuple[Where, str]] = []
    length: int | None = None
    where_length: Where | None = None
    i = 0
    # The header: comments and tags, up to the match length line.
    while i < len(lines) and length is None:
        line = _checked(lines[i], i)
        where = Where(i + 1)
        i += 1
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] in ";#":
            _comment(stripped, where, tags, comments)
            continue
        found = _LENGTH.match(line)
        if found is None:
            raise syntax(f"expected the match length (' 7 point match'), got {_shown(line)}",
                         where)
        length = int(found.group(1))
        where_length = where
    if length is None:
        raise syntax("no match length line (' 7 point match')", None)
    games: list[GameSteps] = []
    names: tuple[str, str] | None = None
    current: _Game | None = None
    while i < len(lines):
        line = _checked(lines[i], i)
        where = Where(i + 1)
        i += 1
        stripped = line.strip()
        if not stripped:
            continue
        if stripped[0] in ";#":
            _comment(stripped, where, tags, comments)
            continue
        game = _GAME.match(line)
        if game is not None:
            if current is not None:
                games.append(current.done())
            # The score line comes next.
            while i < len(lines) and not lines[i].strip():
                i += 1
            if i >= len(lines):
                raise syntax("the game has no score line ('Ann : 0   Bob : 0')", where)
            score_line = _checked(lines[i], i)
            score_where = Where(i + 1)
            i += 1
            found = _SCORE.match(score_line)
            if found is None:
                raise syntax(f"expected the score line ('Ann : 0   Bob : 0'), got "
                             f"{_shown(score_line)}", score_where)
            these = (_name(found.group(1), 0), _name(found.group(3), 1))
            if names is None:
                names = these
            elif these != names:
                raise inconsistent(f"the players are {these[0]} and {these[1]} here, "
                                   f"{names[0]} and {names[1]} before", score_where)
            current = _Game(where, int(game.group(1)),
                            (int(found.group(2)), int(found.group(4))))
            continue
        if current is None:
            raise syntax(f"expected ' Game 1', got {_shown(line)}", where)
        row = _ROW.match(line)
        if row is not None:
            if row.group(2).strip():  # a numbered row with nothing in it says nothing
                current.cells(row.group(2), len(row.group(1)), where.line)
        else:
            current.cells(line, 0, where.line)
    if current is not None:
        games.append(current.done())
    if names is None:
        names = (_name(tags.get("Player 1", ""), 0), _name(tags.get("Player 2", ""), 1))
    variation = tags.get("Variation")
    if variation is not None and variation.strip().lower() != "backgammon":
        raise unsupported(f"the {variation} variant (only backgammon is played here)", None)
    return Parsed(
        format="mat",
        names=names,
        length=length,
        games=tuple(games),
        where_length=where_length,
        crawford_rule=_on_off(tags, "Crawford", True) is not False,
        jacoby=_on_off(tags, "Jacoby", None),
        beavers=_on_off(tags, "Beaver", None),
        cube_limit=_cube_limit(tags),
        tags=tags,
        comments=tuple(comments),
    )


class _Game:
    """The steps of one game while its rows are read."""

    def __init__(self, where: Where, number: int, score: tuple[int, int]) -> None:
        self.where = where
        self.number = number
        self.score = score
        self.steps: list[Step] = []

    def cells(self, text: str, offset: int, line: int) -> None:
        """Read the actions of one row (``text`` starts at 0-based column ``offset``)."""
        starts = [m.start() for m in _CELL.finditer(text)]
        if not starts:
            raise syntax(f"no action in {_shown(text)}", Where(line, offset + 1))
        before = text[: starts[0]].strip()
        if before:
            raise syntax(f"unexpected {_shown(before)}",
                         Where(line, offset + text.index(before) + 1))
        if len(starts) > 2:
            raise syntax("more than two actions on one line",
                         Where(line, offset + starts[2] + 1))
        bounds = [*starts, len(text)]
        cells = [(offset + s, text[s:e].strip()) for s, e in itertools.pairwise(bounds)]
        if len(cells) == 2:
            seats = (0, 1)
        else:
            seats = (1 if cells[0][0] >= RIGHT_COLUMN else 0,)
        for seat, (column, cell) in zip(seats, cells, strict=True):
            step = _action(cell, seat, Where(line, column + 1))
            if step is not None:
                self.steps.append(step)

    def done(self) -> GameSteps:
        return GameSteps(self.where, self.number, self.score, tuple(self.steps))


def _action(cell: str, seat: int, where: Where) -> Step | None:
    dice = _DICE.match(cell)
    if dice is not None:
        d1, d2 = int(dice.group(1)), int(dice.group(2))
        if not (1 <= d1 <= 6 and 1 <= d2 <= 6):
            raise syntax(f"no such roll {d1}{d2}", where)
        raw = dice.group(3)
        play = raw.strip()
        if play.lower().startswith("illegal"):
            raise unsupported("a play marked illegal (Snowie's 'Illegal play')", where)
        if not play or _NOTHING_PLAYED.match(play):
            return Roll(where, seat, (d1, d2), text="")
        segments, hits = _play(raw, Where(where.line, (where.column or 1) + 3))
        return Roll(where, seat, (d1, d2), segments, hits, play)
    words = " ".join(cell.split())
    lower = words.lower()
    found = _DOUBLE.match(words)
    if found is not None:
        return Double(where, seat, int(found.group(1)) if found.group(1) else None)
    found = _BEAVER.match(words)
    if found is not None:
        return Beaver(where, seat, int(found.group(1)) if found.group(1) else None)
    if lower.startswith("raccoon"):
        raise unsupported("raccoons (a beavered cube redoubled again)", where)
    if lower in ("takes", "take"):
        return Take(where, seat)
    if lower in ("drops", "drop"):
        return Drop(where, seat)
    found = _WINS.match(words)
    if found is not None:
        return Win(where, seat, int(found.group(1)))
    if lower.startswith("resign"):
        return None  # "Resigns", "Resigned Game": the Wins line says who won what
    if lower.startswith("illegal"):
        raise unsupported("a play marked illegal (Snowie's 'Illegal play')", where)
    raise syntax(f"not an action: {_shown(cell)}", where)


def _play(text: str, where: Where) -> tuple[tuple[Segment, ...], frozenset[int]]:
    """The segments of a written play (``text`` starts at ``where``) and the points marked as
    hits."""
    segments: list[Segment] = []
    hits: set[int] = set()
    for match in _TOKEN.finditer(text):
        token = match.group()
        at = Where(where.line, (where.column or 1) + match.start())
        found = _PATH.match(token)
        if found is None:
            raise syntax(f"not a checker path: {token!r}", at)
        count = int(found.group(2)) if found.group(2) else 1
        if not 1 <= count <= 4:
            raise syntax(f"a path is played by 1 to 4 checkers, not {count}", at)
        stops = found.group(1).split("/")
        points = [_square(stop.rstrip("*"), at) for stop in stops]
        for stop, point in zip(stops, points, strict=True):
            if stop.endswith("*"):
                hits.add(point)
        if points[0] == 0 or 25 in points[1:]:
            raise syntax(f"a path starts on the board or the bar and ends on it or off: "
                         f"{token!r}", at)
        for _ in range(count):
            segments.extend(itertools.pairwise(points))
        if len(segments) > 8:
            raise syntax("more checker moves than four dice can make", at)
    return tuple(segments), frozenset(hits)


def _square(text: str, where: Where) -> int:
    lower = text.lower()
    if lower == "bar":
        return 25
    if lower == "off":
        return 0
    value = int(lower)
    if value > 25:
        raise syntax(f"no point {value}", where)
    return value


def _comment(stripped: str, where: Where, tags: dict[str, str],
             comments: list[tuple[Where, str]]) -> None:
    body = stripped[1:]
    if body.startswith(" "):
        body = body[1:]
    body = body.rstrip()
    tag = _TAG.match(body.strip())
    if tag is not None:
        tags.setdefault(" ".join(tag.group(1).split()), tag.group(2))
    else:
        comments.append((where, body))


def _on_off(tags: dict[str, str], name: str, default: bool | None) -> bool | None:
    value = tags.get(name)
    if value is None:
        return default
    lower = value.strip().lower()
    if lower in ("on", "yes", "true", "1"):
        return True
    if lower in ("off", "no", "false", "0"):
        return False
    return default


def _cube_limit(tags: dict[str, str]) -> int | None:
    value = tags.get("CubeLimit", "").strip()
    return int(value) if value.isdigit() and len(value) < 7 else None


def _name(text: str, seat: int) -> str:
    """A player's name from a score line, as our export writes names (a GamesGrid rating after a
    comma goes)."""
    return clean_name(text.split(",", maxsplit=1)[0], f"Player {seat + 1}")


def _checked(line: str, index: int) -> str:
    if len(line) > MAX_LINE:
        raise syntax(f"a line of {len(line)} characters (at most {MAX_LINE})", Where(index + 1))
    return line


def _shown(text: str) -> str:
    text = text.strip()
    return repr(text if len(text) <= 40 else text[:40] + "...")
