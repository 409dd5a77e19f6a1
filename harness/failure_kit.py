"""Helpers for the failure and clock tests (tests/test_fail_*.py, tests/test_clock_*.py).

* :class:`Stack`: a private redis-server (AOF, ``appendfsync always``) and server processes on
  it that a test may kill, stop and restart on the same port;
* :class:`Table`: a match with two seated :class:`MatchClient` players and a spectator, each
  recording every message it receives;
* step-by-step play (:func:`play_until`) and the checks of what clients saw against the
  stored log (:func:`assert_saw_the_log`).

>>> count_kind([], object)
0
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack
import pytest

from engine.movegen import legal_plays
from harness.serverproc import ServerProcess
from harness.srv_support import seat_two, store_at
from protocol import messages as m
from protocol.client import MatchClient
from protocol.events import PLAYER_DECISIONS
from server.machine import commands
from server.match.history import Logged, read_log
from server.ops.redis_process import RedisProcess, free_port

HUMAN = PLAYER_DECISIONS
"""Decisions a player makes (commitments and reveals are automatic in the client)."""


# ---------------------------------------------------------------- processes


class Stack:
    """A private Redis and the server processes of one test; everything is stopped at the end."""

    def __init__(self, tmp_path: Path) -> None:
        self.redis = RedisProcess(tmp_path / "redis")
        self.servers: list[ServerProcess] = []

    def start(self) -> None:
        self.redis.start()

    def server(self, port: int | None = None, **env: str) -> ServerProcess:
        """Start a server process (on ``port``, e.g. the port of one that died)."""
        proc = ServerProcess(self.redis.url, port=port, **env)
        proc.start()
        self.servers.append(proc)
        return proc

    async def exited(self, proc: ServerProcess, timeout: float = 30) -> int:
        """Wait for ``proc`` to end by itself; its exit status."""
        assert proc.process is not None
        return await asyncio.to_thread(proc.process.wait, timeout)

    async def restart(self, proc: ServerProcess, **env: str) -> ServerProcess:
        """A fresh server process on the port of ``proc`` (which must be gone)."""
        assert not proc.alive()
        return await asyncio.to_thread(self.server, proc.port, **env)

    def close(self) -> None:
        for proc in self.servers:
            proc.kill()
        self.redis.stop()

    async def log(self, match_id: str) -> list[Logged]:
        return await stored_log(self.redis.url, match_id)


def stack_fixture() -> Any:
    """A fixture: a started :class:`Stack` for each test, stopped after it."""

    @pytest.fixture
    def fixture(tmp_path: Path) -> Iterator[Stack]:
        stack = Stack(tmp_path)
        stack.start()
        yield stack
        stack.close()

    return fixture


async def stored_log(redis_url: str, match_id: str) -> list[Logged]:
    async with store_at(redis_url) as store:
        return await read_log(store, match_id)


async def command_records(redis_url: str, match_id: str) -> list[tuple[str, Any, int]]:
    """Every transition's command record ``(kind, body, server time)`` from the log."""
    async with store_at(redis_url) as store:
        return [tuple(msgpack.unpackb(r, raw=False)) for r in await store.commands(match_id)]


async def stored_commands(redis_url: str, match_id: str) -> list[commands.Command]:
    """The seats' commands the log records, decoded (creation and timeouts left out)."""
    records = await command_records(redis_url, match_id)
    return [
        commands.recorded_command(kind, body)
        for kind, body, _ in records
        if kind not in (commands.CREATE, commands.EXPIRE)
    ]


