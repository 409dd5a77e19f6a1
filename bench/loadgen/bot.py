"""A lean, paced bot for one seat (or a spectator) of one match, driven by callbacks.

The protocol side is the seat core's (``protocol.client.seat``, the same as ``MatchClient``'s
and the browser's): hello with ``last_v``, welcome, gap-free events, ack/reject, resend of
unanswered actions with the same seq, retries of ``retry_later``, reconnection with back-off,
automatic commit and reveal. This adapter only moves bytes and timers and plays like
``protocol.client.play_random`` without doubling: roll when the match's pace allows, then a
random legal play. Chains are kept with a stride (1 KB per seat instead of 32 KB).

Everything is measured on ``time.monotonic()``, one clock for every process of the machine.
"""

from __future__ import annotations

import random
import secrets
import time
from typing import TYPE_CHECKING, Any

from engine.movegen import legal_plays
from protocol import messages as m
from protocol.client import seat as sc
from protocol.codec import decode_from_server, encode
from protocol.fairdice import GameId, HashChain

if TYPE_CHECKING:
    from loadgen.generator import Generator

CHAIN_LENGTH = 1024
CHAIN_STRIDE = 32  # 1 KB per chain instead of 32 KB: thousands of seats per process
_SAMPLED = {"roll", "reveal", "move", "commit", "take", "resign_reply"}


class MatchPlay:
    """What the seats of one match share in a generator: the pace and move timings."""

    __slots__ = ("match_id", "move_sent", "next_slot", "pace")

    def __init__(self, match_id: str, pace: float, next_slot: float) -> None:
        self.match_id = match_id
        self.pace = pace
        self.next_slot = next_slot
        self.move_sent: dict[tuple[int, int], float] = {}

    def slot(self, now: float) -> float:
        """When the player on roll may roll: one turn per ``pace`` seconds, never earlier
        than now (a match that fell behind does not burst to catch up)."""
        at = max(self.next_slot, now)
        self.next_slot = at + self.pace
        return at


