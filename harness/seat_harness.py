"""Seat cores (protocol.client.seat) against the real, pure match machine, in fake time.

:class:`Room` is a server in miniature: the machine (``server.machine.core``) behind a queue of
frames, with the wire's welcome, resume, ack/reject and broadcast, and an ``outage`` switch
that answers every action ``retry_later`` (as the server does while Redis is away). Cores
connect, drop and reconnect; their effects are carried out here (secrets in a dict, timers on
the fake clock). Nothing sleeps: :meth:`Room.advance` moves the clock.
"""

from __future__ import annotations

import hashlib
import random
from collections import deque
from dataclasses import dataclass, field

from engine.match import MatchOptions
from engine.movegen import legal_plays
from protocol import messages as m
from protocol.client import seat as sc
from protocol.errors import ErrorCode
from protocol.fairdice import GameId, HashChain
from server.machine import core
from server.machine.commands import CrashCredit, Join
from server.machine.state import Config
from server.match.gateway import to_command

T0 = 1_767_225_600_000


@dataclass
class Client:
    """One core and what it did: frames sent, answers, notices, the end."""

    core: sc.SeatCore
    rng: random.Random
    secrets: dict[tuple[int, str], bytes] = field(default_factory=dict)
    sent: list[tuple[float, m.ClientMessage]] = field(default_factory=list)
    sent_at_v: list[int] = field(default_factory=list)
    """The version the core's tracker was at when it sent each frame of ``sent``."""
    answers: dict[int, sc.Answer] = field(default_factory=dict)
    """By ticket (what the core's act, roll, ... returned)."""
    by_seq: dict[int, sc.Answer] = field(default_factory=dict)
    notices: list[sc.Notice] = field(default_factory=list)
    ended: sc.Ended | None = None
    wake: float | None = None
    connect_at: float | None = None
    watch: float | None = None
    online: bool = False

    def chain(self, need: sc.NeedChain) -> sc.Held | None:
        seat = self.core.seat
        assert seat is not None
        gid = GameId(bytes.fromhex(self.core.match_id), need.game)
        if need.purpose == "recommit":
            secret = self.rng.randbytes(32)
            self.secrets[(need.game, "re")] = secret
            self.secrets[(need.game, "re-meta")] = bytes([need.n]) + need.from_k.to_bytes(4, "big")
            length = need.length
            self.secrets[(need.game, "re-len")] = length.to_bytes(4, "big")
            return sc.Held(HashChain(secret, gid, seat, length), need.n, need.from_k)
        if need.purpose == "load" and (need.game, "re") in self.secrets:
            meta = self.secrets[(need.game, "re-meta")]
            length = int.from_bytes(self.secrets[(need.game, "re-len")], "big")
            chain = HashChain(self.secrets[(need.game, "re")], gid, seat, length)
            return sc.Held(chain, meta[0], int.from_bytes(meta[1:], "big"))
        key = (need.game, "commit")
        if key not in self.secrets:
            if need.purpose == "load":
                return None
            self.secrets[key] = self.rng.randbytes(32)
        return sc.Held(HashChain(self.secrets[key], gid, seat, self.core.config.chain_length))

    def sends(self, kind: type) -> list[tuple[float, m.ClientMessage]]:
        return [(t, msg) for t, msg in self.sent if isinstance(msg, kind)]


