"""Support for the server integration tests (``tests/test_srv_*.py``).

Real server processes shared by a test module, raw WebSocket peers that keep every frame they
receive, matches with both seats connected, matches seeded at a chosen position, and the
check that what a client received is exactly the stored event log (no loss, no duplicate).

>>> codec.decode_from_client(action_frame("double", 3, {"game": 1}))
Double(seq=3, game=1)
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import random
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import msgpack
import pytest
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed

from engine.game import Game
from engine.match import MatchOptions
from engine.movegen import legal_plays
from harness.serverproc import ServerProcess
from protocol import codec
from protocol import events as pe
from protocol import messages as m
from protocol.client import (
    ClientClosed,
    MatchClient,
    Tracker,
    create_match,
    join_match,
    play_random,
)
from protocol.client.lobby import get
from protocol.fairdice import DEFAULT_CHAIN_LENGTH, GameId, HashChain
from protocol.limits import PROTOCOL_VERSION
from server.machine import core, serial
from server.machine.commands import Command, Commit, Join, Reveal
from server.machine.state import Config, MatchState, Phase
from server.match.clock import wall_ms
from server.match.replay import rebuild_from_store
from server.match.store import CLOCK_CREDIT, Store
from server.match.stored import command_record, summary
from server.match.tokens import token_hash
from server.ops.redis_link import RedisTarget

CHAIN = DEFAULT_CHAIN_LENGTH
"""Chain length of the seeded matches' secrets (what MatchClient uses)."""

WAIT = 10.0
"""Longest wait for one expected frame: generous, only reached when something is wrong."""


# ---------------------------------------------------------------- server processes


def empty_redis(redis_process: Any) -> None:
    """Start the session's Redis if a test stopped it, and empty it (before a server of a
    module starts on it: :func:`server_fixture`)."""
    import redis

    if not redis_process.alive():
        redis_process.start()
    client = redis.Redis.from_url(redis_process.url)
    try:
        client.flushall()
    finally:
        client.close()


def server_fixture(**env: str) -> Any:
    """A module-scoped fixture: one real server process (with ``FAIRGAMMON_*`` settings in
    ``env``) for every test of a module. Matches are independent, so tests can share it.

    The session's Redis is emptied before the server starts: what an earlier module stored
    (an account named ``ann``, say) would otherwise meet this one's tests, depending on which
    modules ran before on the same worker. Above all its clock: a server started on the last
    heartbeat of an earlier module's server credits the time since (the modules between) to
    its clock (:mod:`server.match.clock`), and the first test's emptying of Redis then takes
    that credit back, moving server time on by as much at once, so that a deadline set in
    between expires early (two full runs lost a match to a ``no_reveal`` forfeit that way)."""

    @pytest.fixture(scope="module")
    def fixture(redis_process: Any) -> Iterator[ServerProcess]:
        empty_redis(redis_process)
        proc = ServerProcess(redis_process.url, **env)
        proc.start()
        yield proc
        proc.stop()

    return fixture


async def move_clock(server: ServerProcess, redis_url: str, seconds: float) -> None:
    """Move the server clock on: server time is wall time minus the credit kept in Redis,
    which every heartbeat (250 ms) reads back. Returns once ``server`` tells the moved time."""
    before = (await get(server.base, "/healthz"))["time"]
    async with store_at(redis_url) as store:
        await store.redis.decrby(CLOCK_CREDIT, int(seconds * 1000))
    for _ in range(100):
        if (await get(server.base, "/healthz"))["time"] >= before + seconds * 1000:
            return
        await asyncio.sleep(0.05)
    raise AssertionError("the server clock did not move")


# ---------------------------------------------------------------- raw peers


