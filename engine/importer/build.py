"""Replay a parsed file through the engine: every roll, play, cube action and result is applied
with the match transitions of :mod:`engine.match`, so an imported match is exactly what the
same actions would have made here, and anything the rules refuse is a typed error at its line.

How the file's actions become the engine's (docs/analysis.md, "Import"):

* the first roll of a game is the opening roll-off: the player who moves first had the higher
  die (a double is refused);
* a roll with a play: the play must be one of the legal plays (:mod:`engine.importer.plays`);
  a roll the engine cannot play passes by itself (a play written for it is refused); a roll
  with nothing after it is a resignation by the roller when the opponent's win follows, the
  only play when there is one, and an error otherwise;
* ``Beavers`` is a beaver; the doubler's next roll after it takes it (``.mat`` writes no take);
* ``Wins N points``: after a bear-off or a drop the engine's result must give the same points;
  otherwise the loser resigned, at N divided by the cube (it must be 1, 2 or 3), while on
  roll — or forfeited, when our own export says so (:mod:`engine.importer.own`).

A money session whose file does not say whether the Jacoby rule was played is read without
it, unless a game then scores differently from what the file says and the rule explains it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from engine.errors import GameError
from engine.events import Event, MatchOver
from engine.game import Game, IllegalPlayError, Phase
from engine.importer.errors import (
    Where,
    illegal,
    inconsistent,
    unsupported,
)
from engine.importer.own import OwnFacts
from engine.importer.plays import NotLegal, resolve, single_die
from engine.importer.steps import Beaver, Double, Drop, GameSteps, Parsed, Roll, Step, Take, Win
from engine.match import MAX_MATCH_LENGTH, Match, MatchOptions, Mode
from engine.position import Position
from engine.record import MatchRecord
from engine.results import EndReason, ForfeitReason, ResultKind


@dataclass(frozen=True, slots=True)
class Imported:
    """An imported match: its record (what the analysis and the replay read), the format it
    came in, the header's named fields, the file's own comment lines (those that are not our
    export's sentences) and notes on what was read but not kept."""

    record: MatchRecord
    format: str
    tags: Mapping[str, str] = field(default_factory=dict)
    comments: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


class _JacobyHint(Exception):
    """A game scored as the Jacoby rule would score it, in a file that does not say the rule."""


def build(parsed: Parsed) -> Imported:
    """The match ``parsed`` describes, replayed through the engine."""
    own = OwnFacts.read([text for _, text in parsed.comments])
    comments = tuple(text for (_, text), known in zip(parsed.comments, own.understood,
                                                       strict=True) if not known)
    notes = list(parsed.notes)
    guesses = [parsed.jacoby] if parsed.jacoby is not None else [False, True]
    for jacoby in guesses:
        options = _options(parsed, bool(jacoby))
        money = options.mode is Mode.MONEY
        try:
            record = _Builder(parsed, options, own,
                              guessing=parsed.jacoby is None and money and not jacoby).run()
        except _JacobyHint:
            continue
        if parsed.jacoby is None and money:
            notes.append("the file does not say whether the Jacoby rule was played: read as "
                         + ("played (a game scored so)" if jacoby else "not played"))
        return Imported(record, parsed.format, dict(parsed.tags), comments, tuple(notes))
    raise AssertionError("unreachable: the last guess never hints")


def _options(parsed: Parsed, jacoby: bool) -> MatchOptions:
    where = parsed.where_length
    if parsed.length > 0:
        if parsed.length > MAX_MATCH_LENGTH:
            raise unsupported(f"a {parsed.length}-point match (at most {MAX_MATCH_LENGTH} here)",
                              where)
        if not parsed.crawford_rule:
            raise unsupported("a match without the Crawford rule", where)
        return MatchOptions.match(parsed.length)
    if parsed.cube_limit == 1:
        if len(parsed.games) > 1:
            raise unsupported("a cubeless money session of several games (a single cubeless "
                              "game is played here)", where)
        return MatchOptions.single_game()
    beavers = parsed.beavers if parsed.beavers is not None else _beaver_seen(parsed)
    return MatchOptions.money(jacoby=jacoby, beavers=beavers)


def _beaver_seen(parsed: Parsed) -> bool:
    for game in parsed.games:
        steps = game.steps
        for i, step in enumerate(steps):
            if isinstance(step, Beaver):
                return True
            # SGF writes a beaver as a double by the doubled player.
            if (isinstance(step, Double) and i + 1 < len(steps)
                    and isinstance(steps[i + 1], Double) and steps[i + 1].seat != step.seat):
                return True
    return False


class _Builder:
    def __init__(self, parsed: Parsed, options: MatchOptions, own: OwnFacts,
                 guessing: bool) -> None:
        self.parsed = parsed
        self.options = options
        self.own = own if parsed.format == "mat" else OwnFacts()
        self.guessing = guessing
        self.names = parsed.names
        self.match = Match.new(options)
        self.events: list[Event] = []

    def run(self) -> MatchRecord:
        games = self.parsed.games
        for index, game in enumerate(games):
            self.game(game, first=index == 0, last=index == len(games) - 1)
        self.end()
        return MatchRecord.from_events(self.options, self.names, tuple(self.events))

    # ------------------------------------------------------------------ games

    def game(self, game: GameSteps, first: bool, last: bool) -> None:
        m = self.match
        if m.is_over:
            raise inconsistent(f"game {game.number} after the end of the match", game.where)
        if first and game.number != 1:
            self._start_part_way(game)
        elif game.number != m.game_number + 1:
            raise inconsistent(f"game {game.number} follows game {m.game_number}", game.where)
        if game.score is not None and game.score != self.match.score:
            raise inconsistent(f"the score before game {game.number} is written "
                               f"{game.score[0]}-{game.score[1]}, the games before give "
                               f"{self.match.score[0]}-{self.match.score[1]}", game.where)
        self._do(game.where, f"game {game.number} cannot start", "start_game")
        if game.crawford is not None and game.crawford != self.match.is_crawford:
            raise inconsistent(f"game {game.number} is {'' if game.crawford else 'not '}the "
                               "Crawford game in the file, but is "
                               f"{'' if self.match.is_crawford else 'not '}by the rule",
                               game.where)
        steps = game.steps
        start = 0
        if game.number in self.own.placeholders and len(steps) >= 2 and isinstance(
                steps[0], Roll) and not steps[0].segments and isinstance(steps[1], Win):
            start = 1  # our export's placeholder roll of a game forfeited before any roll
        for i in range(start, len(steps)):
            nxt = steps[i + 1] if i + 1 < len(steps) else None
            self.step(steps[i], nxt, game.number)
        if not last and not self.match.game.is_over:
            raise inconsistent(f"game {game.number} has no result, and another game follows",
                               game.where)

    def _start_part_way(self, game: GameSteps) -> None:
        """A file that starts in the middle of a match: the engine starts at its score."""
        score = game.score or (0, 0)
        if self.options.mode is Mode.MATCH:
            if max(score) >= self.options.length:
                raise inconsistent(f"the score {score[0]}-{score[1]} already ends a "
                                   f"{self.options.length}-point match", game.where)
        elif self.options.mode is Mode.SINGLE_GAME:
            raise inconsistent("a single game that does not start at 0-0 as game 1", game.where)
        m = replace(self.match, score=score, game_number=game.number - 1)
        if game.crawford is False and m.next_game_is_crawford():
            m = replace(m, crawford_game=game.number - 1)  # the Crawford game was before
        self.match = m

    def step(self, step: Step, nxt: Step | None, number: int) -> None:
        if isinstance(step, Roll):
            self.roll(step, nxt)
        elif isinstance(step, Double):
            self.double(step)
        elif isinstance(step, Beaver):
            self.beaver(step)
        elif isinstance(step, Take):
            self._do(step.where, f"{self._name(step.seat)} cannot take", "take", step.seat)
        elif isinstance(step, Drop):
            self._do(step.where, f"{self._name(step.seat)} cannot drop", "drop", step.seat)
        else:
            self.win(step, number)

    # ------------------------------------------------------------------ actions

    def roll(self, step: Roll, nxt: Step | None) -> None:
        who = self._name(step.seat)
        game = self._game(step.where)
        roll = f"{step.dice[0]}{step.dice[1]}"
        if game.phase is Phase.ROLLOFF:
            hi, lo = max(step.dice), min(step.dice)
            if hi == lo:
                raise illegal(f"the opening roll {roll} is a double (the player with the higher "
                              "die moves first, with both dice)", step.where)
            dice = (hi, lo) if step.seat == 0 else (lo, hi)
            self._do(step.where, "the opening roll", "roll_off", *dice)
        else:
            if game.phase is Phase.TAKE and game.cube.beaver and game.to_act == step.seat:
                self._do(step.where, f"{who} cannot take the beaver", "take", step.seat)
                game = self._game(step.where)
            if game.phase is not Phase.DECIDE or game.on_roll != step.seat:
                raise illegal(f"{who} rolls {roll}, but {self._expected()}", step.where)
            self._do(step.where, f"{who} cannot roll", "roll", step.seat, *step.dice)
        game = self._game(step.where)
        if game.phase is not Phase.MOVE:  # nothing could be played: the turn passed
            if step.segments:
                raise illegal(f"{who} cannot play {roll} at all, but the file plays "
                              f"{step.text!r}", step.where)
            return
        if step.segments:
            self.play(step, game.position())
            return
        plays = game.legal_plays()
        if isinstance(nxt, Win) and nxt.seat != step.seat:
            return  # the roller resigned (or forfeited) with the dice on the board
        if len(plays) == 1:
            self._do(step.where, f"{who}'s play", "move", step.seat, plays[0].moves)
            return
        if nxt is None:
            return  # the file ends with the roll (an unfinished game)
        raise illegal(f"{who} rolled {roll} and played nothing, but {len(plays)} plays are "
                      "legal", step.where)

    def play(self, step: Roll, position: Position) -> None:
        """The written play, as the engine checks it: first as written (single-die moves in a
        legal order, the common case), else as the legal play it describes."""
        literal = None
        if all(single_die(frm, to) for frm, to in step.segments):
            try:
                self.match, events = self.match.move(step.seat, step.segments)
            except IllegalPlayError as exc:
                literal = exc.illegal
            else:
                self.events.extend(events)
                return
        try:
            play = resolve(position, step.dice, step.segments, step.hits, literal=literal)
        except NotLegal as exc:
            raise illegal(f"{self._name(step.seat)}'s {step.dice[0]}{step.dice[1]} "
                          f"{step.text!r}: {exc}", step.where) from None
        self._do(step.where, f"{self._name(step.seat)}'s play", "move", step.seat, play.moves)

    def double(self, step: Double) -> None:
        game = self._game(step.where)
        if game.phase is Phase.TAKE and game.to_act == step.seat:
            self.beaver(Beaver(step.where, step.seat, step.value))  # SGF: a double back
            return
        self._do(step.where, f"{self._name(step.seat)} cannot double", "double", step.seat)
        self._cube_is(step.value, step.where)

    def beaver(self, step: Beaver) -> None:
        self._do(step.where, f"{self._name(step.seat)} cannot beaver", "beaver", step.seat)
        self._cube_is(step.value, step.where)

    def win(self, step: Win, number: int) -> None:
        game = self._game(step.where)
        who = self._name(step.seat)
        if game.is_over:
            result = game.result
            assert result is not None
            if result.winner != step.seat:
                raise inconsistent(f"{who} wins, but the game was won by "
                                   f"{self._name(result.winner)}", step.where)
            if step.resigned and result.reason is not EndReason.RESIGN:
                raise inconsistent("the result says the loser resigned, but the game ended on "
                                   "the board", step.where)
            self._points(step, result.points, step.where)
            return
        loser = 1 - step.seat
        reason = self.own.forfeits.get(number)
        if reason is not None:
            try:
                why = ForfeitReason(reason)
            except ValueError:
                raise inconsistent(f"no forfeit reason {reason!r}", step.where) from None
            self._do(step.where, "the forfeit", "forfeit", loser, why)
        else:
            if step.resigned is False:
                raise inconsistent(f"{who} wins {step.points}, but the game is not over on the "
                                   "board and nobody resigned", step.where)
            cube = game.cube.value
            level = step.points // cube
            if step.points % cube or not 1 <= level <= 3:
                raise inconsistent(f"{step.points} points with the cube at {cube} is no single, "
                                   "gammon or backgammon", step.where)
            kind = ResultKind(level)
            written = self.own.jacoby_levels.get(number)
            if written is not None and kind is ResultKind.SINGLE:
                kind = ResultKind.of_word(written)
            if game.to_act != loser or game.phase not in (Phase.DECIDE, Phase.MOVE):
                raise unsupported(f"{self._name(loser)} resigns while {self._expected()} "
                                  "(a resignation here is made on one's own turn)", step.where)
            self._do(step.where, f"{self._name(loser)} cannot resign a {kind.word}", "resign",
                     loser, kind)
            self._do(step.where, "the resignation", "accept_resignation", step.seat)
        result = self._game(step.where).result
        assert result is not None
        self._points(step, result.points, step.where)

    def end(self) -> None:
        own = self.own
        m = self.match
        if own.stopped_by is not None and not m.is_over:
            seat = self._seat_named(own.stopped_by, allow_both=True)
            self._do(None, "the session cannot stop", "stop", 0 if seat is None else seat)
            if seat is None:  # both players ended it
                over = self.events[-1]
                assert isinstance(over, MatchOver)
                self.events[-1] = replace(over, by=None)
                self.match = replace(self.match, ended_by=None)
        elif own.forfeited_by is not None and not m.is_over:
            seat = self._seat_named(own.forfeited_by, allow_both=False)
            assert seat is not None
            self._do(None, "the forfeit", "forfeit", seat, ForfeitReason.ABANDONED)
        if own.final is not None:
            score, winner = own.final
            m = self.match
            theirs = "nobody" if m.winner is None else self.names[m.winner]
            if score != m.score or winner != theirs or not m.is_over:
                where = self.parsed.comments[own.final_index][0] if own.final_index is not None \
                    else None
                raise inconsistent(f"the final score is written {score[0]}-{score[1]} won by "
                                   f"{winner}; the games give {m.score[0]}-{m.score[1]}, "
                                   f"{theirs if m.is_over else 'not over'}", where)

    # ------------------------------------------------------------------ helpers

    def _do(self, where: Where | None, what: str, name: str, *args: object) -> None:
        try:
            self.match, events = getattr(self.match, name)(*args)
        except GameError as exc:
            raise illegal(f"{what}: {exc.detail or exc.code.value}", where) from None
        self.events.extend(events)

    def _game(self, where: Where) -> Game:
        game = self.match.game
        if game is None:
            raise inconsistent("an action outside a game", where)
        return game

    def _cube_is(self, value: int | None, where: Where) -> None:
        game = self.match.game
        assert game is not None
        if value is not None and value != game.cube.offered_value:
            raise inconsistent(f"the cube is offered at {game.cube.offered_value}, not {value}",
                               where)

    def _points(self, step: Win, points: int, where: Where) -> None:
        if points == step.points:
            return
        result = self._game(where).result
        assert result is not None
        if (self.guessing and result.reason in (EndReason.BEAR_OFF, EndReason.RESIGN)
                and result.cube == 1 and result.kind > ResultKind.SINGLE and step.points == 1):
            raise _JacobyHint
        raise inconsistent(f"{self._name(step.seat)} wins {step.points} point(s) in the file, "
                           f"but the game is worth {points} ({result.kind.word}, cube "
                           f"{result.cube})", where)

    def _expected(self) -> str:
        game = self.match.game
        if game is None or game.is_over:
            return "the game is over"
        if game.to_act is None:
            return "the opening roll comes first"
        return f"{self._name(game.to_act)} is to {game.phase.value}"

    def _name(self, seat: int) -> str:
        return self.names[seat]

    def _seat_named(self, name: str, allow_both: bool) -> int | None:
        if allow_both and name == "the players":
            return None
        if name == self.names[0]:
            return 0
        if name == self.names[1]:
            return 1
        raise inconsistent(f"{name!r} is neither player", None)
