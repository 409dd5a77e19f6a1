"""A recorded match: the games and, for each, its events in order.

A :class:`MatchRecord` is built purely from the events the match transitions return (the server
keeps them in its event log anyway), so it never has to live inside the match state:
``MatchRecord.new(options, names).add(*events)``. It is what :mod:`engine.matfile` exports.

>>> from engine.match import Match, MatchOptions
>>> options = MatchOptions.match(1)
>>> m, events = Match.new(options).start_game()
>>> record = MatchRecord.new(options, ("Ann", "Bob")).add(*events)
>>> m, events = m.roll_off(3, 1)
>>> m, more = m.resign(0, 1)
>>> m, last = m.accept_resignation(1)
>>> record = record.add(*events, *more, *last)
>>> game = record.games[0]
>>> game.number, game.result.winner, game.points, record.end.winner
(1, 1, 1, 1)
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from engine.events import Event, GameEvent, GameOver, GameScored, GameStarted, MatchOver
from engine.match import MatchOptions
from engine.results import Result


class RecordError(ValueError):
    """Events that do not form a match (a game event outside a game, a second start, ...)."""


@dataclass(frozen=True, slots=True)
class GameRecord:
    """One game: its number, the score before it, whether it was the Crawford game, its
    events in order, its result and the points it added to the winner's score, and the
    variant it was played by (and the seat that opened it without a roll-off, if any)."""

    number: int
    score: tuple[int, int]
    crawford: bool
    cube: bool
    events: tuple[GameEvent, ...] = ()
    result: Result | None = None
    points: int | None = None
    final_score: tuple[int, int] | None = None
    variant: str = "backgammon"
    opener: int | None = None

    @property
    def is_over(self) -> bool:
        return self.result is not None


@dataclass(frozen=True, slots=True)
class MatchRecord:
    """The options, the two players' names (seat order), the games and how the match ended."""

    options: MatchOptions
    names: tuple[str, str]
    games: tuple[GameRecord, ...] = ()
    end: MatchOver | None = None

    @classmethod
    def new(cls, options: MatchOptions, names: tuple[str, str]) -> MatchRecord:
        return cls(options, names)

    @classmethod
    def from_events(
        cls, options: MatchOptions, names: tuple[str, str], events: tuple[Event, ...]
    ) -> MatchRecord:
        return cls.new(options, names).add(*events)

    def add(self, *events: Event) -> MatchRecord:
        """The record with ``events`` appended (in order)."""
        record = self
        for event in events:
            record = record._add(event)
        return record

    def _add(self, event: Event) -> MatchRecord:
        if self.end is not None:
            raise RecordError(f"event after the end of the match: {event!r}")
        if isinstance(event, GameStarted):
            if self.games and not self.games[-1].is_over:
                raise RecordError("a game started before the previous one ended")
            game = GameRecord(
                event.number, event.score, event.crawford, event.cube,
                variant=event.variant, opener=event.opener,
            )  # fmt: skip
            return replace(self, games=(*self.games, game))
        if isinstance(event, MatchOver):
            return replace(self, end=event)
        if not self.games:
            raise RecordError(f"game event before any game started: {event!r}")
        current = self.games[-1]
        if isinstance(event, GameScored):
            if current.result is None or event.number != current.number:
                raise RecordError("a score for a game that has not ended")
            current = replace(current, points=event.points, final_score=event.score)
        elif current.is_over:
            raise RecordError(f"game event after the game ended: {event!r}")
        else:
            current = replace(current, events=(*current.events, event))
            if isinstance(event, GameOver):
                current = replace(current, result=event.result)
        return replace(self, games=(*self.games[:-1], current))