class Peer:
    """A raw WebSocket connection that records every frame it receives (bytes and decoded).

    It speaks no protocol by itself — tests send exactly the bytes they want — except that it
    answers each ``probe`` with its ``echo`` (as every client must, or be closed 4010) unless
    ``echo`` is off."""

    def __init__(self, ws: ClientConnection, echo: bool = True) -> None:
        self.ws = ws
        self.echo = echo
        self.raw: list[bytes] = []
        self.messages: list[m.ServerMessage] = []
        self._arrived = asyncio.Condition()
        self._done = False
        self._reader = asyncio.create_task(self._read())

    @classmethod
    async def open(
        cls, url: str, origin: str | None = None, client: str | None = None
    ) -> Peer:
        """A connection to ``url``; ``client``: the ``X-Forwarded-For`` a proxy would add (for
        a server that trusts 127.0.0.1 as its proxy, the client address it then sees)."""
        ws = await connect(
            url,
            origin=origin,
            compression=None,
            max_size=1 << 20,
            open_timeout=5,  # type: ignore[arg-type]
            additional_headers={"X-Forwarded-For": client} if client else None,
        )
        return cls(ws)

    async def _read(self) -> None:
        try:
            async for frame in self.ws:
                assert isinstance(frame, bytes), f"the server sent a text frame: {frame!r}"
                self.raw.append(frame)
                message = codec.decode_from_server(frame)
                self.messages.append(message)
                if self.echo and isinstance(message, m.Probe):
                    # A probe answered while the server closes: the frames it sent before its
                    # close (the closing error) are still to be read.
                    with contextlib.suppress(ConnectionClosed):
                        await self.ws.send(codec.encode(m.Echo(message.t)))
                async with self._arrived:
                    self._arrived.notify_all()
        except ConnectionClosed:
            pass
        finally:
            self._done = True
            async with self._arrived:
                self._arrived.notify_all()

    async def send(self, frame: bytes | str) -> None:
        await self.ws.send(frame)

    async def send_msg(self, message: m.ClientMessage) -> None:
        await self.ws.send(codec.encode(message))

    async def hello(
        self, match_id: str, token: str | None = None, last_v: int | None = None
    ) -> m.Welcome:
        await self.send_msg(m.Hello(PROTOCOL_VERSION, match_id, token, last_v, None))
        return await self.next(m.Welcome)

    async def wait(self, predicate: Callable[[], bool], timeout: float = WAIT) -> None:
        async def waiting() -> None:
            async with self._arrived:
                while not predicate():
                    assert not self._done, f"closed ({self.ws.close_code}) while waiting"
                    await self._arrived.wait()

        await asyncio.wait_for(waiting(), timeout)

    async def next(
        self, kind: type, where: Callable[[Any], bool] = lambda _: True, start: int = 0
    ) -> Any:
        """The first message (from index ``start``) of type ``kind`` that ``where`` accepts."""

        def found() -> Any:
            return next(
                (x for x in self.messages[start:] if isinstance(x, kind) and where(x)), None
            )

        await self.wait(lambda: found() is not None)
        return found()

    async def reply(self, frame: bytes, seq: int | None = None) -> m.Ack | m.Reject:
        """Send ``frame`` and return the server's answer to it (an ack or a reject; ``seq``
        is the frame's seq as the server will read it, None when it cannot)."""
        start = len(self.messages)
        await self.send(frame)
        return await self.next(m.Ack | m.Reject, lambda x: x.seq == seq, start)

    async def sync(self) -> None:
        """Ping and wait for the pong: every frame sent before has been handled."""
        t = secrets.randbelow(1 << 40)
        start = len(self.messages)
        await self.send_msg(m.Ping(t))
        await self.next(m.Pong, lambda x: x.t == t, start)

    async def through_the_channel(self, room: str = "players") -> None:
        """A barrier for what the match channel carries: say a line in ``room`` (this
        connection's own: ``players`` for a seat, ``spectators`` for a spectator) and wait for it
        to come back, then :meth:`sync`. The line goes out on the match channel, so every note
        published there before it (a takeover, presence, another line) has reached this
        connection's server process first, and whatever that made the process send this
        connection has arrived."""
        start = len(self.messages)
        text = f"barrier {secrets.token_hex(4)}"
        await self.send_msg(m.ChatSend(room, text, None))  # type: ignore[arg-type]
        await self.next(m.Chat, lambda x: x.text == text, start)
        await self.sync()

    async def closed(self, timeout: float = WAIT) -> int | None:
        """Wait for the server to close the connection; its close code."""
        await asyncio.wait_for(asyncio.shield(self._reader), timeout)
        return self.ws.close_code

    async def close(self) -> None:
        with contextlib.suppress(Exception):
            await self.ws.close()
        self._reader.cancel()
        with contextlib.suppress(BaseException):
            await self._reader


