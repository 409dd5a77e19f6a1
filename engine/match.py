"""A match across games: single game, match to N points (Crawford rule) or money session.

A :class:`Match` is an immutable value holding the score, the current (or last) :class:`Game`
and how the match ended. Game actions go through the match (``match.roll(seat, 3, 1)`` …),
which applies a finished game's result to the score and ends the match when it is decided.
Between games nothing happens until :meth:`Match.start_game` (or, in a money session,
:meth:`Match.stop`).

* **Single game**: one cubeless game; the match ends with it.
* **Match to N** (1…25): the cube is in play except in the Crawford game — the first game after
  a player reaches N−1 (so never in a 1-point match); gammons always count. The real points are
  recorded, so the winner's score may pass N.
* **Money session**: cube, optional Jacoby rule and beavers; games go on until a player stops
  the session between games (:meth:`Match.stop`).

The games are backgammon unless the options name other :class:`~engine.rules.Rules`
(``MatchOptions.variant``, from :func:`engine.variants.rules`): each game plays the variant of
its number in the rotation (one variant, or Tavli's portes, plakoto, fevga in turn). A variant
without the cube has no money session and no Crawford game, and each game scores its result's
multiplier (1 or 2 in the Greek games); a drawn game (plakoto) scores nothing and the match
goes on (a single game ends drawn, without a winner). In a variant whose opening is ``reroll``
(the Greek games) the winner of a game opens the next one without a roll-off (after a draw, a
roll-off decides again) — the Tavli match of :mod:`engine.variants.tavli`.

Forfeits: in match play the forfeiter loses the match (the winner's score is brought up to N,
or more if the forfeited game is worth more). In a single game or money session the forfeiter
loses the game at the worst result still possible (:func:`engine.results.worst_possible`) and the
session ends; between money games a forfeit just ends the session.

>>> m, _ = Match.new(MatchOptions.match(3)).start_game()
>>> m, _ = m.roll_off(6, 1)
>>> m.game.expected().seat, m.score, m.is_crawford
(0, (0, 0), False)
>>> m, events = m.forfeit(1, "abandoned")
>>> m.is_over, m.winner, m.score, events[-1].reason.value
(True, 0, (3, 0), 'forfeit')
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from engine.errors import ErrorCode, MatchError
from engine.events import EndOfMatch, Event, GameEvent, GameScored, GameStarted, MatchOver
from engine.frozen import evolve
from engine.game import Expected, Game, GameOptions
from engine.reference import Move
from engine.results import EndReason, ForfeitReason, Result, ResultKind
from engine.rules import STANDARD, Opening, Rules

MAX_MATCH_LENGTH = 25

MatchStep = tuple["Match", tuple[Event, ...]]
"""What a match transition returns: the new match and the events, in order."""


def cube_in_play(mode: Mode, crawford: bool) -> bool:
    """Whether the cube is in play in a game: not in a single game, nor in the Crawford game.
    In a match to 1 it is (no game there is the Crawford game); a dead cube is still in play.
    The one rule for when the cube may be turned, with :meth:`engine.cube.Cube.may_double`
    (clients' trackers and the hint use both; the browser's copy, ``matchRules.ts``, is held to
    them by ``web-client/test/fixtures/match-rules.json``).

    >>> cube_in_play(Mode.MATCH, False), cube_in_play(Mode.MATCH, True)
    (True, False)
    >>> cube_in_play(Mode.SINGLE_GAME, False), cube_in_play(Mode.MONEY, False)
    (False, True)
    """
    return mode is not Mode.SINGLE_GAME and not crawford


def cube_is_dead(mode: Mode, length: int, score: tuple[int, int], value: int, seat: int) -> bool:
    """Whether a double gains ``seat`` nothing: in match play, the cube's value already gives
    it the points it needs (a match to 1, a leader after the Crawford game). Doubling is legal
    (:func:`cube_in_play`) but can only help the opponent, who takes and then wins the match
    with any win (the hint says so).

    >>> cube_is_dead(Mode.MATCH, 1, (0, 0), 1, 0), cube_is_dead(Mode.MATCH, 5, (4, 2), 1, 1)
    (True, False)
    >>> cube_is_dead(Mode.MONEY, 0, (0, 0), 64, 0)
    False
    """
    return mode is Mode.MATCH and score[seat] + value >= length


def match_score(mode: Mode, length: int, score: tuple[int, int]) -> tuple[int, int]:
    """The score as a match shows it: in match play nobody beyond the length (a win worth more
    than the winner needed reaches N; the game's real points stay in its record and result).

    >>> match_score(Mode.MATCH, 1, (4, 0)), match_score(Mode.MATCH, 5, (26, 0))
    ((1, 0), (5, 0))
    >>> match_score(Mode.MONEY, 0, (26, 3))
    (26, 3)
    """
    if mode is not Mode.MATCH:
        return score
    return (min(score[0], length), min(score[1], length))


class Mode(enum.StrEnum):
    """How a match is scored."""

    SINGLE_GAME = "single_game"
    MATCH = "match"
    MONEY = "money"


@dataclass(frozen=True, slots=True)
class MatchOptions:
    """Mode, match length (match play only), the money options (Jacoby rule, beavers) and the
    rules the games play (``variant``, stored by name: backgammon unless given).

    >>> MatchOptions.match(26)
    Traceback (most recent call last):
    ...
    engine.errors.MatchError: bad_options: match length must be 1..25, got 26
    >>> from engine.variants import rules
    >>> MatchOptions.money(variant=rules("portes"))
    Traceback (most recent call last):
    ...
    engine.errors.MatchError: bad_options: portes has no cube: no money play
    """

    mode: Mode
    length: int = 0
    jacoby: bool = False
    beavers: bool = False
    variant: Rules = STANDARD

    def __post_init__(self) -> None:
        try:
            object.__setattr__(self, "mode", Mode(self.mode))
        except ValueError:
            raise MatchError(ErrorCode.BAD_OPTIONS, f"no mode {self.mode!r}") from None
        if self.mode is Mode.MATCH:
            if type(self.length) is not int or not 1 <= self.length <= MAX_MATCH_LENGTH:
                raise MatchError(
                    ErrorCode.BAD_OPTIONS,
                    f"match length must be 1..{MAX_MATCH_LENGTH}, got {self.length!r}",
                )
        elif self.length != 0:
            raise MatchError(ErrorCode.BAD_OPTIONS, "only match play has a length")
        if self.mode is not Mode.MONEY and (self.jacoby or self.beavers):
            raise MatchError(ErrorCode.BAD_OPTIONS, "Jacoby and beavers are money options")
        if not isinstance(self.variant, Rules):
            raise MatchError(ErrorCode.BAD_OPTIONS, f"no rules {self.variant!r}")
        if self.mode is Mode.MONEY and not self.variant.cube:
            raise MatchError(
                ErrorCode.BAD_OPTIONS, f"{self.variant.name} has no cube: no money play"
            )

    @classmethod
    def single_game(cls, variant: Rules = STANDARD) -> MatchOptions:
        return cls(Mode.SINGLE_GAME, variant=variant)

    @classmethod
    def match(cls, length: int, variant: Rules = STANDARD) -> MatchOptions:
        return cls(Mode.MATCH, length, variant=variant)

    @classmethod
    def money(
        cls, *, jacoby: bool = False, beavers: bool = False, variant: Rules = STANDARD
    ) -> MatchOptions:
        return cls(Mode.MONEY, jacoby=jacoby, beavers=beavers, variant=variant)


@dataclass(frozen=True, slots=True)
class Match:
    """The state of a match or money session.

    ``game`` is the game in progress, or the last one played (``None`` before the first);
    ``game_number`` counts games started; ``crawford_game`` is the number of the Crawford game
    once it has started. ``end``, ``winner`` and ``ended_by`` tell how the match ended.
    """

    options: MatchOptions
    score: tuple[int, int] = (0, 0)
    game: Game | None = None
    game_number: int = 0
    crawford_game: int | None = None
    end: EndOfMatch | None = None
    winner: int | None = None
    ended_by: int | None = None

    @classmethod
    def new(cls, options: MatchOptions) -> Match:
        return cls(options)

    # ----------------------------------------------------------------- queries

    @property
    def is_over(self) -> bool:
        return self.end is not None

    @property
    def in_game(self) -> bool:
        """True while a game is being played."""
        return self.game is not None and not self.game.is_over

    @property
    def is_crawford(self) -> bool:
        """True when the current (or last) game is the Crawford game."""
        return self.game is not None and self.crawford_game == self.game_number

    @property
    def is_post_crawford(self) -> bool:
        """True once the Crawford game has been completed: later games use the cube again."""
        if self.crawford_game is None:
            return False
        return self.game_number > self.crawford_game or not self.in_game

    def next_game_is_crawford(self) -> bool:
        """True when the next game is the Crawford game: match play, no Crawford game yet, and
        exactly one player at N−1.

        >>> Match(MatchOptions.match(5), score=(4, 2)).next_game_is_crawford()
        True
        >>> Match(MatchOptions.match(1)).next_game_is_crawford()
        False
        """
        if self.options.mode is not Mode.MATCH or self.crawford_game is not None:
            return False
        if not self.options.variant.cube:
            return False  # no cube, no Crawford rule (Tavli)
        away = self.options.length - 1
        return (self.score[0] == away) != (self.score[1] == away)

    def leader(self) -> int | None:
        """The seat with more points (None when level)."""
        if self.score[0] == self.score[1]:
            return None
        return 0 if self.score[0] > self.score[1] else 1

    def expected(self) -> Expected | None:
        """What the game in progress waits for (None between games and after the match)."""
        return self.game.expected() if self.in_game and self.game is not None else None

    # ------------------------------------------------------------- transitions

    def start_game(self) -> MatchStep:
        """Start the next game (its opening roll-off comes next).

        >>> m, events = Match.new(MatchOptions.single_game()).start_game()
        >>> events  # doctest: +NORMALIZE_WHITESPACE
        (GameStarted(number=1, score=(0, 0), crawford=False, cube=False, variant='backgammon',
                     opener=None),)
        """
        self._check_not_over()
        if self.in_game:
            raise MatchError(ErrorCode.GAME_IN_PROGRESS, "finish the current game first")
        crawford = self.next_game_is_crawford()
        number = self.game_number + 1
        variant = self.options.variant.game(number)
        cube = cube_in_play(self.options.mode, crawford) and variant.cube
        opener = self.next_opener()
        game = Game.new(
            GameOptions(cube=cube, beavers=self.options.beavers, jacoby=self.options.jacoby),
            variant,
            opener,
        )
        match = evolve(
            self,
            game=game,
            game_number=number,
            crawford_game=number if crawford else self.crawford_game,
        )
        return match, (GameStarted(number, self.score, crawford, cube, variant.name, opener),)

    def next_opener(self) -> int | None:
        """The seat that opens the next game without a roll-off: in a variant whose opening is
        ``reroll`` (the Greek games), the winner of the game before (None: a roll-off decides,
        as in the first game, after a draw, and in every backgammon-family game).

        >>> from engine.variants import rules
        >>> m, _ = Match.new(MatchOptions.match(3, rules("tavli"))).start_game()
        >>> m, _ = m.roll_off(2, 6)
        >>> m, _ = m.resign(1, 1)
        >>> m, events = m.accept_resignation(0)
        >>> m.score, m.next_opener(), m.start_game()[1][0].variant
        ((1, 0), 0, 'plakoto')
        """
        if self.game is None or self.game.result is None:
            return None
        if self.options.variant.game(self.game_number + 1).opening is not Opening.REROLL:
            return None
        return self.game.result.winner

    def roll_off(self, die0: int, die1: int) -> MatchStep:
        """The opening roll-off of the current game (see :meth:`Game.roll_off`)."""
        return self._play(lambda game: game.roll_off(die0, die1))

    def roll(self, seat: int, die1: int, die2: int) -> MatchStep:
        return self._play(lambda game: game.roll(seat, die1, die2))

    def move(self, seat: int, moves: Sequence[Move]) -> MatchStep:
        return self._play(lambda game: game.move(seat, moves))

    def double(self, seat: int) -> MatchStep:
        return self._play(lambda game: game.double(seat))

    def take(self, seat: int) -> MatchStep:
        return self._play(lambda game: game.take(seat))

    def drop(self, seat: int) -> MatchStep:
        return self._play(lambda game: game.drop(seat))

    def beaver(self, seat: int) -> MatchStep:
        return self._play(lambda game: game.beaver(seat))

    def resign(self, seat: int, level: ResultKind | int) -> MatchStep:
        return self._play(lambda game: game.resign(seat, level))

    def accept_resignation(self, seat: int) -> MatchStep:
        return self._play(lambda game: game.accept_resignation(seat))

    def reject_resignation(self, seat: int) -> MatchStep:
        return self._play(lambda game: game.reject_resignation(seat))

    def forfeit(self, seat: int, reason: ForfeitReason | str) -> MatchStep:
        """``seat`` forfeits (see the module docstring for what it costs in each mode)."""
        self._check_not_over()
        if self.in_game:
            return self._play(lambda game: game.forfeit(seat, reason))
        if self.options.mode is Mode.SINGLE_GAME:
            # The one game has not started: it is lost from the starting position.
            match, started = self.start_game()
            match, events = match.forfeit(seat, reason)
            return match, (*started, *events)
        # Between games: no game to lose, only the match (or, in money play, the session).
        _check_seat(seat)
        try:
            ForfeitReason(reason)
        except ValueError:
            detail = f"no forfeit reason {reason!r}"
            raise MatchError(ErrorCode.BAD_FORFEIT_REASON, detail) from None
        score = self.score
        if self.options.mode is Mode.MATCH:
            winner: int | None = 1 - seat
            score = _add(score, 1 - seat, max(0, self.options.length - score[1 - seat]))
        else:
            winner = self.leader()
        match = evolve(
            self, score=score, end=EndOfMatch.FORFEIT, winner=winner, ended_by=seat
        )
        return match, (MatchOver(winner, score, EndOfMatch.FORFEIT, seat),)

    def stop(self, seat: int) -> MatchStep:
        """End a money session between games (either seat may); the leader wins.

        >>> Match.new(MatchOptions.money()).stop(1)[1]
        (MatchOver(winner=None, score=(0, 0), reason=<EndOfMatch.STOPPED: 'stopped'>, by=1),)
        """
        self._check_not_over()
        if self.options.mode is not Mode.MONEY:
            raise MatchError(ErrorCode.NOT_MONEY, "only a money session can be stopped")
        if self.in_game:
            raise MatchError(ErrorCode.GAME_IN_PROGRESS, "a session stops between games")
        _check_seat(seat)
        winner = self.leader()
        match = evolve(self, end=EndOfMatch.STOPPED, winner=winner, ended_by=seat)
        return match, (MatchOver(winner, self.score, EndOfMatch.STOPPED, seat),)

    # ----------------------------------------------------------------- helpers

    def _play(self, action: Callable[[Game], tuple[Game, tuple[GameEvent, ...]]]) -> MatchStep:
        self._check_not_over()
        if not self.in_game or self.game is None:
            raise MatchError(ErrorCode.NO_GAME, "no game in progress: start the next game")
        game, events = action(self.game)
        match = evolve(self, game=game)
        if game.result is None:
            return match, events
        match, scored = match._scored(game.result)
        return match, (*events, *scored)

    def _scored(self, result: Result) -> MatchStep:
        """Apply a finished game's result to the score and decide whether the match is over."""
        mode, winner = self.options.mode, result.winner
        if winner is None:
            return self._drawn()
        forfeit = result.reason is EndReason.FORFEIT
        points = result.points
        if mode is Mode.MATCH and forfeit:
            points = max(points, self.options.length - self.score[winner])
        score = _add(self.score, winner, points)
        events: list[Event] = [GameScored(self.game_number, winner, points, score)]
        match = evolve(self, score=score)
        end: EndOfMatch | None = None
        if mode is Mode.MATCH:
            if score[winner] >= self.options.length:
                end = EndOfMatch.FORFEIT if forfeit else EndOfMatch.COMPLETED
        elif mode is Mode.SINGLE_GAME:
            end = EndOfMatch.FORFEIT if forfeit else EndOfMatch.COMPLETED
        elif forfeit:
            end = EndOfMatch.FORFEIT
        if end is not None:
            match_winner = match.leader() if mode is Mode.MONEY else winner
            by = result.loser if forfeit else None
            match = evolve(match, end=end, winner=match_winner, ended_by=by)
            events.append(MatchOver(match_winner, score, end, by))
        return match, tuple(events)

    def _drawn(self) -> MatchStep:
        """A drawn game (plakoto) scores nothing: a single game ends without a winner, a
        match goes on."""
        events: list[Event] = [GameScored(self.game_number, None, 0, self.score)]
        match = self
        if self.options.mode is Mode.SINGLE_GAME:
            match = evolve(self, end=EndOfMatch.COMPLETED, winner=None, ended_by=None)
            events.append(MatchOver(None, self.score, EndOfMatch.COMPLETED, None))
        return match, tuple(events)

    def _check_not_over(self) -> None:
        if self.end is not None:
            raise MatchError(ErrorCode.MATCH_OVER, "the match is over")


def _check_seat(seat: object) -> None:
    if type(seat) is not int or seat not in (0, 1):
        raise MatchError(ErrorCode.BAD_SEAT, f"a seat is 0 or 1, got {seat!r}")


def _add(score: tuple[int, int], seat: int, points: int) -> tuple[int, int]:
    return (score[0] + points, score[1]) if seat == 0 else (score[0], score[1] + points)
