"""One game of backgammon (or of a variant) as a pure state machine over seats 0 and 1.

A :class:`Game` is an immutable value. Every transition takes the acting seat (and its
arguments, dice included: nothing here is random) and returns ``(new_game, events)``, or raises
:class:`~engine.errors.GameError` with a stable ``code``. The phases:

* ``rolloff`` — the opening roll-off: one die per seat, ties repeat; the higher die moves first
  and plays both numbers (a variant whose opening is ``reroll``, every Tavli game: the higher
  die's seat then rolls both dice for its first play, from ``decide``). A game may also begin
  with a given seat on roll and no roll-off (``opener``: a Tavli game after a won one).
* ``decide`` — the seat on roll doubles (when the cube allows) or rolls; a roll with no legal
  play passes the turn automatically (event :class:`~engine.events.Passed`).
* ``move`` — the seat on roll plays its dice (checked by :func:`engine.validate.validate_play`).
* ``take`` — a double (or beaver) awaits take or drop (or beaver) from the other seat.
* ``resign`` — a resignation awaits accept or reject from the other seat.
* ``over`` — the game has a :class:`~engine.results.Result`.

These are the names the protocol gives the same decisions (``Clock.phase``, the snapshot's
``game.phase``).

The rules come from the game's :class:`~engine.rules.Variant` (``variant``, backgammon unless
given): the start, the legal plays, the validation, how a play ends the game (a plakoto game
may be won by the mother checker, or drawn: a result without winner), whether the cube is in
play and the opening. ``boards`` are each seat's 26 counts from its own side whatever the
variant, ``pinned`` each seat's pinned checkers (plakoto) as a bitmask of its own points.

Resignations are offered by the seat that owes the current decision (``decide`` or ``move``), at
most at the worst result still possible for them (:func:`engine.results.worst_possible`); after a
rejection the same seat may only offer a higher level until play moves on. A forfeit ends the
game in any phase at that worst possible result, times the cube.

>>> game, events = Game.new().roll_off(3, 1)
>>> events
(RolledOff(dice=(3, 1), first=0),)
>>> expected = game.expected()
>>> expected.seat, expected.phase.value, sorted(a.value for a in expected.actions)
(0, 'move', ['move', 'resign'])
>>> game, events = game.move(0, ((8, 5), (6, 5)))
>>> game.phase, game.on_roll, game.turns
(<Phase.DECIDE: 'decide'>, 1, 1)
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from engine.cube import CENTRED, Cube
from engine.errors import CubeError, ErrorCode, GameError
from engine.events import (
    Beavered,
    Dice,
    Doubled,
    Dropped,
    Forfeited,
    GameEvent,
    GameOver,
    Moved,
    Passed,
    ResignAccepted,
    ResignOffered,
    ResignRejected,
    Rolled,
    RolledOff,
    Taken,
)
from engine.frozen import evolve
from engine.movegen import Play
from engine.position import Board, Position
from engine.reference import Move
from engine.results import (
    EndReason,
    ForfeitReason,
    Result,
    ResultKind,
    jacoby_applies,
)
from engine.rules import BACKGAMMON, Ending, Finish, Opening, Side, Variant
from engine.validate import IllegalPlay, Reason

Step = tuple["Game", tuple[GameEvent, ...]]
"""What a transition returns: the new game and the events, in order."""
_RESULT_KINDS = tuple(ResultKind)

_START: Board = Position.start().mover


class Phase(enum.StrEnum):
    """Which decision the game waits for, named as the protocol names it (``Clock.phase``).

    A game stored before these names (a snapshot in Redis, a log replayed to it) holds the old
    values ``roll_off``, ``roll`` and ``resignation``: they load as the member they were renamed
    to, and nothing else does.

    >>> Phase("decide"), Phase("roll")
    (<Phase.DECIDE: 'decide'>, <Phase.DECIDE: 'decide'>)
    >>> Phase("doubling")
    Traceback (most recent call last):
    ...
    ValueError: 'doubling' is not a valid Phase
    """

    ROLLOFF = "rolloff"
    DECIDE = "decide"
    MOVE = "move"
    TAKE = "take"
    RESIGN = "resign"
    OVER = "over"

    @classmethod
    def _missing_(cls, value: object) -> Phase | None:
        return _STORED_BEFORE.get(value) if isinstance(value, str) else None


_STORED_BEFORE: dict[str, Phase] = {
    "roll_off": Phase.ROLLOFF,
    "roll": Phase.DECIDE,
    "resignation": Phase.RESIGN,
}
"""The values of :class:`Phase` stored before it took the protocol's names (still loaded)."""


