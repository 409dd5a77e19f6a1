"""One load-generator process: sets up its share of the matches through the lobby, holds
their connections (two seats and any spectators per match) and plays them at the pace.

It talks to the coordinating process (``bench/load.py``) over a pipe: it reports ``setup``
and ``connected``, sends ``progress`` every second, obeys ``drop`` (cut n live connections at
random: they reconnect and resume) and ``report`` (the samples taken inside a time window),
and ends on ``stop``.
"""

from __future__ import annotations

import asyncio
import random
import time
from array import array
from collections import Counter
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any
from urllib.parse import urlsplit

from loadgen.bot import MatchPlay, SeatBot
from loadgen.jsonhttp import JsonClient
from loadgen.wsconn import WsConn


@dataclass(frozen=True)
class Config:
    index: int  # of this generator
    first_match: int  # global index of its first match (spreads seats over servers)
    matches: int
    servers: tuple[str, ...]  # http base URLs
    pace: float
    spectators: int
    connect_rate: float  # new connections per second, this process
    seed: int
    reconnect_cap: float = 2.0
    mode: str = "money"
    fallback: bool = False  # each bot also knows the other server(s): reconnects try the next


def ws_url(base: str) -> str:
    return "ws" + base[4:] + "/ws"


class Generator:
    def __init__(self, config: Config, pipe: Connection) -> None:
        self.config = config
        self.pipe = pipe
        self.rng = random.Random(config.seed)
        self.loop = asyncio.get_running_loop()
        self.bots: list[SeatBot] = []
        self.counters: Counter[str] = Counter()
        self.samples: dict[str, tuple[array[float], array[float]]] = {}
        self.resumes: list[tuple[float, float, float, bool]] = []
        self.commands: asyncio.Queue[tuple[Any, ...]] = asyncio.Queue()

    # ---------------------------------------------------------------- what bots call

    def count(self, what: str, n: int = 1) -> None:
        self.counters[what] += n

    def sample(self, metric: str, seconds: float) -> None:
        pair = self.samples.get(metric)
        if pair is None:
            pair = self.samples[metric] = (array("d"), array("d"))
        pair[0].append(time.monotonic())
        pair[1].append(seconds * 1000)

    def closed(self, code: int | None) -> None:
        self.count(f"closed:{code}")

    def resumed(self, bot: SeatBot, now: float) -> None:
        down = bot.down_at if bot.down_at is not None else now
        start = bot.reconnect_at if bot.reconnect_at is not None else down
        self.resumes.append((down, start, now, bot.sampled_drop))
        self.sample("resume", now - start)
        self.count("resumed")

    def connect(self, bot: SeatBot) -> None:
        if bot.stopping:
            return
        if bot.reconnect_at is None and bot.welcomes:
            bot.reconnect_at = time.monotonic()
        self.loop.create_task(self._open(bot))

    async def _open(self, bot: SeatBot) -> None:
        parts = urlsplit(bot.url)

        def factory() -> WsConn:
            # The bot knows its connection before any byte arrives on it.
            bot.conn = WsConn(bot.url, bot.on_open, bot.on_frame, bot.on_close)
            return bot.conn

        try:
            await asyncio.wait_for(
                self.loop.create_connection(factory, parts.hostname, parts.port), 10
            )
        except (OSError, TimeoutError):
            self.count("connect_failed")
            bot.connect_failed()

    # ---------------------------------------------------------------- phases

    async def setup(self) -> None:
        cfg = self.config
        clients = {base: JsonClient(base) for base in cfg.servers}
        n = len(cfg.servers)
        sem = asyncio.Semaphore(32)

        async def one(i: int) -> None:
            g = cfg.first_match + i
            home, away = cfg.servers[g % n], cfg.servers[(g + g // n) % n]
            async with sem:
                created = await clients[home].post("/api/matches", {"mode": cfg.mode, "name": "A"})
                match_id = created["match"]
                joined = await clients[away].post(f"/api/matches/{match_id}/join", {"name": "B"})
            play = MatchPlay(match_id, cfg.pace, 0.0)
            rng = random.Random(self.rng.random())
            self.bots.append(SeatBot(self, play, self.urls(home), created["token"], rng))
            self.bots.append(SeatBot(self, play, self.urls(away), joined["token"], rng))
            for s in range(cfg.spectators):
                url = cfg.servers[(g + 1 + s) % n]
                self.bots.append(SeatBot(self, play, self.urls(url), None, rng))

        await asyncio.gather(*(one(i) for i in range(cfg.matches)))
        for client in clients.values():
            await client.close()

    def urls(self, base: str) -> tuple[str, ...]:
        """A bot's server URLs: ``base``'s first, then (with ``fallback``) the others."""
        servers = self.config.servers
        if not self.config.fallback:
            return (ws_url(base),)
        i = servers.index(base)
        return tuple(ws_url(b) for b in servers[i:] + servers[:i])

    async def connect_all(self) -> None:
        interval = 1.0 / self.config.connect_rate
        start = time.monotonic()
        for i, bot in enumerate(self.bots):
            # Matches start at a random point of their pace: no synchronized rolls.
            bot.match.next_slot = start + self.rng.uniform(0, bot.match.pace) + i * interval
            self.connect(bot)
            delay = start + (i + 1) * interval - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
        while sum(b.live for b in self.bots) < len(self.bots):
            await asyncio.sleep(0.1)
            if time.monotonic() - start > 120 + len(self.bots) * interval:
                break

    def progress(self) -> dict[str, Any]:
        move = self.samples.get("move")
        return {
            "live": sum(b.live for b in self.bots),
            "bots": len(self.bots),
            "counters": dict(self.counters),
            "moves": len(move[0]) if move else 0,
            "recent_move_ms": self._recent("move", 2.0),
        }

    def _recent(self, metric: str, seconds: float) -> list[float]:
        pair = self.samples.get(metric)
        if not pair:
            return []
        times, values = pair
        since = time.monotonic() - seconds
        out = []
        for i in range(len(times) - 1, -1, -1):
            if times[i] < since:
                break
            out.append(values[i])
        return out

    def report(self, t0: float, t1: float) -> dict[str, Any]:
        window = {}
        for metric, (times, values) in self.samples.items():
            window[metric] = [v for t, v in zip(times, values, strict=True) if t0 <= t <= t1]
        return {"samples": window, "counters": dict(self.counters), "resumes": self.resumes}

    def drop(self, n: int) -> None:
        live = [b for b in self.bots if b.live]
        for bot in self.rng.sample(live, min(n, len(live))):
            bot.drop()

    async def main(self) -> None:
        self.loop.add_reader(self.pipe.fileno(), self._on_pipe)
        start = time.monotonic()
        await self.setup()
        self.pipe.send(("setup", len(self.bots), time.monotonic() - start))
        await self._expect("connect")
        start = time.monotonic()
        await self.connect_all()
        live = sum(b.live for b in self.bots)
        self.pipe.send(("connected", live, time.monotonic() - start))
        ticker = self.loop.create_task(self._tick())
        while True:
            command = await self.commands.get()
            if command[0] == "drop":
                self.drop(command[1])
            elif command[0] == "report":
                self.pipe.send(("report", self.report(command[1], command[2])))
            elif command[0] == "resumes":
                self.pipe.send(("resumes", self.resumes))
            elif command[0] == "stop":
                break
        ticker.cancel()
        for bot in self.bots:
            bot.stop()
        await asyncio.sleep(0.5)
        self.pipe.send(("stopped",))

    async def _tick(self) -> None:
        while True:
            await asyncio.sleep(1.0)
            self.pipe.send(("progress", self.config.index, self.progress()))

    async def _expect(self, name: str) -> None:
        while (await self.commands.get())[0] != name:
            pass

    def _on_pipe(self) -> None:
        try:
            command = self.pipe.recv()
        except EOFError:
            command = ("stop",)
            self.loop.remove_reader(self.pipe.fileno())
        self.commands.put_nowait(command)


def run(config: Config, pipe: Connection) -> None:
    """The process's entry point."""

    async def go() -> None:
        await Generator(config, pipe).main()

    asyncio.run(go())