# ---------------------------------------------------------------- recording clients


@dataclass
class Recorder:
    """Every message a client (or a succession of clients for one seat) received, in order;
    pass it as ``on_event``."""

    messages: list[m.ServerMessage] = field(default_factory=list)

    def __call__(self, message: m.ServerMessage) -> None:
        self.messages.append(message)

    def frames(self) -> list[bytes]:
        """The messages as bytes (the codec is strict and deterministic: decoding keeps every
        field, so these are the bytes that were received)."""
        return [codec.encode(x) for x in self.messages]

    def acks(self, seq: int) -> list[m.Ack]:
        return [x for x in self.messages if isinstance(x, m.Ack) and x.seq == seq]

    def replies(self, seq: int) -> list[m.Ack | m.Reject]:
        return [x for x in self.messages if isinstance(x, m.Ack | m.Reject) and x.seq == seq]


def closing_error(messages: list[m.ServerMessage]) -> str:
    """The code of the ``error`` a closed connection was told: its one error, and the last
    frame it got (nothing of the match follows it)."""
    errors = [x for x in messages if isinstance(x, m.Error)]
    assert len(errors) == 1 and messages[-1] is errors[0], messages
    return errors[0].code


def contains(message: m.ServerMessage, needle: bytes) -> bool:
    """Whether ``needle`` appears anywhere in the frame of ``message``."""
    return needle in codec.encode(message)


@contextlib.asynccontextmanager
async def store_at(redis_url: str | RedisTarget) -> AsyncIterator[Store]:
    """A :class:`Store` on ``redis_url`` (or a cluster's :class:`RedisTarget`), closed on
    leaving the block."""
    store = Store.connect(redis_url)
    try:
        yield store
    finally:
        await store.close()


async def stored_frames(redis_url: str | RedisTarget, match_id: str) -> dict[int, bytes]:
    """The stored event log: version -> the event's frame."""
    async with store_at(redis_url) as store:
        return {v: f[b"e"] for v, f in await store.log_entries(match_id)}


async def stored_version(redis_url: str | RedisTarget, match_id: str) -> int:
    async with store_at(redis_url) as store:
        version = await store.version(match_id)
    assert version is not None
    return version


async def stored_state(redis_url: str | RedisTarget, match_id: str) -> MatchState:
    async with store_at(redis_url) as store:
        stored = await store.load(match_id)
    assert stored is not None
    return serial.loads(MatchState, stored.state)


async def assert_log_replays(redis_url: str | RedisTarget, match_id: str) -> None:
    """The stored log of the match replays to its stored state."""
    async with store_at(redis_url) as store:
        stored = await store.load(match_id)
        assert stored is not None
        assert await rebuild_from_store(store, match_id) == serial.loads(MatchState, stored.state)