class Action(enum.StrEnum):
    """Things a seat may do (forfeiting, always possible until the game ends, is not listed)."""

    ROLL_OFF = "roll_off"
    ROLL = "roll"
    DOUBLE = "double"
    MOVE = "move"
    TAKE = "take"
    DROP = "drop"
    BEAVER = "beaver"
    RESIGN = "resign"
    ACCEPT = "accept"
    REJECT = "reject"


@dataclass(frozen=True, slots=True)
class Expected:
    """Who must act now (``None`` during the roll-off, which needs both seats' dice, and once the
    game is over), in which phase, and what they may do."""

    seat: int | None
    phase: Phase
    actions: frozenset[Action]


@dataclass(frozen=True, slots=True)
class GameOptions:
    """Rules of one game: cube in play (not in a cubeless game or the Crawford game), beavers and
    the Jacoby rule (money options)."""

    cube: bool = True
    beavers: bool = False
    jacoby: bool = False


@dataclass(frozen=True, slots=True)
class Resignation:
    """A pending resignation offer by ``seat`` at ``level``; ``resumes`` is the phase play
    returns to if it is rejected."""

    seat: int
    level: ResultKind
    resumes: Phase


class IllegalPlayError(GameError):
    """A refused checker play (code ``illegal_play``); ``illegal`` says where and why."""

    def __init__(self, illegal: IllegalPlay) -> None:
        super().__init__(ErrorCode.ILLEGAL_PLAY, str(illegal))
        self.illegal = illegal


