"""The bot worker: plays bot seats as a client of the server, taking jobs from Redis.

Each job (:class:`bots.queue.Job`) is one seat: the worker connects over the WebSocket with the
seat's token, exactly like a person's browser, through :class:`protocol.client.MatchClient`,
which commits to the seat's own dice chain and reveals its links by itself. The chain secrets
live in Redis (:func:`bots.queue.secrets_key`) instead of the client's memory, so that a worker
that dies mid-game is replaced by another that resumes the seat from the same chain (see
docs/bots.md: whoever runs Redis can read a bot's secret, and still cannot predict a roll, which
needs the human's reveal too).

Decisions come from :func:`bots.policy.decide`, on a thread (bgsage releases the GIL), after a
short think time (``FAIRGAMMON_BOT_DELAY_MS``), never more than a tenth of the move clock.

    worker = Worker(redis_url, "ws://127.0.0.1:8000/ws")
    await worker.run()          # until cancelled (or ``stop`` is set)
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import random
import socket
import time
from collections import deque
from collections.abc import Iterator, MutableMapping
from dataclasses import replace

import redis
import redis.asyncio as aioredis

from bots import queue
from bots.levels import NAMES
from bots.policy import Decision, Offers, decide
from engine.game import Action
from protocol import messages as m
from protocol.client import ClientClosed, LobbyError, MatchClient
from protocol.client.lobby import accept_rematch, base_url
from protocol.client.tracker import Tracker
from protocol.close_codes import CloseCode
from protocol.events import PLAYER_DECISIONS

log = logging.getLogger("fairgammon.bots")

OWED = PLAYER_DECISIONS
DEFAULT_DELAY_MS = 400
REMATCH_WAIT_S = 60.0
"""How long a bot stays at a finished match for its opponent to offer a rematch."""


def delay_from_env() -> int:
    raw = os.environ.get("FAIRGAMMON_BOT_DELAY_MS", "")
    try:
        return max(0, int(raw)) if raw else DEFAULT_DELAY_MS
    except ValueError:
        return DEFAULT_DELAY_MS


class RedisSecrets(MutableMapping[str, bytes]):
    """A seat's chain secrets as a mapping kept in a Redis hash, written before they are used.

    Synchronous on purpose: :class:`MatchClient` reads and writes its secrets store inline, and
    a secret must be durable before the commitment made from it is sent. One local round trip
    per game."""

    def __init__(self, client: redis.Redis, key: str) -> None:
        self._redis = client
        self._key = key

    def __getitem__(self, name: str) -> bytes:
        value = self._redis.hget(self._key, name)
        if value is None:
            raise KeyError(name)
        return value  # type: ignore[return-value]

    def __setitem__(self, name: str, value: bytes) -> None:
        self._redis.hset(self._key, name, value)

    def __delitem__(self, name: str) -> None:
        if not self._redis.hdel(self._key, name):
            raise KeyError(name)

    def __iter__(self) -> Iterator[str]:
        return iter(k.decode() for k in self._redis.hkeys(self._key))  # type: ignore[union-attr]

    def __len__(self) -> int:
        return int(self._redis.hlen(self._key))  # type: ignore[arg-type]


class Lost(Exception):
    """Another worker owns this job now."""


class Worker:
    def __init__(
        self,
        redis_url: str,
        server_url: str,
        *,
        name: str | None = None,
        delay_ms: int | None = None,
        max_games: int = 200,
        claim_idle_ms: int | None = None,
        heartbeat_ms: int = queue.HEARTBEAT_MS,
        origin: str | None = None,
    ) -> None:
        self.redis_url = redis_url
        self.server_url = server_url
        self.name = name or f"{socket.gethostname()}-{os.getpid()}-{random.getrandbits(24):06x}"
        self.delay_ms = delay_from_env() if delay_ms is None else delay_ms
        self.max_games = max_games
        if claim_idle_ms is None:
            claim_idle_ms = int(os.environ.get("FAIRGAMMON_BOT_CLAIM_IDLE_MS")
                                or queue.CLAIM_IDLE_MS)
        self.claim_idle_ms = claim_idle_ms
        self.heartbeat_ms = heartbeat_ms
        self.origin = origin
        self.rematch_wait = REMATCH_WAIT_S
        self.redis = aioredis.from_url(redis_url)
        self.sync_redis = redis.Redis.from_url(redis_url)
        self.games: dict[bytes, asyncio.Task[None]] = {}
        self.decisions: deque[float] = deque(maxlen=10_000)
        """Seconds each decision took to compute (for measurements)."""
        self.rejected: list[m.Reject] = []

    # ---------------------------------------------------------------- the loop

    async def run(self, stop: asyncio.Event | None = None) -> None:
        await queue.ensure_group(self.redis)
        log.info("bot worker %s ready", self.name)
        try:
            while stop is None or not stop.is_set():
                await self._heartbeat()
                await self._claim_dead()
                await self._read_new()
        finally:
            for task in self.games.values():
                task.cancel()
            for task in list(self.games.values()):
                with contextlib.suppress(BaseException):
                    await task
            with contextlib.suppress(Exception):
                await self.redis.zrem(queue.ALIVE, self.name)
            await self.redis.aclose()
            self.sync_redis.close()

    async def _heartbeat(self) -> None:
        await self.redis.zadd(queue.ALIVE, {self.name: int(time.time() * 1000)})
        if not self.games:
            return
        mine = await self._owned()
        for entry_id, task in list(self.games.items()):
            if entry_id not in mine:
                task.cancel()  # claimed by another worker while we looked dead: theirs now
                self.games.pop(entry_id, None)
        running = [entry_id for entry_id in self.games if entry_id in mine]
        if running:
            # Re-claiming resets the entries' idle time: they never look abandoned. (An entry
            # of ours whose game stopped on an unexpected error is left to go idle, so that a
            # worker — maybe this one — claims it again and retries.)
            await self.redis.xclaim(queue.JOBS, queue.GROUP, self.name, 0, running,
                                    justid=True)

    async def _owned(self) -> set[bytes]:
        owned = await self.redis.xpending_range(
            queue.JOBS, queue.GROUP, min="-", max="+", count=10_000, consumername=self.name)
        return {entry["message_id"] for entry in owned}

    async def _claim_dead(self) -> None:
        room = self.max_games - len(self.games)
        if room <= 0:
            return
        _, entries, _ = await self.redis.xautoclaim(
            queue.JOBS, queue.GROUP, self.name, self.claim_idle_ms, "0-0", count=room)
        for entry_id, fields in entries:
            if fields is None:
                continue
            log.info("bot worker %s resumes %s", self.name, entry_id)
            await self._start(entry_id, fields)

    async def _read_new(self) -> None:
        room = self.max_games - len(self.games)
        if room <= 0:
            await asyncio.sleep(self.heartbeat_ms / 1000)
            return
        found = await self.redis.xreadgroup(
            queue.GROUP, self.name, {queue.JOBS: ">"}, count=room, block=self.heartbeat_ms)
        for _, entries in found or []:
            for entry_id, fields in entries:
                await self._start(entry_id, fields)

    async def _start(self, entry_id: bytes, fields: dict[bytes, bytes]) -> None:
        if entry_id in self.games:
            return
        try:
            job = queue.Job.of(fields)
        except (KeyError, ValueError):
            log.warning("bot worker %s drops a malformed job %s", self.name, entry_id)
            await self._finish(entry_id, None)
            return
        task = asyncio.create_task(self._play(entry_id, job), name=f"bot-{job.match_id}")
        self.games[entry_id] = task
        task.add_done_callback(lambda t, e=entry_id: self._done(e, t))

    def _done(self, entry_id: bytes, task: asyncio.Task[None]) -> None:
        if self.games.get(entry_id) is task:
            del self.games[entry_id]
        if not task.cancelled() and task.exception() is not None:
            log.error("bot game %s failed", entry_id, exc_info=task.exception())

    async def _finish(self, entry_id: bytes, job: queue.Job | None, secrets: bool = True) -> None:
        await self.redis.xack(queue.JOBS, queue.GROUP, entry_id)
        await self.redis.xdel(queue.JOBS, entry_id)
        if job is not None and secrets:
            await self.redis.delete(queue.secrets_key(job.match_id))

    # ---------------------------------------------------------------- one seat

    async def _play(self, entry_id: bytes, job: queue.Job) -> None:
        while True:
            try:
                await self._play_once(job)
            except ClientClosed as exc:
                if exc.code == CloseCode.REPLACED:
                    log.info("bot seat %s/%s taken over elsewhere", job.match_id, job.seat)
                    if entry_id in await self._owned():
                        # Still ours, so the connection that replaced us is not a worker that
                        # claimed this entry: this entry is a stale duplicate. Drop it (the
                        # secrets belong to the seat, which plays on elsewhere).
                        await self._finish(entry_id, job, secrets=False)
                    return
                if exc.code in (CloseCode.AUTH_FAILED, CloseCode.MATCH_NOT_FOUND):
                    log.warning("bot seat %s/%s is gone (%s)", job.match_id, job.seat, exc)
                    await self._finish(entry_id, job)
                    return
                log.warning("bot seat %s/%s closed (%s); reconnecting", job.match_id,
                            job.seat, exc)
            except (OSError, TimeoutError) as exc:
                log.warning("bot seat %s/%s: %r; reconnecting", job.match_id, job.seat, exc)
            else:
                await self._finish(entry_id, job)
                return
            await asyncio.sleep(1.0)

    async def _play_once(self, job: queue.Job) -> None:
        offers = Offers()
        rng = random.Random()
        client = MatchClient(
            self.server_url,
            job.match_id,
            job.token,
            name=NAMES[job.level],
            secrets_store=RedisSecrets(self.sync_redis, queue.secrets_key(job.match_id)),
            on_event=offers.see,
            origin=self.origin,
        )
        seat = job.seat
        await client.start()
        try:
            while True:
                await client.wait_for(
                    lambda t: t.over is not None or t.owes(seat) in OWED, timeout=None)
                t = client.tracker
                if t.over is not None:
                    await self._rematch(client, job)
                    return
                version = t.version
                started = time.perf_counter()
                # The thread works on a copy: the loop goes on applying messages meanwhile.
                view = replace(t, history=[], boards=list(t.boards))
                action = await asyncio.to_thread(decide, view, seat, job.level,
                                                 replace(offers), rng)
                self.decisions.append(time.perf_counter() - started)
                if action is None:
                    await client.wait_for(lambda t, v=version: t.version > v, timeout=None)
                    continue
                await self._think(t, time.perf_counter() - started)
                reply = await self._send(client, action)
                if isinstance(reply, m.Reject):
                    self.rejected.append(reply)
                    log.error("bot action %s refused in %s: %s", action.kind, job.match_id,
                              reply)
                    await asyncio.sleep(1.0)
                    continue
                await client.wait_for(
                    lambda t, v=version: t.version > v or t.over is not None, timeout=None)
        finally:
            await client.close()

    async def _rematch(self, client: MatchClient, job: queue.Job) -> None:
        """Stay a while at the finished match: if the opponent offers a rematch, accept it (the
        same level, the same seat) and queue it like any bot seat."""
        try:
            await client.wait_for(lambda t: t.rematch is not None, timeout=self.rematch_wait)
        except (TimeoutError, ClientClosed):
            return
        offer = client.tracker.rematch
        if offer is None or offer.by == job.seat:
            return
        try:
            joined = await accept_rematch(base_url(self.server_url), offer.match, job.token)
        except (LobbyError, OSError) as exc:
            log.warning("bot could not accept the rematch %s: %s", offer.match, exc)
            return
        # Accepting is idempotent (the same token again): a worker resuming this job after a
        # crash queues the rematch at most once.
        if await self.redis.set(queue.queued_key(offer.match), b"1", nx=True, ex=86_400):
            await queue.enqueue(self.redis, queue.Job(offer.match, int(joined["seat"]),
                                                      joined["token"], job.level))

    async def _think(self, t: Tracker, spent: float) -> None:
        delay = self.delay_ms / 1000
        if t.settings is not None:
            delay = min(delay, t.settings.move_time / 10_000)  # never near the clock
        if delay > spent:
            await asyncio.sleep(delay - spent)

    @staticmethod
    async def _send(client: MatchClient, action: Decision) -> m.Ack | m.Reject:
        kind = action.kind
        if kind is Action.ROLL:
            return await client.roll()
        if kind is Action.DOUBLE:
            return await client.double()
        if kind is Action.MOVE:
            return await client.move(action.moves)
        if kind is Action.TAKE:
            return await client.take()
        if kind is Action.DROP:
            return await client.drop_double()
        if kind is Action.BEAVER:
            return await client.beaver()
        return await client.answer_resignation(kind is Action.ACCEPT)
