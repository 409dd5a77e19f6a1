"""The match-event bus behind the match service, on a real Redis (server/match/bus.py): a
before-listener that fails refuses the commit (nothing stored, the command answered
``retry_later``, the retry stored and told once); an after-listener that fails costs neither the
commit nor the other listeners; and two services on one Redis ("two processes") racing on one
match tell each stored transition exactly once between them, never one that lost the race."""

from __future__ import annotations

import asyncio
import random
from typing import Any

import pytest

from engine.match import MatchOptions
from harness.machine_driver import Seat
from protocol import codec
from protocol import events as pe
from server.machine import core
from server.machine.commands import Join, Leave
from server.machine.state import owing
from server.match.bus import Bus, Committed, GameFinished, MatchFinished, MatchFinishing
from server.match.clock import ServerClock
from server.match.history import read_log
from server.match.hub import Hub
from server.match.service import MatchService, Unavailable
from server.match.store import Conflict, Store


async def service(redis_url: str, bus: Bus) -> MatchService:
    store = Store.from_url(redis_url)
    clock = ServerClock(store)
    await clock.beat()
    return MatchService(store, Hub(store, redis_url), clock, codec.encode, bus=bus)


class Heard:
    """What the after-listeners of one bus were told: (kind, match, version or game)."""

    def __init__(self, bus: Bus) -> None:
        self.told: list[tuple[str, str, int]] = []
        bus.on(Committed, "heard", lambda e: self.told.append(("c", e.match_id, e.state.version)))
        bus.on(GameFinished, "heard", lambda e: self.told.append(("g", e.match_id, e.game)))
        bus.on(MatchFinished, "heard", lambda e: self.told.append(("m", e.match_id, 0)))


async def test_a_failing_before_listener_refuses_the_commit_and_the_retry_is_told_once(
    redis_url: str,
) -> None:
    bus = Bus()
    refusing = True
    asked: list[MatchFinishing] = []

    async def results_like(event: MatchFinishing) -> None:
        asked.append(event)
        if refusing:
            raise ConnectionError("the results index is out of reach")

    bus.before_finish("test-refusing", results_like)
    heard = Heard(bus)
    matches = await service(redis_url, bus)
    try:
        created = await matches.create(MatchOptions.single_game(), 30, False, "Ann")
        m = created.match_id
        await matches.submit(m, Join(1, name="Bob"))
        joined = await matches.store.version(m)
        assert asked == [] and [k for k, _, _ in heard.told] == ["c", "c"]

        with pytest.raises(Unavailable):
            await matches.submit(m, Leave(1, seq=1))  # ends the match: asks, is refused
        assert len(asked) == 1 and asked[0].match_id == m and asked[0].state.is_over
        assert await matches.store.version(m) == joined  # nothing stored
        assert not (await matches.load(m, fresh=True)).is_over
        assert [k for k, _, _ in heard.told] == ["c", "c"]  # nobody told of it

        refusing = False
        await matches.clock.beat()  # (a refusal counts as a store error until the next beat)
        outcome = await matches.submit(m, Leave(1, seq=1))  # the client's resend
        assert isinstance(outcome, core.Accepted) and outcome.state.is_over
        assert len(asked) == 2  # asked again for the retried transition
        assert await matches.store.version(m) == outcome.state.version
        kinds = [k for k, _, _ in heard.told]
        assert kinds.count("m") == 1 and kinds[-1] == "m" and kinds.count("c") == 3
    finally:
        await matches.store.close()


async def test_a_failing_after_listener_costs_neither_the_commit_nor_the_others(
    redis_url: str,
) -> None:
    bus = Bus()
    before = Heard(bus)

    def broken(event: Any) -> None:
        raise RuntimeError("a broken listener")

    bus.on(Committed, "test-broken", broken)
    bus.on(MatchFinished, "test-broken", broken)
    after = Heard(bus)
    matches = await service(redis_url, bus)
    try:
        created = await matches.create(MatchOptions.single_game(), 30, False, "Ann")
        m = created.match_id
        await matches.submit(m, Join(1, name="Bob"))
        outcome = await matches.submit(m, Leave(0, seq=1))
        assert isinstance(outcome, core.Accepted) and outcome.state.is_over
        assert await matches.store.version(m) == outcome.state.version
        assert (await matches.load(m, fresh=True)).is_over
        assert before.told == after.told
        assert [k for k, _, _ in after.told] == ["c", "c", "c", "g", "m"]
    finally:
        await matches.store.close()


async def test_two_services_on_one_redis_tell_each_transition_exactly_once(
    redis_url: str,
) -> None:
    """Seat 0 plays through one service, seat 1 through another, both at once when both owe
    (commitments, reveals): the loser of each race stores nothing and tells nothing, and
    between them every version of the log is told once."""
    buses = Bus(), Bus()
    heard = Heard(buses[0]), Heard(buses[1])
    services = [await service(redis_url, bus) for bus in buses]
    seats = [Seat(s, random.Random(7 + s)) for s in (0, 1)]
    lost = 0
    for matches in services:
        commit = matches.store.commit

        async def counted(*args: Any, commit: Any = commit, **kwargs: Any) -> None:
            nonlocal lost
            try:
                await commit(*args, **kwargs)
            except Conflict:
                lost += 1
                raise

        matches.store.commit = counted  # type: ignore[method-assign]
    try:
        created = await services[0].create(MatchOptions.match(3), 30, False, "Ann")
        m = created.match_id
        await services[1].submit(m, Join(1, name="Bob"))
        for _ in range(5000):
            state = await services[0].load(m, fresh=True)
            if state.is_over:
                break
            commands = [(s, seats[s].decide(state)) for s in owing(state)[0]]
            answers = await asyncio.gather(
                *(services[s].submit(m, c) for s, c in commands if c is not None),
                return_exceptions=True,
            )
            for answer in answers:
                if isinstance(answer, BaseException):
                    raise answer
        else:
            raise AssertionError("the match did not end")

        assert lost > 0  # some commits lost a race (and were made again on the new state)
        told = [[v for k, _, v in h.told if k == "c"] for h in heard]
        assert told[0] and told[1]  # each service stored some transitions
        assert not set(told[0]) & set(told[1])
        assert told[0] == sorted(told[0]) and told[1] == sorted(told[1])
        # The log: each transition's first entry holds its command record; a transition is
        # told with the version of its last event.
        entries = await services[0].store.log_entries(m)
        firsts = [v for v, fields in entries if b"c" in fields]
        lasts = [v - 1 for v in firsts[1:]] + [entries[-1][0]]
        assert sorted(told[0] + told[1]) == lasts
        logged = [e.data for e in await read_log(services[0].store, m)]
        game_overs = [d.game for d in logged if isinstance(d, pe.GameOver)]
        games = [g for h in heard for k, _, g in h.told if k == "g"]
        assert sorted(games) == game_overs and len(game_overs) >= 1
        assert sum(1 for h in heard for k, _, _ in h.told if k == "m") == 1
    finally:
        for s in services:
            await s.store.close()

