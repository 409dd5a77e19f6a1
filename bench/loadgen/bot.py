"""A lean, paced bot for one seat (or a spectator) of one match, driven by callbacks.

It speaks the real protocol (hello with ``last_v``, welcome, gap-free events, ack/reject,
resend of unanswered actions with the same seq after a reconnect) and plays like
``protocol.client.play_random`` without doubling: commit and reveal at once, roll when the
match's pace allows, then a random legal play. Frames are read with plain ``msgpack`` (the
server's frames are trusted here; the strict decoder is the server's job) and actions are
built with the real codec.

Everything is measured on ``time.monotonic()``, one clock for every process of the machine.
"""

from __future__ import annotations

import random
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgpack

from engine.movegen import legal_plays
from engine.position import Position
from engine.position_id import decode as decode_position
from protocol import messages as m
from protocol.client.connection import RESTART_RETRY, RESTART_SPREAD
from protocol.close_codes import CloseCode
from protocol.codec import encode
from protocol.fairdice import GameId, HashChain

if TYPE_CHECKING:
    from loadgen.generator import Generator

# Close codes after which reconnecting cannot help (as protocol.client.connection).
FINAL_CLOSES = {4000, 4001, 4003, 4004, 4005}
RETRY_CODES = {"rate_limited", "retry_later"}
CHAIN_LENGTH = 1024
CHAIN_STRIDE = 32  # 1 KB per chain instead of 32 KB: thousands of seats per process


@dataclass(eq=False)
class MatchPlay:
    """What the seats of one match share in a generator: the pace and move timings."""

    match_id: str
    pace: float
    next_slot: float
    move_sent: dict[tuple[int, int], float] = field(default_factory=dict)

    def slot(self, now: float) -> float:
        """When the player on roll may roll: one turn per ``pace`` seconds, never earlier
        than now (a match that fell behind does not burst to catch up)."""
        at = max(self.next_slot, now)
        self.next_slot = at + self.pace
        return at


