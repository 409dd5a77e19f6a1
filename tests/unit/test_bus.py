"""The match-event bus on its own (server/match/bus.py): what each listener is told, in which
order, and that one listener's failure costs nobody else anything, except a before-listener,
whose failure refuses the commit. The transitions are real ones, made by the pure machine."""

from __future__ import annotations

import asyncio
import logging
import random
from dataclasses import dataclass
from typing import Any

import pytest
from prometheus_client import REGISTRY

from engine.match import MatchOptions
from harness.machine_driver import Seat
from protocol import events as pe
from server.machine import core
from server.machine.commands import Join, Resign, ResignReply, Stop
from server.machine.state import Config, MatchState, Phase, owing
from server.match.bus import Bus, Committed, GameFinished, MatchFinished, MatchFinishing

MATCH = "ab" * 16


@dataclass(frozen=True)
class Step:
    """One stored transition, as the match service hands it to the bus."""

    state: MatchState
    events: tuple[Any, ...]
    command: Any
    ending: bool


def money_session() -> list[Step]:
    """A money session: created, joined, played to the first decision, the game resigned
    (``game_over``), a second one likewise, then stopped (``match_over``, no game in it)."""
    config = Config(MatchOptions.money(), clock_ms=5000)
    state, events = core.create(MATCH, config, "Ann", 1000)
    steps = [Step(state, events, config, False)]
    seats = [Seat(0, random.Random(1)), Seat(1, random.Random(2))]

    def apply(command: Any) -> None:
        before = steps[-1].state
        outcome = core.apply(before, command, 2000)
        assert isinstance(outcome, core.Accepted), outcome
        ending = outcome.state.is_over and not before.is_over
        steps.append(Step(outcome.state, outcome.events, command, ending))

    apply(Join(1, name="Bob"))
    for _ in range(2):
        while steps[-1].state.phase is not Phase.PLAY:
            state = steps[-1].state
            apply(seats[owing(state)[0][0]].decide(state))
        state = steps[-1].state
        seat, game = owing(state)[0][0], state.dice.game
        apply(Resign(seat, seats[seat].next_seq(), game=game, level=1))
        apply(ResignReply(1 - seat, seats[1 - seat].next_seq(), game=game, accept=True))
    apply(Stop(0, seats[0].next_seq()))
    return steps


def tell(bus: Bus, steps: list[Step]) -> None:
    for step in steps:
        bus.committed(step.state, step.events, step.command, step.ending)


def errors(listener: str) -> float:
    return REGISTRY.get_sample_value(
        "fairgammon_listener_errors_total", {"listener": listener}
    ) or 0.0