class Room:
    """One match on the machine, its clients, and a fake clock (seconds)."""

    def __init__(
        self, options: MatchOptions, seed: int = 1, *, clock_ms: int = 30_000, days: int = 0
    ):
        self.rng = random.Random(seed)
        self.match_id = hashlib.md5(f"room{seed}".encode()).hexdigest()
        self.now = 0.0
        config = Config(options, clock_ms=days * 86_400_000 if days else clock_ms, days=days)
        state, events = core.create(self.match_id, config, "Ann", T0)
        step = core.apply(state, Join(1, name="Bob"), T0 + 1)
        assert isinstance(step, core.Accepted)
        self.state = step.state
        self.log: list[m.Event] = [*events, *step.events]
        self.tokens = ("token-zero-0000", "token-one-11111")
        self.clients: list[Client] = []
        self.inbox: deque[tuple[Client, m.ClientMessage]] = deque()
        self._outage_from: float | None = None
        self.credit = 0.0
        """Seconds of outage: the server's clock stops while its store is away."""
        self.refuse_next: set[int] = set()
        """Seats whose next action is answered retry_later once."""
        self.refuse_with: dict[int, ErrorCode] = {}
        """Seats whose next action is refused with this code (a refusal the test chooses)."""
        self.lose_next_ack: set[int] = set()
        self.drop_outgoing: set[int] = set()
        """Seats whose frames are lost (in flight when their link drops)."""
        self.probe_every: float | None = None
        """Seconds: probe every welcomed client this often, as the server does (None: never)."""
        self._next_probe: float | None = None
        self.frozen = False
        """The server process is stopped: it serves nothing and sends nothing (frames wait)."""

    @property
    def outage(self) -> bool:
        """The store is away: every action is answered retry_later and the clocks stop."""
        return self._outage_from is not None

    @outage.setter
    def outage(self, on: bool) -> None:
        if on and self._outage_from is None:
            self._outage_from = self.now
        elif not on and self._outage_from is not None:
            self.credit += self.now - self._outage_from
            self._outage_from = None

    @property
    def server_ms(self) -> int:
        now = self.now if self._outage_from is None else self._outage_from
        return T0 + 10 + int((now - self.credit) * 1000)

    # ------------------------------------------------------------ clients

    def client(self, seat: int | None, *, name: str = "", **config: object) -> Client:
        cfg = sc.Config(**config)  # type: ignore[arg-type]
        token = None if seat is None else self.tokens[seat]
        rng = random.Random(self.rng.random())
        c = Client(sc.SeatCore(self.match_id, token, name or None, cfg, rng.random), rng)
        self.clients.append(c)
        return c

    def connect(self, c: Client) -> None:
        c.online = True
        c.connect_at = None
        self.effects(c, c.core.opened(self.now))
        self.pump()

    def drop(self, c: Client, code: int | None = None) -> None:
        c.online = False
        self.inbox = deque((x, msg) for x, msg in self.inbox if x is not c)
        self.effects(c, c.core.closed(code, self.now))

    def seat_of(self, c: Client) -> int | None:
        return c.core.seat

    # ------------------------------------------------------------ the loop

    def effects(self, c: Client, effects: list[sc.Effect]) -> None:
        for e in effects:
            if isinstance(e, sc.Send):
                c.sent.append((self.now, e.message))
                c.sent_at_v.append(c.core.tracker.version)
                self.inbox.append((c, e.message))
            elif isinstance(e, sc.Answer):
                c.answers[e.ticket] = e
                if e.reply.seq is not None:
                    c.by_seq[e.reply.seq] = e
            elif isinstance(e, sc.Wake):
                c.wake = e.at
            elif isinstance(e, sc.Connect):
                c.connect_at = e.at
            elif isinstance(e, sc.NeedChain):
                self.effects(c, c.core.chain_ready(e.game, c.chain(e), self.now))
            elif isinstance(e, sc.Notice):
                c.notices.append(e)
            elif isinstance(e, sc.Ended):
                c.ended = e
            elif isinstance(e, sc.Watch):
                c.watch = e.at
            elif isinstance(e, sc.Drop):
                c.watch = None
                self.drop(c)

    def to(self, c: Client, msg: m.ServerMessage) -> None:
        if c.online:
            self.effects(c, c.core.receive(msg, self.now))

    def pump(self, limit: int | None = None) -> None:
        """Serve the frames sent so far (``limit``: only that many)."""
        while self.inbox and limit != 0 and not self.frozen:
            limit = None if limit is None else limit - 1
            c, msg = self.inbox.popleft()
            if c.online:
                self.serve(c, msg)

    def serve(self, c: Client, msg: m.ClientMessage) -> None:
        if isinstance(msg, m.Hello):
            seat = None if msg.token is None else self.tokens.index(msg.token)
            c.seat_hint = seat  # type: ignore[attr-defined]
            role = "spectator" if seat is None else f"seat{seat}"
            applied = None if seat is None else (self.state.last_seq[seat] or None)
            v = self.state.version
            self.to(c, m.Welcome(role, self.match_id, v, self.server_ms, applied))  # type: ignore[arg-type]
            for e in self.log[(msg.last_v or 0) :]:
                self.to(c, e)
            return
        if isinstance(msg, m.Echo | m.Ping | m.Resync):
            return
        seat = c.core.seat
        assert seat is not None
        seq = msg.seq  # type: ignore[union-attr]
        if seat in self.drop_outgoing:
            return
        refusal = self.refuse_with.pop(seat, None)
        if refusal is not None:
            self.to(c, m.Reject(seq, refusal, "refused by the test"))
            return
        if self.outage or seat in self.refuse_next:
            self.refuse_next.discard(seat)
            self.to(c, m.Reject(seq, ErrorCode.RETRY_LATER, "the store is away"))
            return
        try:
            outcome = core.apply(self.state, to_command(seat, msg), self.server_ms)
        except core.Rejected as exc:
            self.to(c, m.Reject(seq, ErrorCode(exc.code), exc.message))
            return
        if isinstance(outcome, core.Duplicate):
            self.to(c, m.Ack(seq, outcome.version))
            return
        self.state = outcome.state
        self.log += outcome.events
        if seat in self.lose_next_ack:
            self.lose_next_ack.discard(seat)
        else:
            self.to(c, m.Ack(seq, self.state.version))
        for e in outcome.events:
            for other in self.clients:
                self.to(other, e)

    def expire(self) -> None:
        """The clock settles the decision due (as the sweeper does once its deadline passed)."""
        assert self.state.deadline is not None
        outcome = core.expire(self.state, self.state.deadline + self.state.config.grace_ms + 1)
        assert outcome is not None
        self.state = outcome.state
        self.log += outcome.events
        for e in outcome.events:
            for other in self.clients:
                self.to(other, e)

    def crash(self, c: Client) -> int:
        """The server process serving ``c`` dies (its last heartbeat: now): the link drops,
        ``c`` reconnects to another process, which credits the match once the dead one has
        missed its beats for a second (``CrashCredit``, as server.match.crash_credit does).
        Returns the credit (ms; 0: refused, the seat owed nothing)."""
        since = self.server_ms
        self.drop(c)
        while not c.core.welcomed:
            self.advance(0.05)
        back = self.server_ms
        self.advance(max(0.0, (since + core.DEAD_AFTER_MS - self.server_ms) / 1000))
        seat = c.core.seat
        assert seat is not None
        command = CrashCredit(seat, process="dead", since=since, seen=self.server_ms, back=back)
        try:
            outcome = core.apply(self.state, command, self.server_ms)
        except core.Rejected:
            return 0
        assert isinstance(outcome, core.Accepted)
        self.state = outcome.state
        self.log += outcome.events
        for e in outcome.events:
            for other in self.clients:
                self.to(other, e)
        return outcome.events[-1].data.ms  # type: ignore[union-attr]

    def advance(self, seconds: float, step: float = 0.05) -> None:
        """Move the clock, waking cores and reconnecting them when they ask."""
        end = self.now + seconds
        while self.now < end:
            timers = (t for c in self.clients for t in (c.wake, c.connect_at, c.watch))
            due = [t for t in timers if t is not None]
            if self.probe_every is not None:
                if self._next_probe is None:
                    self._next_probe = self.now + self.probe_every
                due.append(self._next_probe)
            nxt = min([*due, end])
            # A millisecond after the time asked for, as a real timer fires: no tie between
            # "due" and "not yet" that the last bit of a float could decide.
            self.now = max(self.now, min(nxt + 0.001, end))
            for c in self.clients:
                if c.wake is not None and c.wake <= self.now:
                    c.wake = None
                    self.effects(c, c.core.tick(self.now))
                if c.watch is not None and c.watch <= self.now:
                    c.watch = None
                    self.effects(c, c.core.silent(self.now))
                if c.connect_at is not None and c.connect_at <= self.now and c.ended is None:
                    self.connect(c)
            if self._next_probe is not None and self._next_probe <= self.now:
                self._next_probe += self.probe_every or 0
                if not self.frozen:
                    for c in self.clients:
                        if c.online and c.core.welcomed:
                            self.to(c, m.Probe(self.server_ms))
            self.pump()
            if nxt >= end:
                break

    # ------------------------------------------------------------ players

    def decide(self, c: Client, rng: random.Random) -> bool:
        """Play ``c``'s owed human decision (roll, move, take, resignation); False if none."""
        t, seat = c.core.tracker, c.core.seat
        if seat is None or not c.core.caught_up:
            return False
        owed = t.owes(seat)
        if owed == "decide":
            effects = c.core.roll(self.now)[1]
        elif owed == "move":
            assert t.dice is not None
            plays = legal_plays(t.position(seat), *t.dice)
            moves = rng.choice(plays).moves if plays else ()
            effects = c.core.act(m.Move(0, t.game, t.turn, moves), self.now)[1]
        elif owed == "take":
            effects = c.core.act(m.Take(0, t.game), self.now)[1]
        elif owed == "resign":
            effects = c.core.act(m.ResignReply(0, t.game, False), self.now)[1]
        else:
            return False
        self.effects(c, effects)
        self.pump()
        return True

    def visit(self, c: Client, rng: random.Random) -> bool:
        """A page that opens only to act (correspondence): ``c`` connects, plays its owed
        decision if it has one, lets its automation finish (``idle``), and closes (its core
        stopped). False if it owed nothing."""
        self.connect(c)
        acted = self.decide(c, rng)
        for _ in range(200):
            if c.core.idle:
                break
            self.advance(0.05)
        assert c.core.idle, "the page did not finish what it had to send"
        self.effects(c, c.core.stop())
        c.online = False
        self.clients.remove(c)
        return acted

    def play_until(self, done: object, rng: random.Random, limit: int = 2000) -> None:
        """Players decide, one decision at a time, until ``done()`` (a callable) holds."""
        for _ in range(limit):
            if done():  # type: ignore[operator]
                return
            if self.state.is_over:
                raise AssertionError("the match ended first")
            acted = False
            for c in self.clients:
                if self.decide(c, rng):
                    acted = True
                    break
            if not acted:
                self.advance(0.2)
        raise AssertionError("never reached")
