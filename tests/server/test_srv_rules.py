"""threats.md, "Turn order and rules", against a real server process: actions out of turn, out
of phase, for the other seat, after the end, by spectators; illegal plays of every kind; resent,
stale and duplicated actions; cube and resignation abuse. Every refusal is a typed reject that
changes neither the match nor its clock, and the right player can then act normally."""

from __future__ import annotations

import contextlib
import re
from collections.abc import AsyncIterator
from dataclasses import replace
from typing import Any

import msgpack

from engine.cube import Cube
from engine.game import Game
from engine.game import Phase as GamePhase
from engine.match import MatchOptions
from engine.movegen import legal_plays
from engine.position import Position
from harness.srv_support import (
    Recorder,
    Seated,
    accepted,
    first_mover,
    legal,
    refused,
    rejected,
    seat_two,
    seed_match,
    server_fixture,
    stored_frames,
    stored_state,
    to_move,
)
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.client import MatchClient

server = server_fixture()


@contextlib.asynccontextmanager
async def playing(
    server: Any, seated: Seated | None = None, kw: tuple[dict, dict] = ({}, {}), **options: Any
) -> AsyncIterator[tuple[Seated, MatchClient, MatchClient]]:
    seated = seated or await seat_two(server.base, **options)
    a = seated.client(server.ws, 0, **kw[0])
    b = seated.client(server.ws, 1, **kw[1])
    async with a, b:
        yield seated, a, b


class Unchanged:
    """Asserts that the stored match (version, state and deadline) did not change."""

    def __init__(self, server: Any, match_id: str) -> None:
        self.server = server
        self.match_id = match_id

    async def __aenter__(self) -> None:
        self.before = await stored_state(self.server.redis_url, self.match_id)

    async def __aexit__(self, *exc: object) -> None:
        if exc[0] is None:
            after = await stored_state(self.server.redis_url, self.match_id)
            assert after == self.before


def moved_events(log: dict[int, bytes], seat: int, turn: int) -> int:
    events = (codec.decode_from_server(f) for f in log.values())
    return sum(
        isinstance(e, m.Event) and isinstance(e.data, pe.Moved)
        and (e.data.seat, e.data.turn) == (seat, turn)
        for e in events
    )  # fmt: skip


def unrolled_die_move(client: MatchClient) -> tuple[int, int]:
    """A step from one of the client's own checkers by a distance no die shows."""
    t = client.tracker
    assert client.seat is not None and t.dice is not None
    board = t.position(client.seat).mover
    for point in range(24, 0, -1):
        for distance in range(1, 7):
            if board[point] and distance not in t.dice and point - distance >= 1:
                return (point, point - distance)
    raise AssertionError("no such step")


# ---------------------------------------------------------------- turn order


async def test_out_of_turn_before_the_dice_and_with_dice_not_rolled(server):
    async with playing(server, mode="money") as (seated, a, b):
        mover, other = await first_mover(a, b)
        game, turn = mover.tracker.game, mover.tracker.turn
        play = legal(mover)
        async with Unchanged(server, seated.match_id):
            # The other seat tries everything in the mover's place: not its turn.
            await refused(other.act(lambda s: m.Move(s, game, turn, play)), "not_your_turn")
            await refused(other.roll(), "not_your_turn")
            await refused(other.double(), "not_your_turn")
            await refused(other.resign(1), "not_your_turn")
            await refused(other.take(), "no_double_pending")
            await refused(other.answer_resignation(True), "no_resignation_pending")
            # The mover has rolled: no second roll, no double, no reveal now.
            await refused(mover.roll(), "wrong_phase")
            await refused(mover.double(), "wrong_phase")
            await refused(mover.reveal(), "wrong_phase")
            await refused(mover.take(), "no_double_pending")
        await accepted(mover.move(play))
        await other.wait_for(lambda t: other.owes() == "decide")
        async with Unchanged(server, seated.match_id):
            # Before the dice: the seat on roll cannot move yet, the other not at all.
            await refused(other.act(lambda s: m.Move(s, game, turn + 1, play)), "wrong_phase")
            await refused(mover.act(lambda s: m.Move(s, game, turn + 1, play)), "not_your_turn")
        assert await to_move(other)
        async with Unchanged(server, seated.match_id):
            step = unrolled_die_move(other)
            reject = await refused(other.move((step,)), "illegal_play")
            assert "no_such_die" in reject.message
        await accepted(other.move(legal(other)))


