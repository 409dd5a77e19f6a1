"""Long matches, stored in Redis as the server would have stored them, in a second or two.

Both seats are the honest drivers of :mod:`harness.machine_driver` playing through the pure
machine; every transition is committed to the store with its events and command record (as
the match service does), so the log replays to the state and a server serves it like any
other match. Used by the catch-up tests (thousands of events without playing them over the
network) and by the browser test of a late reload.
"""

from __future__ import annotations

import asyncio
import random
import secrets
from collections.abc import Callable
from dataclasses import dataclass

from engine.match import MatchOptions
from harness.machine_driver import Seat
from harness.srv_support import Seated, apply_and_store, store_transition
from server.machine import core, serial
from server.machine.commands import Command, Join
from server.machine.state import Config, MatchState, owing
from server.match.clock import wall_ms
from server.match.store import CLOCK_CREDIT, Store
from server.match.tokens import token_hash


@dataclass
class LongMatch:
    seated: Seated
    state: MatchState
    drivers: tuple[Seat, Seat]

    def secrets_of(self, seat: int) -> dict[str, bytes]:
        """The seat's chain secrets in MatchClient's layout (``<match>/<game>/<seat>``)."""
        driver = self.drivers[seat]
        return {
            f"{self.seated.match_id}/{game}/{seat}": chain.link(chain.length)
            for game, chain in driver.chains.items()
        }


async def store_long_match(
    redis_url: str,
    min_events: int,
    *,
    seed: int = 1,
    options: MatchOptions | None = None,
    clock_ms: int = 600_000,
    until: Callable[[MatchState], bool] = lambda state: True,
    finish: bool = False,
) -> LongMatch:
    """A match with at least ``min_events`` events, stopped at the first state after that for
    which ``until`` holds (or played to its end with ``finish``)."""
    options = options or MatchOptions.match(25)
    rng = random.Random(seed)
    store = Store.from_url(redis_url)
    try:
        now = wall_ms() - int(await store.redis.get(CLOCK_CREDIT) or 0)
        match_id = secrets.token_hex(16)
        seated = Seated(match_id, (secrets.token_urlsafe(32), secrets.token_urlsafe(32)))
        config = Config(options, clock_ms=clock_ms)
        state, events = core.create(match_id, config, "Ann", now)
        tokens = {str(s): token_hash(t) for s, t in enumerate(seated.tokens)}
        await store_transition(store, -1, state, events, config, now, tokens)
        state = await apply_and_store(store, state, Join(1, name="Bob"), now)
        drivers = (Seat(0, random.Random(rng.random())), Seat(1, random.Random(rng.random())))
        # The commits go out without waiting for each other (the store pipelines them, in
        # order, and Redis fsyncs once per batch): seconds saved with appendfsync always.
        commits: list[asyncio.Future[None]] = []
        while not state.is_over:
            if not finish and state.version >= min_events and until(state):
                break
            seats, _ = owing(state)
            assert seats, f"nobody can act in phase {state.phase}"
            command = drivers[rng.choice(sorted(seats))].decide(state)
            assert command is not None
            outcome = core.apply(state, command, now)
            assert isinstance(outcome, core.Accepted), outcome
            commit = store_transition(
                store, state.version, outcome.state, outcome.events, command, now
            )
            commits.append(asyncio.ensure_future(commit))
            state = outcome.state
            if len(commits) >= 200:
                await asyncio.gather(*commits)
                commits.clear()
        await asyncio.gather(*commits)
        assert state.version >= min_events, "the match ended too soon: choose another seed"
        await store.index(
            match_id,
            open_since=None,
            live_since=None if state.is_over else state.created,
            deadline=state.deadline + config.grace_ms + 1 if state.deadline else None,
        )
        long = LongMatch(seated, state, drivers)
        for seat in (0, 1):
            seated.secrets[seat].update(long.secrets_of(seat))
        return long
    finally:
        await store.close()


async def apply_to_stored(redis_url: str, match_id: str, command: Command) -> MatchState:
    """Apply ``command`` to the stored match now, as the match service would; the new state."""
    store = Store.from_url(redis_url)
    try:
        stored = await store.load(match_id)
        assert stored is not None
        now = wall_ms() - int(await store.redis.get(CLOCK_CREDIT) or 0)
        return await apply_and_store(store, serial.loads(MatchState, stored.state), command, now)
    finally:
        await store.close()
