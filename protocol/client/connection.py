"""An asyncio client for one seat (or a spectator) of one match.

It connects, authenticates, tracks the match from events (:class:`protocol.client.Tracker`),
reconnects with resume after a drop, keeps the seat's dice chains and reveals automatically,
and lets a program act and wait for the server's answer::

    async with MatchClient(url, match_id, token) as client:
        await client.wait_for(lambda t: client.owes() == "decide")
        reply = await client.roll()          # Ack or Reject
        ...

Every decision is the seat core's (:mod:`protocol.client.seat`, the same as the browser's):
numbered actions that survive reconnects, retries of ``rate_limited``/``retry_later`` with no
horizon, reconnection that stops only on a definitive answer, automatic commit, reveal and
re-commitment, verification of every roll. This class only moves bytes, runs timers and keeps
the dice secrets in ``secrets_store``. With ``fallback_urls`` (other processes serving the same
Redis) every reconnect tries the next URL in turn. A server that sends nothing for ``dead_link``
seconds (it probes every 2 s: frozen, or the link is gone) is left for the next URL.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import secrets
from collections.abc import Callable, MutableMapping, Sequence

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from protocol import codec
from protocol import messages as m
from protocol.client import seat as sc
from protocol.client.tracker import Tracker
from protocol.fairdice import GameId, HashChain

Reply = m.Ack | m.Reject


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
    """The client stopped for good (``code``: the close code that ended it, ``why``: the
    core's reason)."""

    def __init__(self, code: int | None, reason: str = "", why: sc.EndReason | None = None):
        super().__init__(f"connection ended ({code}): {reason}")
        self.code = code
        self.reason = reason
        self.why = why


class SecretsKeeper:
    """This seat's dice secrets in a ``MutableMapping`` (any dict-like store): the game's
    commitment secret under ``<match>/<game>/<seat>``, its latest re-commitment under
    ``<key>/recommit`` (secret, chain length, first roll, count)."""

    def __init__(self, store: MutableMapping[str, bytes], match_id: str, chain_length: int):
        self.store = store
        self.match_id = match_id
        self.chain_length = chain_length

    def key(self, game: int, seat: int) -> str:
        return f"{self.match_id}/{game}/{seat}"

    def _chain(self, secret: bytes, game: int, seat: int, length: int) -> HashChain:
        return HashChain(secret, GameId(bytes.fromhex(self.match_id), game), seat, length=length)

    def commitment_chain(self, game: int, seat: int, create: bool) -> sc.Held | None:
        key = self.key(game, seat)
        if key not in self.store:
            if not create:
                return None
            self.store[key] = secrets.token_bytes(32)
        return sc.Held(self._chain(self.store[key], game, seat, self.chain_length))

    def load(self, game: int, seat: int) -> sc.Held | None:
        record = self.store.get(f"{self.key(game, seat)}/recommit")
        if record is None:
            return self.commitment_chain(game, seat, create=False)
        secret, length = record[:32], int.from_bytes(record[32:36], "big")
        from_k = int.from_bytes(record[36:40], "big") if len(record) >= 41 else 1
        n = record[40] if len(record) >= 41 else 1
        return sc.Held(self._chain(secret, game, seat, length), n, from_k)

    def fresh(self, game: int, seat: int, from_k: int, length: int, n: int) -> sc.Held:
        secret = secrets.token_bytes(32)
        # Kept before it is sent: once the server has it, only this chain can reveal.
        record = secret + length.to_bytes(4, "big") + from_k.to_bytes(4, "big") + bytes([n])
        self.store[f"{self.key(game, seat)}/recommit"] = record
        return sc.Held(self._chain(secret, game, seat, length), n, from_k)


class _CoreSwitch:
    """A switch of the seat core's :class:`~protocol.client.seat.Config`, read and set on the
    client; setting it lets the core act on it at once."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __get__(self, client: MatchClient | None, owner: type) -> bool:
        if client is None:
            return self  # type: ignore[return-value]  # the class's attribute: the switch
        on: bool = getattr(client.core.config, self.name)
        return on

    def __set__(self, client: MatchClient, on: bool) -> None:
        setattr(client.core.config, self.name, on)
        client._poke()


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
        auto_roll: bool = False,
        origin: str | None = None,
        reconnect: bool = True,
        chain_length: int = 1024,
        on_event: Callable[[m.ServerMessage], None] | None = None,
        fallback_urls: Sequence[str] = (),
        rng: random.Random | None = None,
        dead_link: float | None = sc.DEAD_LINK,
    ) -> None:
        self.url = url
        self.urls = (url, *fallback_urls)
        self.match_id = match_id
        self.token = token
        self.name = name
        self.secrets = secrets_store if secrets_store is not None else {}
        self.keeper = SecretsKeeper(self.secrets, match_id, chain_length)
        self.origin = origin
        self.reconnect = reconnect
        self.chain_length = chain_length
        self.on_event = on_event
        config = sc.Config(chain_length, auto_commit, auto_reveal, auto_roll, dead_link=dead_link)
        self.core = sc.SeatCore(match_id, token, name, config, (rng or random.Random()).random)
        self.rejects: list[m.Reject] = []
        self.notices: list[sc.Notice] = []
        self.presence: dict[int, str] = {}
        """Each other seat's connection status, as last announced."""
        self.watchers = 0
        """How many spectators watch, as last announced."""
        self.recommit_replies: list[Reply] = []
        """The server's answers to this client's re-commitments, in order."""
        self.drop_next = False
        self._replies: dict[int, asyncio.Future[Reply]] = {}
        self._commit_futures: dict[int, asyncio.Future[Reply]] = {}
        self._ws: ClientConnection | None = None
        self._outbox: asyncio.Queue[tuple[bytes, bool]] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._watch: asyncio.TimerHandle | None = None
        self.dead_links = 0
        """Links this client dropped because the server had gone silent."""
        self._connect_at = 0.0
        self._changed = asyncio.Condition()
        self._connected = asyncio.Event()
        self._closed: ClientClosed | None = None

    # ---------------------------------------------------------------- the core's state

    @property
    def tracker(self) -> Tracker:
        return self.core.tracker

    @property
    def seat(self) -> int | None:
        return self.core.seat

    @property
    def seq(self) -> int:
        return self.core.seq

    @seq.setter
    def seq(self, value: int) -> None:
        """Reserve sequence numbers (tests that send raw frames of their own)."""
        self.core.seq = max(self.core.seq, value)

    @property
    def welcomes(self) -> int:
        return self.core.welcomes

    @property
    def checks(self) -> dict[tuple[int, int], sc.Verdict]:
        """The verdict on each roll seen, by ``(game, k)``."""
        return self.core.checks

    auto_reveal = _CoreSwitch("auto_reveal")
    auto_commit = _CoreSwitch("auto_commit")
    auto_roll = _CoreSwitch("auto_roll")

    def _poke(self) -> None:
        with contextlib.suppress(RuntimeError):  # no running loop: nothing to do yet
            self._apply(self.core.tick(self._now()))

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
        self._apply(self.core.stop())
        if self._ws is not None:
            with contextlib.suppress(Exception):
                await self._ws.close()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, ClientClosed, Exception):
                await self._task
        if self._timer is not None:
            self._timer.cancel()
        if self._watch is not None:
            self._watch.cancel()

    async def drop(self) -> None:
        """Cut the connection abruptly (tests: what a network failure looks like); the client
        reconnects by itself if ``reconnect`` is on."""
        self._connected.clear()
        if self._ws is not None:
            self._ws.transport.abort()  # type: ignore[attr-defined]

    def _now(self) -> float:
        return asyncio.get_running_loop().time()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            try:
                code = await self._session()
                effects = self.core.closed(code, self._now())
            except InvalidStatus as exc:
                effects = self.core.refused(exc.response.status_code, self._now())
            except (OSError, InvalidHandshake, TimeoutError, EOFError):
                # Refused, reset, or a handshake that failed half-way (a server restarting).
                effects = self.core.closed(None, self._now())
            finally:
                self._ws = None
                self._connected.clear()
            if not self.reconnect and self.core.ended is None:
                effects += self.core.stop()
            self._apply(effects)
            await self._notify()
            if self._closed is not None:
                raise self._closed
            self.url = next_url(self.urls, self.url)
            await asyncio.sleep(max(0.0, self._connect_at - loop.time()))

    async def _session(self) -> int | None:
        """One connection, until it ends; its close code (None: no close frame)."""
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
            self._outbox = asyncio.Queue()
            writer = asyncio.create_task(self._write(ws, self._outbox))
            try:
                self._apply(self.core.opened(self._now()))
                async for frame in ws:
                    if isinstance(frame, str):
                        continue
                    await self._received(self.decode(frame))
            except ConnectionClosed:
                pass
            finally:
                writer.cancel()
            return ws.close_code

    def decode(self, frame: bytes) -> m.ServerMessage:
        """A server frame as a message (a client of an older protocol version overrides it)."""
        return codec.decode_from_server(frame)

    async def _write(self, ws: ClientConnection, outbox: asyncio.Queue[tuple[bytes, bool]]) -> None:
        """Sends this connection's frames in the core's order (``drop_next``: the next frame
        after the hello is lost with the connection, as in a network failure)."""
        with contextlib.suppress(ConnectionClosed):
            while True:
                frame, droppable = await outbox.get()
                if self.drop_next and droppable:
                    self.drop_next = False
                    await self.drop()
                    return
                await ws.send(frame)

    # ---------------------------------------------------------------- the core's effects

    async def _received(self, msg: m.ServerMessage) -> None:
        if isinstance(msg, m.Reject):
            self.rejects.append(msg)
        elif isinstance(msg, m.Presence):
            self.presence[msg.seat] = msg.status
        elif isinstance(msg, m.Watchers):
            self.watchers = msg.count
        self._apply(self.core.receive(msg, self._now()))
        if isinstance(msg, m.Welcome):
            self._connected.set()
        if self.on_event is not None:
            self.on_event(msg)
        await self._notify()

    def _apply(self, effects: list[sc.Effect]) -> None:
        for effect in effects:
            if isinstance(effect, sc.Send):
                hello = isinstance(effect.message, m.Hello)
                self._outbox.put_nowait((codec.encode(effect.message), not hello))
            elif isinstance(effect, sc.Answer):
                self._answered(effect)
            elif isinstance(effect, sc.Wake):
                self._wake(effect.at)
            elif isinstance(effect, sc.Connect):
                self._connect_at = effect.at
            elif isinstance(effect, sc.NeedChain):
                self._apply(self.core.chain_ready(effect.game, self._chain(effect), self._now()))
            elif isinstance(effect, sc.Notice):
                self.notices.append(effect)
            elif isinstance(effect, sc.Ended):
                self._ended(effect)
            elif isinstance(effect, sc.Watch):
                if self._watch is not None:
                    self._watch.cancel()
                self._watch = asyncio.get_running_loop().call_at(effect.at, self._silent)
            elif isinstance(effect, sc.Drop):
                self._dead()

    def _answered(self, answer: sc.Answer) -> None:
        if answer.kind == "recommit" and not answer.local:
            self.recommit_replies.append(answer.reply)
        future = self._replies.pop(answer.ticket, None)
        if future is not None and not future.done():
            future.set_result(answer.reply)

    def _ended(self, ended: sc.Ended) -> None:
        if self._closed is None:
            self._closed = ClientClosed(ended.code, str(ended.reason), ended.reason)
        for future in self._replies.values():
            if not future.done():
                future.set_exception(self._closed)
                future.add_done_callback(lambda f: f.exception())
        self._replies.clear()

    def _wake(self, at: float) -> None:
        if self._timer is not None:
            if self._timer.when() <= at:
                return
            self._timer.cancel()
        loop = asyncio.get_running_loop()
        self._timer = loop.call_at(at, self._tick)

    def _silent(self) -> None:
        self._watch = None
        self._apply(self.core.silent(self._now()))

    def _dead(self) -> None:
        """The server went silent: abort the socket (no closing handshake: a frozen server
        would not answer it); the session ends as after any drop and the next URL is tried."""
        self.dead_links += 1
        self._connected.clear()
        if self._ws is not None:
            self._ws.transport.abort()  # type: ignore[attr-defined]

    def _tick(self) -> None:
        self._timer = None
        self._apply(self.core.tick(self._now()))

    def _chain(self, need: sc.NeedChain) -> sc.Held | None:
        seat = self.core.seat
        assert seat is not None
        if need.purpose == "load":
            return self.keeper.load(need.game, seat)
        if need.purpose == "commit":
            return self.keeper.commitment_chain(need.game, seat, create=True)
        return self.keeper.fresh(need.game, seat, need.from_k, need.length, need.n)

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

    async def settled(self, timeout: float = 30) -> None:
        """Wait until this seat has nothing left to send or hear back (the core is ``idle``): a
        client that connects only to act (a correspondence match) may close then."""

        async def waiting() -> None:
            async with self._changed:
                while not self.core.idle:
                    if self._closed is not None and self._task is not None and self._task.done():
                        raise self._closed
                    await self._changed.wait()

        await asyncio.wait_for(waiting(), timeout)

    # ---------------------------------------------------------------- dice

    def chain(self, game: int) -> HashChain:
        """This seat's current chain for ``game`` (made and kept in :attr:`secrets` if there
        is none): the one a reconnecting or restarted client reveals from."""
        seat = self.seat or 0
        held = self.keeper.load(game, seat) or self.keeper.commitment_chain(game, seat, True)
        assert held is not None
        return held.chain

    def holds_chain(self) -> bool:
        """Whether this client's chain is the one its seat published for the current game (its
        commitment, or its latest re-commitment) and still has links for the next roll."""
        return self.core.holds_chain()

    async def recommit(self) -> Reply:
        """Commit a fresh chain for the rest of this game (docs/fairness.md, section 7): for a
        seat whose secret is lost (a new device) or whose chain has run out. Allowed between
        rolls, at most three times per game; the new chain serves rolls from the next one."""
        seq, effects = self.core.recommit(self._now())
        if seq is None:
            raise ValueError("a re-commitment is not allowed now")
        return await self._wait(seq, effects, 30)

    # ---------------------------------------------------------------- acting

    async def _wait(self, ticket: int, effects: list[sc.Effect], timeout: float) -> Reply:
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._replies[ticket] = future
        self._apply(effects)
        return await asyncio.wait_for(asyncio.shield(future), timeout)

    def _check_open(self) -> None:
        if self._closed is not None and self._task is not None and self._task.done():
            raise self._closed  # closed for good: no connection would ever carry it

    async def act(self, make: Callable[[int], m.ClientMessage], timeout: float = 30) -> Reply:
        """Send the action ``make(seq)`` and wait (at most ``timeout`` seconds) for its ack or
        reject. ``rate_limited`` and ``retry_later`` are not answers: the core sends the same
        action (same seq) again until it gets one, for as long as the match is live."""
        self._check_open()
        seq, effects = self.core.act(make(self.core.seq + 1), self._now())  # type: ignore[arg-type]
        return await self._wait(seq, effects, timeout)

    async def commit(self, game: int | None = None) -> Reply:
        """Commit to this seat's chain for ``game`` (once: a second call waits for the first)."""
        self._check_open()
        game = game or self.tracker.commit_game
        if game not in self._commit_futures:
            seq, effects = self.core.commit(game, self._now())
            done = self.core.commit_reply(game)
            if done is not None:
                future = asyncio.get_running_loop().create_future()
                future.set_result(done)
                self._commit_futures[game] = future
            else:
                self._commit_futures[game] = asyncio.ensure_future(self._wait(seq, effects, 30))
        return await asyncio.shield(self._commit_futures[game])

    async def reveal(self, game: int | None = None, k: int | None = None) -> Reply:
        """Reveal link ``k`` of the chain of ``game`` (default: what the match waits for)."""
        self._check_open()
        seq, effects = self.core.reveal(game or self.tracker.game, k or self.tracker.k, self._now())
        return await self._wait(seq, effects, 30)

    async def roll(self) -> Reply:
        self._check_open()
        seq, effects = self.core.roll(self._now())
        return await self._wait(seq, effects, 30)

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