async def test_identity_comes_from_the_connection(server):
    async with playing(server, mode="single_game") as (seated, a, b):
        mover, other = await first_mover(a, b)
        game, turn = mover.tracker.game, mover.tracker.turn
        play = [list(x) for x in legal(mover)]
        async with Unchanged(server, seated.match_id):
            # Naming the mover's seat in the frame is refused as a malformed frame ...
            for body in (
                {"t": "move", "s": other.seq + 1, "seat": mover.seat,
                 "p": {"game": game, "turn": turn, "moves": play}},
                {"t": "move", "s": other.seq + 1,
                 "p": {"game": game, "turn": turn, "moves": play, "seat": mover.seat}},
            ):  # fmt: skip
                reject = await rejected(other, lambda b=body: other.send_raw(msgpack.packb(b)))
                assert reject.code == "bad_field"
            # ... and the mover's own play, sent on the other seat's connection, is the other
            # seat's action: not its turn.
            moves = legal(mover)
            await refused(other.act(lambda s: m.Move(s, game, turn, moves)), "not_your_turn")
        await accepted(mover.move(legal(mover)))


async def test_nothing_is_accepted_after_the_match_ended(server):
    async with playing(server, mode="single_game") as (seated, a, b):
        mover, other = await first_mover(a, b)
        await accepted(mover.resign(1))
        await other.wait_for(lambda t: other.owes() == "resign")
        await accepted(other.answer_resignation(True))
        await a.wait_for(lambda t: t.over is not None)
        game, turn = a.tracker.game, a.tracker.turn
        async with Unchanged(server, seated.match_id):
            for client in (a, b):
                for act in (
                    lambda s: m.Move(s, game, turn, ((24, 18),)),
                    lambda s: m.Roll(s, game, 2, b"\x01" * 32),
                    lambda s: m.Reveal(s, game, 2, b"\x01" * 32),
                    lambda s: m.Commit(s, game + 1, b"\x01" * 32),
                    lambda s: m.Double(s, game),
                    lambda s: m.Take(s, game),
                    lambda s: m.Resign(s, game, 1),
                    lambda s: m.ResignReply(s, game, True),
                    m.Leave,
                    m.Stop,
                ):
                    await refused(client.act(act), "match_over")


async def test_nothing_of_a_finished_game_is_accepted_between_games(server):
    kw = ({}, {"auto_commit": False})
    async with playing(server, kw=kw, mode="match", length=3) as (seated, a, b):
        await accepted(b.commit())
        mover, other = await first_mover(a, b)
        await accepted(mover.move(legal(mover)))
        await other.wait_for(lambda t: other.owes() == "decide")
        await accepted(other.double())
        await mover.wait_for(lambda t: mover.owes() == "take")
        await accepted(mover.drop_double())
        # Game 1 is over; game 2 waits for b's commitment (a's is in).
        await b.wait_for(
            lambda t: (
                b.owes() == "commit"
                and any(isinstance(e, pe.CommitReceived) and e.game == 2 for e in t.history)
            )
        )
        turn = b.tracker.turn
        async with Unchanged(server, seated.match_id):
            for client in (a, b):
                await refused(client.act(lambda s: m.Move(s, 1, turn, ((24, 18),))), "wrong_phase")
                await refused(client.act(lambda s: m.Double(s, 1)), "wrong_phase")
                await refused(client.act(lambda s: m.Roll(s, 1, 3, b"\x01" * 32)), "wrong_phase")
                await refused(client.act(lambda s: m.Roll(s, 2, 1, b"\x01" * 32)), "wrong_phase")
            await refused(a.act(lambda s: m.Commit(s, 1, b"\x02" * 32)), "stale")
        await accepted(b.commit())
        await a.wait_for(lambda t: t.game == 2 and t.clock.phase == "move")