@dataclass(frozen=True, slots=True)
class Game:
    """The state of one game.

    ``boards[s]`` is seat ``s``'s board counted from its own side, so the position of the seat
    on roll is ``Position(boards[s], boards[1 - s])``. ``on_roll`` is the seat whose turn it is
    (``None`` before the roll-off ends); ``dice`` are its dice once rolled. ``declined`` is the
    highest resignation level the opponent has rejected from the seat on roll during the current
    decision. ``turns`` counts completed turns (plays and passes). ``variant`` is the rules
    played (stored by name); ``pinned[s]`` seat ``s``'s pinned checkers (plakoto), a bitmask
    of its own points.
    """

    options: GameOptions = GameOptions()
    boards: tuple[Board, Board] = (_START, _START)
    phase: Phase = Phase.ROLLOFF
    on_roll: int | None = None
    dice: Dice | None = None
    cube: Cube = CENTRED
    resignation: Resignation | None = None
    declined: ResultKind | None = None
    result: Result | None = None
    turns: int = 0
    variant: Variant = BACKGAMMON
    pinned: tuple[int, int] = (0, 0)

    @classmethod
    def new(
        cls,
        options: GameOptions | None = None,
        variant: Variant = BACKGAMMON,
        opener: int | None = None,
    ) -> Game:
        """A game of ``variant`` at its starting position, waiting for the opening roll-off,
        or (``opener``, a variant whose opening is ``reroll`` only) with that seat to roll.

        >>> from engine.variants import variant
        >>> g = Game.new(variant=variant("plakoto"), opener=1)
        >>> g.phase.value, g.on_roll, g.boards[0][24], g.can_double(1)
        ('decide', 1, 15, False)
        """
        start = variant.start()
        game = cls(
            options=options or GameOptions(),
            boards=(start.mover, start.opponent),
            variant=variant,
        )
        if opener is None:
            return game
        _check_seat(opener)
        if variant.opening is not Opening.REROLL:
            raise GameError(ErrorCode.WRONG_PHASE, f"a {variant.name} game opens with a roll-off")
        return evolve(game, phase=Phase.DECIDE, on_roll=opener)

    @classmethod
    def from_position(
        cls,
        position: Position,
        on_roll: int,
        options: GameOptions | None = None,
        cube: Cube | None = None,
        variant: Variant = BACKGAMMON,
    ) -> Game:
        """A game where ``on_roll`` is about to roll (or double) in ``position`` (seen by them,
        a position of ``variant``).

        >>> g = Game.from_position(Position.from_points({2: 1}, {24: 1}), on_roll=1)
        >>> g.position().mover[2], g.boards[0][24]
        (1, 1)
        """
        _check_seat(on_roll)
        variant.check(position)  # validates
        boards = (position.mover, position.opponent)
        pinned = variant.pins(position)
        if on_roll == 1:
            boards = boards[::-1]
            pinned = pinned[::-1]
        return cls(
            options=options or GameOptions(),
            boards=boards,
            phase=Phase.DECIDE,
            on_roll=on_roll,
            cube=cube or CENTRED,
            variant=variant,
            pinned=(pinned[0], pinned[1]),
        )

    # ----------------------------------------------------------------- queries

    @property
    def is_over(self) -> bool:
        return self.phase is Phase.OVER

    @property
    def to_act(self) -> int | None:
        """The seat whose decision the game waits for (None: roll-off or game over)."""
        if self.phase in (Phase.DECIDE, Phase.MOVE):
            return self.on_roll
        if self.phase is Phase.TAKE:
            assert self.cube.offered_by is not None
            return 1 - self.cube.offered_by
        if self.phase is Phase.RESIGN:
            assert self.resignation is not None
            return 1 - self.resignation.seat
        return None

    def position(self, seat: int | None = None) -> Position:
        """The position seen by ``seat`` (default: the seat on roll, or seat 0 before the
        roll-off)."""
        if seat is None:
            seat = 0 if self.on_roll is None else self.on_roll
        _check_seat(seat)
        if self.variant is BACKGAMMON:
            return Position.unchecked(self.boards[seat], self.boards[1 - seat])
        pinned = self.pinned
        return self.variant.seen(
            self.boards[seat], self.boards[1 - seat], pinned[seat], pinned[1 - seat]
        )

    def legal_plays(self) -> tuple[Play, ...]:
        """The legal plays of the dice now to be played (empty unless in the ``move`` phase)."""
        if self.phase is not Phase.MOVE or self.dice is None:
            return ()
        return self.variant.legal_plays(self.position(), *self.dice)

    def can_double(self, seat: int) -> bool:
        """True when ``seat`` may offer a double right now."""
        return (
            self.phase is Phase.DECIDE
            and seat == self.on_roll
            and self.options.cube
            and self.variant.cube
            and self.cube.may_double(seat)
        )

    def can_beaver(self, seat: int) -> bool:
        """True when ``seat`` may beaver the pending double right now."""
        return (
            self.phase is Phase.TAKE
            and self.options.beavers
            and self.cube.may_beaver(seat)
        )

    def resignation_levels(self, seat: int) -> tuple[ResultKind, ...]:
        """The levels ``seat`` may offer to resign at right now (empty when it may not).

        >>> Game.new().roll_off(5, 2)[0].resignation_levels(0)
        (<ResultKind.SINGLE: 1>, <ResultKind.GAMMON: 2>, <ResultKind.BACKGAMMON: 3>)
        """
        if self.phase not in (Phase.DECIDE, Phase.MOVE) or seat != self.on_roll:
            return ()
        worst = self.variant.worst_possible(self.position(seat))
        floor = self.declined or 0
        return tuple(k for k in _RESULT_KINDS if floor < k <= worst)

    def _may_resign(self, seat: int) -> bool:
        """Whether :meth:`resignation_levels` is not empty, without listing them: ``worst``
        is itself a level, so there is one exactly when it is above the declined one."""
        if self.phase not in (Phase.DECIDE, Phase.MOVE) or seat != self.on_roll:
            return False
        return (self.declined or 0) < self.variant.worst_possible(self.position(seat))

    def expected(self) -> Expected:
        """Who must act, in which phase, and what they may do (for clients and clocks)."""
        seat = self.to_act
        actions: set[Action] = set()
        if self.phase is Phase.ROLLOFF:
            actions.add(Action.ROLL_OFF)
        elif seat is not None:
            if self.phase is Phase.DECIDE:
                actions.add(Action.ROLL)
                if self.can_double(seat):
                    actions.add(Action.DOUBLE)
            elif self.phase is Phase.MOVE:
                actions.add(Action.MOVE)
            elif self.phase is Phase.TAKE:
                actions.update((Action.TAKE, Action.DROP))
                if self.can_beaver(seat):
                    actions.add(Action.BEAVER)
            elif self.phase is Phase.RESIGN:
                actions.update((Action.ACCEPT, Action.REJECT))
            if self._may_resign(seat):
                actions.add(Action.RESIGN)
        return Expected(seat, self.phase, frozenset(actions))

    # ------------------------------------------------------------- transitions

    def roll_off(self, die0: int, die1: int) -> Step:
        """The opening roll-off: ``die0`` is seat 0's die, ``die1`` seat 1's. The higher die
        plays both numbers; in a variant whose opening is ``reroll`` its seat rolls next.

        >>> Game.new().roll_off(4, 4)[1]
        (RolledOff(dice=(4, 4), first=None),)
        >>> from engine.variants import variant
        >>> g, _ = Game.new(variant=variant("fevga")).roll_off(2, 5)
        >>> g.phase.value, g.on_roll, g.dice
        ('decide', 1, None)
        """
        self._check_open()
        if self.phase is not Phase.ROLLOFF:
            raise GameError(ErrorCode.WRONG_PHASE, "the roll-off is over")
        dice = _check_dice(die0, die1)
        if die0 == die1:
            return self, (RolledOff(dice, None),)
        first = 0 if die0 > die1 else 1
        if self.variant.opening is Opening.REROLL:
            return evolve(self, phase=Phase.DECIDE, on_roll=first), (RolledOff(dice, first),)
        game, events = self._dice_for(first, dice)
        return game, (RolledOff(dice, first), *events)

    def roll(self, seat: int, die1: int, die2: int) -> Step:
        """``seat`` rolls (instead of doubling) and gets ``die1``-``die2``."""
        self._check_turn(seat, Phase.DECIDE)
        dice = _check_dice(die1, die2)
        game, events = self._dice_for(seat, dice)
        return game, (Rolled(seat, dice), *events)

    def move(self, seat: int, moves: Sequence[Move]) -> Step:
        """``seat`` plays ``moves`` (single-die ``(from, to)`` moves, in order)."""
        self._check_turn(seat, Phase.MOVE)
        assert self.dice is not None
        position = self.position(seat)
        checked = _normalize_moves(moves)
        variant = self.variant
        try:
            play = variant.validate(position, self.dice[0], self.dice[1], checked)
        except IllegalPlay as exc:
            raise IllegalPlayError(exc) from exc
        after = play.position
        boards = (after.mover, after.opponent) if seat == 0 else (after.opponent, after.mover)
        pinned = self.pinned
        if variant is not BACKGAMMON:
            mine, theirs = variant.pins(after)
            pinned = (mine, theirs) if seat == 0 else (theirs, mine)
        moved = Moved(seat, self.dice, tuple(play.moves))
        ending = variant.ending(after)
        if ending is not None:
            result = self._result_of(seat, ending)
            game = evolve(
                self, boards=boards, pinned=pinned, phase=Phase.OVER, dice=None, result=result,
                turns=self.turns + 1, declined=None,
            )
            return game, (moved, GameOver(result))
        game = evolve(
            self, boards=boards, pinned=pinned, phase=Phase.DECIDE, on_roll=1 - seat,
            dice=None, turns=self.turns + 1, declined=None,
        )
        return game, (moved,)

    def _result_of(self, seat: int, ending: Ending) -> Result:
        """The result of a game ``seat``'s play ended as ``ending`` says."""
        if ending.winner is None:
            return Result(None, None, self.cube.value, EndReason.MOTHERS)
        winner = seat if ending.winner is Side.MOVER else 1 - seat
        reason = EndReason.MOTHER if ending.finish is Finish.MOTHER else EndReason.BEAR_OFF
        kind = ending.kind
        assert kind is not None
        return Result(winner, kind, self.cube.value, reason, jacoby=self._jacoby(kind))

    def double(self, seat: int) -> Step:
        """``seat`` (on roll, before rolling) offers a double."""
        self._check_turn(seat, Phase.DECIDE)
        if not self.variant.cube:
            raise CubeError(ErrorCode.CUBE_UNAVAILABLE, f"{self.variant.name} has no cube")
        if not self.options.cube:
            raise CubeError(ErrorCode.CUBE_UNAVAILABLE, "no cube in this game")
        cube = self.cube.offer(seat)
        game = evolve(self, cube=cube, phase=Phase.TAKE, declined=None)
        return game, (Doubled(seat, cube.offered_value),)

    def take(self, seat: int) -> Step:
        """``seat`` takes the pending double (or beaver)."""
        self._check_answer(seat)
        cube = self.cube.taken(seat)
        return evolve(self, cube=cube, phase=Phase.DECIDE), (Taken(seat, cube.value),)

    def drop(self, seat: int) -> Step:
        """``seat`` drops the pending double (or beaver): the doubler wins the current value."""
        self._check_answer(seat)
        value = self.cube.dropped(seat)
        result = Result(1 - seat, ResultKind.SINGLE, value, EndReason.DROP)
        cube = Cube(self.cube.value, self.cube.owner)
        game = evolve(self, cube=cube, phase=Phase.OVER, result=result)
        return game, (Dropped(seat, value), GameOver(result))

    def beaver(self, seat: int) -> Step:
        """``seat`` beavers the pending double (money option)."""
        self._check_answer(seat)
        if not self.options.beavers:
            raise CubeError(ErrorCode.BEAVER_UNAVAILABLE, "beavers are not played")
        cube = self.cube.beavered(seat)
        return evolve(self, cube=cube), (Beavered(seat, cube.offered_value),)

    def resign(self, seat: int, level: ResultKind | int) -> Step:
        """``seat``, which owes the current decision, offers to resign at ``level``.

        >>> g = Game.from_position(Position.from_points({6: 2}, {1: 1}), on_roll=0)
        >>> g.resign(0, ResultKind.GAMMON)
        Traceback (most recent call last):
        ...
        engine.errors.GameError: bad_resignation_level: at most single is still possible
        """
        _check_seat(seat)
        self._check_open()
        if self.phase not in (Phase.DECIDE, Phase.MOVE) or seat != self.on_roll:
            self._check_turn(seat, self.phase)  # raises the precise error
            raise GameError(ErrorCode.WRONG_PHASE, "resign instead of rolling or moving")
        try:
            level = ResultKind(level)
        except ValueError:
            raise GameError(ErrorCode.BAD_RESIGNATION_LEVEL, f"no level {level!r}") from None
        worst = self.variant.worst_possible(self.position(seat))
        if level > worst:
            raise GameError(
                ErrorCode.BAD_RESIGNATION_LEVEL, f"at most {worst.name.lower()} is still possible"
            )
        if self.declined is not None and level <= self.declined:
            raise GameError(
                ErrorCode.RESIGNATION_DECLINED,
                f"{self.declined.name.lower()} was already rejected: offer more or play on",
            )
        offer = Resignation(seat, level, self.phase)
        game = evolve(self, phase=Phase.RESIGN, resignation=offer)
        return game, (ResignOffered(seat, level),)

    def accept_resignation(self, seat: int) -> Step:
        """``seat`` accepts the pending resignation: the game ends at its level × the cube."""
        offer = self._check_resignation(seat)
        result = Result(
            seat, offer.level, self.cube.value, EndReason.RESIGN, jacoby=self._jacoby(offer.level)
        )
        game = evolve(self, phase=Phase.OVER, resignation=None, result=result)
        return game, (ResignAccepted(seat, offer.level), GameOver(result))

    def reject_resignation(self, seat: int) -> Step:
        """``seat`` rejects the pending resignation: play continues where it stood."""
        offer = self._check_resignation(seat)
        declined = max(offer.level, self.declined or offer.level)
        game = evolve(self, phase=offer.resumes, resignation=None, declined=declined)
        return game, (ResignRejected(seat, offer.level),)

    def forfeit(self, seat: int, reason: ForfeitReason | str) -> Step:
        """``seat`` forfeits: it loses at the worst result still possible for it, × the cube.

        >>> game, events = Game.new().forfeit(1, "timeout")
        >>> game.result.winner, game.result.kind.name, game.result.points
        (0, 'BACKGAMMON', 3)
        """
        _check_seat(seat)
        self._check_open()
        try:
            reason = ForfeitReason(reason)
        except ValueError:
            raise GameError(ErrorCode.BAD_FORFEIT_REASON, f"no forfeit reason {reason!r}") from None
        kind = self.variant.worst_possible(self.position(seat))
        result = Result(1 - seat, kind, self.cube.value, EndReason.FORFEIT, forfeit=reason)
        game = evolve(
            self,
            phase=Phase.OVER,
            cube=Cube(self.cube.value, self.cube.owner),
            resignation=None,
            result=result,
        )
        return game, (Forfeited(seat, reason), GameOver(result))

    # ----------------------------------------------------------------- helpers

    def _dice_for(self, seat: int, dice: Dice) -> Step:
        """``seat`` has ``dice`` to play: wait for its move, or pass when nothing is playable."""
        if self.variant.can_play(self.position(seat), *dice):
            game = evolve(self, phase=Phase.MOVE, on_roll=seat, dice=dice, declined=None)
            return game, ()
        game = evolve(
            self, phase=Phase.DECIDE, on_roll=1 - seat, dice=None, turns=self.turns + 1,
            declined=None,
        )
        return game, (Passed(seat, dice),)

    def _jacoby(self, kind: ResultKind) -> bool:
        return jacoby_applies(kind, jacoby=self.options.jacoby, cube_turned=not self.cube.centred)

    def _check_open(self) -> None:
        if self.phase is Phase.OVER:
            raise GameError(ErrorCode.GAME_OVER, "the game is over")

    def _check_turn(self, seat: int, phase: Phase) -> None:
        _check_seat(seat)
        self._check_open()
        if self.phase is Phase.ROLLOFF:
            raise GameError(ErrorCode.WRONG_PHASE, "the opening roll-off comes first")
        if seat != self.to_act:
            raise GameError(ErrorCode.NOT_YOUR_TURN, f"seat {self.to_act} is to act")
        if self.phase is not phase:
            raise GameError(ErrorCode.WRONG_PHASE, f"the game waits for: {self.phase.value}")

    def _check_answer(self, seat: int) -> None:
        _check_seat(seat)
        self._check_open()
        if self.phase is not Phase.TAKE:
            raise CubeError(ErrorCode.NO_DOUBLE_PENDING, "no double to answer")
        if seat != self.to_act:
            raise CubeError(ErrorCode.NOT_YOUR_TURN, f"seat {self.to_act} answers the double")

    def _check_resignation(self, seat: int) -> Resignation:
        _check_seat(seat)
        self._check_open()
        if self.phase is not Phase.RESIGN or self.resignation is None:
            raise GameError(ErrorCode.NO_RESIGNATION_PENDING, "no resignation to answer")
        if seat != self.to_act:
            raise GameError(ErrorCode.NOT_YOUR_TURN, f"seat {self.to_act} answers")
        return self.resignation