class SeatBot:
    """One connection: a seat with its token, or a spectator (token None)."""

    def __init__(
        self,
        gen: Generator,
        match: MatchPlay,
        urls: tuple[str, ...],
        token: str | None,
        rng: random.Random,
    ) -> None:
        self.gen = gen
        self.match = match
        self.urls = urls
        self.url = urls[0]
        """Where the next connection goes: after every close, the next of ``urls`` (as
        ``protocol.client.MatchClient`` with ``fallback_urls``)."""
        self.token = token
        self.rng = rng
        config = sc.Config(CHAIN_LENGTH, first_last_v=0, reconnect_cap=gen.config.reconnect_cap)
        self.core = sc.SeatCore(match.match_id, token, "LoadBot", config, rng.random)
        self.conn: Any = None
        self.live = False  # welcomed and caught up: may act
        self.stopping = False
        self.sent: dict[int, tuple[str, float, bool]] = {}  # seq -> kind, first send, resent
        self.acted: set[tuple[Any, ...]] = set()
        self.secret: tuple[int, bytes] | None = None
        self.timer: Any = None
        self.down_at: float | None = None
        self.reconnect_at: float | None = None
        self.sampled_drop = False

    @property
    def seat(self) -> int | None:
        return self.core.seat

    @property
    def welcomes(self) -> int:
        return self.core.welcomes

    @property
    def dead(self) -> bool:
        return self.core.ended is not None and self.core.tracker.over is None

    # ---------------------------------------------------------------- connection

    def on_open(self, conn: Any) -> None:
        if conn is not self.conn:
            conn.abort()  # a connection this bot no longer wants
            return
        self._apply(self.core.opened(time.monotonic()))

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
        if len(self.urls) > 1:
            self.url = self.urls[(self.urls.index(self.url) + 1) % len(self.urls)]
        self._apply(self.core.closed(code, now))

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
        if self.timer is not None:
            self.timer.cancel()
        if self.conn is not None:
            self.conn.close()

    # ---------------------------------------------------------------- the core's effects

    def on_frame(self, data: bytes) -> None:
        msg = decode_from_server(data)
        now = time.monotonic()
        if isinstance(msg, m.Reject):
            self.gen.count("reject:" + msg.code)
        elif isinstance(msg, m.Snapshot):
            self.gen.count("snapshot")  # sent only when last_v is too far behind
        elif isinstance(msg, m.Error):
            self.gen.count("error:" + msg.code)
        elif isinstance(msg, m.Event) and self.live and self.seat is not None:
            d = msg.data
            if type(d).__name__ == "Moved" and d.seat != self.seat:  # type: ignore[union-attr]
                sent = self.match.move_sent.pop((d.game, d.turn), None)  # type: ignore[union-attr]
                if sent is not None:
                    self.gen.sample("broadcast", now - sent)
        self._apply(self.core.receive(msg, now))
        if not self.live and self.core.caught_up:
            self._caught_up(now)
        if self.live:
            self._act()

    def _caught_up(self, now: float) -> None:
        self.live = True
        if self.reconnect_at is not None and self.welcomes > 1:
            self.gen.resumed(self, now)
        self.down_at = self.reconnect_at = None
        self.sampled_drop = False

    def _apply(self, effects: list[sc.Effect]) -> None:
        for e in effects:
            if isinstance(e, sc.Send):
                self._send(e.message)
            elif isinstance(e, sc.Answer):
                self._answered(e)
            elif isinstance(e, sc.Wake):
                if self.timer is not None:
                    self.timer.cancel()
                self.timer = self.gen.loop.call_at(e.at, self._tick)
            elif isinstance(e, sc.Connect):
                self.gen.loop.call_at(e.at, self.gen.connect, self)
            elif isinstance(e, sc.NeedChain):
                self._apply(self.core.chain_ready(e.game, self._chain(e), time.monotonic()))

    def _send(self, msg: m.ClientMessage) -> None:
        seq = getattr(msg, "seq", None)
        if seq is not None:
            known = self.sent.get(seq)
            if known is None:
                self.sent[seq] = (type(msg).__name__, time.monotonic(), False)
                self.gen.count("sent")
            else:
                self.sent[seq] = (known[0], known[1], True)  # a resend: not a clean sample
        if self.conn is not None:
            self.conn.send(encode(msg))

    def _answered(self, answer: sc.Answer) -> None:
        seq = answer.reply.seq
        sent = self.sent.pop(seq, None) if seq is not None else None
        if sent is None or not isinstance(answer.reply, m.Ack):
            return
        _, at, resent = sent
        kind = answer.kind
        if not resent and kind in _SAMPLED and not answer.local:
            self.gen.sample(kind, time.monotonic() - at)
        self.gen.count("acked")

    def _tick(self) -> None:
        self.timer = None
        self._apply(self.core.tick(time.monotonic()))

    def _chain(self, need: sc.NeedChain) -> sc.Held | None:
        if self.secret is None or self.secret[0] != need.game:
            if need.purpose == "load":
                return None
            self.secret = (need.game, secrets.token_bytes(32))  # only the current game's
        gid = GameId(bytes.fromhex(self.match.match_id), need.game)
        seat = self.core.seat or 0
        return sc.Held(HashChain(self.secret[1], gid, seat, CHAIN_LENGTH, stride=CHAIN_STRIDE))

    # ---------------------------------------------------------------- playing

    def _act(self) -> None:
        seat, t = self.seat, self.core.tracker
        if seat is None or t.over is not None:
            return
        owed = t.owes(seat)
        if owed == "decide":
            game, k = t.game, t.k
            if self._first(("roll", game, k)):
                now = time.monotonic()
                self.gen.loop.call_later(self.match.slot(now) - now, self._roll, game, k)
        elif owed == "move":
            game, turn = t.game, t.turn
            if self._first(("move", game, turn)):
                assert t.dice is not None
                plays = legal_plays(t.position(seat), *t.dice)
                moves = self.rng.choice(plays).moves if plays else ()
                self.match.move_sent[(game, turn)] = time.monotonic()
                self._do(m.Move(0, game, turn, moves))
        elif owed == "take":
            if self._first(("take", t.game, t.version)):
                self._do(m.Take(0, t.game))
        elif owed == "resign" and self._first(("resign", t.game, t.version)):
            self._do(m.ResignReply(0, t.game, False))

    def _first(self, key: tuple[Any, ...]) -> bool:
        if key in self.acted:
            return False
        if len(self.acted) > 64:
            self.acted.clear()  # old keys never come back: (game, k/turn) only grow
        self.acted.add(key)
        return True

    def _do(self, action: m.Action) -> None:
        self._apply(self.core.act(action, time.monotonic())[1])

    def _roll(self, game: int, k: int) -> None:
        t = self.core.tracker
        if self.stopping or t.over is not None or (t.game, t.k) != (game, k):
            return
        self._apply(self.core.roll(time.monotonic())[1])
