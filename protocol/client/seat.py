"""The seat core: one seat's (or a spectator's) side of a match as a pure state machine.

Like the server's ``apply(state, command, now)`` and like the sans-I/O protocol objects of
``websockets``, :class:`SeatCore` does no I/O: no sockets, no asyncio, no storage, no clock
reads, no randomness of its own (jitter comes from the ``jitter`` function it is given). Its
inputs are calls, each with the time ``now`` (seconds, any monotonic origin); each returns a
list of effects for an adapter to carry out:

========================  ====================================================================
input                     meaning
========================  ====================================================================
``opened(now)``           the socket is open (the core answers with ``hello``)
``closed(code, now)``     the socket closed with ``code`` (None: dropped, refused, or the
                          handshake failed); ``refused(status, now)``: an HTTP refusal
``receive(msg, now)``     a decoded server message
``act(message, now)``     an action of the program (the core numbers it; returns a ticket)
``roll/reveal/commit``    dice actions whose link or commitment come from the seat's chain
``chain_ready(...)``      the chain asked for by :class:`NeedChain` (or None: none stored)
``tick(now)``             the time asked for by :class:`Wake` has come
``silent(now)``           the time asked for by :class:`Watch` has come (the dead-link check)
========================  ====================================================================

Effects: :class:`Send` (a frame to send), :class:`Answer` (an action's final answer),
:class:`Wake` (call ``tick`` then), :class:`Connect` (connect again then), :class:`NeedChain`
(load or make a dice chain: the adapter holds the secrets), :class:`Notice` (tell the user),
:class:`Ended` (stop for good, with the reason), :class:`Watch` (call ``silent`` then),
:class:`Drop` (the link is dead: abort the socket without a closing handshake, then report
``closed(None, now)`` as for any drop).

The decisions, which the browser's twin (``web-client/src/net/seatCore.ts``) makes the same way:

* **Numbered actions** survive reconnects: an action unanswered when the link drops is sent
  again, with its seq, after the next ``welcome`` unless ``welcome.seq`` says it was applied.
  One is in flight at a time: the next is sent once the previous one is answered.
* **Retry without a horizon**: ``rate_limited`` and ``retry_later`` are not answers; the same
  action (same seq) is sent again after a capped back-off with jitter, for as long as the
  match is live. An automatic action (commit, reveal, roll, re-commitment) is withdrawn only
  when the match says it is no longer wanted (the clock moved on, the match ended).
* **Reconnect without a horizon**: after any close, refused connection or failed handshake
  the adapter is told to connect again (capped back-off with jitter; after ``1012`` spread
  over :data:`RESTART_SPREAD`, then every :data:`RESTART_RETRY`). Only definitive answers end
  it (:func:`definitive`): the match is over, the seat was taken over (4003), the token or the
  match was refused (4001, 4004), the protocol version or our frames were refused (4005, 4000,
  1003, 1008, 1009), or the HTTP upgrade was refused with a 4xx status.
* **Dead links** (with ``Config.dead_link``; docs/protocol.md, "Slow readers and dead links"):
  the server sends a welcomed connection a ``probe`` every 2 s, so a link that has carried no
  frame for :data:`DEAD_LINK` seconds (3 missed probes), counted from the last frame received
  or from ``opened`` before the welcome, is presumed dead (a frozen or unreachable server):
  :class:`Drop`, then the reconnection above (to the next URL where there are several). The
  decision is on the time elapsed since the last frame, not on how many times the timer fired
  (a background browser tab fires timers late): ``silent(now)`` answers another
  :class:`Watch` until the time has really passed.
* **Automatic actions** run only on the state of the match as it is now: after the welcome,
  once the events have caught up with the version it announced, and never in the middle of a
  transition (an event without a clock). They are: commit (between games after
  ``next_game_share`` of the commit clock, or at once), reveal in the roll-off and for the
  opponent's roll, and, with ``auto_roll``, roll when the decision is forced (no cube decision
  is possible: single games, Crawford, a cube the seat does not own). A cube decision is the
  player's, so with a cube available the core waits for ``roll()`` or ``act(Double)``.
* **Correspondence** (docs/fairness.md, section 15): the seat deposits ahead whatever it may,
  so that the match never waits for it to be there: its reveal of the opponent's next roll
  while the opponent decides, and, in a match, its commitment to the next game and its
  reveals for that game's roll-off as the server asks for them (``rolloff_ahead``; after a
  snapshot, which does not say, it finds the roll asked for by trying from roll 1).
* **Re-commitment** (docs/fairness.md, section 7): a seat that does not hold the chain its next
  reveal must come from (a new device, a lost store, a chain run out) commits a fresh one
  between rolls, once per roll index, at most three times a game. Actions taken while it is
  under way are held back (sent in order after its answer), so that no roll or reveal reaches
  the server before the chain it comes from.
* **Verification**: every roll is checked against each seat's previous link and the dice are
  derived again; a mismatch is a :class:`Notice` with ``alarm``. (The twin leaves this one to
  its adapter, ``LiveVerifier``: the browser's SHA-256 is asynchronous.)
"""

from __future__ import annotations

import dataclasses
import enum
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from protocol import events as pe
from protocol import messages as m
from protocol.client.tracker import Tracker
from protocol.close_codes import CloseCode
from protocol.errors import ErrorCode
from protocol.fairdice import GameId, HashChain, derive_dice, link_ok
from protocol.fairdice.commitments import MAX_RECOMMITMENTS
from protocol.limits import PROTOCOL_VERSION