async def test_spectators_cannot_act(server):
    seated = await seat_two(server.base, mode="money", beavers=True)
    watcher = seated.client(server.ws, None)
    a, b = seated.client(server.ws, 0), seated.client(server.ws, 1)
    async with a, b, watcher:
        await first_mover(a, b)
        link = b"\x07" * 32
        async with Unchanged(server, seated.match_id):
            for make in (
                lambda s: m.Commit(s, 1, link),
                lambda s: m.Recommit(s, 1, link),
                lambda s: m.Roll(s, 1, 2, link),
                lambda s: m.Reveal(s, 1, 2, link),
                lambda s: m.Double(s, 1),
                lambda s: m.Take(s, 1),
                lambda s: m.Drop(s, 1),
                lambda s: m.Beaver(s, 1),
                lambda s: m.Move(s, 1, 1, ((24, 18),)),
                lambda s: m.Resign(s, 1, 1),
                lambda s: m.ResignReply(s, 1, True),
                m.Leave,
                m.Stop,
            ):
                await refused(watcher.act(make), "not_a_player")
        assert watcher.welcomes == 1  # still connected, still watching


# ---------------------------------------------------------------- illegal plays


def start() -> Position:
    return Position.start()


ILLEGAL_PLAYS: list[tuple[str, Position, tuple[int, int], list[tuple[list, str, int]]]] = [
    (
        "opening",
        start(),
        (6, 5),
        [
            ([(13, 7), (24, 19)], "blocked", 2),
            ([(6, 0)], "not_all_home", 1),  # bearing off early
            ([(13, 7)], "must_use_more_dice", 2),  # fewer dice than possible
            ([(13, 7), (13, 8), (8, 2)], "too_many_moves", 3),
            ([(13, 9)], "no_such_die", 1),  # a die that was not rolled
            ([(23, 17)], "no_checker", 1),
            ([(5, 11)], "malformed", 1),  # backwards
            ([(0, 5)], "malformed", 1),  # from off the board
            ([(13, 7), (7, 7)], "malformed", 2),  # a step of zero
        ],
    ),
    (
        "on the bar",
        Position.from_points({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {24: 2, 13: 5, 8: 3, 6: 5}),
        (6, 5),
        [
            ([(13, 7), (13, 8)], "bar_first", 1),
            ([(25, 19), (13, 8)], "blocked", 1),
            ([(24, 18), (25, 20)], "bar_first", 1),
        ],
    ),
    (
        "only one die playable",
        Position.from_points({9: 1}, {24: 2, 23: 2}),
        (5, 3),
        [
            ([(9, 6)], "higher_die_required", 1),
            ([(9, 4), (4, 1)], "too_many_moves", 2),
        ],
    ),
    (
        "bearing off",
        Position.from_points({6: 1, 2: 1}, {1: 2}),
        (5, 4),
        [
            ([(2, 0)], "bear_off_not_highest", 1),
            ([(6, 0)], "no_such_die", 1),
        ],
    ),
]


async def test_illegal_plays_are_refused_with_the_step_then_a_legal_play_is_accepted(server):
    for name, position, dice, attempts in ILLEGAL_PLAYS:

        def edit(game: Game, position: Position = position, dice: tuple = dice) -> Game:
            return replace(
                game, boards=(position.mover, position.opponent), phase=GamePhase.MOVE,
                on_roll=0, dice=dice, turns=4,
            )  # fmt: skip

        seated = await seed_match(server.redis_url, MatchOptions.single_game(), edit)
        log = Recorder()
        async with playing(server, seated, kw=({"on_event": log}, {})) as (_, a, b):
            await a.wait_for(lambda t: a.owes() == "move")
            assert a.tracker.dice == dice and a.tracker.turn == 5
            async with Unchanged(server, seated.match_id):
                for moves, reason, step in attempts:
                    reject = await refused(a.move(tuple(moves)), "illegal_play")
                    # The message names the step and the reason ("move 2 (24, 19): blocked: ...").
                    named = re.search(rf"\bmove {step}\b[^:]*: {reason}\b", reject.message)
                    assert named, (name, reject.message)
            play = legal_plays(position, *dice)[0].moves
            ack = await accepted(a.move(play))
            await b.wait_for(lambda t, v=ack.v: t.version >= v)
            assert isinstance(b.tracker.history[-1], pe.Moved | pe.MatchOver)


# ---------------------------------------------------------------- resent and stale actions


async def test_resent_move_is_applied_once_and_stale_ones_never(server):
    log = Recorder()
    kw = ({"on_event": log}, {"on_event": log})
    async with playing(server, kw=kw, mode="money") as (seated, a, b):
        mover, other = await first_mover(a, b)
        game, turn = mover.tracker.game, mover.tracker.turn
        mover.seq += 1
        seq = mover.seq
        frame = codec.encode(m.Move(seq, game, turn, legal(mover)))
        for _ in range(3):
            await mover.send_raw(frame)
        await mover.wait_for(lambda t: len(log.acks(seq)) == 3)
        assert len({ack.v for ack in log.acks(seq)}) == 1
        assert log.replies(seq) == log.acks(seq)
        stored = await stored_frames(server.redis_url, seated.match_id)
        assert moved_events(stored, mover.seat, turn) == 1
        await other.wait_for(lambda t: other.owes() == "decide")
        async with Unchanged(server, seated.match_id):
            # The same play again under a new seq: an old turn.
            await refused(mover.act(lambda s: m.Move(s, game, turn, last_play(mover))),
                          "stale")  # fmt: skip
            # An old seq (below the last applied one), whatever it carries.
            n = len(other.rejects)
            await other.send_raw(codec.encode(m.Double(1, game)))
            await other.wait_for(lambda _: len(other.rejects) > n)
            assert other.rejects[n].code == "stale"
        assert await to_move(other)
        await accepted(other.move(legal(other)))
        stored = await stored_frames(server.redis_url, seated.match_id)
        assert moved_events(stored, mover.seat, turn) == 1


def last_play(client: MatchClient) -> tuple[tuple[int, int], ...]:
    """The play the client made last turn (from its own event history)."""
    moved = [e for e in client.tracker.history if isinstance(e, pe.Moved) and e.seat == client.seat]
    return moved[-1].moves


# ---------------------------------------------------------------- the cube


async def test_cube_abuse_is_refused(server):
    async with playing(server, mode="money") as (seated, a, b):
        mover, other = await first_mover(a, b)
        await accepted(mover.move(legal(mover)))
        await other.wait_for(lambda t: other.owes() == "decide")
        async with Unchanged(server, seated.match_id):
            await refused(mover.double(), "not_your_turn")  # off turn
            for client in (mover, other):
                await refused(client.take(), "no_double_pending")
                await refused(client.drop_double(), "no_double_pending")
                await refused(client.beaver(), "no_double_pending")
        await accepted(other.double())
        await mover.wait_for(lambda t: mover.owes() == "take")
        async with Unchanged(server, seated.match_id):
            await refused(other.double(), "not_your_turn")  # twice
            await refused(other.take(), "not_your_turn")  # its own double
            await refused(other.drop_double(), "not_your_turn")
            await refused(mover.beaver(), "beaver_unavailable")  # beavers are off
        await accepted(mover.take())
        await other.wait_for(lambda t: other.owes() == "decide")
        async with Unchanged(server, seated.match_id):
            await refused(mover.take(), "no_double_pending")
            await refused(other.double(), "cube_unavailable")  # the cube is the mover's now
        assert await to_move(other)
        await accepted(other.move(legal(other)))
        assert await to_move(mover)
        async with Unchanged(server, seated.match_id):
            await refused(mover.double(), "wrong_phase")  # after rolling, though it owns it
        await accepted(mover.move(legal(mover)))


async def test_no_double_in_the_crawford_game_and_no_beaver_in_match_play(server):
    async with playing(server, mode="match", length=2) as (seated, a, b):
        mover, other = await first_mover(a, b)
        await accepted(mover.move(legal(mover)))
        await other.wait_for(lambda t: other.owes() == "decide")
        await accepted(other.double())
        await mover.wait_for(lambda t: mover.owes() == "take")
        await refused(mover.beaver(), "beaver_unavailable")
        await accepted(mover.drop_double())
        # other leads 1-0 in a match to 2: game 2 is the Crawford game.
        await a.wait_for(lambda t: t.game == 2 and t.clock.phase == "move" and t.clock.seats)
        mover, other = await first_mover(a, b)
        assert a.tracker.crawford and b.tracker.crawford
        await accepted(mover.move(legal(mover)))
        await other.wait_for(lambda t: other.owes() == "decide")
        async with Unchanged(server, seated.match_id):
            await refused(other.double(), "cube_unavailable")
        assert await to_move(other)


async def test_no_double_above_64(server):
    def edit(game: Game) -> Game:
        return replace(
            game, phase=GamePhase.DECIDE, on_roll=0, dice=None, cube=Cube(64, owner=0), turns=6
        )

    seated = await seed_match(server.redis_url, MatchOptions.money(), edit)
    async with playing(server, seated) as (_, a, _b):
        await a.wait_for(lambda t: a.owes() == "decide")
        async with Unchanged(server, seated.match_id):
            await refused(a.double(), "cube_unavailable")
        assert await to_move(a)


# ---------------------------------------------------------------- resignations


async def test_resignation_abuse_is_refused(server):
    async with playing(server, mode="money") as (seated, a, b):
        mover, other = await first_mover(a, b)
        async with Unchanged(server, seated.match_id):
            await refused(other.resign(1), "not_your_turn")
            for client in (mover, other):
                await refused(client.answer_resignation(True), "no_resignation_pending")
        await accepted(mover.resign(1))
        await other.wait_for(lambda t: other.owes() == "resign")
        async with Unchanged(server, seated.match_id):
            await refused(mover.resign(2), "not_your_turn")  # one offer at a time
            await refused(mover.answer_resignation(True), "not_your_turn")  # its own offer
        await accepted(other.answer_resignation(False))
        await mover.wait_for(lambda t: mover.owes() == "move")
        async with Unchanged(server, seated.match_id):
            await refused(mover.resign(1), "resignation_declined")  # only a higher level now
        await accepted(mover.resign(2))
        await other.wait_for(lambda t: other.owes() == "resign")
        await accepted(other.answer_resignation(False))
        await mover.wait_for(lambda t: mover.owes() == "move")
        await accepted(mover.move(legal(mover)))


async def test_resigning_more_than_is_still_possible_is_refused(server):
    position = Position.from_points({6: 2, 5: 2}, {1: 5, 2: 5})  # seat 0 bore off 11

    def edit(game: Game) -> Game:
        boards = (position.mover, position.opponent)
        return replace(game, boards=boards, phase=GamePhase.MOVE, on_roll=0, dice=(6, 5))

    seated = await seed_match(server.redis_url, MatchOptions.money(), edit)
    async with playing(server, seated) as (_, a, b):
        await a.wait_for(lambda t: a.owes() == "move")
        async with Unchanged(server, seated.match_id):
            await refused(a.resign(2), "bad_resignation_level")
            await refused(a.resign(3), "bad_resignation_level")
        await accepted(a.resign(1))
        await b.wait_for(lambda t: b.owes() == "resign")
        await accepted(b.answer_resignation(True))
        await a.wait_for(lambda t: t.last_game is not None)
        assert a.tracker.last_game is not None
        assert (a.tracker.last_game.points, a.tracker.last_game.winner) == (1, 1)
