"""Every finished game gets its record and its analysis, however it ended: forfeited before its
first roll (a creator who never came, also against the computer), forfeited in the roll-off,
resigned at the first decision, followed by a stopped money session or by an abandoned match.

The pure part rebuilds each ending's log (the match machine, as the server stores it) into the
engine's record and analyses it; the server part plays the same endings through real processes
(``fairgammon serve`` with its analysis and bot workers, the server clock moved on instead of
waited for) and reads ``analysis.json`` of every finished game, with no error in the log."""

from __future__ import annotations

import asyncio
import json
import random
from pathlib import Path
from typing import Any

import pytest

from analysis.core import analyse
from analysis.equity import Evaluator
from analysis.game import GameInput
from engine.match import MatchOptions
from engine.turns import TurnKind, game_turns
from harness.failure_kit import Stack, stack_fixture
from harness.machine_driver import Seat
from harness.srv_support import move_clock
from protocol import events as pe
from protocol.client import LobbyError, MatchClient, create_match, join_match
from protocol.client.lobby import get, get_text
from server.machine import core
from server.machine.commands import Join, Leave, Resign, ResignReply, Stop
from server.machine.state import Config, Phase, owing
from server.match.history import (
    Logged,
    Uncommitted,
    find_game,
    finished_games,
    mat_text,
    match_record,
    transcript,
    transcripts,
)
from server.web.records import record_json

MATCH = "cd" * 16
LATER = 10**9
"""A server time past every deadline of these matches."""


class Log:
    """A match driven through the pure machine, its log kept as the server stores it."""

    def __init__(self, options: MatchOptions) -> None:
        self.state, events = core.create(MATCH, Config(options, clock_ms=5000), "Ann", 1000)
        self.events = list(events)
        self.seats = [Seat(0, random.Random(1)), Seat(1, random.Random(2))]
        self.apply(Join(1, name="Bob"))

    def apply(self, command: Any) -> None:
        outcome = core.apply(self.state, command, 2000)
        assert isinstance(outcome, core.Accepted), outcome
        self.state = outcome.state
        self.events += outcome.events

    def decide(self, seat: int) -> None:
        """``seat`` makes its next honest decision (a commitment, a reveal, a roll...)."""
        command = self.seats[seat].decide(self.state)
        assert command is not None, owing(self.state)
        self.apply(command)

    def expire(self) -> None:
        outcome = core.expire(self.state, LATER)
        assert outcome is not None, owing(self.state)
        self.state = outcome.state
        self.events += outcome.events

    def to_first_decision(self) -> int:
        """Both seats commit and reveal; the seat that owes the game's first decision."""
        while self.state.phase is not Phase.PLAY:
            self.decide(owing(self.state)[0][0])
        return owing(self.state)[0][0]

    def resign_at_once(self) -> None:
        """The seat owing the first decision resigns (a single), the other accepts."""
        seat, game = self.to_first_decision(), self.state.dice.game
        self.apply(Resign(seat, 90, game=game, level=1))
        self.apply(ResignReply(1 - seat, 91, game=game, accept=True))

    @property
    def logged(self) -> list[Logged]:
        return [Logged(e.v, 1000, e.data) for e in self.events]


def forfeit_before_the_first_roll(options: MatchOptions) -> Log:
    log = Log(options)
    log.decide(1)  # seat 1 commits; its creator never does
    log.expire()
    return log


def forfeit_in_the_rolloff(options: MatchOptions) -> Log:
    log = Log(options)
    log.decide(0)
    log.decide(1)
    log.decide(0)  # seat 0 reveals in the roll-off; seat 1 never does
    assert log.state.phase is Phase.ROLLOFF
    log.expire()
    return log


def resigned_then(options: MatchOptions, then: str) -> Log:
    log = Log(options)
    log.resign_at_once()
    if then == "stop":
        log.apply(Stop(0, 92))
    elif then == "abandoned":
        log.expire()  # nobody commits to the next game
    elif then == "leave":
        log.apply(Leave(1, 92))  # between games: the match is lost, not a game
    return log


ENDINGS = {
    "single game forfeited before its first roll": (
        lambda: forfeit_before_the_first_roll(MatchOptions.single_game()), [1], "abandoned"),
    "single game forfeited in the roll-off": (
        lambda: forfeit_in_the_rolloff(MatchOptions.single_game()), [1], "no_reveal"),
    "match forfeited in the roll-off": (
        lambda: forfeit_in_the_rolloff(MatchOptions.match(3)), [1], "no_reveal"),
    "match forfeited before its first roll (no game)": (
        lambda: forfeit_before_the_first_roll(MatchOptions.match(3)), [], None),
    "single game resigned at the first decision": (
        lambda: resigned_then(MatchOptions.single_game(), ""), [1], None),
    "money session stopped after a resignation": (
        lambda: resigned_then(MatchOptions.money(), "stop"), [1], None),
    "match abandoned after a resignation": (
        lambda: resigned_then(MatchOptions.match(3), "abandoned"), [1], None),
    "match left between games": (
        lambda: resigned_then(MatchOptions.match(3), "leave"), [1], None),
}


