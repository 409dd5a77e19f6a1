"""The daily cap of rated matches between the same two accounts (docs/fairplay.md, rule 2)
through the results saga itself and Redis: of five rated matches really played (3 checker plays
each) between ann and bob within a day, the first three move the ratings and the fourth and
fifth are recorded as played, unrated (``void: "repeat"``) and flagged ``repeat_pair``; each
recorded twice changes nothing more (exactly once); a day later the pair's next match counts
again. A match between ann and a third account is not held back by the pair's cap."""

from __future__ import annotations

import msgpack
import redis.asyncio as aioredis

from engine.match import MatchOptions
from protocol import events as pe
from server.machine import core
from server.machine.commands import Join, Leave
from server.machine.state import Config
from server.match.history import Logged
from server.match.store import seats_key
from server.players.accounts_store import AccountsStore
from server.players.farming import WINDOW_MS, Rules
from server.players.results import Results

PLAYED = [Logged(i, 0, pe.Moved(1, i % 2, i + 1, ((24, 21),), "4HPwATDgc/ABMA")) for i in range(6)]
"""A log with three checker plays by each seat (what the saga counts)."""


async def test_only_the_first_three_rated_matches_of_a_pair_in_a_day_move_the_ratings(redis_url):
    redis = aioredis.from_url(redis_url)
    store = AccountsStore(redis)
    states = {}
    clock = {"now": 10_000}

    async def load(match_id: str):  # type: ignore[no-untyped-def]
        return states[match_id]

    async def read_log(match_id: str) -> list[Logged]:
        return PLAYED

    results = Results(store, load, lambda: clock["now"], read_log=read_log, rules=Rules(3, 3))

    async def rated(n: int, loser: str) -> str:
        """Rated match ``n``: ann in seat 0 wins when ``loser`` leaves."""
        match = f"{n:032x}"
        state, _ = core.create(match, Config(MatchOptions.match(1)), "ann", 1000)
        for command in (Join(1, name=loser), Leave(1, 1)):
            outcome = core.apply(state, command, 2000)
            assert isinstance(outcome, core.Accepted)
            state = outcome.state
        states[match] = state
        await redis.hset(seats_key(match), mapping={
            "a0": "ann id-ann", "a1": f"{loser} id-{loser}", "rated": "1"})  # fmt: skip
        for _ in range(2):  # recorded twice: the second changes nothing
            assert await results.record(match) is True
        return match

    async def history(name: str) -> list[dict]:
        raw = await redis.lrange(f"fg:{{u:{name}}}:hist", 0, -1)
        return [msgpack.unpackb(r, raw=False) for r in raw]

    try:
        for name in ("ann", "bob", "cat"):
            assert await store.create(name, f"id-{name}", "pw", 0, 1500.0)
        matches = [await rated(n, "bob") for n in range(1, 6)]
        bob = await store.account("bob")
        assert bob is not None and (bob["exp"], bob["matches"]) == ("3", "5")
        lines = list(reversed(await history("bob")))
        assert [line["rated"] for line in lines] == [True, True, True, False, False]
        assert [line["void"] for line in lines] == [None, None, None, "repeat", "repeat"]
        assert all(line["change"] < 0 for line in lines[:3])
        flagged = await store.flagged(name="ann")
        assert sorted(f["match"] for f in flagged) == sorted(matches[3:])
        assert all(f["flags"] == ["repeat_pair"] for f in flagged)

        # Another opponent is not held back by ann and bob's cap.
        await rated(6, "cat")
        cat = await store.account("cat")
        assert cat is not None and cat["exp"] == "1"

        # A day after the first three, the pair's next match counts again.
        clock["now"] += WINDOW_MS + 1
        await rated(7, "bob")
        bob = await store.account("bob")
        assert bob is not None and (bob["exp"], bob["matches"]) == ("4", "6")
        assert (await history("bob"))[0]["rated"] is True
    finally:
        await redis.aclose()