def _check_seat(seat: object) -> None:
    if type(seat) is not int or seat not in (0, 1):
        raise GameError(ErrorCode.BAD_SEAT, f"a seat is 0 or 1, got {seat!r}")


def _check_dice(die1: object, die2: object) -> Dice:
    for die in (die1, die2):
        if type(die) is not int or not 1 <= die <= 6:
            raise GameError(ErrorCode.BAD_DICE, f"a die is an int from 1 to 6, got {die!r}")
    return (die1, die2)  # type: ignore[return-value]  # both checked above


def _normalize_moves(moves: Sequence[Move]) -> tuple[Move, ...]:
    """The moves as a tuple of ``(from, to)`` int pairs, or :class:`IllegalPlayError`."""
    if isinstance(moves, str | bytes) or not isinstance(moves, Sequence):
        raise IllegalPlayError(IllegalPlay(Reason.MALFORMED, detail="moves must be a sequence"))
    out: list[Move] = []
    for step, move in enumerate(moves):
        if (
            isinstance(move, str | bytes)
            or not isinstance(move, Sequence)
            or len(move) != 2
            or any(type(x) is not int for x in move)
        ):
            raise IllegalPlayError(
                IllegalPlay(Reason.MALFORMED, step, None, f"not a (from, to) pair: {move!r}")
            )
        out.append((move[0], move[1]))
    return tuple(out)
