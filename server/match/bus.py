"""The match-event bus: what the match service tells the rest of the server, and when.

:class:`~server.match.service.MatchService` publishes typed events to listeners registered
once, at start, in ``server/app.py`` (the one wiring place: a feature never changes the match
service to hear of matches). Each event carries the match's state after the transition and
names what a listener may key its work on:

=================  ==================================================  ====================
event              told                                                 idempotency key
=================  ==================================================  ====================
``MatchFinishing`` before the commit of a transition that ends a match  match id
                   (awaited; may refuse the commit)
``Committed``      after every stored transition (a creation, a          (match id, version)
                   command, a timeout), with its events and command
``GameFinished``   after a stored transition, once per game it           (match id, game)
                   finished (its ``game_over`` event), in game order
``MatchFinished``  after the stored transition that ended the match      match id
                   (its ``match_over`` event)
=================  ==================================================  ====================

Delivery after the commit (``Committed``, ``GameFinished``, ``MatchFinished``: :meth:`Bus.on`):

* Only transitions Redis has stored are told, by the process that stored them, once in that
  process; never a transition that was refused, lost the race for its version, or failed to
  store. A version is stored by one commit only (compare-and-set), so across all processes
  each transition is told in exactly one of them.
* Inline in the commit path, after the transition's events went to this process's own
  connections and before the command is acknowledged to its sender. So a handler must not
  block: a plain function runs there and then (count, note, hand over); an ``async def``
  handler is started as a task and not awaited, as is the awaitable a plain function returns
  (a listener with work for only a few commits decides inline, and the others cost no task:
  :meth:`server.players.turn_notices.TurnNotices.committed`).
* Order: per transition ``Committed``, then ``GameFinished`` for each game in game order, then
  ``MatchFinished``; each event to its listeners in the order they were registered (async
  handlers' tasks start in that order, then run side by side). One process tells the
  transitions of one match in version order (they are made under the match's lock); a
  transition made by another process is told in that process, not this one.
* A handler that raises (or whose task fails) is logged ("match listener failed") and counted
  (``fairgammon_listener_errors_total{listener}``); the commit stands, and every other
  listener is told as usual.
* **At most once after a crash.** Nothing is replayed: a process that dies between a commit
  and a handler (or before a handler's task ended) loses that delivery, and no other process
  makes it up. At shutdown, pending tasks get :data:`DRAIN_SECONDS` to end, then are
  cancelled.

Delivery before the commit (``MatchFinishing``: :meth:`Bus.before_finish`):

* Awaited in registration order, just before the commit of a transition that ends a match
  (only then: the other transitions pay nothing). The first that raises refuses the commit:
  nothing is stored, the listeners after it are not called, and the command is answered
  ``retry_later`` (its sender sends it again), as when Redis fails.
* Not proof of a commit: the commit may still fail after it (a version conflict, Redis down,
  the process killed) and the transition may be retried and told again. A before-listener
  only writes an intention that it checks against the stored match later.

**At least once, exactly once through the store.** A listener that must hear of every finished
match (ratings today; a tournament or a pairing pool tomorrow) pairs the two kinds: before the
commit it marks the match due in an index of its own, with a lease; after the commit it does
the work and clears the mark; a sweeper in every process claims the marks whose lease ran out
and does the work again (at least once, keyed by the match id). Each step is idempotent on
that key, so the effects happen once through the store: :mod:`server.players.results` is the
model (``SET NX`` of the result, a ``done`` set per account). A listener that can find what it
missed from the store needs no mark: analysis queues each finished game at once
(:mod:`server.work.analysis_listener`), and asking for the report of a game that was never
queued queues it (``server/web/records.py``).
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, TypeVar

from protocol import events as pe
from protocol.messages import Event
from server.machine.commands import Command
from server.machine.state import Config, MatchState
from server.ops import logs, metrics
from server.ops.tasks import cancel_all

log = logs.get("bus")

DRAIN_SECONDS = 1.0
"""How long a stopping process waits for listeners' pending tasks before cancelling them."""


@dataclass(frozen=True, slots=True)
class MatchFinishing:
    """A transition that ends the match is about to be committed: ``state`` is the match as
    it will be stored (or not: the commit can still fail after the listeners ran)."""

    state: MatchState

    @property
    def match_id(self) -> str:
        return self.state.match_id


@dataclass(frozen=True, slots=True)
class Committed:
    """A transition is stored: the match after it, its events (the last one's ``v`` is the
    state's version), and its cause: a command, the match's creation (its config), or None
    (the clock settled a deadline)."""

    state: MatchState
    events: tuple[Event, ...]
    command: Command | Config | None

    @property
    def match_id(self) -> str:
        return self.state.match_id


