"""The rest of the site for ``bench/site.py``, in one process: games against the computer, the
analysis every finished game gets, and browsers polling the pages.

* **Games against the computer**: ``games`` lanes, each playing single games (no cube) one
  after the other against the bot worker of the first server process, the levels taken in
  turn; the human seat (a ``MatchClient`` on the lanes' share of the processes) thinks a
  random time of mean ``think`` seconds before each decision, as a person would. When a game
  ends its transcript is read, and the bot's response times are taken from its server
  timestamps (as ``bench/bots_live.py``): **play**, from the bot's dice to its move accepted;
  **roll**, from the human's move accepted to the bot's roll.
* **Analysis**: from the moment the human's client saw the game end, ``analysis.json`` is
  asked as the match page asks it (every 0.5 s while pending) until the first report is
  there (**analysis**), then every 3 s until the deeper one has replaced it (**deeper**).
* **Pages**: ``browsers`` open pages, each asking the lobby's lists every 4 s (the lobby's and
  quick pairing's refresh) and the leaderboard and Top Gamer boards every 30 s (**page**: the
  time of each answer).

Talks to the coordinator over a pipe: ``go`` starts everything; ``report t0 t1 drain`` answers
the samples of the games that ended inside the window [t0, t1] (waiting up to ``drain``
seconds for their analyses); ``stop`` ends it.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections import Counter
from dataclasses import dataclass
from multiprocessing.connection import Connection
from typing import Any

from loadgen.jsonhttp import JsonClient
from protocol.client import LobbyError, MatchClient, create_match, play_random

BOT = 1
ANALYSIS_POLL = 0.5
DEEPER_POLL = 3.0
ANALYSIS_CAP = 600.0


@dataclass(frozen=True)
class LanesConfig:
    servers: tuple[str, ...]
    """Every server process (http base URLs); the first runs the bot and analysis workers."""
    games: int
    levels: tuple[str, ...]
    think: float
    browsers: int
    seed: int
    deep: bool = True


def response_times(transcript: dict[str, Any]) -> tuple[list[int], list[int]]:
    """The bot's play and roll response times (ms) in one game's transcript."""
    rolled = {r["k"]: r["t"] for r in transcript["rolls"] if r["roller"] == BOT}
    plays: list[int] = []
    rolls: list[int] = []
    last_human_move: int | None = None
    for action in transcript["actions"]:
        if action["seat"] == BOT and action["type"] == "move" and action["k"] in rolled:
            plays.append(action["t"] - rolled[action["k"]])
        elif action["seat"] == BOT and action["type"] == "roll" and last_human_move is not None:
            rolls.append(action["t"] - last_human_move)
        human_moved = action["seat"] != BOT and action["type"] == "move"
        last_human_move = action["t"] if human_moved else None
    return plays, rolls


async def create_bot_game(base: str, level: str) -> dict[str, Any]:
    """A single game against the computer at ``level`` (waiting for the bot worker to come)."""
    for _ in range(600):  # the worker announces itself a moment after the server starts
        try:
            return await create_match(base, name="Bench", mode="single_game", bot=level)
        except LobbyError as exc:
            if exc.code != "no_bots":
                raise
            await asyncio.sleep(0.1)
    raise RuntimeError("the bot worker never came up")


class Lanes:
    def __init__(self, config: LanesConfig) -> None:
        self.config = config
        self.http = [JsonClient(base, size=16) for base in config.servers]
        self.samples: dict[str, list[tuple[float, float]]] = {}
        """metric -> (monotonic time of the game's end or of the answer, value in ms)"""
        self.counters: Counter[str] = Counter()
        self.tracking: dict[str, tuple[float, asyncio.Task[None]]] = {}

    def sample(self, metric: str, at: float, ms: float) -> None:
        self.samples.setdefault(metric, []).append((at, ms))

    async def lane(self, i: int) -> None:
        c = self.config
        rng = random.Random(c.seed * 1000 + i)
        base = c.servers[i % len(c.servers)]
        ws = base.replace("http://", "ws://") + "/ws"
        level = c.levels[i % len(c.levels)]
        while True:
            try:
                created = await create_bot_game(c.servers[0], level)
                async with MatchClient(ws, created["match"], created["token"]) as human:
                    over = await play_random(
                        human, rng, double_rate=0.0, take_rate=1.0,
                        think=(0.0, 2 * c.think), timeout=600,
                    )  # fmt: skip
                ended = time.monotonic()
                if over is None:
                    self.counters["bot_game_unfinished"] += 1
                    continue
                self.counters[f"bot_games:{level}"] += 1
                match = created["match"]
                self.tracking[match] = (ended, asyncio.create_task(self.analysis(match, ended)))
                path = f"/api/matches/{match}/games/1/transcript.json"
                status, transcript = await self.http[0].get(path)
                if status != 200:
                    self.counters[f"transcript:{status}"] += 1
                    continue
                plays, rolls = response_times(transcript)
                for ms in plays:
                    self.sample("bot_play", ended, ms)
                for ms in rolls:
                    self.sample("bot_roll", ended, ms)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                self.counters[f"lane_error:{type(exc).__name__}"] += 1
                await asyncio.sleep(1.0)

    async def analysis(self, match: str, ended: float) -> None:
        """Ask for the game's analysis as the match page does; sample when each report lands."""
        path = f"/api/matches/{match}/games/1/analysis.json"
        http = self.http[hash(match) % len(self.http)]
        first = False
        while time.monotonic() - ended < ANALYSIS_CAP:
            status, doc = await http.get(path)
            if status != 200:
                self.counters[f"analysis:{status}"] += 1
                return
            if doc.get("status") == "done":
                if not first:
                    first = True
                    self.sample("analysis", ended, (time.monotonic() - ended) * 1000)
                if not self.config.deep or not doc.get("deeper"):
                    if doc.get("level") != "1-ply":
                        self.sample("deeper", ended, (time.monotonic() - ended) * 1000)
                    return
            await asyncio.sleep(DEEPER_POLL if first else ANALYSIS_POLL)
        self.counters["analysis_cap"] += 1

    async def browser(self, i: int) -> None:
        rng = random.Random(self.config.seed * 7919 + i)
        http = self.http[i % len(self.http)]
        await asyncio.sleep(rng.uniform(0, 4))  # pages opened at different moments
        beat = 0
        while True:
            paths = ["/api/matches", "/api/seeks"]
            if beat % 8 == 0:
                paths += ["/api/leaderboard", "/api/top"]
            for path in paths:
                started = time.monotonic()
                try:
                    status, _ = await http.get(path)
                    self.counters[f"page:{status}"] += status != 200
                    self.sample("page", started, (time.monotonic() - started) * 1000)
                except asyncio.CancelledError:
                    raise
                except Exception as exc:
                    self.counters[f"page_error:{type(exc).__name__}"] += 1
            beat += 1
            await asyncio.sleep(4.0)

    def report(self, t0: float, t1: float) -> dict[str, Any]:
        inside = {
            metric: [ms for at, ms in values if t0 <= at <= t1]
            for metric, values in self.samples.items()
        }
        pending = sum(
            1 for ended, task in self.tracking.values() if t0 <= ended <= t1 and not task.done()
        )
        counters = dict(self.counters)
        counters["analysis_pending_at_report"] = pending
        return {"samples": inside, "counters": counters}

    async def drained(self, t0: float, t1: float, drain: float) -> None:
        """Until every analysis of a game ended in the window has landed (or ``drain`` s)."""
        deadline = time.monotonic() + drain
        while time.monotonic() < deadline:
            waiting = [
                task
                for ended, task in self.tracking.values()
                if t0 <= ended <= t1 and not task.done()
            ]
            if not waiting:
                return
            await asyncio.wait(waiting, timeout=max(0.0, deadline - time.monotonic()))


async def serve(config: LanesConfig, pipe: Connection) -> None:
    lanes = Lanes(config)
    loop = asyncio.get_running_loop()
    tasks: list[asyncio.Task[None]] = []
    while True:
        message = await loop.run_in_executor(None, pipe.recv)
        if message[0] == "go":
            tasks += [asyncio.create_task(lanes.lane(i)) for i in range(config.games)]
            tasks += [asyncio.create_task(lanes.browser(i)) for i in range(config.browsers)]
        elif message[0] == "report":
            _, t0, t1, drain = message
            await lanes.drained(t0, t1, drain)
            pipe.send(("report", lanes.report(t0, t1)))
        elif message[0] == "stop":
            for task in [*tasks, *(t for _, t in lanes.tracking.values())]:
                task.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
            pipe.send(("stopped",))
            return


def run(config: LanesConfig, pipe: Connection) -> None:
    """The process's entry point (``multiprocessing``, spawn)."""
    asyncio.run(serve(config, pipe))