def check_stream(
    messages: list[m.ServerMessage], log: dict[int, bytes], *, complete: bool = True
) -> int:
    """Check what one seat's client(s) received against the stored log: every event is the
    stored frame of its version, byte for byte; versions follow each other without a gap or a
    repeat, except that a snapshot (after a welcome) may jump forward, never back. With
    ``complete`` the stream reaches the last stored event. Returns the number of events."""
    assert sorted(log) == list(range(1, len(log) + 1)), "the stored log has gaps"
    due: int | None = None  # the version the next event must have
    welcomed = False
    events = 0
    for msg in messages:
        if isinstance(msg, m.Welcome):
            welcomed = True
        elif isinstance(msg, m.Snapshot):
            assert welcomed, "a snapshot before any welcome"
            assert due is None or msg.v >= due - 1, f"snapshot at {msg.v} went back from {due}"
            due = msg.v + 1
        elif isinstance(msg, m.Event):
            assert due is not None, "an event before the snapshot"
            assert msg.v == due, f"event {msg.v} received where {due} was due"
            assert codec.encode(msg) == log[msg.v], f"event {msg.v} differs from the stored one"
            due += 1
            events += 1
    if complete:
        assert due == len(log) + 1, f"stream ended at {due} of {len(log)}"
    return events


# ---------------------------------------------------------------- matches


@dataclass
class Seated:
    match_id: str
    tokens: tuple[str, str]
    secrets: tuple[dict[str, bytes], dict[str, bytes]] = field(default_factory=lambda: ({}, {}))

    def client(self, url: str, seat: int | None, **kw: Any) -> MatchClient:
        """A client for ``seat`` (None: a spectator) keeping its secrets in this match's
        store for the seat, so a later client for the seat can take over its chains."""
        if seat is None:
            return MatchClient(url, self.match_id, **kw)
        kw.setdefault("secrets_store", self.secrets[seat])
        return MatchClient(url, self.match_id, self.tokens[seat], **kw)

    async def peer(self, url: str, seat: int) -> Peer:
        """A raw :class:`Peer` on ``url`` that said hello with ``seat``'s token and was welcomed."""
        peer = await Peer.open(url)
        await peer.hello(self.match_id, self.tokens[seat])
        return peer

    def recorded(self, *places: tuple[str, int | None]) -> tuple[list[MatchClient], list[Recorder]]:
        """A client for each ``(url, seat)`` (seat None: a spectator), each recording what it
        receives: the clients and their recorders, in the order of ``places``."""
        logs = [Recorder() for _ in places]
        pairs = zip(places, logs, strict=True)
        return [self.client(url, seat, on_event=log) for (url, seat), log in pairs], logs


def doing(client: MatchClient) -> dict[str, Any]:
    """What a client's seat core was doing (for a failure's message)."""
    core, t = client.core, client.tracker
    return {
        "seat": client.seat,
        "version": t.version,
        "welcome_v": core.welcome_v,
        "clock": t.clock,
        "game_k": (t.game, t.k),
        "pending": [
            (p.ticket, p.state, p.build, p.auto, p.seq, type(p.message).__name__)
            for p in core._pending.values()
        ],
        "welcomed": core.welcomed,
        "caught_up": core.caught_up,
        "held": {g: (h.n, h.chain.length) if h else None for g, h in core._held.items()},
        "current": core._current() if core.seat is not None else None,
        "asked": sorted(core._asked),
        "owes": t.owes(client.seat) if client.seat is not None else None,
        "recommits": t.recommits,
        "done": sorted(core._done)[-6:],
        "last": [type(d).__name__ for d in t.history[-8:]],
        "welcomes": client.welcomes,
    }


async def seat_two(base: str, **options: Any) -> Seated:
    """A match created and joined through the lobby."""
    created = await create_match(base, name="Ann", **options)
    joined = await join_match(base, created["match"], name="Bob")
    return Seated(created["match"], (created["token"], joined["token"]))