@pytest.fixture(scope="module")
def evaluator() -> Evaluator:
    return Evaluator()


@pytest.mark.parametrize("name", list(ENDINGS))
def test_every_finished_game_has_a_record_and_a_report(name: str, evaluator: Evaluator) -> None:
    make, games, forfeit = ENDINGS[name]
    log = make()
    assert log.state.is_over
    logged = log.logged
    assert finished_games(logged) == games
    record = match_record(logged)
    mat_text(logged)  # the .mat export reads the same record
    # Every finished game has its transcript, or is left out for having no dice (its
    # creator never committed).
    found = transcripts(MATCH, logged)
    uncommitted = "before its first roll" in name
    assert [t.game.game_no for t in found.games] == ([] if uncommitted else games)
    assert [m.game for m in found.left_out] == (games if uncommitted else [])
    for n in games:
        if uncommitted:
            with pytest.raises(Uncommitted):
                transcript(MATCH, logged, n)
    for n in games:
        game = find_game(record, n)
        assert game.is_over and game.result is not None
        as_json = record_json(MATCH, logged, n)
        assert as_json["result"]["winner"] == game.result.winner
        report = analyse(GameInput.of(record, game), evaluator)
        assert len(report.turns) == len(as_json["turns"]) > 0
        if forfeit is not None:
            # The forfeit is the game's last turn, with its reason, however early it came.
            last = as_json["turns"][-1]
            assert last["action"] == TurnKind.FORFEIT.value and forfeit in last["text"]
            assert game.result.forfeit is not None and game.result.forfeit.value == forfeit


def test_a_forfeit_before_the_first_roll_is_that_game_s_forfeit() -> None:
    """On the wire the forfeit comes before the game it loses (the machine names it, then the
    engine starts the single game and forfeits it): the record still has one game, started
    and forfeited by the seat that never committed, lost at the forfeit's level (x3 here: the
    starting position has contact)."""
    log = forfeit_before_the_first_roll(MatchOptions.single_game())
    kinds = [type(e.data) for e in log.events]
    assert kinds.index(pe.Forfeit) < kinds.index(pe.GameStarted)
    game = find_game(match_record(log.logged), 1)
    assert game.result is not None
    assert (game.result.winner, game.points) == (1, 3)
    turns = game_turns(game)
    assert [(t.seat, t.action) for t in turns] == [(0, TurnKind.FORFEIT)]


# ---------------------------------------------------------------- through real processes

stack = stack_fixture()


async def _wait_done(base: str, match_id: str, game: int,
                     status: str = "done") -> dict[str, Any]:
    url = f"/api/matches/{match_id}/games/{game}/analysis.json"
    for _ in range(600):
        answer = await get(base, url)  # raises LobbyError on 500 analysis_failed
        if answer["status"] == status:
            return answer
        await asyncio.sleep(0.05)
    raise AssertionError(f"no report for game {game} of {match_id}")


async def _bot_match(base: str) -> dict[str, Any]:
    for _ in range(100):  # the bot worker announces itself within a second of starting
        try:
            return await create_match(base, name="Ann", bot="easy", mode="single_game")
        except LobbyError as exc:
            if exc.code != "no_bots":
                raise
            await asyncio.sleep(0.1)
    raise AssertionError("the bot worker never came up")


async def _seated(base: str, **options: Any) -> tuple[str, str, str]:
    created = await create_match(base, name="Ann", **options)
    joined = await join_match(base, created["match"], name="Bob")
    return created["match"], created["token"], joined["token"]


def _errors(log_path: Path, start: int) -> list[dict[str, Any]]:
    lines = log_path.read_bytes()[start:].decode().splitlines()
    entries = [json.loads(x) for x in lines if x.startswith("{")]
    return [e for e in entries if e.get("level") in ("error", "critical")]


