"""Bot players of tournaments through the real API: each is a signed-in account that asks
``GET /api/tournaments/{id}`` for its match (``me``), plays it with a :class:`MatchClient`
(random legal play) and asks again, until the tournament is over. They are clients like any
other (only the API and the wire protocol), and they move to another server process when
theirs dies (their HTTP calls and their match connections both).

Used by tests/failure/test_fail_tournaments.py, tests/server/test_tournaments.py and the
benches.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.movegen import legal_plays
from harness.accounts import Browser, Reply
from protocol import messages as m
from protocol.client import MatchClient, Tracker, play_random
from protocol.client.connection import ClientClosed
from protocol.events import PLAYER_DECISIONS


@dataclass
class Player:
    """One account, on several server processes (``bases``: tried in turn when one fails)."""

    name: str
    bases: Sequence[str]
    cookies: dict[str, str] = field(default_factory=dict)
    at: int = 0
    played: list[str] = field(default_factory=list)
    """The matches this player played (or was told of), in order."""

    def browser(self) -> Browser:
        base = self.bases[self.at % len(self.bases)]
        return Browser(base, origin=base, cookies=self.cookies)

    async def call(self, method: str, path: str, body: dict[str, Any] | None = None) -> Reply:
        """``method path`` on the first process that answers (the next one after a failure)."""
        last: Exception | None = None
        for _ in range(len(self.bases) * 20):
            try:
                reply = await self.browser().call(method, path, body)
                if reply.status in (502, 503):
                    raise OSError(f"{reply.status}")
                return reply
            except OSError as exc:
                last = exc
                self.at += 1
                await asyncio.sleep(0.1)
        raise RuntimeError(f"no server answered {method} {path}: {last}")

    async def signup(self, password: str = "correct horse") -> None:
        """Sign up (the session cookie lands in ``cookies``: the browser keeps them there)."""
        body = {"username": self.name, "password": password}
        reply = await self.call("POST", "/api/account/signup", body)
        assert reply.status == 201, reply.body
        assert "fg_session" in self.cookies

    def ws_urls(self) -> list[str]:
        at = self.at % len(self.bases)
        rotated = [*self.bases[at:], *self.bases[:at]]
        return [b.replace("http://", "ws://") + "/ws" for b in rotated]


async def sign_up_all(players: Sequence[Player], redis_url: str) -> None:
    """Sign every player up, lifting the per-address sign-up limit between batches (every
    test client comes from one address)."""
    import redis.asyncio as aioredis

    redis = aioredis.from_url(redis_url)
    try:
        for i in range(0, len(players), 8):
            await asyncio.gather(*(p.signup() for p in players[i : i + 8]))
            async for key in redis.scan_iter("fg:signup:*"):
                await redis.delete(key)
    finally:
        await redis.aclose()


async def play_tournament(
    player: Player,
    tid: str,
    seed: int,
    poll: float = 0.15,
    timeout: float = 600,
    quit_rate: float = 0.0,
    think: float = 0.0,
) -> dict[str, Any]:
    """Play every match the tournament gives ``player`` until it is over; its last view.
    ``think``: the mean seconds a player waits before each of its decisions (0: none)."""
    rng = random.Random(seed)
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while loop.time() < deadline:
        reply = await player.call("GET", f"/api/tournaments/{tid}")
        assert reply.status == 200, reply.body
        view = reply.body
        if view["state"] == "finished":
            return view
        me = view["me"]
        if me is None or me["match"] in player.played:
            await asyncio.sleep(poll)
            continue
        player.played.append(me["match"])
        await play_match(player, me["match"], me["token"], rng, quit_rate, think)
    raise TimeoutError(f"{player.name}: tournament {tid} not over in {timeout} s")


async def play_match(
    player: Player,
    match: str,
    token: str,
    rng: random.Random,
    quit_rate: float = 0.0,
    think: float = 0.0,
) -> None:
    """Play one match to its end (a client whose server dies reconnects to another): random
    legal play, resigning a game (a single) at a turn with probability ``quit_rate`` so that
    matches end sooner (0: to the last checker)."""
    urls = player.ws_urls()
    client = MatchClient(urls[0], match, token, fallback_urls=urls[1:], rng=rng)
    try:
        async with client:
            if quit_rate or think:
                await play_briefly(client, rng, quit_rate, think)
            else:
                await play_random(client, rng, double_rate=0.0, timeout=120)
    except ClientClosed:
        if client.tracker.over is None:
            raise


async def play_briefly(
    client: MatchClient, rng: random.Random, quit_rate: float, think: float = 0.0
) -> None:
    """Random legal play in which, at each of its turns, the seat resigns the game (a single)
    with probability ``quit_rate``; a resignation offered to it is accepted. No doubling.
    Before each decision it waits a random time of mean ``think`` seconds (uniform on
    [0, 2 × think])."""
    seat = client.seat
    assert seat is not None

    def my_turn(t: Tracker) -> bool:
        return t.over is not None or t.owes(seat) in PLAYER_DECISIONS

    while True:
        await client.wait_for(my_turn, 120)
        t = client.tracker
        if t.over is not None:
            return
        owed, version = t.owes(seat), t.version
        if think:
            await asyncio.sleep(rng.uniform(0, 2 * think))
        reply = None
        if owed in ("decide", "move") and rng.random() < quit_rate:
            reply = await client.resign(1)
            if isinstance(reply, m.Reject):
                reply = None  # (a level it may not offer now): play on
        if reply is None:
            if owed == "decide":
                reply = await client.roll()
            elif owed == "move":
                assert t.dice is not None
                plays = legal_plays(t.position(seat), *t.dice)
                reply = await client.move(rng.choice(plays).moves if plays else ())
            elif owed == "take":
                reply = await client.take()
            elif owed == "resign":
                reply = await client.answer_resignation(True)
            else:
                continue
        if isinstance(reply, m.Reject):
            raise RuntimeError(f"the server refused a legal action: {reply}")
        await client.wait_for(lambda t, v=version: t.version > v or t.over is not None, 120)