async def check_seat_taken_over(
    seated: Seated, urls: tuple[str, str, str], opened: Callable[[Tracker], bool]
) -> None:
    """Seat 0 connects (on ``urls[0]``) without committing; a second client for the seat (on
    ``urls[1]``) takes it over while seat 1 (on ``urls[2]``) joins: the first is closed with
    4003 and told ``replaced``, and the second, welcomed once, controls the seat: its
    commitment opens the game (``opened`` holds for its tracker)."""
    first_log = Recorder()
    first = seated.client(urls[0], 0, auto_commit=False, on_event=first_log)
    await first.start()
    second = seated.client(urls[1], 0)
    b = seated.client(urls[2], 1)
    async with second, b:
        with pytest.raises(ClientClosed) as closed:
            await first.wait_for(lambda t: False, timeout=10)
        assert closed.value.code == 4003
        assert closing_error(first_log.messages) == "replaced"
        await second.wait_for(opened)
        assert second.welcomes == 1
    await first.close()


def legal(client: MatchClient) -> tuple[tuple[int, int], ...]:
    """A legal play of the dice ``client`` has to play (the first the generator lists)."""
    t = client.tracker
    assert client.seat is not None and t.dice is not None
    plays = legal_plays(t.position(client.seat), *t.dice)
    return plays[0].moves if plays else ()


async def first_mover(a: MatchClient, b: MatchClient) -> tuple[MatchClient, MatchClient]:
    """Once the roll-off is decided and both clients know it: (the seat on move, the other)."""
    await a.wait_for(lambda t: t.clock.phase == "move" and t.clock.seats != ())
    mover, other = (a, b) if a.owes() == "move" else (b, a)
    await mover.wait_for(lambda t: mover.owes() == "move")
    await other.wait_for(lambda t: t.version >= mover.tracker.version)
    return mover, other


async def crash(client: MatchClient) -> None:
    """The client's program dies: its connection is cut and nothing is sent again."""
    client.reconnect = False
    await client.drop()
    await client.close()


async def to_move(client: MatchClient, timeout: float = WAIT) -> bool:
    """Roll until ``client`` owes a move (a roll may pass the turn); False if the match ended."""
    seat = client.seat
    while True:
        await client.wait_for(
            lambda t: t.over is not None or t.owes(seat) in ("decide", "move"), timeout
        )
        if client.tracker.over is not None:
            return False
        if client.owes() == "move":
            return True
        v = client.tracker.version
        reply = await client.roll()
        assert isinstance(reply, m.Ack), reply
        await client.wait_for(lambda t, v=v: t.version > v and t.clock.seats != (), timeout)


async def play_out(*seats: MatchClient, seed: int, timeout: float = 90) -> list[Any]:
    """The seats play on to the end of the match, each with ``play_random`` and its own
    generator drawn from ``seed``; their results, in order."""
    rng = random.Random(seed)
    return await asyncio.wait_for(
        asyncio.gather(*(play_random(c, random.Random(rng.random())) for c in seats)),
        timeout=timeout,
    )


async def refused(reply: Awaitable[m.Ack | m.Reject], code: str) -> m.Reject:
    """The answer to an action, which must be a reject with ``code``."""
    answer = await reply
    assert isinstance(answer, m.Reject), answer
    assert answer.code == code, answer
    return answer


async def accepted(reply: Awaitable[m.Ack | m.Reject]) -> m.Ack:
    answer = await reply
    assert isinstance(answer, m.Ack), answer
    return answer


async def rejected(client: MatchClient, send: Callable[[], Awaitable[Any]]) -> m.Reject:
    """Run ``send`` (which sends one raw frame) and return the reject it earns."""
    n = len(client.rejects)
    await send()
    await client.wait_for(lambda _: len(client.rejects) > n, WAIT)
    return client.rejects[n]


def action_frame(kind: str, seq: int | None, payload: Any) -> bytes:
    """Any action-shaped frame, valid or not (raw msgpack, no schema check)."""
    return msgpack.packb({"t": kind, "s": seq, "p": payload}, use_bin_type=True)


# ---------------------------------------------------------------- seeded positions


