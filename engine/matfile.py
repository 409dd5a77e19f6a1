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
  followed by a resignation, or is still to be played in a game not finished),
  `` Doubles => 2``, `` Beavers => 4`` (taken and redoubled at once: no `` Takes`` follows,
  as gnubg writes it), `` Takes``, `` Drops``;
* `` Wins N point(s)`` in the winner's column — N is what the game itself was worth (result ×
  cube, as in its fair-dice transcript) — ending in `` and the match`` when that decides a match.

Trailing spaces are trimmed (gnubg pads its columns; its importer reads both). Resignation
offers that were rejected are not part of the format and are left out; forfeits look like
resignations at the forfeit value, and are explained in the header comments, as is the level
of a resignation the Jacoby rule counted as a single. What the format
cannot say goes into those comments too: a match won by forfeit (the winner's score is brought
up to the match length, more than the game was worth), a forfeit between games, a stopped
session, with the real final score; and a game forfeited before any dice were rolled, which is
written with a placeholder roll (importers attach a result to a roll). gnubg's importer ignores
the ``Jacoby`` tag (it plays by its own setting, On by default): set it as the header says.

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
from engine.notation import dice_text
from engine.position import Board, Position
from engine.record import GameRecord, MatchRecord
from engine.reference import Move, apply_move
from engine.results import EndReason

_LEFT_WIDTH = 27
_NAME_WIDTH = 31
_MAX_NAME = 24
_START: Board = Position.start().mover
# The roll written for a game that ended before any dice were rolled (not a double: gnubg
# refuses a double as an opening roll).
PLACEHOLDER_ROLL: Dice = (2, 1)


def export(
    record: MatchRecord,
    *,
    site: str = "fairgammon",
    date: datetime.date | None = None,
    comments: Sequence[str] = (),
) -> str:
    """The ``.mat`` text of ``record`` (``\\n`` line ends, ending with a blank line): a
    backgammon match (a ``ValueError`` for another variant: the format has no room for it)."""
    if record.options.variant.name != "backgammon":
        raise ValueError(f"a {record.options.variant.name} match has no .mat export")
    names = (clean_name(record.names[0], "Player 1"), clean_name(record.names[1], "Player 2"))
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
    if options.mode is not Mode.MATCH:
        # Said for a single game too: a reader's own default (gnubg's is On) would count a
        # gammon in a cubeless game as a single.
        lines.append(f'; [Jacoby "{"On" if options.jacoby else "Off"}"]')
    if options.mode is Mode.MONEY:
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
        result = game.result
        if result is not None and result.reason is EndReason.RESIGN and result.jacoby:
            # "Wins 1 point" cannot tell which level was resigned.
            out.append(f"Game {game.number}: {names[result.loser]} resigned a "
                       f"{result.kind.word} (counted as a single: the Jacoby rule)")
        if game.result is not None and not any(
            isinstance(e, Moved | Passed | Rolled | RolledOff) and _has_dice(e)
            for e in game.events
        ):
            out.append(
                f"Game {game.number} ended before any dice were rolled: its roll "
                f"{_dice_text(PLACEHOLDER_ROLL).rstrip()} is a placeholder"
            )
    end = record.end
    if end is None or end.reason is EndOfMatch.COMPLETED:
        return out
    last = record.games[-1] if record.games else None
    where = f"after game {last.number}" if last is not None else "before the first game"
    if end.reason is EndOfMatch.STOPPED:
        who = "the players" if end.by is None else names[end.by]
        out.append(f"{who} stopped the session {where}")
    elif end.by is not None and (
        last is None or not any(isinstance(e, Forfeited) for e in last.events)
    ):
        out.append(f"{names[end.by]} forfeited {where}")
    if last is not None and last.points is not None and last.result is not None:
        extra = last.points - last.result.points
        if extra > 0:
            out.append(
                f"{names[last.result.winner]} won the match by forfeit: {extra} more "
                f"point{'' if extra == 1 else 's'} than game {last.number} was worth"
            )
    winner = "nobody" if end.winner is None else names[end.winner]
    out.append(f"Final score {end.score[0]}-{end.score[1]}, winner: {winner}")
    return out


def _has_dice(event: object) -> bool:
    return not isinstance(event, RolledOff) or event.first is not None


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
    previous = None
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
            # A beaver's take is not written: gnubg writes none, and its importer reads a
            # "Takes" after "Beavers" as one more redouble and take (doubling the stakes).
            if not isinstance(previous, Beavered):
                rows.cell(event.seat, " Takes")
        elif isinstance(event, Dropped):
            rows.cell(event.seat, " Drops")
        elif isinstance(event, GameOver):
            result = event.result
            if pending is not None:
                rows.cell(pending.seat, _dice_text(pending.dice))
            elif not rows.rows:
                # Ended before any roll (a forfeit at the opening): readers attach a result to
                # a roll, so the winner gets a placeholder one (the header comments say so).
                rows.cell(result.winner, _dice_text(PLACEHOLDER_ROLL))
            # What the game itself was worth: a match forfeit's extra points (up to the match
            # length) are not a game result and are explained in the header comments instead.
            points = result.points
            plural = "" if points == 1 else "s"
            # The match is decided by this game when what the game awarded (its points, or a
            # match forfeit's larger award) reaches the length.
            awarded = game.points if game.points is not None else points
            decided = (
                record.options.mode is Mode.MATCH
                and game.score[result.winner] + awarded >= record.options.length
            )
            rows.wins(
                result.winner,
                f" Wins {points} point{plural}" + (" and the match" if decided else ""),
            )
        previous = event
    if pending is not None and game.result is None:
        rows.cell(pending.seat, _dice_text(pending.dice))  # a game still being played
    return lines + rows.lines()


def _dice_text(dice: Dice) -> str:
    return f"{dice_text(dice)}: "  # the larger die first, as Jellyfish and gnubg write


def _play_text(position: Position, dice: Dice, moves: tuple[Move, ...]) -> tuple[str, Position]:
    """gnubg's plain move text (``13/8 8/5*``) and the position after the play."""
    steps = []
    for frm, to in moves:
        hit = to != 0 and position.opponent[25 - to] == 1
        steps.append(f"{frm}/{to}{'*' if hit else ''}")
        position = apply_move(position, (frm, to))
    return _dice_text(dice) + " ".join(steps), position


def clean_name(name: str, default: str) -> str:
    """A name as written here, and as :mod:`engine.importer` reads names: one gnubg's importer
    reads back: no colon (it ends the name), no comma (it starts a rating), no control
    characters, single spaces, at most 24 characters."""
    name = re.sub(r"[\x00-\x1f\x7f:,]", " ", str(name))
    name = " ".join(name.split())[:_MAX_NAME].strip()
    return name or default


def _clean_tag(value: str) -> str:
    return re.sub(r'[\x00-\x1f\x7f"]', "'", str(value))