class Warnings(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


@pytest.fixture
def warnings() -> Any:
    handler = Warnings()
    logger = logging.getLogger("fairgammon.bus")
    logger.addHandler(handler)
    yield handler.records
    logger.removeHandler(handler)


def test_each_kind_is_told_in_commit_order_then_registration_order() -> None:
    steps = money_session()
    heard: list[tuple[str, str, int]] = []
    bus = Bus()

    def listener(name: str) -> Any:
        def handler(event: Any) -> None:
            key = event.game if isinstance(event, GameFinished) else event.state.version
            heard.append((name, type(event).__name__, key))

        return handler

    bus.on(MatchFinished, "m1", listener("m1"))
    bus.on(Committed, "c1", listener("c1"))
    bus.on(GameFinished, "g1", listener("g1"))
    bus.on(Committed, "c2", listener("c2"))
    bus.on(MatchFinished, "m2", listener("m2"))
    tell(bus, steps)

    # Every stored transition, once, in version order, to its listeners in registration order.
    committed = [(n, v) for n, kind, v in heard if kind == "Committed"]
    versions = [s.state.version for s in steps]
    assert committed == [(n, v) for v in versions for n in ("c1", "c2")]
    # Each game once, after its transition's Committed; the match once, last of all.
    game_overs = [(s.state.version, e.data.game) for s in steps for e in s.events
                  if isinstance(e.data, pe.GameOver)]
    assert [g for _, g in game_overs] == [1, 2]
    for version, game in game_overs:
        at = heard.index(("g1", "GameFinished", game))
        assert heard[at - 2:at] == [("c1", "Committed", version), ("c2", "Committed", version)]
    assert heard[-2:] == [("m1", "MatchFinished", versions[-1]),
                          ("m2", "MatchFinished", versions[-1])]
    assert len(heard) == 2 * len(steps) + 2 + 2


def test_events_carry_what_the_transition_stored() -> None:
    steps = money_session()
    games: list[GameFinished] = []
    ends: list[MatchFinished] = []
    commits: list[Committed] = []
    bus = Bus()
    bus.on(GameFinished, "games", games.append)
    bus.on(MatchFinished, "ends", ends.append)
    bus.on(Committed, "commits", commits.append)
    tell(bus, steps)

    assert [(c.state, c.events, c.command) for c in commits] == [
        (s.state, s.events, s.command) for s in steps
    ]
    assert isinstance(commits[0].command, Config)  # the creation
    assert [(g.match_id, g.game, g.over.reason) for g in games] == [
        (MATCH, 1, "resign"), (MATCH, 2, "resign")
    ]
    (end,) = ends
    assert end.match_id == MATCH and end.state.is_over
    assert end.over == steps[-1].events[-1].data and end.over.reason == "stopped"


async def test_async_handlers_start_in_registration_order_and_are_drained() -> None:
    steps = money_session()
    started: list[str] = []
    release = asyncio.Event()
    bus = Bus()

    def handler(name: str) -> Any:
        async def run(event: MatchFinished) -> None:
            started.append(name)
            await release.wait()
            started.append(f"{name} done")

        return run

    for name in ("first", "second", "third"):
        bus.on(MatchFinished, name, handler(name))
    tell(bus, steps)
    assert started == []  # not awaited in the commit path: started as tasks
    await asyncio.sleep(0)
    assert started == ["first", "second", "third"]
    release.set()
    await bus.drain()
    assert started[3:] == ["first done", "second done", "third done"]


async def test_a_plain_handler_s_returned_work_runs_as_a_task_and_none_costs_none() -> None:
    steps = money_session()
    done: list[int] = []
    bus = Bus()

    async def work(version: int) -> None:
        done.append(version)

    def handler(event: Committed) -> Any:
        # Work only for the commits that end a game (a few of them), decided inline.
        if any(isinstance(e.data, pe.GameOver) for e in event.events):
            return work(event.state.version)
        return None

    bus.on(Committed, "some", handler)
    before = len(asyncio.all_tasks())
    tell(bus, steps)
    assert len(asyncio.all_tasks()) - before == 2  # a task for each of the two games' work
    await bus.drain()
    assert done == [s.state.version for s in steps
                    if any(isinstance(e.data, pe.GameOver) for e in s.events)]  # fmt: skip
    assert len(done) == 2


async def test_a_failing_listener_is_logged_counted_and_costs_no_one_else(warnings) -> None:
    steps = money_session()
    heard: list[str] = []
    bus = Bus()

    def broken(event: Any) -> None:
        raise RuntimeError("broken listener")

    async def broken_later(event: Any) -> None:
        await asyncio.sleep(0)
        raise RuntimeError("broken task")

    async def fine_later(event: MatchFinished) -> None:
        heard.append("fine later")

    bus.on(MatchFinished, "before", lambda e: heard.append("before"))
    bus.on(MatchFinished, "test-broken", broken)
    bus.on(MatchFinished, "test-broken-task", broken_later)
    bus.on(MatchFinished, "after", lambda e: heard.append("after"))
    bus.on(MatchFinished, "fine-later", fine_later)
    counts = errors("test-broken"), errors("test-broken-task")

    tell(bus, steps)  # does not raise
    await bus.drain()

    assert heard == ["before", "after", "fine later"]
    assert (errors("test-broken"), errors("test-broken-task")) == (counts[0] + 1, counts[1] + 1)
    told = [(r.getMessage(), r.fields["listener"], r.fields["match"]) for r in warnings]
    assert told == [
        ("match listener failed", "test-broken", MATCH),
        ("match listener failed", "test-broken-task", MATCH),
    ]
    assert "broken listener" in warnings[0].fields["error"]


async def test_a_before_listener_refuses_the_commit_and_the_next_one_is_not_asked(
    warnings,
) -> None:
    ending = money_session()[-1]
    asked: list[tuple[str, MatchFinishing]] = []
    bus = Bus()

    async def mark(event: MatchFinishing) -> None:
        asked.append(("mark", event))

    async def refuse(event: MatchFinishing) -> None:
        asked.append(("refuse", event))
        raise ConnectionError("no Redis")

    async def never(event: MatchFinishing) -> None:
        asked.append(("never", event))

    bus.before_finish("mark", mark)
    bus.before_finish("test-refuse", refuse)
    bus.before_finish("never", never)
    count = errors("test-refuse")
    with pytest.raises(ConnectionError):
        await bus.finishing(ending.state)
    assert [name for name, _ in asked] == ["mark", "refuse"]
    assert asked[0][1].state is ending.state and asked[0][1].match_id == MATCH
    assert errors("test-refuse") == count + 1
    assert [r.fields["listener"] for r in warnings] == ["test-refuse"]

    # Without a refusal every before-listener is asked, in order.
    asked.clear()
    calm = Bus()
    calm.before_finish("mark", mark)
    calm.before_finish("never", never)
    await calm.finishing(ending.state)
    assert [name for name, _ in asked] == ["mark", "never"]


def test_an_ending_without_match_over_is_an_error_not_a_crash(warnings) -> None:
    ending = money_session()[-1]
    heard: list[Any] = []
    bus = Bus()
    bus.on(MatchFinished, "ends", heard.append)
    bus.on(Committed, "commits", heard.append)
    without = tuple(e for e in ending.events if not isinstance(e.data, pe.MatchOver))
    bus.committed(ending.state, without, ending.command, True)
    assert [type(e) for e in heard] == [Committed]
    assert [r.getMessage() for r in warnings] == ["a match ended without match_over"]
