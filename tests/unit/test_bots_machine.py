"""Bots against a random player on the pure match machine: the worker's own decision function
(:func:`bots.policy.decide`, reading a client :class:`Tracker` fed the machine's events) never
makes an action the machine refuses — every level, every mode, cube and resignations included."""

from __future__ import annotations

import random

from bots.levels import Level
from bots.policy import Decision, Offers, decide
from engine.game import Action
from engine.match import MatchOptions
from harness.machine_driver import Seat
from protocol.client.tracker import Tracker
from protocol.events import PLAYER_DECISIONS
from server.machine import core
from server.machine.commands import (
    Beaver,
    Command,
    Double,
    Drop,
    Join,
    MovePlay,
    ResignReply,
    Roll,
    Stop,
    Take,
)
from server.machine.state import Config, MatchState, owing

MID = "00112233445566778899aabbccddeeff"
GAMES = 200
OPTIONS = [
    MatchOptions.single_game(),
    MatchOptions.match(3),
    MatchOptions.money(jacoby=True, beavers=True),
]


def command_for(action: Decision, state: MatchState, t: Tracker, bot: Seat) -> Command:
    dice = state.dice
    seq = bot.next_seq()
    game = dice.game
    if action.kind is Action.ROLL:
        chain = bot.chain(state.match_id, game)
        return Roll(1, seq, game=game, k=dice.k, reveal=chain.link(dice.k))
    if action.kind is Action.MOVE:
        assert state.match.game is not None and t.turn == state.match.game.turns + 1
        return MovePlay(1, seq, game=game, turn=t.turn, moves=action.moves)
    simple = {Action.DOUBLE: Double, Action.TAKE: Take, Action.DROP: Drop, Action.BEAVER: Beaver}
    if action.kind in simple:
        return simple[action.kind](1, seq, game=game)
    return ResignReply(1, seq, game=game, accept=action.kind is Action.ACCEPT)


def play_one(level: Level, options: MatchOptions, seed: int, seen: dict[str, int]) -> None:
    rng = random.Random(seed)
    state, events = core.create(MID, Config(options, clock_ms=30_000, grace_ms=500), "ann", 0)
    tracker, offers = Tracker(), Offers()

    def feed(evs) -> None:
        for event in evs:
            tracker.apply(event)
            offers.see(event)

    feed(events)
    step = core.apply(state, Join(1, name="bot"), 0)
    state = step.state
    feed(step.events)
    human = Seat(0, random.Random(rng.random()), double_rate=0.15, resign_rate=0.03)
    bot = Seat(1, random.Random(rng.random()))
    bot_rng = random.Random(rng.random())
    now = 1000
    for _ in range(5000):
        if state.is_over:
            return
        if (options.mode.value == "money" and state.match.game is not None
                and state.match.game.is_over):
            command: Command | None = Stop(0)  # one game of the session is enough
        else:
            seats, _ = owing(state)
            seat = rng.choice(sorted(seats))
            if seat == 1 and tracker.owes(1) in PLAYER_DECISIONS:
                action = decide(tracker, 1, level, offers, bot_rng)
                assert action is not None
                seen[action.kind] = seen.get(action.kind, 0) + 1
                command = command_for(action, state, tracker, bot)
            else:
                command = (human if seat == 0 else bot).decide(state)
        assert command is not None
        now += 500
        # core.apply raises Rejected for anything the machine refuses: that fails the test.
        outcome = core.apply(state, command, now)
        assert isinstance(outcome, core.Accepted)
        state = outcome.state
        feed(outcome.events)
    raise AssertionError("the match did not finish")


def test_bots_make_no_refused_action_in_200_games():
    seen: dict[str, int] = {}
    levels = [Level.EASY, Level.NORMAL, Level.HARD]
    for i in range(GAMES):
        # Expert (2-ply) is slower: five of its games; the others share the rest.
        level = Level.EXPERT if i % 40 == 0 else levels[i % 3]
        play_one(level, OPTIONS[i % len(OPTIONS)], seed=i, seen=seen)
    # The sample exercised every kind of bot decision but the drop (a random player is seldom
    # far enough ahead to deserve one: tests/unit/test_bots_levels.py checks drops).
    for kind in (Action.ROLL, Action.MOVE, Action.DOUBLE, Action.TAKE, Action.BEAVER, Action.ACCEPT,
                 Action.REJECT):
        assert seen.get(kind), (kind, seen)
