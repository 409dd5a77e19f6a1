"""The rematch process step by step (server/match/rematch.py), on a real Redis: what its
docstring says of each step holds. An offer interrupted between creating B and recording it
in A leaves an unreachable B and a retry that starts afresh; two offers racing end in one
rematch with the loser's match cancelled; an accept is answered the same when repeated; the
labels of A are carried over with the seat, in the same commit."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from engine.match import MatchOptions
from protocol import codec
from protocol import events as pe
from server.machine import core
from server.machine.commands import Join, Leave, OfferRematch
from server.match.clock import ServerClock
from server.match.history import read_log
from server.match.hub import Hub
from server.match.rematch import Rematches
from server.match.service import MatchService
from server.match.store import OPEN_MATCHES, Store
from server.match.tokens import token_hash


class Crash(Exception):
    """Stands for the process dying at that point (nothing after it runs)."""


async def finished(redis_url: str, **seat_extra: bytes) -> tuple[MatchService, str, str, str]:
    """A match between Ann and Bob that Bob left: the service, its id, Ann's and Bob's tokens."""
    store = Store.from_url(redis_url)
    clock = ServerClock(store)
    await clock.beat()
    matches = MatchService(store, Hub(store, redis_url), clock, codec.encode)
    created = await matches.create(MatchOptions.single_game(), 30, False, "Ann")
    bob_token = await matches.join(created.match_id, "Bob", None, seat_extra=dict(seat_extra))
    await matches.submit(created.match_id, Leave(1, seq=1))
    return matches, created.match_id, created.token, bob_token


async def test_an_offer_cut_between_creating_b_and_recording_it_leaves_b_unreachable(
    redis_url: str,
) -> None:
    matches, a, ann, _ = await finished(redis_url)
    try:
        rematches = Rematches(matches)
        submit = matches.submit
        created: list[str] = []

        async def dies_before_offering(match_id: str, command: Any, **kw: Any) -> Any:
            if isinstance(command, OfferRematch):
                created.append(command.match)
                raise Crash
            return await submit(match_id, command, **kw)

        matches.submit = dies_before_offering  # type: ignore[method-assign]
        with pytest.raises(Crash):
            await rematches.offer(a, ann)
        matches.submit = submit  # type: ignore[method-assign]
        (orphan,) = created
        waiting = await matches.load(orphan, fresh=True)
        assert waiting.names == ("Ann", None) and waiting.config.rematch_of == a
        assert (await matches.load(a, fresh=True)).rematch is None  # A does not name it
        assert await matches.store.redis.zscore(OPEN_MATCHES, orphan) is None  # listed nowhere

        # The retry starts afresh: another B, recorded in A, answered; asked again, the same.
        first = await rematches.offer(a, ann)
        assert first.match_id != orphan and first.created and first.seat == 0
        assert (await matches.load(a, fresh=True)).rematch.match == first.match_id
        again = await rematches.offer(a, ann)
        assert (again.match_id, again.token, again.created) == (first.match_id, first.token, False)
    finally:
        await matches.store.close()


async def test_two_offers_racing_meet_in_one_rematch_and_the_loser_s_is_cancelled(
    redis_url: str,
) -> None:
    matches, a, ann, bob = await finished(redis_url)
    try:
        rematches = Rematches(matches)
        made: list[str] = []
        both = asyncio.Event()
        begin = matches.begin

        async def noting(match_id: str, *args: Any) -> Any:
            # Each offer creates its match only once the other has read A too: the race is
            # made to happen, not left to the scheduler (one could finish before the other
            # starts on a busy machine).
            made.append(match_id)
            if len(made) == 2:
                both.set()
            await asyncio.wait_for(both.wait(), 10)
            return await begin(match_id, *args)

        matches.begin = noting  # type: ignore[method-assign]
        x, y = await asyncio.gather(rematches.offer(a, ann), rematches.offer(a, bob))
        assert x.match_id == y.match_id and {x.seat, y.seat} == {0, 1}
        assert [x.created, y.created].count(True) == 1
        assert len(made) == 2  # both created a match; one lost the race to record it
        (lost,) = [m for m in made if m != x.match_id]
        cancelled = await matches.load(lost, fresh=True)
        assert cancelled.is_over and cancelled.names[1] is None
        assert [e.data for e in await read_log(matches.store, lost)][-1] == pe.MatchOver(
            None, (0, 0), "cancelled"
        )
        offers = [e.data for e in await read_log(matches.store, a)
                  if isinstance(e.data, pe.RematchOffered)]
        assert offers == [pe.RematchOffered(0 if x.created else 1, x.match_id)]
    finally:
        await matches.store.close()


async def test_accepting_again_is_answered_the_same_and_labels_come_with_the_seat(
    redis_url: str,
) -> None:
    matches, a, ann, bob = await finished(redis_url, bot=b"easy")
    try:
        rematches = Rematches(matches, labels=("bot", "not-there"))
        offer = await rematches.offer(a, ann)
        b = offer.match_id
        assert await matches.store.seat_fields(b, ["bot"]) == [None]  # not before the seat
        submit = matches.submit
        joins: list[int] = []

        async def dies_after_joining(match_id: str, command: Any, **kw: Any) -> Any:
            outcome = await submit(match_id, command, **kw)
            if isinstance(command, Join):
                joins.append(outcome.state.version)
                raise Crash  # stored, never answered
            return outcome

        matches.submit = dies_after_joining  # type: ignore[method-assign]
        with pytest.raises(Crash):
            await rematches.accept(b, bob)
        matches.submit = submit  # type: ignore[method-assign]
        # The seat and the label were stored together, by the join's commit.
        version = await matches.store.version(b)
        assert joins == [version]
        seat_1, label, absent = await matches.store.seat_fields(b, ["1", "bot", "not-there"])
        assert label == b"easy" and absent is None
        token = await rematches.accept(b, bob)  # the retry
        assert seat_1 == token_hash(token)
        assert await matches.store.version(b) == version  # nothing stored again
        with pytest.raises(core.Rejected) as refused:
            await rematches.accept(b, ann)
        assert refused.value.code == "forbidden"
        # Declining an accepted rematch is refused.
        with pytest.raises(core.Rejected) as refused:
            await rematches.decline(b, bob)
        assert refused.value.code == "wrong_phase"
    finally:
        await matches.store.close()
