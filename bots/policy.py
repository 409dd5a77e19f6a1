"""What a bot does next in a match, from what its client sees (pure: no I/O, no clock).

:func:`decide` reads the client's :class:`~protocol.client.Tracker` and the offers the bot has
seen (:class:`Offers`) and returns a :class:`Decision`, or None when the bot owes nothing that
is not automatic (commitments and reveals are the client library's job). The worker sends the
action; the tests run the same function against the pure match machine.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

from bots import heuristic
from bots.levels import Level, accept_resignation, answer_double
from bots.levels import should_double as level_doubles
from bots.variants import choose_play
from brain.context import CubeContext, seat_context
from engine.cube import Cube
from engine.game import Action
from engine.match import Mode
from engine.reference import Move
from protocol import events as pe
from protocol import messages as m
from protocol.client.tracker import Tracker


@dataclass(frozen=True, slots=True)
class Decision:
    """What the bot does: one of the engine's actions (never ``ROLL_OFF`` or ``RESIGN``: the
    client library rolls off and bots never resign) and, for ``MOVE``, the play."""

    kind: Action
    moves: tuple[Move, ...] = ()


@dataclass
class Offers:
    """The pending resignation level and whether the pending double may be beavered, which the
    tracker does not keep: fed every message the client receives (``on_event``)."""

    resign_level: int | None = None
    beaverable: bool = False
    """True only after a plain double seen as an event (never a beaver's redouble, and not
    after a snapshot, which cannot tell the two apart: then the bot takes instead)."""

    def see(self, message: object) -> None:
        if isinstance(message, m.Snapshot):
            game = message.state.game
            resignation = game.resignation if game is not None else None
            self.resign_level = resignation.level if resignation is not None else None
            self.beaverable = False
        elif isinstance(message, m.Event):
            data = message.data
            if isinstance(data, pe.ResignOffered):
                self.resign_level = data.level
            elif isinstance(data, pe.ResignAccepted | pe.ResignRejected | pe.GameStarted):
                self.resign_level = None
            if isinstance(data, pe.Doubled):
                self.beaverable = True
            elif isinstance(data, pe.Beavered | pe.Taken | pe.Dropped | pe.GameStarted):
                self.beaverable = False


def context_of(t: Tracker, seat: int) -> CubeContext:
    """The bot's cube context from what its client tracks."""
    settings = t.settings
    if settings is None:
        return seat_context(Mode.SINGLE_GAME, seat)
    return seat_context(Mode(settings.mode), seat, value=t.cube, owner=t.cube_owner,
                        length=settings.length or 0, score=t.score, crawford=t.crawford,
                        jacoby=settings.jacoby, beavers=settings.beavers)


def decide(t: Tracker, seat: int, level: Level, offers: Offers,
           rng: random.Random) -> Decision | None:
    """The bot's next action in the phase it owes, or None."""
    if t.over is not None:
        return None
    owed = t.owes(seat)
    if owed == "decide":
        context = context_of(t, seat)
        if t.may_double(seat) and level_doubles(level, t.position(seat), context, rng):
            return Decision(Action.DOUBLE)
        return Decision(Action.ROLL)
    if owed == "move":
        if t.dice is None:
            return None
        play = choose_play(t.variant, level, t.position(seat), *t.dice, context_of(t, seat),
                           rng)
        return Decision(Action.MOVE, play.moves if play is not None else ())
    if owed == "take":
        doubler = 1 - seat
        # The engine's cube arithmetic; a double not known to be plain counts as a beaver's
        # redouble (which cannot be beavered): the bot then takes.
        pending = Cube(t.cube, t.cube_owner, offered_by=doubler, beaver=not offers.beaverable)
        may_beaver = bool(t.settings is not None and t.settings.beavers
                          and pending.may_beaver(seat))
        return Decision(answer_double(level, t.position(doubler), context_of(t, doubler),
                                      may_beaver, rng))
    if owed == "resign":
        if offers.resign_level is None:
            return Decision(Action.REJECT)  # cannot happen with a well-fed Offers; play on
        resigner = 1 - seat
        if t.variant in heuristic.SCORES:
            accept = heuristic.accept_resignation(t.variant, t.position(seat),
                                                  offers.resign_level)
        else:
            accept = accept_resignation(t.position(resigner), offers.resign_level,
                                        context_of(t, seat))
        return Decision(Action.ACCEPT if accept else Action.REJECT)
    return None