RECONNECT_FIRST = 0.05
"""Seconds: the first pause before reconnecting after a failure (doubled up to the cap)."""
RECONNECT_CAP = 2.0
"""Seconds: the longest pause between reconnection attempts."""
RESTART_SPREAD = 0.5
"""Seconds: clients told of a restart (close 1012) come back spread over this."""
RESTART_RETRY = 0.25
"""Seconds: the pause between attempts while a restarting server is not up yet."""
RETRY_FIRST = 0.05
"""Seconds: the first pause before an action refused ``rate_limited``/``retry_later`` is sent
again (doubled up to the cap)."""
RETRY_CAP = 2.0
"""Seconds: the longest pause between two sends of a refused-for-now action."""
DEAD_LINK = 6.0
"""Seconds without any frame from the server after which a link is presumed dead (the server
probes every 2 s: three missed probes)."""

BETWEEN_ROLLS = pe.PLAYER_DECISIONS
"""Clock phases between two rolls (a player's decisions): a re-commitment is accepted then."""
ROLLING = frozenset({"rolloff", "reveal"})
TRY_AGAIN = frozenset({ErrorCode.RATE_LIMITED, ErrorCode.RETRY_LATER})
_HANDS_OVER = (m.Move, m.Take, m.Beaver)
"""Actions after which the opponent rolls and this seat must reveal."""

Reply = m.Ack | m.Reject


class EndReason(enum.StrEnum):
    """Why the core stopped for good."""

    MATCH_OVER = "match_over"
    REPLACED = "replaced"
    AUTH_FAILED = "auth_failed"
    NOT_FOUND = "not_found"
    REFUSED = "refused"
    """The server refused this client's protocol version, frames or Origin, or its upgrade."""
    CLOSED = "closed"
    """The program closed the client."""


_END_REASONS = {
    CloseCode.REPLACED: EndReason.REPLACED,
    CloseCode.AUTH_FAILED: EndReason.AUTH_FAILED,
    CloseCode.MATCH_NOT_FOUND: EndReason.NOT_FOUND,
}
_DEFINITIVE: dict[int, EndReason] = {
    code: _END_REASONS.get(code, EndReason.REFUSED)
    for code in CloseCode
    if not code.reconnect and code != CloseCode.NORMAL
}
"""The close codes after which reconnecting cannot help (the catalogue's ``reconnect``), but
1000: the server sends it only once the match is over; while it is live it comes from an
intermediary and is a drop."""


def definitive(code: int | None, match_over: bool = False) -> EndReason | None:
    """The reason to stop for good after a close with ``code``, or None: connect again.

    >>> definitive(4003), definitive(1012), definitive(None), definitive(1006)
    (<EndReason.REPLACED: 'replaced'>, None, None, None)
    >>> definitive(1000), definitive(1000, match_over=True)
    (None, <EndReason.MATCH_OVER: 'match_over'>)
    """
    if code is not None and code in _DEFINITIVE:
        return _DEFINITIVE[code]
    return EndReason.MATCH_OVER if match_over else None


class NoticeKind(enum.StrEnum):
    DICE_ALARM = "dice_alarm"
    """A published roll does not verify (``text`` says why)."""
    CHAIN_RENEWED = "chain_renewed"
    """This seat's new chain is in (it had lost its secret)."""
    OPPONENT_RENEWED = "opponent_renewed"
    """The opponent committed a new chain from roll ``k``."""
    CANNOT_REVEAL = "cannot_reveal"
    """This client lacks the seat's chain during a roll: it cannot reveal for it."""
    RECOMMIT_LIMIT = "recommit_limit"
    """This client lacks the seat's chain and the game's re-commitments are used up."""
    RECOMMIT_REFUSED = "recommit_refused"
    """The server refused this seat's new chain."""


# ---------------------------------------------------------------- effects


@dataclass(frozen=True, slots=True)
class Send:
    message: m.ClientMessage


@dataclass(frozen=True, slots=True)
class Answer:
    """The final answer to the action of ``ticket`` (what ``act``, ``roll``, ... returned).
    ``local``: the core answered it without the server (an action it could not build, withdrew,
    or never sent); then ``reply`` is a Reject naming why."""

    ticket: int
    reply: Reply
    local: bool = False
    kind: str = ""
    """The action's message type (``recommit``, ``roll``, ...)."""


@dataclass(frozen=True, slots=True)
class Wake:
    at: float


@dataclass(frozen=True, slots=True)
class Connect:
    at: float


@dataclass(frozen=True, slots=True)
class Watch:
    """Call :meth:`SeatCore.silent` at ``at`` (one timer: a later Watch replaces it)."""

    at: float


@dataclass(frozen=True, slots=True)
class Drop:
    """The link heard nothing for ``Config.dead_link`` seconds: abort the socket (no closing
    handshake: the server is frozen or gone), then call ``closed(None, now)``."""


@dataclass(frozen=True, slots=True)
class NeedChain:
    """Give the core this seat's chain for ``game`` with :meth:`SeatCore.chain_ready`.

    ``purpose`` ``load``: whatever is stored for the game (its latest re-commitment, else its
    commitment), or None. ``commit``: the game's commitment chain, made and stored if there is
    none. ``recommit``: a fresh chain serving rolls from ``from_k`` (length ``length``, the
    seat's ``n``-th re-commitment), stored before it is handed over."""

    game: int
    purpose: Literal["load", "commit", "recommit"]
    from_k: int = 1
    length: int = 0
    n: int = 0


