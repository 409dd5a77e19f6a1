"""A client's picture of a match, kept up to date from the snapshot and the events.

The tracker is pure (no I/O): feed it ``snapshot`` and ``event`` messages in order and read
what a player needs to act: the phase and who owes it, the game, the next roll index, the turn
number, the dice, both boards (and plakoto's pins), the cube. A backgammon game's boards come
from each ``moved`` event's Position ID; another variant's (protocol version 5, whose Position
ID cannot hold pins nor hypergammon's borne-off checkers) from playing the event's moves with
the engine's rules of that variant (:mod:`engine.variants`), which also give the legal plays.

>>> from protocol import events as pe
>>> from protocol.messages import Event
>>> t = Tracker()
>>> t.apply(Event(1, pe.MatchCreated("match", 3, False, False, 30_000), None))
>>> t.apply(Event(2, pe.GameStarted(1, False, (0, 0)), pe.Clock("rolloff", (0, 1), 99)))
>>> t.version, t.game, t.k, t.clock.phase, t.pips()
(2, 1, 1, 'rolloff', (167, 167))
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from engine.cube import Cube
from engine.match import Mode, cube_in_play
from engine.movegen import Play
from engine.position import Position
from engine.position_id import decode as decode_position
from engine.rules import Opening, Variant, VariantPosition
from engine.variants import variant as variant_named
from protocol import events as pe
from protocol import state as ps
from protocol.limits import DAY_MS
from protocol.messages import Event, Snapshot

START = Position.start().mover


@dataclass
class Tracker:
    version: int = 0
    settings: pe.MatchCreated | None = None
    names: list[str | None] = field(default_factory=lambda: [None, None])
    score: tuple[int, int] = (0, 0)
    game: int = 0
    k: int = 1
    """The index of the next roll."""
    turn: int = 0
    """The turn being played (what ``move.turn`` must say), 0 before the roll-off is decided."""
    crawford: bool = False
    on_roll: int | None = None
    dice: tuple[int, int] | None = None
    boards: list[tuple[int, ...]] = field(default_factory=lambda: [START, START])
    cube: int = 1
    cube_owner: int | None = None
    commitments: tuple[bytes | None, bytes | None] = (None, None)
    recommits: list[int] = field(default_factory=lambda: [0, 0])
    """Re-commitments of each seat in this game."""
    recommitted: list[tuple[bytes, int] | None] = field(default_factory=lambda: [None, None])
    """Each seat's latest re-commitment in this game: ``(link s'[k0 - 1], k0)``; None when it
    has none, or when it came before a snapshot (then only :attr:`recommits` counts it)."""
    heads: tuple[bytes | None, bytes | None] = (None, None)
    """From a snapshot: each seat's latest link (its next reveal must hash to it)."""
    clock: pe.Clock = field(default_factory=lambda: pe.Clock("waiting", (), None))
    over: pe.MatchOver | None = None
    rematch: pe.RematchOffered | None = None
    last_game: pe.GameOver | None = None
    history: list[pe.EventData] = field(default_factory=list)
    gaps: int = 0
    """Events that did not follow the previous version (should stay 0: the server's stream is
    gap-free and duplicate-free)."""
    ahead: tuple[int, int] | None = None
    """Correspondence: ``(game, k)`` when the next game's roll-off wants each seat's reveal
    ``k`` (its last ``rolloff_ahead``); None before, once that game started, or after a
    snapshot (which does not say)."""
    last_credit: pe.ClockCredit | None = None
    """The last ``clock_credit``: whose server process died, and how much later its decision is
    due (the clock, from the event's ``n``, has the new deadline)."""
    variant: str = "backgammon"
    """The variant of the current (or next) game (``game_started.variant``; never tavli)."""
    pinned: tuple[int, int] = (0, 0)
    """Each seat's pinned checkers (plakoto), a bitmask of its own points."""
    _beavered: bool = False

    # ---------------------------------------------------------------- queries

    def owes(self, seat: int) -> pe.Decision | None:
        """The decision ``seat`` owes now (a Clock phase name), or None."""
        return self.clock.phase if seat in self.clock.seats else None

    @property
    def commit_game(self) -> int:
        """The game the commitments now due are for: after a game ends, the next one."""
        if self.last_game is not None and self.last_game.game == self.game:
            return self.game + 1
        return self.game or 1

    @property
    def games_finished(self) -> int:
        return self.last_game.game if self.last_game is not None else 0

    @property
    def rules(self) -> Variant:
        """The rules of the current game's variant."""
        return variant_named(self.variant)

    def position(self, seat: int) -> VariantPosition:
        """The position seen by ``seat`` (a position of the current game's variant)."""
        pinned = self.pinned
        return self.rules.seen(
            self.boards[seat], self.boards[1 - seat], pinned[seat], pinned[1 - seat]
        )

    def legal_plays(self, seat: int) -> tuple[Play, ...]:
        """The legal plays of ``seat``'s dice now (empty when it has none to play)."""
        if self.dice is None:
            return ()
        return self.rules.legal_plays(self.position(seat), *self.dice)

    def pips(self) -> tuple[int, int]:
        return self.position(0).pips()

    @property
    def correspondence(self) -> bool:
        """A correspondence match: its clock is whole days (docs/protocol.md)."""
        t = self.settings.move_time if self.settings is not None else 0
        return t >= DAY_MS and t % DAY_MS == 0

    @property
    def in_game(self) -> bool:
        """A game is under way: started, not over."""
        started = self.game > 0 and self.commitments[0] is not None
        return started and (self.last_game is None or self.last_game.game != self.game)

    def may_double(self, seat: int) -> bool:
        """Whether ``seat`` may double at its next roll decision (cube rules only): the
        engine's rule (:func:`engine.match.cube_in_play`, :meth:`engine.cube.Cube.may_double`),
        a dead cube included."""
        if self.settings is None or not cube_in_play(Mode(self.settings.mode), self.crawford):
            return False
        if not self.rules.cube:
            return False
        return Cube(self.cube, self.cube_owner).may_double(seat)

    # ---------------------------------------------------------------- updates

    def apply(self, message: Event | Snapshot) -> None:
        if isinstance(message, Snapshot):
            self._snapshot(message)
            return
        if self.version and message.v != self.version + 1:
            self.gaps += 1
        self.version = message.v
        data = message.data
        self.history.append(data)
        handler = getattr(self, "_on_" + type(data).__name__, None)
        if handler is not None:
            handler(data)
        if message.next is not None:
            self.clock = message.next
        else:
            # More events of the same transition follow: nobody owes anything until its clock.
            self.clock = replace(self.clock, seats=())

    def _snapshot(self, snap: Snapshot) -> None:
        s: ps.MatchState = snap.state
        self.version = snap.v
        self.settings = s.settings
        self.names = [s.seats[0].name, s.seats[1].name]
        self.score = s.score
        self.over = s.result
        self.rematch = s.rematch
        g = s.game
        if g is None:
            self.clock = pe.Clock("waiting", (), None)
            return
        self.game, self.k, self.turn, self.crawford = g.game, g.k + 1, g.turn, g.crawford
        self.on_roll, self.dice = g.on_roll, g.dice
        self.boards = [g.boards[0], g.boards[1]]
        self.variant, self.pinned = g.variant, g.pinned
        self.cube, self.cube_owner = g.cube.value, g.cube.owner
        self.commitments = g.commitments
        self.heads = g.heads
        self.recommits, self.recommitted = list(g.recommits), [None, None]
        self.last_game = g.result
        self.ahead = None
        self.clock = g.clock or pe.Clock("over" if s.result else g.phase, (), None)

    def _on_MatchCreated(self, d: pe.MatchCreated) -> None:
        self.settings = d

    def _on_Seated(self, d: pe.Seated) -> None:
        self.names[d.seat] = d.name

    def _on_CommitReceived(self, d: pe.CommitReceived) -> None:
        if not self.in_game:  # (a commitment to the next game made ahead leaves this one)
            self.game = d.game

    def _on_RolloffAhead(self, d: pe.RolloffAhead) -> None:
        self.ahead = (d.game, d.k)

    def _on_Committed(self, d: pe.Committed) -> None:
        self.game, self.k = d.game, 1
        self.commitments = (d.commitment0, d.commitment1)
        self.recommits, self.recommitted = [0, 0], [None, None]

    def _on_GameStarted(self, d: pe.GameStarted) -> None:
        self.game, self.k, self.turn, self.crawford, self.score = d.game, 1, 0, d.crawford, d.score
        self.ahead = None
        self.variant, self.pinned = d.variant, (0, 0)
        start = self.rules.start()
        self.boards = [start.mover, start.opponent]
        self.cube, self.cube_owner, self.on_roll, self.dice = 1, None, None, None
        if self.rules.opening is Opening.REROLL and self.last_game is not None:
            winner = self.last_game.winner  # a Greek game after a won one: the winner opens
            if winner is not None:
                self.on_roll, self.turn = winner, 1

    def _on_Dice(self, d: pe.Dice) -> None:
        self.k = d.k + 1
        if d.kind == "rolloff":
            if d.d1 != d.d2:
                self.on_roll = 0 if d.d1 > d.d2 else 1
                self.turn = 1
                if self.rules.opening is Opening.ROLLOFF:
                    self.dice = (max(d.d1, d.d2), min(d.d1, d.d2))
        else:
            self.on_roll = d.roller
            self.dice = (d.d1, d.d2)

    def _on_Moved(self, d: pe.Moved) -> None:
        if self.variant == "backgammon":
            after = decode_position(d.position_id)
        else:
            assert self.dice is not None, "a play without dice"
            after = self.rules.validate(self.position(d.seat), *self.dice, d.moves).position
            mine, theirs = self.rules.pins(after)
            self.pinned = (mine, theirs) if d.seat == 0 else (theirs, mine)
        self.boards[d.seat] = after.mover
        self.boards[1 - d.seat] = after.opponent
        self._next_turn(d.seat, d.turn)

    def _on_Passed(self, d: pe.Passed) -> None:
        self._next_turn(d.seat, d.turn)

    def _next_turn(self, seat: int, turn: int) -> None:
        self.turn, self.on_roll, self.dice = turn + 1, 1 - seat, None

    def _on_Taken(self, d: pe.Taken) -> None:
        # Taking a beaver's redouble leaves the cube with the beaver.
        self.cube = d.value
        if not self._beavered:
            self.cube_owner = d.seat
        self._beavered = False

    def _on_Beavered(self, d: pe.Beavered) -> None:
        self.cube, self.cube_owner, self._beavered = d.value, d.seat, True

    def _on_Dropped(self, d: pe.Dropped) -> None:
        self._beavered = False

    def _on_Recommitted(self, d: pe.Recommitted) -> None:
        self.recommits[d.seat] += 1
        self.recommitted[d.seat] = (d.commitment, d.k)

    def _on_GameOver(self, d: pe.GameOver) -> None:
        self.last_game, self.score = d, d.score
        self.dice = None

    def _on_MatchOver(self, d: pe.MatchOver) -> None:
        self.over, self.score = d, d.score

    def _on_RematchOffered(self, d: pe.RematchOffered) -> None:
        self.rematch = d

    def _on_ClockCredit(self, d: pe.ClockCredit) -> None:
        self.last_credit = d