class SeatBot:
    """One connection: a seat with its token, or a spectator (token None)."""

    def __init__(
        self, gen: Generator, match: MatchPlay, url: str, token: str | None, rng: random.Random
    ) -> None:
        self.gen = gen
        self.match = match
        self.url = url
        self.token = token
        self.rng = rng
        self.seat: int | None = None
        self.conn: Any = None
        self.live = False  # welcomed and caught up: may act
        self.dead = False
        self.stopping = False
        # the match as the events tell it
        self.version = 0
        self.game = 0
        self.k = 1
        self.turn = 0
        self.dice: tuple[int, int] | None = None
        self.position_id: str | None = None
        self.position_seat = 0
        self._boards: tuple[tuple[int, ...], tuple[int, ...]] | None = None
        self.last_over_game = 0
        self.over = False
        self.phase = "waiting"
        self.owing: tuple[int, ...] | list[int] = ()
        # actions
        self.seq = 0
        self.pending: dict[int, list[Any]] = {}  # seq -> [frame, kind, sent_at, resent]
        self.acted: set[tuple[Any, ...]] = set()
        self.secrets: dict[int, bytes] = {}
        self.chains: dict[int, HashChain] = {}
        # reconnects
        self.welcome_v = 0
        self.welcomes = 0
        self.delay = 0.05
        self.restarting = False
        self.down_at: float | None = None
        self.reconnect_at: float | None = None
        self.sampled_drop = False

    # ---------------------------------------------------------------- connection

    def on_open(self, conn: Any) -> None:
        if conn is not self.conn:
            conn.abort()  # a connection this bot no longer wants
            return
        hello = m.Hello(1, self.match.match_id, self.token, self.version, "LoadBot")
        self.conn.send(encode(hello))

    def on_close(self, conn: Any, code: int | None) -> None:
        if conn is not self.conn:
            return
        self.conn = None
        self.live = False
        if self.stopping:
            return
        now = time.monotonic()
        if self.down_at is None:
            self.down_at = now
        if not self.sampled_drop:
            self.gen.closed(code)
        if code in FINAL_CLOSES or self.over:
            self.dead = self.dead or code in FINAL_CLOSES
            return
        if self.sampled_drop:
            delay = 0.0  # a dropped network: the client notices at once and reconnects
        elif code == CloseCode.SERVICE_RESTART or self.restarting:
            # As MatchClient: told of a restart, come back spread over RESTART_SPREAD, then
            # retry every RESTART_RETRY until the server is up (reset by the welcome).
            first = not self.restarting
            self.restarting = True
            delay = self.rng.uniform(0, RESTART_SPREAD) if first else RESTART_RETRY
        else:
            # As MatchClient: back off with jitter so a restarted server is not hit at once.
            delay = self.delay * (0.5 + self.rng.random())
            self.delay = min(self.delay * 2, self.gen.config.reconnect_cap)
        self.gen.loop.call_later(delay, self.gen.connect, self)

    def connect_failed(self) -> None:
        """The TCP connection or the upgrade failed: try again later."""
        self.conn = None
        self.on_close(None, None)

    def drop(self) -> None:
        """Cut the connection with no close frame; the bot reconnects and resumes."""
        if self.conn is not None and self.live:
            self.sampled_drop = True
            self.down_at = time.monotonic()
            self.conn.abort()

    def stop(self) -> None:
        self.stopping = True
        if self.conn is not None:
            self.conn.close()

    # ---------------------------------------------------------------- receiving

    def on_frame(self, data: bytes) -> None:
        msg = msgpack.unpackb(data, raw=False)
        kind = msg["t"]
        if kind == "event":
            self._event(msg)
        elif kind == "ack":
            self._answer(msg["p"]["seq"], None)
        elif kind == "reject":
            p = msg["p"]
            self._answer(p["seq"], p["code"])
        elif kind == "welcome":
            self._welcome(msg["p"])
        elif kind == "snapshot":
            self._snapshot(msg["p"])
        elif kind == "probe" and self.conn is not None:
            self.conn.send(encode(m.Echo(msg["p"]["t"])))  # at once: liveness and lag allowance
        elif kind == "error":
            self.gen.count("error:" + msg["p"]["code"])

    def _welcome(self, p: dict[str, Any]) -> None:
        self.welcomes += 1
        role = p["role"]
        self.seat = None if role == "spectator" else int(role[-1])
        self.welcome_v = p["v"]
        applied = p["seq"] or 0
        self.delay = 0.05
        self.restarting = False
        for seq in sorted(self.pending):
            entry = self.pending[seq]
            if seq <= applied:
                del self.pending[seq]  # applied before the drop: its events follow
            else:
                entry[3] = True
                self.conn.send(entry[0])
        if self.version >= self.welcome_v:
            self._caught_up()

    def _caught_up(self) -> None:
        self.live = True
        now = time.monotonic()
        if self.reconnect_at is not None and self.welcomes > 1:
            self.gen.resumed(self, now)
        self.down_at = self.reconnect_at = None
        self.sampled_drop = False
        self._act()

    def _snapshot(self, p: dict[str, Any]) -> None:
        # Sent only when the client's last_v is too far behind (not in a normal run).
        self.gen.count("snapshot")
        state = p["state"]
        self.version = p["v"]
        g = state.get("game")
        self.over = state.get("result") is not None
        if g is not None:
            self.game, self.k, self.turn = g["game"], g["k"] + 1, g["turn"]
            self.dice = tuple(g["dice"]) if g.get("dice") else None  # type: ignore[assignment]
            boards = g["boards"]
            self.position_id = None
            self._boards = (tuple(boards[0]), tuple(boards[1]))
            clock = g.get("clock")
            if clock:
                self.phase, self.owing = clock["phase"], clock["seats"]
            if g.get("result") is not None:
                self.last_over_game = self.game
        if self.version >= self.welcome_v and not self.live:
            self._caught_up()

    def _event(self, msg: dict[str, Any]) -> None:
        v = msg["v"]
        if v <= self.version:
            self.gen.count("duplicate_event")
            return
        if v != self.version + 1:
            self.gen.count("gap")
        self.version = v
        kind = msg["k"]
        p = msg["p"]
        if kind == "dice":
            self.k = p["k"] + 1
            d1, d2 = p["d1"], p["d2"]
            if p["kind"] == "rolloff":
                if d1 != d2:
                    self.turn = 1
                    self.dice = (max(d1, d2), min(d1, d2))
            else:
                self.dice = (d1, d2)
        elif kind == "moved":
            self.position_id = p["position_id"]
            self.position_seat = p["seat"]
            self.turn = p["turn"] + 1
            self.dice = None
            if self.seat is not None and p["seat"] != self.seat and self.live:
                sent = self.match.move_sent.pop((p["game"], p["turn"]), None)
                if sent is not None:
                    self.gen.sample("broadcast", time.monotonic() - sent)
        elif kind == "passed":
            self.turn = p["turn"] + 1
            self.dice = None
        elif kind == "committed":
            self.game, self.k = p["game"], 1
        elif kind == "game_started":
            self.game, self.k, self.turn = p["game"], 1, 0
            self.dice = self.position_id = None
            self._boards = None
        elif kind == "game_over":
            self.last_over_game = p["game"]
        elif kind == "match_over":
            self.over = True
        nxt = msg["n"]
        if nxt is None:
            self.owing = ()
        else:
            self.phase, self.owing = nxt["phase"], nxt["seats"]
        if not self.live:
            if self.welcomes and v >= self.welcome_v:
                self._caught_up()
        elif nxt is not None:
            self._act()

    def _answer(self, seq: int | None, code: str | None) -> None:
        entry = self.pending.get(seq) if seq is not None else None
        if code is not None:
            self.gen.count("reject:" + code)
            if entry is not None and code in RETRY_CODES:
                self.gen.loop.call_later(0.2 + self.rng.random() * 0.3, self._resend, seq)
                return
        if entry is None:
            return
        del self.pending[seq]
        if code is None:
            if not entry[3]:
                self.gen.sample(entry[1], time.monotonic() - entry[2])
            self.gen.count("acked")

    def _resend(self, seq: int) -> None:
        entry = self.pending.get(seq)
        if entry is not None and self.conn is not None and self.live:
            entry[3] = True
            self.conn.send(entry[0])

    # ---------------------------------------------------------------- acting

    def _act(self) -> None:
        seat = self.seat
        if seat is None or self.over or seat not in self.owing:
            return
        phase = self.phase
        if phase == "commit":
            game = self.game + 1 if self.game and self.last_over_game == self.game else self.game
            game = game or 1
            if self._first(("commit", game)):
                link = self._chain(game).commitment
                self._send("commit", lambda s: m.Commit(s, game, link))
        elif phase in ("rolloff", "reveal"):
            game, k = self.game, self.k
            if self._first(("reveal", game, k)):
                link = self._chain(game).link(k)
                self._send("reveal", lambda s: m.Reveal(s, game, k, link))
        elif phase == "decide":
            game, k = self.game, self.k
            if self._first(("roll", game, k)):
                now = time.monotonic()
                delay = self.match.slot(now) - now
                self.gen.loop.call_later(delay, self._roll, game, k)
        elif phase == "move":
            game, turn = self.game, self.turn
            if self._first(("move", game, turn)):
                self._move(game, turn)
        elif phase == "take":
            game = self.game
            if self._first(("take", game, self.version)):
                self._send("take", lambda s: m.Take(s, game))
        elif phase == "resign":
            game = self.game
            if self._first(("resign", game, self.version)):
                self._send("resign", lambda s: m.ResignReply(s, game, False))

    def _first(self, key: tuple[Any, ...]) -> bool:
        if key in self.acted:
            return False
        if len(self.acted) > 64:
            self.acted.clear()  # old keys never come back: (game, k/turn) only grow
        self.acted.add(key)
        return True

    def _roll(self, game: int, k: int) -> None:
        if self.over or self.stopping or self.game != game or self.k != k:
            return
        link = self._chain(game).link(k)
        self._send("roll", lambda s: m.Roll(s, game, k, link))

    def _move(self, game: int, turn: int) -> None:
        assert self.dice is not None and self.seat is not None
        plays = legal_plays(self._position(), *self.dice)
        moves = self.rng.choice(plays).moves if plays else ()
        self.match.move_sent[(game, turn)] = time.monotonic()
        self._send("move", lambda s: m.Move(s, game, turn, moves))

    def _position(self) -> Position:
        """This seat's position (its own board first)."""
        if self.position_id is not None:
            pos = decode_position(self.position_id)
            return pos if self.position_seat == self.seat else pos.swapped()
        boards = self._boards
        if boards is not None:
            assert self.seat is not None
            return Position.unchecked(boards[self.seat], boards[1 - self.seat])
        return Position.start()

    def _chain(self, game: int) -> HashChain:
        chain = self.chains.get(game)
        if chain is None:
            secret = self.secrets.setdefault(game, secrets.token_bytes(32))
            gid = GameId(bytes.fromhex(self.match.match_id), game)
            chain = HashChain(secret, gid, self.seat or 0, CHAIN_LENGTH, stride=CHAIN_STRIDE)
            self.chains = {game: chain}  # only the current game's chain is needed
        return chain

    def _send(self, kind: str, make: Callable[[int], m.ClientMessage]) -> None:
        self.seq += 1
        seq = self.seq
        frame = encode(make(seq))
        self.pending[seq] = [frame, kind, time.monotonic(), False]
        if self.conn is not None and self.live:
            self.conn.send(frame)
        else:
            self.pending[seq][3] = True  # sent after the next welcome: not a clean sample
        self.gen.count("sent")