@dataclass(frozen=True, slots=True)
class Notice:
    kind: NoticeKind
    game: int
    k: int
    text: str
    alarm: bool = False


@dataclass(frozen=True, slots=True)
class Ended:
    reason: EndReason
    code: int | None = None


Effect = Send | Answer | Wake | Connect | NeedChain | Notice | Ended | Watch | Drop


@dataclass(frozen=True, slots=True)
class Held:
    """This seat's chain in one game as this client holds it: ``n`` is the seat's
    re-commitment count with it (0: the game's commitment), ``from_k`` the first roll it
    serves (its published head is link ``from_k - 1``)."""

    chain: HashChain
    n: int = 0
    from_k: int = 1

    @property
    def head(self) -> bytes:
        return self.chain.link(self.from_k - 1)


@dataclass(frozen=True, slots=True)
class Verdict:
    ok: bool | None
    """True: verified; False: alarm; None: could not be checked (no commitments seen)."""
    why: str = ""


@dataclass
class Config:
    chain_length: int = 1024
    auto_commit: bool = True
    auto_reveal: bool = True
    auto_roll: bool = False
    next_game_share: float | None = None
    """Between games, commit once this share of the commit clock has passed (None: at once)."""
    first_last_v: int | None = None
    """``hello.last_v`` of the first connection: None (a snapshot) or 0 (the whole log)."""
    reconnect_cap: float = RECONNECT_CAP
    """The longest pause between reconnection attempts (seconds)."""
    dead_link: float | None = None
    """Seconds of silence from the server after which the link is dropped (None: never; the
    adapters use :data:`DEAD_LINK`)."""


# ---------------------------------------------------------------- actions in flight


def _kind(p: _Pending) -> str:
    """The action's wire type (``resign_reply``), or the dice action it will be."""
    if p.message is not None:
        return re.sub(r"(?<!^)(?=[A-Z])", "_", type(p.message).__name__).lower()
    return p.build[0] if p.build else ""


@dataclass(slots=True)
class _Pending:
    ticket: int
    message: m.ClientMessage | None
    """None until it can be built (a dice action waiting for the seat's chain)."""
    build: tuple[str, int, int] | None = None
    """For a dice action: ``(kind, game, k)``."""
    auto: tuple[str, int, int] | None = None
    """The automation key of an automatic action (withdrawn when no longer wanted)."""
    state: Literal["unsent", "sent", "waiting"] = "unsent"
    retry_at: float = 0.0
    delay: float = RETRY_FIRST
    seq: int | None = None
    """Given when it is first sent (so that seqs follow the order of sending), then kept."""


