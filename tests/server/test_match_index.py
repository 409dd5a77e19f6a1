"""The deadline index may lag behind a match (the service skips rewriting it on every turn),
but it never holds a deadline later than the real one, and a lagging entry still leads the
sweeper to settle the timeout."""

import random

from engine.match import MatchOptions
from harness.machine_driver import Seat
from server.machine import core
from server.machine.commands import Join
from server.machine.state import Phase
from server.match.clock import ServerClock
from server.match.hub import Hub
from server.match.service import MatchService
from server.match.store import DEADLINES, Store


def indexed_deadline_limit(state):
    return state.deadline + state.config.grace_ms + 1


async def test_deadline_index_lags_safely_and_timeouts_are_still_settled(redis_url):
    store = Store.from_url(redis_url)
    clock = ServerClock(store)
    await clock.beat()
    matches = MatchService(store, Hub(store, redis_url), clock, encode_event=lambda e: b"e")
    writes = 0
    real_index = store.index

    async def counting_index(*args, **kwargs):
        nonlocal writes
        writes += 1
        await real_index(*args, **kwargs)

    store.index = counting_index
    created = await matches.create(MatchOptions.money(), 30, False, "ann")
    m = created.match_id
    await matches.submit(m, Join(1, name="bob"))
    seats = [Seat(s, random.Random(s), double_rate=0, resign_rate=0) for s in (0, 1)]
    commits = 2
    for _ in range(60):
        state = await matches.load(m)
        command = next(c for s in seats if (c := s.decide(state)) is not None)
        await matches.submit(m, command)
        commits += 1
        state = await matches.load(m)
        indexed = await store.redis.zscore(DEADLINES, m)
        assert indexed is not None and indexed <= indexed_deadline_limit(state)
    assert writes < commits / 2  # most turns did not rewrite the index

    # The sweeper claims the match at the stale (early) deadline: not due, the real one goes back.
    state = await matches.load(m)
    assert await matches.expire(m) is None
    assert await store.redis.zscore(DEADLINES, m) == indexed_deadline_limit(state)

    # Past the real deadline (server time moved on), the sweeper settles it: the seat owing the
    # decision forfeits.
    clock.credit = -(state.config.clock_ms + state.config.grace_ms + 10)
    now = clock.now()
    assert await store.claim_due(now) == [m]
    outcome = await matches.expire(m)
    assert outcome is not None and outcome.state.phase is Phase.OVER
    assert any(type(e.data).__name__ == "Forfeit" for e in outcome.events)
    assert core.is_due(state, now)
    await store.close()