class Cable:
    """A TCP relay to a server that a test can cut and mend, like a network outage: cutting
    drops every connection through it and refuses new ones (connection refused) until
    mended. Clients reconnect through it as they would over a real network."""

    def __init__(self, target_port: int) -> None:
        self.target_port = target_port
        self.port = free_port()
        self._server: asyncio.Server | None = None
        self._writers: set[asyncio.StreamWriter] = set()
        self.black_holed = False

    @property
    def ws(self) -> str:
        return f"ws://127.0.0.1:{self.port}/ws"

    async def mend(self) -> None:
        """(Re)open the relay; also how it starts."""
        if self._server is None:
            self._server = await asyncio.start_server(self._accept, "127.0.0.1", self.port)

    def black_hole(self) -> None:
        """From now on nothing gets through either way, and nobody is told: the connections
        stay open (no FIN, no RST), like a phone that went out of coverage."""
        self.black_holed = True

    async def cut(self) -> None:
        if self._server is not None:
            self._server.close()
            self._server = None
        for writer in list(self._writers):
            writer.transport.abort()
        self._writers.clear()

    async def _accept(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            up_reader, up_writer = await asyncio.open_connection("127.0.0.1", self.target_port)
        except OSError:
            writer.transport.abort()
            return
        self._writers |= {writer, up_writer}
        await asyncio.gather(self._pump(reader, up_writer), self._pump(up_reader, writer))
        self._writers -= {writer, up_writer}

    async def _pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while data := await reader.read(65536):
                if self.black_holed:
                    continue
                writer.write(data)
                await writer.drain()
        except OSError:
            pass
        finally:
            writer.transport.abort()


def _get_json(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


async def health(base: str) -> tuple[int, dict[str, Any]]:
    return await asyncio.to_thread(_get_json, f"{base}/healthz")


@dataclass(frozen=True)
class Offset:
    """Wall time minus the server's time, as read over HTTP."""

    ms: int
    error: int
    """Half the round trip of the reading: the true offset is within ``ms ± error``."""


async def server_offset(base: str, samples: int = 5) -> Offset:
    """The server's offset from the best of up to ``samples`` readings (the shortest round
    trip; a reading within 2 ms ends the search). Server and tests share the machine's clock,
    so half the round trip is the whole error: one reading on a loaded machine was once off by
    over 100 ms (a request sent, the answer written at once, then read late)."""
    best: Offset | None = None
    for _ in range(samples):
        before = time.time_ns() // 1_000_000
        status, body = await health(base)
        after = time.time_ns() // 1_000_000
        assert status == 200, body
        reading = Offset((before + after) // 2 - body["time"], (after - before + 1) // 2)
        if best is None or reading.error < best.error:
            best = reading
        if best.error <= 2:
            break
    assert best is not None
    return best


async def clock_credit(base: str) -> int:
    """Wall time minus the server's time (ms): the clock credit the server has granted
    (:func:`server_offset`'s best reading)."""
    return (await server_offset(base)).ms


async def metric(base: str, name: str, labels: str = "") -> float:
    """One sample from /metrics (0 when absent)."""

    def fetch() -> str:
        with urllib.request.urlopen(f"{base}/metrics", timeout=5) as response:
            return response.read().decode()

    text = await asyncio.to_thread(fetch)
    found = re.search(rf"^{re.escape(name + labels)} (\S+)$", text, re.M)
    return float(found.group(1)) if found else 0.0


# ---------------------------------------------------------------- players


@dataclass
class Seen:
    """Everything one client received, in order."""

    events: list[m.Event] = field(default_factory=list)
    acks: list[m.Ack] = field(default_factory=list)
    rejects: list[m.Reject] = field(default_factory=list)
    presence: list[m.Presence] = field(default_factory=list)
    welcomes: list[m.Welcome] = field(default_factory=list)
    probes: list[m.Probe] = field(default_factory=list)

    def __call__(self, message: m.ServerMessage) -> None:
        if isinstance(message, m.Event):
            self.events.append(message)
        elif isinstance(message, m.Ack):
            self.acks.append(message)
        elif isinstance(message, m.Reject):
            self.rejects.append(message)
        elif isinstance(message, m.Presence):
            self.presence.append(message)
        elif isinstance(message, m.Welcome):
            self.welcomes.append(message)
        elif isinstance(message, m.Probe):
            self.probes.append(message)

    def data(self, kind: type) -> list[Any]:
        return [e.data for e in self.events if isinstance(e.data, kind)]


class Table:
    """Two seated players (``a`` = seat 0, ``b`` = seat 1) and a spectator ``w`` of one match."""

    def __init__(
        self,
        ws: str,
        match_id: str,
        tokens: tuple[str, str],
        cables: tuple[Cable, Cable] | None = None,
    ) -> None:
        self.ws = ws
        self.match_id = match_id
        self.tokens = tokens
        self.cables = cables
        self.secrets: dict[str, bytes] = {}
        self.seen = {"a": Seen(), "b": Seen(), "w": Seen()}
        urls = (cables[0].ws, cables[1].ws) if cables else (ws, ws)
        self.a, self.b = (
            MatchClient(url, match_id, token, secrets_store=self.secrets, on_event=self.seen[k])
            for url, token, k in zip(urls, tokens, "ab", strict=True)
        )
        self.w = MatchClient(ws, match_id, on_event=self.seen["w"])

    @classmethod
    async def open(cls, proc: ServerProcess, cables: bool = False, **options: Any) -> Table:
        """Create a match through the lobby (``options``: mode, length, clock...) and join it.
        With ``cables`` each seat reaches the server through its own :class:`Cable`."""
        seated = await seat_two(proc.base, **options)
        if not cables:
            return cls(proc.ws, seated.match_id, seated.tokens)
        pair = (Cable(proc.port), Cable(proc.port))
        for cable in pair:
            await cable.mend()
        return cls(proc.ws, seated.match_id, seated.tokens, pair)

    async def __aenter__(self) -> Table:
        await asyncio.gather(self.a.start(), self.b.start(), self.w.start())
        return self

    async def __aexit__(self, *exc: object) -> None:
        await asyncio.gather(self.a.close(), self.b.close(), self.w.close())
        for cable in self.cables or ():
            await cable.cut()

    async def quiet(self, stack: Stack, timeout: float = 20) -> list[Logged]:
        """Wait until nothing more happens by itself, and return the stored log then: both seats
        have nothing left to send or hear back (a seat's client commits and reveals by itself
        after the other's move), and every client has received every stored event. A test that
        closes the table right after a move would otherwise race the commit that move sets off."""
        while True:
            await asyncio.gather(*(c.settled(timeout) for c in self.seats))
            log = await stack.log(self.match_id)
            last = log[-1].v
            await until(
                lambda last=last: all(
                    s.events and s.events[-1].v >= last for s in self.seen.values()
                ),
                timeout,
                f"every client to receive event {last}",
            )
            if (
                all(c.core.idle for c in self.seats)
                and (await stack.log(self.match_id))[-1].v == last
            ):
                return log

    def cable(self, client: MatchClient) -> Cable:
        """The cable between a seat and the server (a table opened with ``cables``)."""
        assert self.cables is not None and client.seat is not None
        return self.cables[client.seat]

    @property
    def seats(self) -> tuple[MatchClient, MatchClient]:
        return self.a, self.b

    @property
    def clients(self) -> dict[str, MatchClient]:
        return {"a": self.a, "b": self.b, "w": self.w}

    def seat(self, n: int) -> MatchClient:
        return self.seats[n]

    def owing(self, decision: str) -> MatchClient | None:
        """The seat whose own tracker says it owes ``decision`` now, if any."""
        return next((c for c in self.seats if c.owes() == decision), None)

    def other(self, client: MatchClient) -> MatchClient:
        return self.b if client is self.a else self.a

    def seen_by(self, client: MatchClient) -> Seen:
        return next(self.seen[k] for k, c in self.clients.items() if c is client)


async def until(predicate: Callable[[], bool], timeout: float = 20, what: str = "") -> None:
    """Poll ``predicate`` until it holds (raises TimeoutError naming ``what``)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        if loop.time() > deadline:
            raise TimeoutError(f"still waiting for {what or predicate}")
        await asyncio.sleep(0.01)


def a_play(client: MatchClient, rng: random.Random) -> tuple[tuple[int, int], ...]:
    """A random legal play for the dice ``client`` must move now."""
    t = client.tracker
    assert client.seat is not None and t.dice is not None
    plays = legal_plays(t.position(client.seat), *t.dice)
    return rng.choice(plays).moves if plays else ()


async def decide(client: MatchClient, rng: random.Random) -> m.Ack | m.Reject:
    """Make the decision ``client`` owes: roll (never double), a random play, take, refuse a
    resignation."""
    owed = client.owes()
    if owed == "decide":
        return await client.roll()
    if owed == "move":
        return await client.move(a_play(client, rng))
    if owed == "take":
        return await client.take()
    if owed == "resign":
        return await client.answer_resignation(False)
    raise AssertionError(f"{owed!r} is not a decision")


async def play_until(
    seats: tuple[MatchClient, MatchClient],
    stop: Callable[[], bool],
    rng: random.Random | None = None,
    timeout: float = 30,
) -> None:
    """Both seats play (one decision at a time) until ``stop()`` holds."""
    rng = rng or random.Random(0)

    async def playing() -> None:
        while not stop():
            client = next((c for c in seats if c.owes() in HUMAN), None)
            if client is None:
                await asyncio.sleep(0.01)
                continue
            version = client.tracker.version
            reply = await decide(client, rng)
            assert isinstance(reply, m.Ack), reply
            await client.wait_for(lambda t, v=version: t.version > v)

    await asyncio.wait_for(playing(), timeout)


# ---------------------------------------------------------------- checks


def count_kind(log: list[Logged], kind: type) -> int:
    return sum(isinstance(e.data, kind) for e in log)


def assert_saw_the_log(seen: Seen, log: list[Logged]) -> None:
    """The client received a gap-free, duplicate-free run of the stored events, each equal to
    the stored one, up to the end of the log (so: every event exactly once)."""
    versions = [e.v for e in seen.events]
    assert versions, "the client saw no event"
    assert versions == list(range(versions[0], versions[0] + len(versions))), versions
    stored = {e.v: e.data for e in log}
    assert versions[-1] == log[-1].v, (versions[-1], log[-1].v)
    for event in seen.events:
        assert stored[event.v] == event.data, (event.v, event.data, stored.get(event.v))