async def seed_match(
    redis_url: str,
    options: MatchOptions,
    edit: Callable[[Game], Game],
    clock_ms: int = 30_000,
) -> Seated:
    """A match stored in Redis as the server would have stored it, then put at a chosen
    position: it is created, joined, committed and rolled off through the pure machine (each
    transition stored with its events, like the match service does), then ``edit`` replaces
    the game (boards, dice, cube, phase) and the state is stored again without an event.

    Random dice cannot reach rare positions (bar entry, bear-off, only-one-die plays) on
    demand; this puts the server's rule checks in front of them. The seats' chains are real
    (their secrets are in the returned stores), so the match can be played on from there."""
    store = Store.from_url(redis_url)
    try:
        now = wall_ms() - int(await store.redis.get(CLOCK_CREDIT) or 0)
        match_id = secrets.token_hex(16)
        seeded = Seated(match_id, (secrets.token_urlsafe(32), secrets.token_urlsafe(32)))
        chains = []
        for seat in (0, 1):
            secret = os.urandom(32)
            seeded.secrets[seat][f"{match_id}/1/{seat}"] = secret
            game_id = GameId(bytes.fromhex(match_id), 1)
            chains.append(HashChain(secret, game_id, seat, length=CHAIN))
        config = Config(options, clock_ms=clock_ms)
        state, events = core.create(match_id, config, "Ann", now)
        tokens = {str(s): token_hash(t) for s, t in enumerate(seeded.tokens)}
        await store_transition(store, -1, state, events, config, now, tokens)
        state = await apply_and_store(store, state, Join(1, name="Bob"), now)
        for seat in (0, 1):
            commit = Commit(seat, 1, game=1, commitment=chains[seat].commitment)
            state = await apply_and_store(store, state, commit, now)
        seq, k = 1, 1
        while state.phase is Phase.ROLLOFF:
            seq += 1
            for seat in (0, 1):
                link = chains[seat].link(k)
                reveal = Reveal(seat, seq, game=1, k=k, reveal=link)
                state = await apply_and_store(store, state, reveal, now)
            k += 1
        game = state.match.game
        assert game is not None
        state = replace(state, match=replace(state.match, game=edit(game)), deadline=now + clock_ms)
        await store_transition(store, state.version, state, (), None, now)
        await store.index(
            match_id, open_since=None, live_since=state.created,
            deadline=state.deadline + config.grace_ms + 1,
        )  # fmt: skip
        return seeded
    finally:
        await store.close()


async def apply_and_store(
    store: Store, state: MatchState, command: Command, now: int
) -> MatchState:
    """Apply ``command`` through the pure machine and store the transition; the new state."""
    outcome = core.apply(state, command, now)
    assert isinstance(outcome, core.Accepted), outcome
    await store_transition(store, state.version, outcome.state, outcome.events, command, now)
    return outcome.state


async def store_transition(
    store: Store,
    version: int,
    state: MatchState,
    events: tuple[m.Event, ...],
    command: Command | Config | None,
    now: int,
    seat_fields: dict[str, bytes] | None = None,
) -> None:
    """Store one transition with its events and command record, as the match service does."""
    await store.commit(
        state.match_id,
        version,
        serial.dumps(state),
        msgpack.packb(summary(state), use_bin_type=True),
        [codec.encode(e) for e in events],
        seat_fields=seat_fields,
        command=command_record(command, now, state.names[0]),
    )


def check_barrier(messages: list[m.ServerMessage]) -> int:
    """The reveal barrier, as one client saw it: every revealed link appears for the first
    time in the ``dice`` event of its roll, never in an earlier frame (a held reveal, a
    snapshot, an ack...). Returns the number of dice events checked."""
    frames = [codec.encode(x) for x in messages]
    rolls = 0
    for i, msg in enumerate(messages):
        if isinstance(msg, m.Event) and isinstance(msg.data, pe.Dice):
            for link in (msg.data.reveal0, msg.data.reveal1):
                first = next(j for j, f in enumerate(frames) if link in f)
                assert first == i, f"roll {msg.data.k}'s link reached the client early: {first}"
            rolls += 1
    return rolls