@dataclass
class SeatCore:
    """One seat (``seated``: a token is presented) or a spectator of match ``match_id``."""

    match_id: str
    token: str | None = None
    name: str | None = None
    config: Config = field(default_factory=Config)
    jitter: Callable[[], float] = lambda: 0.5
    """Returns a number in [0, 1): the random part of every back-off (inject ``random.random``)."""

    tracker: Tracker = field(default_factory=Tracker)
    seat: int | None = None
    seq: int = 0
    welcomes: int = 0
    welcome_v: int | None = None
    welcomed: bool = False
    ended: Ended | None = None
    checks: dict[tuple[int, int], Verdict] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._pending: dict[int, _Pending] = {}
        self._held: dict[int, Held | None] = {}
        self._asked: set[tuple[int, str]] = set()
        self._done: set[tuple[str, int, int]] = set()
        self._said: set[tuple[str, int, int]] = set()
        self._commits: dict[int, int] = {}
        self._next_game_asked = 0
        self._reconnect_delay = RECONNECT_FIRST
        self._restarting = False
        self._resync_asked = -1
        self._heads: list[bytes | None] = [None, None]
        self._heads_game = 0
        self._game_id_cache: dict[int, GameId] = {}
        self._commit_replies: dict[int, Reply] = {}
        self._tickets = 0
        self._acked_recommit: tuple[int, int] | None = None
        self._probe: dict[int, int] = {}
        """Correspondence, after a snapshot: the roll of the next game's roll-off to try to
        deposit for (the snapshot does not say which one is wanted)."""
        self.server_offset_ms = 0
        """Server clock minus ``now`` (ms), from the welcome: for the next game's commit."""
        self.heard: float | None = None
        """When the open link last carried a frame (or opened); None: no link open."""

    # ================================================================ connection

    def opened(self, now: float) -> list[Effect]:
        self.welcomed = False
        self.heard = now
        last_v = self.tracker.version if self.welcomes else self.config.first_last_v
        out: list[Effect] = [
            Send(m.Hello(PROTOCOL_VERSION, self.match_id, self.token, last_v, self.name))
        ]
        if self.config.dead_link is not None:
            out.append(Watch(now + self.config.dead_link))
        return out

    def silent(self, now: float) -> list[Effect]:
        """The time of a :class:`Watch` has come: :class:`Drop` the link if it has really
        heard nothing for ``dead_link`` seconds, else watch again until then."""
        limit, heard = self.config.dead_link, self.heard
        if limit is None or heard is None or self.ended is not None:
            return []
        if now - heard >= limit:
            self.heard = None
            return [Drop()]
        return [Watch(heard + limit)]

    def closed(self, code: int | None, now: float) -> list[Effect]:
        """The connection ended (``code`` None: dropped without a close frame, or it could not
        be opened: refused, or the handshake failed)."""
        self.welcomed = False
        self.heard = None
        for p in self._pending.values():
            if p.state == "sent":
                p.state = "unsent"  # sent again after the next welcome
        if self.ended is not None:
            return []
        reason = definitive(code, self.tracker.over is not None)
        if reason is not None:
            return self._end(reason, code)
        if code == CloseCode.SERVICE_RESTART or self._restarting:
            first = not self._restarting
            self._restarting = True
            if first:
                pause = RESTART_SPREAD * self.jitter()
            else:
                pause = RESTART_RETRY * (0.5 + self.jitter())
        else:
            pause = self._reconnect_delay * (0.5 + self.jitter())
            self._reconnect_delay = min(self._reconnect_delay * 2, self.config.reconnect_cap)
        return [Connect(now + pause)]

    def refused(self, status: int, now: float) -> list[Effect]:
        """The HTTP upgrade was answered ``status``: 4xx (but 408, 429) is definitive, 5xx is a
        server starting or overloaded (connect again)."""
        if 400 <= status < 500 and status not in (408, 429):
            self.welcomed = False
            return self._end(EndReason.REFUSED, None)
        return self.closed(None, now)

    def stop(self) -> list[Effect]:
        """The program ends the client: unanswered actions are answered locally."""
        if self.ended is not None:
            return []
        return self._end(EndReason.CLOSED, None)

    def _end(self, reason: EndReason, code: int | None) -> list[Effect]:
        self.ended = Ended(reason, code)
        out: list[Effect] = [self.ended]
        for ticket, p in sorted(self._pending.items()):
            why = f"not sent: the client ended ({reason})"
            reply = m.Reject(p.seq, ErrorCode.MATCH_OVER, why)
            out.append(Answer(ticket, reply, True, _kind(p)))
        self._pending.clear()
        return out

    # ================================================================ receiving

    def receive(self, msg: m.ServerMessage, now: float) -> list[Effect]:
        out: list[Effect] = []
        self.heard = now
        if isinstance(msg, m.Event):
            self._event(msg, out)
        elif isinstance(msg, m.Ack | m.Reject):
            self._answered(msg, now, out)
        elif isinstance(msg, m.Welcome):
            self._welcome(msg, now, out)
        elif isinstance(msg, m.Snapshot):
            if msg.v < self.tracker.version:
                self._rewound()
            self.tracker.apply(msg)
            self._snapshot_heads()
            t = self.tracker
            if t.correspondence and t.settings is not None and t.settings.mode == "match":
                self._probe = {t.game + 1: 1}
        elif isinstance(msg, m.Probe):
            out.append(Send(m.Echo(msg.t)))  # at once: it measures our round trip
        self._automate(now, out)
        return self._finish(out)

    def _welcome(self, w: m.Welcome, now: float, out: list[Effect]) -> None:
        self.server_offset_ms = w.server_time - int(now * 1000)
        self.welcomes += 1
        self.welcomed = True
        self.welcome_v = w.v
        self.seat = None if w.role == "spectator" else int(w.role[-1])
        self._reconnect_delay, self._restarting = RECONNECT_FIRST, False
        applied = w.seq or 0
        self.seq = max(self.seq, applied)
        for ticket, p in sorted(self._pending.items()):
            if p.seq is not None and p.seq <= applied:  # applied: its events tell the rest
                del self._pending[ticket]
                self._answer(out, Answer(ticket, m.Ack(p.seq, w.v), kind=_kind(p)))
            else:
                p.state = "unsent"  # sent again now, retries included
        self._flush(out)

    def _event(self, e: m.Event, out: list[Effect]) -> None:
        t = self.tracker
        if e.v <= t.version:
            return  # a duplicate (a resume overlapping what was seen)
        if t.version and e.v > t.version + 1:
            # A gap: ask once for what is missing; what follows fills it.
            t.gaps += 1
            if self._resync_asked != t.version:
                self._resync_asked = t.version
                out.append(Send(m.Resync(t.version)))
            return
        t.apply(e)
        live = self.caught_up
        d = e.data
        if isinstance(d, pe.Committed):
            self._heads, self._heads_game = [d.commitment0, d.commitment1], d.game
        elif isinstance(d, pe.Recommitted):
            if d.game == self._heads_game:
                self._heads[d.seat] = d.commitment
            if live and d.seat == self.seat and self._current():
                self._say(out, NoticeKind.CHAIN_RENEWED, "New dice chain committed for this device")
            elif live and d.seat != self.seat:
                text = f"Seat {d.seat} committed a new dice chain from roll {d.k}"
                self._say(out, NoticeKind.OPPONENT_RENEWED, text, k=d.k)
        elif isinstance(d, pe.Dice):
            self._verify(d, out)
        elif isinstance(d, pe.GameOver):
            self._held.pop(d.game, None)  # its secret is of no more use

    def _answered(self, msg: Reply, now: float, out: list[Effect]) -> None:
        if msg.seq is None:
            return
        p = next((p for p in self._pending.values() if p.seq == msg.seq), None)
        if p is None:
            return
        if isinstance(msg, m.Reject) and msg.code in TRY_AGAIN:
            # Not an answer: the same action, same seq, again later (no horizon).
            p.state = "waiting"
            p.retry_at = now + p.delay * (0.5 + self.jitter())
            p.delay = min(p.delay * 2, RETRY_CAP)
            return
        del self._pending[p.ticket]
        self._answer(out, Answer(p.ticket, msg, kind=_kind(p)))
        if isinstance(p.message, m.Reveal) and p.message.game in self._probe:
            self._probed(p.message, msg)
        if isinstance(p.message, m.Recommit):
            if isinstance(msg, m.Ack):
                held = self._held.get(p.message.game)
                self._acked_recommit = (p.message.game, held.n if held else 0)
            else:
                text = f"Could not commit a new dice chain: {msg.message}"
                self._say(out, NoticeKind.RECOMMIT_REFUSED, text, alarm=True)
        self._flush(out)  # actions held back behind a re-commitment go now

    # ================================================================ acting

    def act(self, message: m.Action, now: float) -> tuple[int, list[Effect]]:
        """Send ``message`` (its ``seq`` is given when it is sent); returns its ticket."""
        if isinstance(message, m.Stop):
            self._done.add(("commit", self.tracker.commit_game, 0))  # no commit races it
        p = self._new(message)
        out: list[Effect] = []
        self._flush(out)
        self._automate(now, out)
        return p.ticket, self._finish(out)

    def roll(self, now: float) -> tuple[int, list[Effect]]:
        t = self.tracker
        self._done.add(("decide", t.game, t.k))
        return self._dice("roll", t.game, t.k, now)

    def reveal(self, game: int, k: int, now: float) -> tuple[int, list[Effect]]:
        return self._dice("reveal", game, k, now)

    def commit(self, game: int, now: float) -> tuple[int, list[Effect]]:
        """Commit to this seat's chain for ``game`` (once: again, the same ticket; its answer,
        once there, is :meth:`commit_reply`)."""
        if game in self._commits:
            return self._commits[game], []
        return self._dice("commit", game, 0, now)

    def commit_reply(self, game: int) -> Reply | None:
        ticket = self._commits.get(game)
        return None if ticket is None else self._commit_replies.get(ticket)

    def next_game(self, now: float) -> list[Effect]:
        """The player asks for the next game now (instead of the automatic commit)."""
        self._next_game_asked = self.tracker.commit_game
        out: list[Effect] = []
        self._automate(now, out)
        return self._finish(out)

    def _dice(
        self, kind: str, game: int, k: int, now: float, auto: bool = False
    ) -> tuple[int, list[Effect]]:
        p = self._new(None, build=(kind, game, k), auto=(kind, game, k) if auto else None)
        if kind == "commit":
            self._commits[game] = p.ticket
        out: list[Effect] = []
        if not auto:
            self._flush(out)
            self._automate(now, out)
        return p.ticket, self._finish(out)

    def _new(self, message: m.ClientMessage | None, **kw: object) -> _Pending:
        self._tickets += 1
        p = _Pending(self._tickets, message, **kw)  # type: ignore[arg-type]
        self._pending[p.ticket] = p
        return p

    def chain_ready(self, game: int, held: Held | None, now: float) -> list[Effect]:
        """The answer to :class:`NeedChain` for ``game``."""
        out: list[Effect] = []
        recommit = next((p for p in self._pending.values()
                         if p.build and p.build[0] == "recommit" and p.build[1] == game
                         and p.message is None), None)  # fmt: skip
        if recommit is not None and held is not None and held.n > 0:
            t, seat = self.tracker, self.seat
            assert seat is not None
            _, _, k0 = recommit.build  # type: ignore[misc]
            still = (t.game == game and t.k == k0 and t.clock.phase in BETWEEN_ROLLS
                     and t.recommits[seat] + 1 == held.n)  # fmt: skip
            if still:
                self._held[game] = held
                recommit.message = m.Recommit(0, game, held.head)
            else:  # the moment passed while the chain was made: look again
                del self._pending[recommit.ticket]
                self._done.discard(("recommit", game, k0))
        elif held is not None or game not in self._held:
            self._held[game] = held
        self._asked.discard((game, "load"))
        self._asked.discard((game, "commit"))
        self._flush(out)
        self._automate(now, out)
        return self._finish(out)

    def tick(self, now: float) -> list[Effect]:
        out: list[Effect] = []
        for p in self._pending.values():
            if p.state == "waiting" and p.retry_at <= now:
                p.state = "unsent"
        self._flush(out)
        self._automate(now, out)
        return self._finish(out)

    def wake_at(self) -> float | None:
        """When :meth:`tick` is next needed (a retry, the automatic commit), or None."""
        times = [p.retry_at for p in self._pending.values() if p.state == "waiting"]
        at = self.commit_at()
        if at is not None:
            times.append(at)
        return min(times) if times else None

    def _finish(self, out: list[Effect]) -> list[Effect]:
        at = self.wake_at()
        if at is not None and self.ended is None:
            out.append(Wake(at))
        return out

    def _answer(self, out: list[Effect], answer: Answer) -> None:
        if answer.ticket in self._commits.values():
            self._commit_replies[answer.ticket] = answer.reply
        out.append(answer)

    # ================================================================ sending

    def _flush(self, out: list[Effect]) -> None:
        """Build and send what can go: first what was sent before (in seq order), then the rest
        in the order it was asked for; each gets its seq when first sent. An action that must
        wait (not built yet: it needs the seat's chain; or one after which this seat reveals,
        while its chain is unknown or to be renewed) holds back every later one but a
        re-commitment, which is what it waits for; an unanswered action (sent, or waiting for
        its retry) holds back everything after it."""
        waiting = False
        order = sorted(self._pending.values(), key=lambda p: (p.seq is None, p.seq or 0, p.ticket))
        for p in order:
            if self._pending.get(p.ticket) is not p:
                continue
            if p.state in ("sent", "waiting"):
                # One numbered action in flight at a time: the store may refuse one for a moment
                # (retry_later) and take the next; the server would then refuse the retry as
                # stale (its seq is older than the one applied).
                return
            recommit = p.build is not None and p.build[0] == "recommit"
            if waiting and not recommit:
                continue
            if p.message is None:
                self._build(p, out)
                if self._pending.get(p.ticket) is not p:
                    continue  # answered here (no chain to build it from): holds nothing back
                if p.message is None:
                    if recommit:
                        return  # its chain is being made
                    waiting = True
                    continue
            if p.seq is None and isinstance(p.message, _HANDS_OVER) and self._chain_unknown():
                waiting = True  # after it this seat reveals: first know (or renew) its chain
                continue
            if p.state == "unsent" and self.welcomed:
                if p.seq is None:
                    self.seq += 1
                    p.seq = self.seq
                    p.message = dataclasses.replace(p.message, seq=p.seq)  # type: ignore[type-var]
                p.state = "sent"
                out.append(Send(p.message))
                return  # one in flight: the next goes when this one is answered
            if isinstance(p.message, m.Recommit):
                return

    def _build(self, p: _Pending, out: list[Effect]) -> None:
        assert p.build is not None
        kind, game, k = p.build
        if kind == "recommit":
            return  # built by chain_ready
        purpose: Literal["load", "commit"] = "commit" if kind == "commit" else "load"
        if game not in self._held:
            self._ask(NeedChain(game, purpose), out)
            return
        held = self._held[game]
        if kind == "commit":
            if held is None or held.n != 0:
                self._ask(NeedChain(game, "commit"), out)
                return
            p.message = m.Commit(0, game, held.chain.commitment)
            return
        if held is not None and self._current(held, game) and k <= held.chain.length:
            link = held.chain.link(k)
            p.message = (m.Roll if kind == "roll" else m.Reveal)(0, game, k, link)
            return
        if self._recommit_coming(game):
            return  # a re-commitment is (or will be) under way: the action waits for it
        del self._pending[p.ticket]
        why = "not sent: this client does not hold the seat's dice chain"
        reply = m.Reject(p.seq, ErrorCode.BAD_REVEAL, why)
        self._answer(out, Answer(p.ticket, reply, True, kind))

    def _chain_unknown(self) -> bool:
        """In a game, between rolls, with this seat's chain not loaded yet, or not the current
        one while a re-commitment is to come."""
        t, seat = self.tracker, self.seat
        if seat is None or t.commitments[seat] is None or t.clock.phase not in BETWEEN_ROLLS:
            return False
        return t.game not in self._held or (not self._current() and self._recommit_coming(t.game))

    def _ask(self, need: NeedChain, out: list[Effect]) -> None:
        key = (need.game, need.purpose)
        if key not in self._asked:
            self._asked.add(key)
            out.append(need)

    # ================================================================ automation

    @property
    def caught_up(self) -> bool:
        """Welcomed, and the events have reached the version the welcome announced."""
        v = self.welcome_v
        return self.welcomed and v is not None and self.tracker.version >= v

    def commit_at(self) -> float | None:
        """When (``now``'s scale) the automatic commit to the next game waits for: between
        games, once ``next_game_share`` of the commit clock has passed; None when it does not
        wait for a time (game 1, no share, asked for, done, or no clock)."""
        t, seat, share = self.tracker, self.seat, self.config.next_game_share
        game = t.commit_game
        if t.correspondence:
            share = None  # a correspondence match waits for nobody: commit at once
        if seat is None or share is None or game <= 1 or t.owes(seat) != "commit":
            return None
        if self._next_game_asked == game or game in self._commits or not self.config.auto_commit:
            return None
        if ("commit", game, 0) in self._done or t.clock.deadline is None:
            return None
        budget = t.settings.move_time if t.settings is not None else 30_000
        at_server_ms = t.clock.deadline - budget * (1 - share)
        return (at_server_ms - self.server_offset_ms) / 1000

    def _commit_due(self, now: float) -> bool:
        at = self.commit_at()
        return at is None or now >= at

    def _automate(self, now: float, out: list[Effect]) -> None:
        seat, t, cfg = self.seat, self.tracker, self.config
        if seat is None or self.ended is not None:
            return
        if t.over is not None:
            self._withdraw(out)
            return
        if not self.caught_up:
            return
        self._withdraw(out)
        owed = t.owes(seat)  # None in the middle of a transition (no clock yet)
        if owed == "commit":
            game = t.commit_game
            key = ("commit", game, 0)
            wanted = cfg.auto_commit and key not in self._done and game not in self._commits
            if wanted and self._commit_due(now):
                self._done.add(key)
                self._dice("commit", game, 0, now, auto=True)
                self._flush(out)
            return
        phase, game, k = t.clock.phase, t.game, t.k
        if phase not in BETWEEN_ROLLS | ROLLING or not t.clock.seats:
            return
        if game not in self._held:
            self._ask(NeedChain(game, "load"), out)
            return
        current = self._current()
        if not current:
            self._recover(owed, now, out)
            return
        if owed in ROLLING and cfg.auto_reveal:
            key = ("reveal", game, k)
            if key not in self._done:
                self._done.add(key)
                self._dice("reveal", game, k, now, auto=True)
                self._flush(out)
        elif owed == "decide" and cfg.auto_roll and not t.may_double(seat):
            key = ("decide", game, k)
            if key not in self._done:
                self._done.add(key)
                self._dice("roll", game, k, now, auto=True)
                self._flush(out)
        elif owed is None and t.correspondence and cfg.auto_reveal:
            self._deposit_turn(now, out)
        if t.correspondence and cfg.auto_reveal and cfg.auto_commit:
            self._prepare(now, out)

    # ================================================================ correspondence

    def _deposit_turn(self, now: float, out: list[Effect]) -> None:
        """While the opponent decides its roll, deposit this seat's reveal of that roll."""
        t, seat = self.tracker, self.seat
        assert seat is not None
        if t.clock.phase != "decide" or t.clock.seats != (1 - seat,):
            return
        key = ("deposit", t.game, t.k)
        if key not in self._done:
            self._done.add(key)
            self._dice("reveal", t.game, t.k, now, auto=True)
            self._flush(out)

    def _prepare(self, now: float, out: list[Effect]) -> None:
        """During a game of a correspondence match, prepare the next: commit to it, then
        deposit the reveals its roll-off asks for (or, after a snapshot, try from roll 1)."""
        t = self.tracker
        if t.settings is None or t.settings.mode != "match" or not t.in_game:
            return
        game = t.game + 1
        key = ("commit", game, 0)
        if key not in self._done and game not in self._commits:
            self._done.add(key)
            self._dice("commit", game, 0, now, auto=True)
            self._flush(out)
            return
        if t.ahead is not None and t.ahead[0] == game:
            k = t.ahead[1]
            self._probe.pop(game, None)
        elif game in self._probe and self.commit_reply(game) is not None:
            k = self._probe[game]
        else:
            return
        key = ("reveal", game, k)
        if key not in self._done:
            self._done.add(key)
            self._dice("reveal", game, k, now, auto=True)
            self._flush(out)

    def _probed(self, sent: m.Reveal, reply: Reply) -> None:
        """The answer to a deposit for the next game's roll-off tried after a snapshot: a
        ``stale`` one asks for a later roll (the roll-off went on: try the next); anything else
        ends the trying (done, or not wanted now: a ``rolloff_ahead`` will say when)."""
        if isinstance(reply, m.Reject) and reply.code == ErrorCode.STALE:
            self._probe[sent.game] = sent.k + 1
        else:
            self._probe.pop(sent.game, None)

    def _rewound(self) -> None:
        """The store lost events this seat saw (a failover, docs/operations.md): what the seat
        sent by itself for them (commitments, reveals, rolls) may be lost too, so the automation
        may send it again; a commitment ruled out by a stop, or still on its way, stays."""
        for done in sorted(self._done):
            kind, game, _ = done
            if kind == "commit":
                ticket = self._commits.get(game)
                if ticket is None or ticket in self._pending:
                    continue
                del self._commits[game]
            self._done.discard(done)

    def _withdraw(self, out: list[Effect]) -> None:
        """Automatic actions the match no longer wants (not in flight) are dropped; what was
        held behind one of them (one numbered action in flight) is sent now."""
        t, seat = self.tracker, self.seat
        withdrawn = False
        for ticket in sorted(self._pending):
            p = self._pending[ticket]
            if p.auto is None or p.state == "sent":
                continue
            kind, game, k = p.auto
            if t.over is None and seat is not None:
                owed = t.owes(seat)
                if t.correspondence and game == t.game + 1 and t.in_game:
                    continue  # the next game's, prepared ahead: wanted while this one lasts
                if kind == "commit" and (owed in (None, "commit") and t.commit_game == game):
                    continue
                if kind == "reveal" and owed in ROLLING | {None} and (t.game, t.k) == (game, k):
                    continue
                if kind == "roll" and owed in ("decide", None) and (t.game, t.k) == (game, k):
                    continue
                if kind == "recommit" and (t.game, t.k) == (game, k):
                    continue
            del self._pending[ticket]
            why = "withdrawn: the match no longer waits for it"
            out.append(Answer(ticket, m.Reject(p.seq, ErrorCode.STALE, why), True, kind))
            withdrawn = True
        if withdrawn:
            self._flush(out)

    def _current(self, held: Held | None = None, game: int | None = None) -> bool:
        """Whether ``held`` (default: the chain held for the current game) is the one the
        server checks this seat's next reveal against."""
        seat, t = self.seat, self.tracker
        if seat is None:
            return False
        if game is not None and game == t.game + 1 and t.in_game:
            # The next game's chain, prepared ahead: nobody re-commits before a game starts.
            return held is not None and held.n == 0
        if held is None:
            held = self._held.get(game or t.game)
        if held is None or t.k > held.chain.length:
            return False  # none, or run out
        count = t.recommits[seat]
        if self._acked_recommit == ((game or t.game), held.n) and held.n == count + 1:
            return True  # the server has it: its event is on the way
        if count == 0:
            return held.n == 0 and held.chain.commitment == t.commitments[seat]
        last = t.recommitted[seat]
        if last is not None:
            link, k0 = last
            return held.n > 0 and held.from_k == k0 and held.head == link
        return held.n == count  # after a snapshot, which tells only how many

    def _recommit_coming(self, game: int) -> bool:
        """A re-commitment for ``game`` is under way, or the automation starts one now."""
        t, seat = self.tracker, self.seat
        if seat is None or not self.config.auto_reveal:
            return False
        if any(p.build and p.build[:2] == ("recommit", game) for p in self._pending.values()):
            return True
        return (t.game == game and t.over is None and t.clock.phase in BETWEEN_ROLLS
                and t.recommits[seat] < MAX_RECOMMITMENTS
                and ("recommit", game, t.k) not in self._done)  # fmt: skip

    def _recover(self, owed: str | None, now: float, out: list[Effect]) -> None:
        """Re-commit a fresh chain between rolls (docs/fairness.md, section 7); during a roll
        that is not allowed: say once that this seat cannot reveal."""
        t, seat = self.tracker, self.seat
        assert seat is not None
        game, k = t.game, t.k
        if not self.config.auto_reveal:
            return
        if t.recommits[seat] >= MAX_RECOMMITMENTS:
            self._say(out, NoticeKind.RECOMMIT_LIMIT,
                      "This client does not hold this seat's dice secret and the seat has used "
                      f"its {MAX_RECOMMITMENTS} new chains of this game: it cannot reveal",
                      alarm=True)  # fmt: skip
            return
        if t.clock.phase not in BETWEEN_ROLLS:
            if owed in ROLLING:
                self._say(out, NoticeKind.CANNOT_REVEAL,
                          "This client does not hold the dice secret this seat committed to, and "
                          "a new one can only be committed between rolls: it cannot reveal "
                          "for this roll", k=k, alarm=True)  # fmt: skip
            return
        key = ("recommit", game, k)
        if key in self._done:
            return  # one try per roll: a refusal does not loop
        self._done.add(key)
        self._start_recommit(key, out)

    def recommit(self, now: float) -> tuple[int | None, list[Effect]]:
        """Commit a fresh chain for the rest of this game now (between rolls, at most three
        times a game); None when that is not allowed now."""
        t, seat = self.tracker, self.seat
        if seat is None or t.clock.phase not in BETWEEN_ROLLS or t.over is not None:
            return None, []
        if t.recommits[seat] >= MAX_RECOMMITMENTS:
            return None, []
        key = ("recommit", t.game, t.k)
        self._done.add(key)
        out: list[Effect] = []
        ticket = self._start_recommit(key, out)
        return ticket, self._finish(out)

    def _start_recommit(self, key: tuple[str, int, int], out: list[Effect]) -> int:
        _, game, k = key
        assert self.seat is not None
        n = self.tracker.recommits[self.seat] + 1
        length = max(self.config.chain_length, 2 * k)  # as many rolls ahead as behind
        p = self._new(None, build=key, auto=key)
        out.append(NeedChain(game, "recommit", k, length, n))
        return p.ticket

    @property
    def idle(self) -> bool:
        """Caught up, and nothing of this seat's waits to be sent or answered: a client that
        connects only to act may close now (a correspondence match: docs/correspondence.md)."""
        return self.caught_up and not self._pending and not self._asked

    def holds_chain(self) -> bool:
        """Whether this client holds the chain the seat's next reveal must come from."""
        return self._current()

    def _say(self, out: list[Effect], kind: NoticeKind, text: str, *, k: int = 0,
             alarm: bool = False) -> None:  # fmt: skip
        key = (str(kind), self.tracker.game, k)
        if key not in self._said:
            self._said.add(key)
            out.append(Notice(kind, self.tracker.game, k, text, alarm))

    # ================================================================ verification

    def _game_id(self, game: int) -> GameId:
        gid = self._game_id_cache.get(game)
        if gid is None:
            gid = self._game_id_cache[game] = GameId(bytes.fromhex(self.match_id), game)
        return gid

    def _snapshot_heads(self) -> None:
        t = self.tracker
        self._heads_game = t.game
        self._heads = list(t.heads)

    def _verify(self, d: pe.Dice, out: list[Effect]) -> None:
        heads = self._heads
        if self._heads_game != d.game or None in heads:
            self.checks[(d.game, d.k)] = Verdict(None, "no commitments seen")
            self._heads = [d.reveal0, d.reveal1]
            self._heads_game = d.game
            return
        gid = self._game_id(d.game)
        why = ""
        for seat, reveal in ((0, d.reveal0), (1, d.reveal1)):
            head = heads[seat]
            assert head is not None
            if not link_ok(gid, seat, d.k, reveal, head):
                why = f"seat {seat}'s reveal of roll {d.k} does not follow its previous link"
        if not why and derive_dice(gid, d.k, d.reveal0, d.reveal1) != (d.d1, d.d2):
            why = f"the dice of roll {d.k} are not the ones its reveals give"
        self.checks[(d.game, d.k)] = Verdict(not why, why)
        self._heads = [d.reveal0, d.reveal1]
        if why:
            self._say(out, NoticeKind.DICE_ALARM, f"Dice alarm: {why}", k=d.k, alarm=True)
