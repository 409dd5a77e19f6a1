"""Export a recorded match to the Jellyfish ``.mat`` text format (GNU Backgammon and eXtreme
Gammon import it).

The layout follows what gnubg's own ``export match mat`` writes and what its ``import mat``
parser accepts:

* header comments ``; [Tag "value"]`` (gnubg reads Site, EventDate, ...; other lines become the
  match comment), a blank line, `` N point match`` (0 for a money session or single game);
* per game `` Game K``, then `` name0 : score0`` padded to 31 characters and `` name1 : score1``;
* numbered rows ``%3d) `` with seat 0's action in a 27-character left column and seat 1's
  after it: ``31: 8/5 6/5`` (dice larger first, one single-die move per step, the bar is 25,
  off is 0, a hit is marked ``*``), ``51:`` alone for a roll that could not be played (or was
  followed by a resignation), `` Doubles => 2``, `` Beavers => 4``, `` Takes``, `` Drops``;
* `` Wins N point(s)`` in the winner's column, ending in `` and the match`` when it decides a
  match.

Trailing spaces are trimmed (gnubg pads its columns; its importer reads both). Resignation
offers that were rejected are not part of the format and are left out; forfeits look like
resignations at the forfeit value, and are explained in the header comments.

>>> from engine.match import Match, MatchOptions
>>> from engine.record import MatchRecord
>>> options = MatchOptions.match(1)
>>> m, e1 = Match.new(options).start_game()
>>> m, e2 = m.roll_off(3, 1)
>>> m, e3 = m.move(0, ((8, 5), (6, 5)))
>>> m, e4 = m.resign(1, 1)
>>> m, e5 = m.accept_resignation(0)
>>> record = MatchRecord.from_events(options, ("Ann", "Bob"), e1 + e2 + e3 + e4 + e5)
>>> print(export(record))
; [Site "fairgammon"]
; [Player 1 "Ann"]
; [Player 2 "Bob"]
; [Variation "Backgammon"]
; [Crawford "On"]
; [CubeLimit "64"]
<BLANKLINE>
 1 point match
<BLANKLINE>
 Game 1
 Ann : 0                        Bob : 0
  1) 31: 8/5 6/5
      Wins 1 point and the match
<BLANKLINE>
"""

from __future__ import annotations

import datetime
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from engine.cube import MAX_CUBE
from engine.events import (
    Beavered,
    Dice,
    Doubled,
    Dropped,
    EndOfMatch,
    Forfeited,
    GameOver,
    Moved,
    Passed,
    Rolled,
    RolledOff,
    Taken,
)
from engine.match import Mode
from engine.position import Board, Position
from engine.record import GameRecord, MatchRecord
from engine.reference import Move, apply_move

_LEFT_WIDTH = 27
_NAME_WIDTH = 31
_MAX_NAME = 24
_START: Board = Position.start().mover


def export(
    record: MatchRecord,
    *,
    site: str = "fairgammon",
    date: datetime.date | None = None,
    comments: Sequence[str] = (),
) -> str:
    """The ``.mat`` text of ``record`` (``\\n`` line ends, ending with a blank line)."""
    names = (_clean_name(record.names[0], "Player 1"), _clean_name(record.names[1], "Player 2"))
    options = record.options
    lines = [
        f'; [Site "{_clean_tag(site)}"]',
        f'; [Player 1 "{_clean_tag(names[0])}"]',
        f'; [Player 2 "{_clean_tag(names[1])}"]',
    ]
    if date is not None:
        lines.append(f'; [EventDate "{date:%Y.%m.%d}"]')
    lines.append('; [Variation "Backgammon"]')
    if options.mode is Mode.MATCH:
        lines.append('; [Crawford "On"]')
    if options.mode is Mode.MONEY:
        lines.append(f'; [Jacoby "{"On" if options.jacoby else "Off"}"]')
        lines.append(f'; [Beaver "{"On" if options.beavers else "Off"}"]')
    cube_limit = 1 if options.mode is Mode.SINGLE_GAME else MAX_CUBE
    lines.append(f'; [CubeLimit "{cube_limit}"]')
    for comment in (*comments, *_automatic_comments(record, names)):
        lines.extend(f"; {line}".rstrip() for line in comment.splitlines() or [""])
    length = options.length if options.mode is Mode.MATCH else 0
    lines += ["", f" {length} point match", ""]
    for game in record.games:
        lines += _game_lines(record, game, names)
        lines.append("")
    return "\n".join(lines) + "\n"


