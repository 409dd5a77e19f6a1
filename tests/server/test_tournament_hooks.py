"""The hooks of the tournament shell (server/competition/tournaments.py) in-process, on a real
redis-server: ``round_starting`` (for notifications, "a tournament round starting") hears each
pairing once its match is made, with the tournament's name and each seat's account link; a
hook that fails holds nothing up."""

from __future__ import annotations

from typing import Any

from engine.match import MatchOptions
from protocol import codec
from server.competition.effects import Pair
from server.competition.state import Config, Kind
from server.competition.tournament_store import TournamentStore
from server.competition.tournaments import Tournaments, seat_token
from server.machine.commands import Leave
from server.match.clock import ServerClock
from server.match.hub import Hub
from server.match.service import MatchService
from server.match.store import Store
from server.players.profiles import seat_link


async def shell(redis_url: str, hook: Any) -> Tournaments:
    store = Store.from_url(redis_url)
    clock = ServerClock(store)
    await clock.beat()
    matches = MatchService(store, Hub(store, redis_url), clock, codec.encode)
    return Tournaments(TournamentStore(store.redis), matches, seat_link, round_starting=hook)


async def test_round_starting_hears_each_match_made_once_and_a_failing_hook_holds_nothing(
    redis_url: str,
) -> None:
    heard: list[tuple[str, str, Pair, list[str | None]]] = []

    async def hook(tid: str, name: str, pair: Pair, links: list[str | None]) -> None:
        heard.append((tid, name, pair, links))

    tournaments = await shell(redis_url, hook)
    config = Config(Kind.KNOCKOUT, MatchOptions.match(1), max_players=4)
    state = await tournaments.create(config, "ann", "Cup <b>")
    for who in ("ann", "bob", "cat"):
        await tournaments.join(state.id, who, who.title(), 1500.0, f"u {who}")
    assert heard == []  # not full: nothing starts
    await tournaments.join(state.id, "dan", "Dan", 1500.0, None)
    current = await tournaments.load(state.id)
    pairings = [p for p in current.state.pairings if p.match]
    assert len(pairings) == 2 and len(heard) == 2
    assert {h[2].match for h in heard} == {p.match for p in pairings}
    for tid, name, pair, links in heard:
        assert (tid, name, pair.round) == (state.id, "Cup <b>", 1)
        assert links == [None if p == "dan" else f"u {p}" for p in pair.players]
        # The match is made: each seat's token is the tournament's, and it holds the seat.
        for seat in (0, 1):
            token = seat_token(current.secret, pair.match, seat)
            assert await tournaments.matches.holds(pair.match, str(seat), token)
    # A hook that raises: the pairing is made all the same, its effect carried out.
    async def broken(*args: Any) -> None:
        raise RuntimeError("notifications down")

    other = await shell(redis_url, broken)
    state = await other.create(config, "eve", "Other")
    for who in ("eve", "fay", "gus", "hal"):
        await other.join(state.id, who, who.title(), 1500.0, None)
    current = await other.load(state.id)
    pairings = [p for p in current.state.pairings if p.match]
    assert len(pairings) == 2
    for pairing in pairings:
        assert await other.matches.store.seat_hash(pairing.match, "1") is not None
    assert await other.store.pending(state.id) == 0


async def test_a_pair_carried_out_again_after_its_match_ended_is_done(redis_url: str) -> None:
    """The sweep carries out an effect again when its lease ran out before it was marked done
    (a loaded process): a ``Pair`` whose match has meanwhile been played out is made already,
    not an error retried for ever."""
    tournaments = await shell(redis_url, None)
    config = Config(Kind.KNOCKOUT, MatchOptions.match(1), max_players=4)
    state = await tournaments.create(config, "ann", "Cup")
    for who in ("ann", "bob", "cat", "dan"):
        await tournaments.join(state.id, who, who.title(), 1500.0, None)
    current = await tournaments.load(state.id)
    pairing = next(p for p in current.state.pairings if p.match)
    assert pairing.match is not None and pairing.deadline is not None
    a, b = pairing.players
    assert a is not None and b is not None
    pair = Pair(pairing.match, pairing.round, pairing.board, (a, b), pairing.deadline)
    assert await tournaments._pair(state.id, current, pair)  # made already: fine
    await tournaments.matches.submit(pairing.match, Leave(0))  # seat 0 leaves: it is over
    assert (await tournaments.matches.load(pairing.match, fresh=True)).is_over
    assert await tournaments._pair(state.id, current, pair)
