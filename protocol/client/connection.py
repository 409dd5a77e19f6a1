"""An asyncio client for one seat (or a spectator) of one match.

It connects, authenticates, tracks the match from events (:class:`protocol.client.Tracker`),
reconnects with resume after a drop, keeps the seat's dice chains and reveals automatically,
and lets a program act and wait for the server's answer::

    async with MatchClient(url, match_id, token) as client:
        await client.wait_for(lambda t: client.owes() == "decide")
        reply = await client.roll()          # Ack or Reject
        ...

Sequence numbers are per seat and survive reconnects; an action the server has not answered
when the connection drops is sent again after the welcome unless the welcome says it was applied.
With ``fallback_urls`` (other processes serving the same Redis) every reconnect tries the next
URL in turn, so a client of a killed process carries on with another one.

A client whose ``secrets_store`` does not hold the seat's dice secret (another device, a lost
store) re-commits a fresh chain between rolls by itself (docs/fairness.md, section 7) and
never sends a reveal it knows to be wrong.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import Callable, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus

from protocol import codec
from protocol import messages as m
from protocol.client.tracker import Tracker
from protocol.close_codes import CloseCode
from protocol.errors import ErrorCode
from protocol.fairdice import GameId, HashChain
from protocol.fairdice.commitments import MAX_RECOMMITMENTS

Reply = m.Ack | m.Reject

MAX_BACKOFF = 2.0
"""Seconds: the longest pause between reconnection attempts after a failure."""
RESTART_SPREAD = 0.5
"""Seconds: clients told of a restart (close 1012) come back spread over this."""
RESTART_RETRY = 0.25
"""Seconds: the pause between attempts while a restarting server is not up yet."""

# Clock phases between two rolls: a re-commitment is accepted then (docs/fairness.md, 7).
BETWEEN_ROLLS = ("decide", "move", "take", "resign")

# Close codes after which reconnecting cannot help.
FINAL_CLOSES = {
    CloseCode.AUTH_FAILED,
    CloseCode.MATCH_NOT_FOUND,
    CloseCode.UNSUPPORTED_VERSION,
    CloseCode.REPLACED,
    CloseCode.PROTOCOL_VIOLATION,
}


_TRY_AGAIN = {ErrorCode.RATE_LIMITED, ErrorCode.RETRY_LATER}


def next_url(urls: Sequence[str], current: str) -> str:
    """The URL to reconnect to after ``current`` failed: the next one, round the list.

    >>> next_url(("ws://a/ws", "ws://b/ws"), "ws://a/ws"), next_url(("ws://a/ws",), "ws://a/ws")
    ('ws://b/ws', 'ws://a/ws')
    >>> next_url(("ws://a/ws", "ws://b/ws"), "ws://b/ws")
    'ws://a/ws'

    A URL set by hand (not in the list) is kept.

    >>> next_url(("ws://a/ws",), "ws://c/ws")
    'ws://c/ws'
    """
    if current not in urls:
        return current
    return urls[(urls.index(current) + 1) % len(urls)]


class ClientClosed(Exception):
    """The client stopped for good (``code``: the close code that ended it)."""

    def __init__(self, code: int | None, reason: str = "") -> None:
        super().__init__(f"connection ended ({code}): {reason}")
        self.code = code
        self.reason = reason


@dataclass
class _Pending:
    message: m.ClientMessage
    reply: asyncio.Future[Reply]


class MatchClient:
    """One seat's (``token``) or a spectator's (no token) connection to a match."""

    def __init__(
        self,
        url: str,
        match_id: str,
        token: str | None = None,
        *,
        name: str | None = None,
        secrets_store: MutableMapping[str, bytes] | None = None,
        auto_reveal: bool = True,
        auto_commit: bool = True,
        origin: str | None = None,
        reconnect: bool = True,
        chain_length: int = 1024,
        on_event: Callable[[m.ServerMessage], None] | None = None,
        fallback_urls: Sequence[str] = (),
    ) -> None:
        self.url = url
        self.urls = (url, *fallback_urls)
        self.match_id = match_id
        self.token = token
        self.name = name
        self.secrets = secrets_store if secrets_store is not None else {}
        self.auto_reveal = auto_reveal
        self.auto_commit = auto_commit
        self.origin = origin
        self.reconnect = reconnect
        self.chain_length = chain_length
        self.on_event = on_event
        self.tracker = Tracker()
        self.seat: int | None = None
        self.seq = 0
        self.welcomes = 0
        self.presence: dict[int, str] = {}
        self.watchers = 0
        self.rejects: list[m.Reject] = []
        self.errors: list[m.Error] = []
        self._pending: dict[int, _Pending] = {}
        self._chains: dict[int, HashChain] = {}
        self._ws: ClientConnection | None = None
        self._task: asyncio.Task[None] | None = None
        self._changed = asyncio.Condition()
        self._connected = asyncio.Event()
        self._closed: ClientClosed | None = None
        self._auto_sent: set[tuple[str, int, int]] = set()
        self._commits: dict[int, asyncio.Future[Reply]] = {}
        self.recommit_replies: list[Reply] = []
        """The server's answers to this client's re-commitments, in order."""
        self._recommitting: dict[int, asyncio.Future[Reply]] = {}
        self.drop_next = False

    # ---------------------------------------------------------------- lifecycle

    async def __aenter__(self) -> MatchClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def start(self, timeout: float = 10.0) -> None:
        """Connect and wait for the welcome (raises :class:`ClientClosed` if refused)."""
        self._task = asyncio.create_task(self._run())
        waiter = asyncio.create_task(self._connected.wait())
        done, _ = await asyncio.wait({waiter, self._task}, timeout=timeout,
                                     return_when=asyncio.FIRST_COMPLETED)  # fmt: skip
        if waiter not in done:
            waiter.cancel()
            if self._task in done:
                self._task.result()
            raise TimeoutError("no welcome from the server")

    async def close(self) -> None:
        self.reconnect = False
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, ClientClosed, Exception):
                await self._task

    async def drop(self) -> None:
        """Cut the connection abruptly (tests: what a network failure looks like); the client
        reconnects by itself if ``reconnect`` is on."""
        self._connected.clear()
        if self._ws is not None:
            self._ws.transport.abort()  # type: ignore[attr-defined]

    async def _run(self) -> None:
        delay, cap = 0.05, MAX_BACKOFF
        while True:
            welcomes = self.welcomes
            restarting = False
            try:
                await self._session()
            except ClientClosed as exc:
                self._closed = exc
                await self._notify()
                if exc.code in FINAL_CLOSES or not self.reconnect or self.tracker.over:
                    for pending in self._pending.values():
                        if not pending.reply.done():
                            pending.reply.set_exception(exc)
                    raise
                restarting = exc.code == CloseCode.SERVICE_RESTART
            except (OSError, InvalidStatus, TimeoutError) as exc:
                if not self.reconnect:
                    self._closed = ClientClosed(None, repr(exc))
                    raise self._closed from exc
            self._connected.clear()
            self.url = next_url(self.urls, self.url)
            if self.welcomes > welcomes:
                delay, cap = 0.05, MAX_BACKOFF  # that connection worked: start afresh
            if restarting:
                # A restart, not a failure: the server is back within a second or two. Come
                # back spread over RESTART_SPREAD (not all at once), then retry at a steady
                # short interval instead of backing off past the moment it is up.
                pause = random.uniform(0, RESTART_SPREAD)
                delay = cap = RESTART_RETRY
            else:
                # Back off with jitter so that a failing server is not hit by everyone at once.
                pause = delay * (0.5 + random.random())
                delay = min(delay * 2, cap)
            await asyncio.sleep(pause)

    async def _session(self) -> None:
        async with connect(
            self.url,
            origin=self.origin,  # type: ignore[arg-type]
            compression=None,
            max_size=1 << 20,
            open_timeout=5,
            ping_interval=10,
            ping_timeout=10,
        ) as ws:
            self._ws = ws
            last_v = self.tracker.version if self.welcomes else None
            await ws.send(codec.encode(m.Hello(1, self.match_id, self.token, last_v, self.name)))
            try:
                async for frame in ws:
                    if isinstance(frame, str):
                        continue
                    await self._received(codec.decode_from_server(frame))
            except ConnectionClosed:
                pass
            finally:
                self._ws = None
            code = ws.close_code
            if code is not None and code != CloseCode.NORMAL:
                raise ClientClosed(code, ws.close_reason or "")
            if code is None:
                raise OSError("connection lost")

    # ---------------------------------------------------------------- receiving

    async def _received(self, msg: m.ServerMessage) -> None:
        if isinstance(msg, m.Welcome):
            self.welcomes += 1
            self.seat = None if msg.role == "spectator" else int(msg.role[-1])
            applied = msg.seq or 0
            self.seq = max(self.seq, applied)
            self._connected.set()
            # Resend what the server has not applied; what it applied is answered by events.
            for seq, pending in sorted(self._pending.items()):
                if seq <= applied:
                    if not pending.reply.done():
                        pending.reply.set_result(m.Ack(seq, msg.v))
                    del self._pending[seq]
                else:
                    await self._send(pending.message)
        elif isinstance(msg, m.Event | m.Snapshot):
            if isinstance(msg, m.Snapshot) and msg.v < self.tracker.version:
                # The server lost events we saw (a store failover): what we sent for them
                # automatically (commitments, reveals) may be lost too, so send it again.
                self._auto_sent.clear()
            self.tracker.apply(msg)
        elif isinstance(msg, m.Ack | m.Reject):
            if isinstance(msg, m.Reject):
                self.rejects.append(msg)
            pending = self._pending.pop(msg.seq, None) if msg.seq is not None else None
            if pending is not None and not pending.reply.done():
                pending.reply.set_result(msg)
        elif isinstance(msg, m.Probe):
            await self._send(m.Echo(msg.t))
        elif isinstance(msg, m.Presence):
            self.presence[msg.seat] = msg.status
        elif isinstance(msg, m.Watchers):
            self.watchers = msg.count
        elif isinstance(msg, m.Error):
            self.errors.append(msg)
        if self.on_event is not None:
            self.on_event(msg)
        await self._automatic()
        await self._notify()

    async def _notify(self) -> None:
        async with self._changed:
            self._changed.notify_all()

    async def wait_for(self, predicate: Callable[[Tracker], bool], timeout: float = 30) -> None:
        """Wait until ``predicate(tracker)`` holds (checked after every message)."""

        async def waiting() -> None:
            async with self._changed:
                while not predicate(self.tracker):
                    if self._closed is not None and self._task is not None and self._task.done():
                        raise self._closed
                    await self._changed.wait()

        await asyncio.wait_for(waiting(), timeout)

    # ---------------------------------------------------------------- dice

    def chain(self, game: int) -> HashChain:
        """This seat's chain for ``game``; its secret is kept in :attr:`secrets` so that a
        reconnecting (or restarted) client reveals from the same chain (after a
        re-commitment: the new one, kept as ``<key>/recommit``, secret and chain length)."""
        if game not in self._chains:
            key = self._secret_key(game)
            game_id = GameId(bytes.fromhex(self.match_id), game)
            renewed = self.secrets.get(f"{key}/recommit")
            if renewed is not None:
                secret, length = renewed[:32], int.from_bytes(renewed[32:36], "big")
            else:
                if key not in self.secrets:
                    self.secrets[key] = secrets.token_bytes(32)
                secret, length = self.secrets[key], self.chain_length
            self._chains[game] = HashChain(secret, game_id, self.seat or 0, length=length)
        return self._chains[game]

    def _secret_key(self, game: int) -> str:
        return f"{self.match_id}/{game}/{self.seat}"

    def holds_chain(self, game: int | None = None) -> bool:
        """Whether this client's chain is the one its seat published for ``game`` (its
        commitment, or its latest re-commitment) and still has links for the next roll."""
        t = self.tracker
        game = game or t.game
        seat = self.seat
        if seat is None or t.commitments[seat] is None:
            return True  # nothing published yet: the commitment will be this chain's
        chain = self.chain(game)
        if t.k > chain.length:
            return False  # run out
        latest = t.recommitted[seat]
        if latest is not None:
            link, k0 = latest
            return k0 - 1 <= chain.length and chain.link(k0 - 1) == link
        if t.recommits[seat]:
            # Re-committed before a snapshot: only the chain kept from it can be the current.
            return f"{self._secret_key(game)}/recommit" in self.secrets
        return chain.commitment == t.commitments[seat]

    async def recommit(self) -> Reply:
        """Commit a fresh chain for the rest of this game (docs/fairness.md, section 7): for a
        seat whose secret is lost (a new device) or whose chain has run out. Allowed between
        rolls, at most three times per game; the new chain serves rolls from the next one."""
        return await asyncio.shield(self._start_recommit())

    def _start_recommit(self) -> asyncio.Future[Reply]:
        # Synchronous up to the send: from here on this client's rolls and reveals use the
        # new chain, and they wait for the server's answer to it (_after_recommit).
        t = self.tracker
        game, k0 = t.game, t.k
        length = max(self.chain_length, 2 * k0)
        secret = secrets.token_bytes(32)
        # Kept before it is sent: once the server has it, only this chain can reveal.
        self.secrets[f"{self._secret_key(game)}/recommit"] = secret + length.to_bytes(4, "big")
        game_id = GameId(bytes.fromhex(self.match_id), game)
        chain = HashChain(secret, game_id, self.seat or 0, length=length)
        self._chains[game] = chain
        link = chain.link(k0 - 1)
        sent = asyncio.ensure_future(self.act(lambda s: m.Recommit(s, game, link)))
        self._recommitting[game] = sent

        def answered(f: asyncio.Future[Reply]) -> None:
            if not f.cancelled() and f.exception() is None:
                self.recommit_replies.append(f.result())

        sent.add_done_callback(answered)
        return sent

    async def _after_recommit(self, game: int) -> None:
        sent = self._recommitting.get(game)
        if sent is not None and not sent.done():
            with contextlib.suppress(Exception):
                await asyncio.shield(sent)

    async def _automatic(self) -> None:
        """Commit and reveal by themselves: nobody should have to click for that."""
        seat = self.seat
        t = self.tracker
        if seat is None or t.over is not None:
            return
        owed = t.owes(seat)
        key = (owed or "", t.game, t.k)
        if key in self._auto_sent:
            return
        if owed == "commit" and self.auto_commit:
            self._auto_sent.add(key)
            self._spawn(self.commit(t.commit_game))
        elif owed in ("rolloff", "reveal") and self.auto_reveal and self.holds_chain():
            # (Without the seat's chain a reveal could only be wrong: an invalid_reveal.)
            self._auto_sent.add(key)
            self._spawn(self.reveal(t.game, t.k))
        if (
            self.auto_reveal
            and t.clock.phase in BETWEEN_ROLLS
            and t.recommits[seat] < MAX_RECOMMITMENTS
            and ("recommit", t.game, t.k) not in self._auto_sent
            and not self.holds_chain()
        ):
            # A roll of this client waits for it, and reveals from the new chain.
            self._auto_sent.add(("recommit", t.game, t.k))
            self._start_recommit()

    def _spawn(self, work: Any) -> None:
        task = asyncio.create_task(work)
        task.add_done_callback(lambda t: t.exception() if not t.cancelled() else None)

    # ---------------------------------------------------------------- acting

    async def act(self, make: Callable[[int], m.ClientMessage], timeout: float = 30) -> Reply:
        """Send the action ``make(seq)`` and wait for its ack or reject. ``rate_limited`` and
        ``retry_later`` are not answers: the same action (same seq) is sent again later."""
        if self._closed is not None and self._task is not None and self._task.done():
            raise self._closed  # closed for good: no connection would ever carry it
        self.seq += 1
        seq = self.seq
        message = make(seq)
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        delay = 0.05
        while True:
            reply: asyncio.Future[Reply] = loop.create_future()
            self._pending[seq] = _Pending(message, reply)
            if self._connected.is_set():
                await self._send(message)
            answer = await asyncio.wait_for(asyncio.shield(reply), deadline - loop.time())
            retry = isinstance(answer, m.Reject) and answer.code in _TRY_AGAIN
            pause = delay * (0.5 + random.random())
            if not retry or loop.time() + pause >= deadline:
                return answer
            await asyncio.sleep(pause)
            delay = min(delay * 2, 1.0)

    async def _send(self, message: m.ClientMessage) -> None:
        if self.drop_next:
            self.drop_next = False
            await self.drop()
            return
        ws = self._ws
        if ws is None:
            return  # sent again after the next welcome
        with contextlib.suppress(ConnectionClosed):
            await ws.send(codec.encode(message))

    async def commit(self, game: int | None = None) -> Reply:
        """Commit to this seat's chain for ``game`` (once: a second call waits for the first)."""
        game = game or self.tracker.commit_game
        if game not in self._commits:
            commitment = self.chain(game).commitment
            self._commits[game] = asyncio.ensure_future(
                self.act(lambda s: m.Commit(s, game, commitment))
            )
        return await asyncio.shield(self._commits[game])

    async def reveal(self, game: int | None = None, k: int | None = None) -> Reply:
        """Reveal link ``k`` of the chain of ``game`` (default: what the match waits for)."""
        game = game or self.tracker.game
        k = k or self.tracker.k
        await self._after_recommit(game)
        link = self.chain(game).link(k)
        return await self.act(lambda s: m.Reveal(s, game, k, link))

    async def roll(self) -> Reply:
        t = self.tracker
        game, k = t.game, t.k
        await self._after_recommit(game)
        link = self.chain(game).link(k)
        return await self.act(lambda s: m.Roll(s, game, k, link))

    async def move(self, moves: tuple[tuple[int, int], ...]) -> Reply:
        t = self.tracker
        game, turn = t.game, t.turn
        return await self.act(lambda s: m.Move(s, game, turn, moves))

    async def double(self) -> Reply:
        game = self.tracker.game
        return await self.act(lambda s: m.Double(s, game))

    async def take(self) -> Reply:
        game = self.tracker.game
        return await self.act(lambda s: m.Take(s, game))

    async def drop_double(self) -> Reply:
        game = self.tracker.game
        return await self.act(lambda s: m.Drop(s, game))

    async def beaver(self) -> Reply:
        game = self.tracker.game
        return await self.act(lambda s: m.Beaver(s, game))

    async def resign(self, level: int) -> Reply:
        game = self.tracker.game
        return await self.act(lambda s: m.Resign(s, game, level))  # type: ignore[arg-type]

    async def answer_resignation(self, accept: bool) -> Reply:
        game = self.tracker.game
        return await self.act(lambda s: m.ResignReply(s, game, accept))

    async def leave(self) -> Reply:
        return await self.act(m.Leave)

    async def stop_session(self) -> Reply:
        return await self.act(m.Stop)

    async def send_raw(self, frame: bytes | str) -> None:
        """Send any bytes (tests of hostile input)."""
        assert self._ws is not None
        await self._ws.send(frame)

    def owes(self) -> str | None:
        return self.tracker.owes(self.seat) if self.seat is not None else None