def _automatic_comments(record: MatchRecord, names: tuple[str, str]) -> list[str]:
    """Header comments for what the format cannot say: forfeits and how the match ended."""
    out = []
    for game in record.games:
        for event in game.events:
            if isinstance(event, Forfeited):
                out.append(f"Game {game.number}: {names[event.seat]} forfeited ({event.reason})")
    end = record.end
    if end is None or end.reason is EndOfMatch.COMPLETED or end.by is None:
        return out
    last = record.games[-1] if record.games else None
    where = f"after game {last.number}" if last is not None else "before the first game"
    if end.reason is EndOfMatch.STOPPED:
        out.append(f"{names[end.by]} stopped the session {where}")
    elif last is None or not any(isinstance(e, Forfeited) for e in last.events):
        out.append(f"{names[end.by]} forfeited {where}")
    winner = "nobody" if end.winner is None else names[end.winner]
    out.append(f"Final score {end.score[0]}-{end.score[1]}, winner: {winner}")
    return out


@dataclass
class _Rows:
    """Rows of a game: ``[number or None, left cell, right cell]``."""

    rows: list[list] = field(default_factory=list)
    count: int = 0

    def cell(self, seat: int, text: str) -> None:
        if seat == 1 and self._open_right():
            self.rows[-1][2] = text
            return
        self.count += 1
        self.rows.append([self.count, text, None] if seat == 0 else [self.count, None, text])

    def wins(self, seat: int, text: str) -> None:
        if seat == 1 and self._open_right():
            self.rows[-1][2] = text
            return
        self.rows.append([None, text, None] if seat == 0 else [None, None, text])

    def _open_right(self) -> bool:
        return bool(self.rows) and self.rows[-1][0] is not None and (
            self.rows[-1][1] is not None and self.rows[-1][2] is None
        )

    def lines(self) -> list[str]:
        out = []
        for number, left, right in self.rows:
            prefix = "     " if number is None else f"{number:3d}) "
            line = prefix + (left or "").ljust(_LEFT_WIDTH) + " " + (right or "")
            out.append(line.rstrip())
        return out


def _game_lines(record: MatchRecord, game: GameRecord, names: tuple[str, str]) -> list[str]:
    left = f"{names[0]} : {game.score[0]}"
    lines = [f" Game {game.number}", " " + left.ljust(_NAME_WIDTH - 1) + " " +
             f"{names[1]} : {game.score[1]}"]
    rows = _Rows()
    boards = [_START, _START]
    pending: Rolled | None = None
    for event in game.events:
        if isinstance(event, Rolled):
            pending = event
        elif isinstance(event, RolledOff) and event.first is not None:
            pending = Rolled(event.first, event.dice)  # the opening roll is the first mover's
        elif isinstance(event, Moved):
            pending = None
            mover = Position.unchecked(boards[event.seat], boards[1 - event.seat])
            text, after = _play_text(mover, event.dice, event.moves)
            boards[event.seat], boards[1 - event.seat] = after.mover, after.opponent
            rows.cell(event.seat, text)
        elif isinstance(event, Passed):
            pending = None
            rows.cell(event.seat, _dice_text(event.dice))
        elif isinstance(event, Doubled):
            rows.cell(event.seat, f" Doubles => {event.value}")
        elif isinstance(event, Beavered):
            rows.cell(event.seat, f" Beavers => {event.value}")
        elif isinstance(event, Taken):
            # After a beaver gnubg's importer also assumes the take on the next roll and warns
            # about the duplicate; writing it keeps the file right for every reader.
            rows.cell(event.seat, " Takes")
        elif isinstance(event, Dropped):
            rows.cell(event.seat, " Drops")
        elif isinstance(event, GameOver):
            if pending is not None:
                rows.cell(pending.seat, _dice_text(pending.dice))
            result = event.result
            points = game.points if game.points is not None else result.points
            plural = "" if points == 1 else "s"
            decided = (
                record.options.mode is Mode.MATCH
                and game.final_score is not None
                and game.final_score[result.winner] >= record.options.length
            )
            rows.wins(
                result.winner,
                f" Wins {points} point{plural}" + (" and the match" if decided else ""),
            )
    return lines + rows.lines()


def _dice_text(dice: Dice) -> str:
    return f"{max(dice)}{min(dice)}: "  # the larger die first, as Jellyfish and gnubg write


def _play_text(position: Position, dice: Dice, moves: tuple[Move, ...]) -> tuple[str, Position]:
    """gnubg's plain move text (``13/8 8/5*``) and the position after the play."""
    steps = []
    for frm, to in moves:
        hit = to != 0 and position.opponent[25 - to] == 1
        steps.append(f"{frm}/{to}{'*' if hit else ''}")
        position = apply_move(position, (frm, to))
    return _dice_text(dice) + " ".join(steps), position


def _clean_name(name: str, default: str) -> str:
    """A name gnubg's importer reads back: no colon (it ends the name), no comma (it starts a
    rating), no control characters, single spaces, at most 24 characters."""
    name = re.sub(r"[\x00-\x1f\x7f:,]", " ", str(name))
    name = " ".join(name.split())[:_MAX_NAME].strip()
    return name or default


def _clean_tag(value: str) -> str:
    return re.sub(r'[\x00-\x1f\x7f"]', "'", str(value))
