"""The turns of one recorded game, with the position around each: what a move record, a replay
board and an analysis read.

``game_turns(game)`` walks a :class:`engine.record.GameRecord` (its events, in order) and returns
one :class:`Turn` per thing a player did: a play (``13/7 8/7``), a roll that could not be played,
a cube action, a resignation offer and its answer, a forfeit. Each turn carries the position
before and after it, seen by the acting seat (as the wire's ``moved`` events and ``fairgammon
legal`` print them), the dice, the cube as it was before the action, and the text of the move
record. Roll-off ties are not turns (nobody acted); the winning roll-off is the first mover's
dice.

>>> from engine.match import Match, MatchOptions
>>> from engine.record import MatchRecord
>>> m, e1 = Match.new(MatchOptions.match(3)).start_game()
>>> m, e2 = m.roll_off(3, 1)
>>> m, e3 = m.move(0, ((8, 5), (6, 5)))
>>> record = MatchRecord.from_events(MatchOptions.match(3), ("A", "B"), e1 + e2 + e3)
>>> [(t.seat, t.action.value, t.dice, t.text) for t in game_turns(record.games[0])]
[(0, 'move', (3, 1), '8/5 6/5')]
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, replace

from engine import events as ev
from engine.notation import play_text
from engine.position import Position
from engine.record import GameRecord
from engine.reference import Move, apply_move
from engine.results import ResultKind
from engine.rules import BACKGAMMON, Variant


class TurnKind(enum.StrEnum):
    """What a turn of the record was (what happened; :class:`engine.game.Action` is what a seat
    may do next)."""

    MOVE = "move"
    PASS = "pass"  # the roll could not be played
    DOUBLE = "double"
    TAKE = "take"
    BEAVER = "beaver"
    DROP = "drop"
    RESIGN = "resign"
    ACCEPT = "accept"  # accepted a resignation
    REJECT = "reject"  # rejected a resignation
    FORFEIT = "forfeit"


@dataclass(frozen=True, slots=True)
class Turn:
    """One action of the record.

    ``before``/``after`` are seen by ``seat`` (the mover is ``seat``); for anything but a play
    they are the same position. ``cube``/``owner`` are the cube before the action (``owner``
    None while centred), ``cube_after``/``owner_after`` the cube after it. ``value`` is the
    cube value offered or taken, or the resignation level. ``rolled`` is, for a resignation
    offered after its seat rolled (instead of playing the roll), the dice it had to play; None
    for one offered before rolling (``dice`` stays None: a resignation plays no dice).
    """

    seat: int
    action: TurnKind
    dice: tuple[int, int] | None
    moves: tuple[Move, ...]
    text: str
    before: Position
    after: Position
    cube: int
    owner: int | None
    value: int | None = None
    cube_after: int = 1
    owner_after: int | None = None
    rolled: tuple[int, int] | None = None


def game_turns(game: GameRecord, rules: Variant = BACKGAMMON) -> tuple[Turn, ...]:
    """The turns of ``game`` (finished or not), played by ``rules`` (the variant the record
    names, :func:`engine.variants.variant` of ``game.variant``; its positions then are that
    variant's)."""
    events = game.events
    start = rules.start()
    boards = [start.mover, start.opponent]
    pinned = [0, 0]
    cube, owner = 1, None
    out: list[Turn] = []
    roll: tuple[int, tuple[int, int]] | None = None  # the seat on roll and dice not yet played

    def seen_by(seat: int) -> Position:
        if rules is BACKGAMMON:
            return Position.unchecked(boards[seat], boards[1 - seat])
        return rules.seen(boards[seat], boards[1 - seat], pinned[seat], pinned[1 - seat])

    def add(seat: int, action: TurnKind, text: str, value: int | None = None) -> None:
        here = seen_by(seat)
        out.append(Turn(seat, action, None, (), text, here, here, cube, owner, value, cube, owner))

    for event in events:
        if isinstance(event, ev.Rolled):
            roll = (event.seat, event.dice)
        elif isinstance(event, ev.RolledOff) and event.first is not None:
            roll = (event.first, event.dice)
        elif isinstance(event, ev.Moved | ev.Passed):
            roll = None
        if isinstance(event, ev.Moved):
            before = seen_by(event.seat)
            after = before
            if rules is BACKGAMMON:
                for move in event.moves:
                    after = apply_move(after, move)
            else:  # (the moves were validated when they were played)
                after = rules.validate(before, *event.dice, event.moves).position
                mine, theirs = rules.pins(after)
                pinned[event.seat], pinned[1 - event.seat] = mine, theirs
            text = play_text(before, event.moves)
            out.append(
                Turn(event.seat, TurnKind.MOVE, event.dice, event.moves, text, before, after,
                     cube, owner, None, cube, owner)
            )
            boards[event.seat], boards[1 - event.seat] = after.mover, after.opponent
        elif isinstance(event, ev.Passed):
            here = seen_by(event.seat)
            out.append(
                Turn(event.seat, TurnKind.PASS, event.dice, (), "cannot move", here, here,
                     cube, owner, None, cube, owner)
            )
        elif isinstance(event, ev.Doubled):
            add(event.seat, TurnKind.DOUBLE, f"doubles to {event.value}", event.value)
        elif isinstance(event, ev.Beavered):
            add(event.seat, TurnKind.BEAVER, f"beavers to {event.value}", event.value)
            cube, owner = event.value, event.seat
            out[-1] = replace(out[-1], cube_after=cube, owner_after=owner)
        elif isinstance(event, ev.Taken):
            beavered = bool(out) and out[-1].action is TurnKind.BEAVER
            add(event.seat, TurnKind.TAKE, "takes", event.value)
            cube = event.value
            if not beavered:
                owner = event.seat
            out[-1] = replace(out[-1], cube_after=cube, owner_after=owner)
        elif isinstance(event, ev.Dropped):
            add(event.seat, TurnKind.DROP, "drops", event.value)
        elif isinstance(event, ev.ResignOffered):
            level = ResultKind(event.level)
            add(event.seat, TurnKind.RESIGN, f"resigns a {level.name.lower()}", int(level))
            if roll is not None and roll[0] == event.seat:
                out[-1] = replace(out[-1], rolled=roll[1])
        elif isinstance(event, ev.ResignAccepted):
            add(event.seat, TurnKind.ACCEPT, "accepts", int(event.level))
        elif isinstance(event, ev.ResignRejected):
            add(event.seat, TurnKind.REJECT, "rejects", int(event.level))
        elif isinstance(event, ev.Forfeited):
            add(event.seat, TurnKind.FORFEIT, f"forfeits ({event.reason.value})")
    return tuple(out)