async def test_each_ending_is_analysed_by_the_server_without_an_error(stack: Stack) -> None:
    proc = await asyncio.to_thread(
        stack.server, FAIRGAMMON_ANALYSERS="1", FAIRGAMMON_BOTS="1", FAIRGAMMON_BOT_DELAY_MS="0"
    )
    assert proc.log_path is not None
    log_start = proc.log_path.stat().st_size
    clients: list[MatchClient] = []

    def client(match_id: str, token: str, **kw: Any) -> MatchClient:
        c = MatchClient(proc.ws, match_id, token, **kw)
        clients.append(c)
        return c

    try:
        # Against the computer, the creator never comes: the bot commits, the creator's seat
        # forfeits the single game before its first roll once the clock runs out.
        bot = await _bot_match(proc.base)
        # Between people, the same: Bob commits, Ann never does.
        absent, _, absent_b = await _seated(proc.base, mode="single_game")
        committer = client(absent, absent_b)
        # In the roll-off: both commit, Ann reveals, Bob never does.
        rolloff, rolloff_a, rolloff_b = await _seated(proc.base, mode="match", length=3)
        client(rolloff, rolloff_a)  # reveals by itself
        silent = client(rolloff, rolloff_b, auto_reveal=False)
        # Resigned at the first decision, then: a money session stopped; a match whose next
        # game nobody commits to (abandoned).
        money, money_a, money_b = await _seated(proc.base, mode="money")
        stopped = (client(money, money_a), client(money, money_b))
        left, left_a, left_b = await _seated(proc.base, mode="match", length=3)
        gone = (client(left, left_a), client(left, left_b))
        # A nackgammon game (analysed from its own start) and a plakoto one (not analysed: the
        # nets know backgammon only), both resigned at once.
        nack, nack_a, nack_b = await _seated(proc.base, mode="single_game", variant="nackgammon")
        nacks = (client(nack, nack_a), client(nack, nack_b))
        greek, greek_a, greek_b = await _seated(proc.base, mode="single_game", variant="plakoto")
        greeks = (client(greek, greek_a), client(greek, greek_b))
        for c in clients:
            await c.start()
        await committer.wait_for(lambda t: t.clock.phase == "commit" and t.clock.seats == (0,))
        await silent.wait_for(lambda t: t.clock.phase == "rolloff" and t.clock.seats == (1,))
        for a, b in (stopped, gone, nacks, greeks):
            await _resign_at_once(a, b)
        reply = await stopped[0].stop_session()
        assert not hasattr(reply, "code"), reply
        # Everything left waits for a clock: move server time past every deadline.
        await move_clock(proc, stack.redis.url, 3600)
        await asyncio.gather(*(
            c.wait_for(lambda t: t.over is not None) for c in (committer, silent, *gone)
        ))  # fmt: skip
        ends = {
            m: (await get(proc.base, f"/api/matches/{m}/games/1/record.json"))["result"]
            for m in (bot["match"], absent, rolloff, money, left)
        }
        assert ends[bot["match"]]["reason"] == "forfeit" and ends[bot["match"]]["winner"] == 1
        assert ends[absent]["reason"] == "forfeit" and ends[absent]["winner"] == 1
        assert ends[rolloff]["reason"] == "forfeit" and ends[rolloff]["winner"] == 0
        assert ends[money]["reason"] == ends[left]["reason"] == "resign"
        # Who stopped the session is in the stop command's record in the log, not on the wire.
        mat = await get_text(proc.base, f"/api/matches/{money}/match.mat")
        assert "; Ann stopped the session after game 1\n" in mat
        # Every match's transcripts answer; a game forfeited before both seats committed to
        # their dice has no roll to verify: left out, with the reason (docs/fairness.md).
        for match_id in ends:
            bundle = json.loads(
                await get_text(proc.base, f"/api/matches/{match_id}/transcript.json"))
            uncommitted = match_id in (bot["match"], absent)
            assert [g["game_no"] for g in bundle["games"]] == ([] if uncommitted else [1])
            assert [g["game"] for g in bundle["left_out"]] == ([1] if uncommitted else [])
            for note in bundle["left_out"]:
                assert note["reason"] == "uncommitted" and "commit" in note["why"]
            if uncommitted:
                with pytest.raises(LobbyError) as missing:
                    await get(proc.base, f"/api/matches/{match_id}/games/1/transcript.json")
                assert missing.value.status == 404 and "commit" in str(missing.value)
        for match_id in ends:
            report = await _wait_done(proc.base, match_id, 1)
            assert report["game"] == 1 and [p["seat"] for p in report["players"]] == [0, 1]
            assert report["turns"], match_id
        report = await _wait_done(proc.base, nack, 1)
        assert report["turns"] and report["turns"][0]["action"] == "resign"
        none = await _wait_done(proc.base, greek, 1, status="unavailable")
        assert (none["reason"], none["variant"]) == ("variant", "plakoto")
        assert none["message"].startswith("no analysis for plakoto")
        # The abandoned match's game 2 never started: no such finished game, a clear 404.
        with pytest.raises(LobbyError) as err:
            await get(proc.base, f"/api/matches/{left}/games/2/analysis.json")
        assert err.value.status == 404
    finally:
        await asyncio.gather(*(c.close() for c in clients))
    assert _errors(proc.log_path, log_start) == []


async def _resign_at_once(a: MatchClient, b: MatchClient) -> None:
    """Whoever owes the game's first decision resigns it (a single); the other accepts. The
    next game is then not committed to (the clients stop committing by themselves)."""
    a.auto_commit = b.auto_commit = False
    await a.wait_for(lambda t: t.clock.phase in ("move", "decide"))
    first, other = (a, b) if a.owes() is not None else (b, a)
    reply = await first.resign(1)
    assert not hasattr(reply, "code"), reply
    await other.wait_for(lambda t: other.owes() == "resign")
    reply = await other.answer_resignation(True)
    assert not hasattr(reply, "code"), reply
    await a.wait_for(lambda t: t.last_game is not None)
