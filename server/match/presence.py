"""Presence: whether each seat of a match is connected, and how many people watch it.

A seat is ``online`` while a connection holds it, ``reconnecting`` from the moment that
connection ends, and ``gone`` after ``gone_after_seconds`` (a setting) without a new one. The
entries live in Redis (the seat's next connection may land on another process) and every
change is published on the match channel, so the opponent and the spectators hear of it on
whichever process serves them. A ``reconnecting`` or ``gone`` seat that owes a decision is
shown with its deadline: the forfeit countdown.
"""

from __future__ import annotations

import asyncio
import contextlib
import time

from protocol import codec
from protocol import messages as m
from server.machine.state import MatchState, owing
from server.match.connections import Spawn
from server.match.seat_entry import CLAIMED, SeatEntry
from server.match.service import MatchService
from server.match.store import Store
from server.ops import logs

log = logs.get("presence")

GONE_AFTER_SECONDS = 20.0
# Spectator counts are announced at most this often per match and process (a swarm of
# spectators joining at once costs one frame per connection, not one per pair).
WATCHERS_EVERY_SECONDS = 0.5
# Counts of a crashed process age out with the key (every change refreshes it).
WATCHERS_TTL_SECONDS = 6 * 3600

RawPresence = tuple[bytes | None, bytes | None]


def statuses(raw: RawPresence) -> tuple[str, str]:
    """Each seat's status from the stored entries (a seat never connected counts as gone).

    >>> statuses((b"online:ab12", None))
    ('online', 'gone')
    """
    return tuple(  # type: ignore[return-value]
        (entry.status if entry else "gone") for entry in map(SeatEntry.read, raw)
    )


def waiting_gone(raw: bytes | None) -> str | None:
    """The connection id under which a seat with this presence entry waits in the gone index
    (:meth:`PresenceBook.left`, :meth:`PresenceBook.claimed`): its entry is ``reconnecting``;
    None otherwise.

    >>> waiting_gone(b"reconnecting:claimed"), waiting_gone(b"online:ab12"), waiting_gone(b"")
    ('claimed', None, None)
    """
    entry = SeatEntry.read(raw)
    return entry.conn if entry is not None and entry.status == "reconnecting" else None


def greeting(
    state: MatchState, own_seat: int | None, raw: RawPresence, watchers: int
) -> list[m.ServerMessage]:
    """What a new connection is told about the other seats and the spectators."""
    owed, _ = owing(state)
    messages: list[m.ServerMessage] = []
    for seat, entry in enumerate(map(SeatEntry.read, raw)):
        if seat == own_seat or entry is None or entry.claimed:
            continue  # itself, or a seat that never connected (the snapshot shows it)
        deadline = state.deadline if entry.status != "online" and seat in owed else None
        messages.append(m.Presence(seat, entry.status, deadline))  # type: ignore[arg-type]
    messages.append(m.Watchers(watchers))
    return messages


class PresenceBook:
    """This process's side of presence: records changes, shows ``gone``, counts watchers.

    When a seat's connection ends, the time it is to be shown gone is indexed in Redis, and
    any process's :meth:`sweep_gone` announces it then (unless a connection took the seat
    since): a restart or the death of the process that saw the drop loses nothing.
    """

    def __init__(
        self,
        store: Store,
        matches: MatchService,
        spawn: Spawn,
        gone_after_seconds: float = GONE_AFTER_SECONDS,
    ) -> None:
        self.store = store
        self.matches = matches
        self._spawn = spawn
        self.gone_after_ms = int(gone_after_seconds * 1000)
        self._watcher_news: set[str] = set()

    async def left(self, match_id: str, seat: int, conn_id: str) -> None:
        """The seat's connection ended: ``reconnecting`` now, ``gone`` later unless it returns."""
        deadline = await self._deadline(match_id, seat)
        gone_at = _wall_ms() + self.gone_after_ms
        await self._record(match_id, seat, "reconnecting", conn_id, deadline, gone_at)

    async def claimed(self, match_id: str, seat: int) -> None:
        """The seat was just taken over HTTP (create, join) and has no connection yet: it is
        ``reconnecting`` (not connected, expected) until it connects, and ``gone`` only after
        as long as a dropped seat. Nothing is announced: the seat's own connection is a moment
        away, and only a seat that does not come is news."""
        gone_at = _wall_ms() + self.gone_after_ms
        await self.store.set_presence(
            match_id, seat, SeatEntry("reconnecting", CLAIMED), None, gone_at
        )

    async def sweep_gone(self, interval: float = 0.5) -> None:
        """Forever: show gone the seats whose time has come (on any process)."""
        while True:
            try:
                for match_id, seat, conn_id in await self.store.claim_gone(_wall_ms()):
                    await self._gone(match_id, seat, conn_id)
            except asyncio.CancelledError:
                raise
            except Exception as exc:
                log.warning("presence sweep failed", extra=logs.fields(error=repr(exc)))
            await asyncio.sleep(interval)

    async def _gone(self, match_id: str, seat: int, conn_id: str) -> None:
        # Only if no connection took the seat since, here or on another process.
        if waiting_gone(await self.store.seat_presence(match_id, seat)) == conn_id:
            deadline = await self._deadline(match_id, seat)
            await self._record(match_id, seat, "gone", conn_id, deadline)

    async def _deadline(self, match_id: str, seat: int) -> int | None:
        """The seat's decision deadline, if it owes one (shown as the forfeit countdown)."""
        with contextlib.suppress(Exception):
            state = await self.matches.load(match_id, fresh=True)
            owed, _ = owing(state)
            return state.deadline if seat in owed else None
        return None

    async def _record(
        self,
        match_id: str,
        seat: int,
        status: str,
        conn_id: str,
        deadline: int | None,
        gone_at: int | None = None,
    ) -> None:
        frame = codec.encode(m.Presence(seat, status, deadline))  # type: ignore[arg-type]
        await self.store.set_presence(match_id, seat, SeatEntry(status, conn_id), frame, gone_at)

    async def watching(self, match_id: str, conn_id: str, joined: bool) -> None:
        """Count a spectator connection in (or out) and announce the new number soon."""
        await self.store.watch(match_id, conn_id, joined, WATCHERS_TTL_SECONDS)
        if match_id not in self._watcher_news:
            self._watcher_news.add(match_id)
            self._spawn(self._announce_watchers(match_id))

    async def _announce_watchers(self, match_id: str) -> None:
        await asyncio.sleep(WATCHERS_EVERY_SECONDS)
        # Changes from here on schedule a new announcement.
        self._watcher_news.discard(match_id)
        with contextlib.suppress(Exception):
            count = await self.store.watchers(match_id)
            await self.store.publish(match_id, codec.encode(m.Watchers(count)))


def _wall_ms() -> int:
    return time.time_ns() // 1_000_000