@dataclass(frozen=True, slots=True)
class GameFinished:
    """A stored transition finished game ``over.game`` of the match (``over``: its
    ``game_over`` event: winner, points, how it ended, the score after it)."""

    state: MatchState
    over: pe.GameOver

    @property
    def match_id(self) -> str:
        return self.state.match_id

    @property
    def game(self) -> int:
        return self.over.game


@dataclass(frozen=True, slots=True)
class MatchFinished:
    """A stored transition ended the match (``over``: its ``match_over`` event: winner, final
    score, how it ended)."""

    state: MatchState
    over: pe.MatchOver

    @property
    def match_id(self) -> str:
        return self.state.match_id


Told = Committed | GameFinished | MatchFinished
E = TypeVar("E", Committed, GameFinished, MatchFinished)


@dataclass(frozen=True, slots=True)
class _Listener:
    name: str
    handler: Callable[[Any], Any]


class Bus:
    """The listeners of one process, by event kind, in registration order."""

    def __init__(self) -> None:
        self._before: list[_Listener] = []
        self._committed: list[_Listener] = []
        self._games: list[_Listener] = []
        self._matches: list[_Listener] = []
        self._kinds: dict[type, list[_Listener]] = {
            Committed: self._committed,
            GameFinished: self._games,
            MatchFinished: self._matches,
        }
        self._pending: set[asyncio.Future[Any]] = set()

    # ------------------------------------------------------------------ registration

    def on(self, kind: type[E], name: str, handler: Callable[[E], Awaitable[None] | None]) -> None:
        """Tell ``handler`` of every event of ``kind`` after its commit (``name``: the
        listener's name in logs and metrics). An ``async def`` handler runs as a task, and so
        does what a plain handler returns when it is not None (an awaitable)."""
        self._kinds[kind].append(_Listener(name, handler))

    def before_finish(
        self, name: str, handler: Callable[[MatchFinishing], Awaitable[None]]
    ) -> None:
        """Await ``handler`` before the commit of every transition that ends a match; if it
        raises, the commit is refused."""
        self._before.append(_Listener(name, handler))

    # ------------------------------------------------------------------ publishing

    async def finishing(self, state: MatchState) -> None:
        """Before the commit that ends ``state``'s match: each before-listener in order; the
        first exception is logged, counted and raised (the commit is refused)."""
        if not self._before:
            return
        event = MatchFinishing(state)
        for listener in self._before:
            try:
                await listener.handler(event)
            except Exception as exc:
                _failed(listener, event, exc)
                raise

    def committed(
        self,
        state: MatchState,
        events: tuple[Event, ...],
        command: Command | Config | None,
        ending: bool,
    ) -> None:
        """After a commit: tell every listener of what it stored (``ending``: the transition
        ended the match). Never raises."""
        if self._committed:
            self._tell(self._committed, Committed(state, events, command))
        if self._games:
            for event in events:
                if isinstance(event.data, pe.GameOver):
                    self._tell(self._games, GameFinished(state, event.data))
        if ending and self._matches:
            over = next((e.data for e in events if isinstance(e.data, pe.MatchOver)), None)
            if over is None:  # the machine emits one with every ending: a bug if not
                log.error("a match ended without match_over",
                          extra=logs.fields(match=state.match_id, v=state.version))
                return
            self._tell(self._matches, MatchFinished(state, over))

    def _tell(self, listeners: list[_Listener], event: Told) -> None:
        for listener in listeners:
            try:
                result = listener.handler(event)
                if result is not None:
                    self._start(listener, event, result)
            except Exception as exc:
                _failed(listener, event, exc)

    def _start(self, listener: _Listener, event: Told, work: Awaitable[None]) -> None:
        task = asyncio.ensure_future(work)
        self._pending.add(task)

        def ended(task: asyncio.Future[Any]) -> None:
            self._pending.discard(task)
            if not task.cancelled() and (exc := task.exception()) is not None:
                _failed(listener, event, exc)

        task.add_done_callback(ended)

    # ------------------------------------------------------------------ stopping

    async def drain(self, patience: float = DRAIN_SECONDS) -> None:
        """Give the listeners' pending tasks ``patience`` seconds to end, then cancel them."""
        if self._pending:
            await asyncio.wait(set(self._pending), timeout=patience)
        await cancel_all(list(self._pending))


def _failed(listener: _Listener, event: MatchFinishing | Told, exc: BaseException) -> None:
    metrics.LISTENER_ERRORS.labels(listener.name).inc()
    log.warning(
        "match listener failed",
        extra=logs.fields(
            listener=listener.name,
            event=type(event).__name__,
            match=event.match_id,
            error=repr(exc),
        ),
    )
