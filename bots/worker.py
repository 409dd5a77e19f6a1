"""The bot worker: plays bot seats as a client of the server, taking jobs from Redis.

Each job (:class:`bots.queue.BotSeat`) is one seat, taken from the queue by the work queue's
runner (:mod:`work.runner`): the worker connects over the WebSocket with the seat's token,
exactly like a person's browser, through :class:`protocol.client.MatchClient`, which commits to
the seat's own dice chain and reveals its links by itself. The chain secrets
live in Redis (:func:`bots.queue.secrets_key`) instead of the client's memory, so that a worker
that dies mid-game is replaced by another that resumes the seat from the same chain (see
docs/bots.md: whoever runs Redis can read a bot's secret, and still cannot predict a roll, which
needs the human's reveal too).

Decisions come from :func:`bots.policy.decide`, on a thread (bgsage releases the GIL), after a
short think time (:func:`think_time`: ``FAIRGAMMON_BOT_DELAY_MS``, never more than a tenth of
the move clock; none for a forced play, nor while the human plays fast: the page's setting,
kept under :func:`bots.queue.pace_key`).

    worker = Worker(redis_url, "ws://127.0.0.1:8000/ws")
    await worker.run()          # until cancelled (or ``stop`` is set)
"""

from __future__ import annotations

import asyncio
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
from work.lease import Timing
from work.runner import Lease, Runner, Source

log = logging.getLogger("fairgammon.bots")

OWED = PLAYER_DECISIONS
DEFAULT_DELAY_MS = 400
REMATCH_WAIT_S = 60.0
"""How long a bot stays at a finished match for its opponent to offer a rematch."""


def think_time(delay_ms: int, move_time_ms: int | None, forced: bool, fast: bool) -> float:
    """Seconds the bot lets pass between being owed a decision and answering it (the time it
    spent computing included): ``delay_ms``, at most a tenth of the move clock; nothing when
    its play is forced (a single legal play: there is nothing to think about) or when the human
    plays fast.

    >>> think_time(400, 30_000, False, False), think_time(400, 2_000, False, False)
    (0.4, 0.2)
    >>> think_time(400, 30_000, True, False), think_time(400, 30_000, False, True)
    (0.0, 0.0)
    """
    if forced or fast:
        return 0.0
    delay = delay_ms / 1000
    if move_time_ms is not None:
        delay = min(delay, move_time_ms / 10_000)  # never near the clock
    return delay


def forced(view: Tracker, seat: int, action: Decision) -> bool:
    """Whether ``action`` was the only one: a play of the only legal play of the roll."""
    if action.kind is not Action.MOVE or view.dice is None:
        return False
    return len(view.legal_plays(seat)) <= 1


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


class Worker:
    """A bot worker: the :class:`work.runner.Runner` of the bot seats' queue (up to
    ``max_games`` at once, its leases renewed every ``heartbeat_ms`` and taken over by another
    worker after ``claim_idle_ms``: ``FAIRGAMMON_BOT_CLAIM_IDLE_MS``, else
    :data:`bots.queue.CLAIM_IDLE_MS`), each seat played by :meth:`play`."""

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
        if claim_idle_ms is None:
            claim_idle_ms = int(os.environ.get("FAIRGAMMON_BOT_CLAIM_IDLE_MS")
                                or queue.CLAIM_IDLE_MS)
        self.origin = origin
        self.rematch_wait = REMATCH_WAIT_S
        self.redis = aioredis.from_url(redis_url)
        self.sync_redis = redis.Redis.from_url(redis_url)
        self.runner = Runner(
            self.redis, self.name,
            [Source(queue.SEATS, self.play, Timing(claim_idle_ms, renews=True))],
            capacity=max_games, beat_ms=heartbeat_ms, alive=queue.ALIVE, log=log)
        self.decisions: deque[float] = deque(maxlen=10_000)
        """Seconds each decision took to compute (for measurements)."""
        self.rejected: list[m.Reject] = []

    async def run(self, stop: asyncio.Event | None = None) -> None:
        log.info("bot worker %s ready", self.name)
        try:
            await self.runner.run(stop)
        finally:
            await self.redis.aclose()
            self.sync_redis.close()

    # ---------------------------------------------------------------- one seat

    async def play(self, job: queue.BotSeat, lease: Lease) -> None:
        """Play one bot seat until its match is over (reconnecting as often as it takes), then
        finish its entry and forget the seat's secrets."""
        while True:
            try:
                await self._play_once(job)
            except ClientClosed as exc:
                if exc.code == CloseCode.REPLACED:
                    log.info("bot seat %s/%s taken over elsewhere", job.match_id, job.seat)
                    if await lease.held():
                        # Still ours, so the connection that replaced us is not a worker that
                        # claimed this entry: this entry is a stale duplicate. Drop it (the
                        # secrets belong to the seat, which plays on elsewhere).
                        await lease.finish()
                    return
                if exc.code in (CloseCode.AUTH_FAILED, CloseCode.MATCH_NOT_FOUND):
                    log.warning("bot seat %s/%s is gone (%s)", job.match_id, job.seat, exc)
                    await self._finish(lease, job)
                    return
                log.warning("bot seat %s/%s closed (%s); reconnecting", job.match_id,
                            job.seat, exc)
            except (OSError, TimeoutError) as exc:
                log.warning("bot seat %s/%s: %r; reconnecting", job.match_id, job.seat, exc)
            else:
                await self._finish(lease, job)
                return
            await asyncio.sleep(1.0)

    async def _finish(self, lease: Lease, job: queue.BotSeat) -> None:
        await lease.finish()
        await self.redis.delete(queue.secrets_key(job.match_id))

    async def _play_once(self, job: queue.BotSeat) -> None:
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
                fast = await self.redis.get(queue.pace_key(job.match_id)) == queue.FAST
                move_time = t.settings.move_time if t.settings is not None else None
                wait = think_time(self.delay_ms, move_time, forced(view, seat, action), fast)
                spent = time.perf_counter() - started
                if wait > spent:
                    await asyncio.sleep(wait - spent)
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

    async def _rematch(self, client: MatchClient, job: queue.BotSeat) -> None:
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
            await queue.enqueue(self.redis, queue.BotSeat(offer.match, int(joined["seat"]),
                                                          joined["token"], job.level))

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
