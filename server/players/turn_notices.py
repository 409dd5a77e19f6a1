"""Notices from the match-event bus (docs/friends.md, "Notifications"): ``your_turn`` when a
correspondence decision passes to a player, ``result`` when a match of an account ends,
``rematch`` when the other seat of a finished match offers one, ``friend_playing`` to the
followers who asked for it when a player's match begins (its second seat taken, not private).

Registered in server/app.py with ``bus.on(Committed, "notices", ...)`` and
``bus.on(MatchFinished, "notices", ...)``; a lost delivery loses only a notice.
"""

from __future__ import annotations

from collections.abc import Awaitable
from dataclasses import dataclass

from protocol.events import PLAYER_DECISIONS, Clock
from server.machine.commands import Join, OfferRematch
from server.machine.state import MatchState
from server.match.bus import Committed, MatchFinished
from server.match.store import Store
from server.players.friends import Friends
from server.players.notices import Notices


@dataclass
class TurnNotices:
    store: Store
    notices: Notices
    base_url: str
    friends: Friends

    async def _tell(self, key: str, kind: str, text: str, state: MatchState, page: str = "",
                    **data: object) -> None:
        """Notice ``kind`` to account ``key`` about ``state``'s match (its page, + ``page``)."""
        await self.notices.notify(key, kind, text, state.updated,
                                  f"{self.base_url}/m/{state.match_id}{page}",
                                  match=state.match_id, **data)  # fmt: skip

    async def _accounts(self, match_id: str) -> list[str | None]:
        refs = await self.store.seat_fields(match_id, ["a0", "a1"])
        return [r.decode().split(" ", 1)[0] if r else None for r in refs]

    def committed(self, event: Committed) -> Awaitable[None] | None:
        """What a commit has to tell, as work for the bus to start, or None: a plain function,
        so that the commits with nothing to tell (nearly all of them) cost no task."""
        command = event.command
        if isinstance(command, OfferRematch):
            return self._rematch(event, command)
        state = event.state
        started = isinstance(command, Join) and not state.config.private
        turn = _new_turn(event)
        if not started and turn is None:
            return None
        return self._tell_committed(event, started, turn)

    async def _tell_committed(self, event: Committed, started: bool, turn: Clock | None) -> None:
        """The match began (``started``); the decision passed to ``turn.seats``."""
        if started:
            await self._started(event)
        if turn is None:
            return
        state = event.state
        accounts = await self._accounts(state.match_id)
        opponent = state.names
        for seat in turn.seats:
            key = accounts[seat]
            if key:
                await self._tell(key, "your_turn", f"Your turn against {opponent[1 - seat]}",
                                 state, deadline=turn.deadline)

    async def _rematch(self, event: Committed, offer: OfferRematch) -> None:
        """The other seat's account hears of the offer; the finished match's page answers it."""
        state = event.state
        key = (await self._accounts(state.match_id))[1 - offer.seat]
        if key:
            text = f"{state.names[offer.seat]} offers you a rematch"
            await self._tell(key, "rematch", text, state, rematch=offer.match)

    async def _started(self, event: Committed) -> None:
        """Each player's followers who asked to hear of it: the match begins."""
        state = event.state
        accounts = await self._accounts(state.match_id)
        told: set[str] = {k for k in accounts if k}  # the players need no notice of it
        for seat, key in enumerate(accounts):
            if not key:
                continue
            player, opponent = state.names[seat], state.names[1 - seat]
            for fan in await self.friends.fans_to_tell(key):
                if fan in told:
                    continue
                told.add(fan)
                text = f"{player} started a match against {opponent}"
                await self._tell(fan, "friend_playing", text, state, "#watch", player=player)

    async def finished(self, event: MatchFinished) -> None:
        state, over = event.state, event.over
        if over.reason in ("cancelled", "declined"):
            return  # never played
        accounts = await self._accounts(state.match_id)
        for seat, key in enumerate(accounts):
            if not key:
                continue
            won = over.winner == seat
            other = state.names[1 - seat] or "nobody"
            text = (f"Your session with {other} ended" if over.winner is None
                    else f"You {'won' if won else 'lost'} against {other}")  # fmt: skip
            await self._tell(key, "result", text, state, won=won)


def _new_turn(event: Committed) -> Clock | None:
    """The clock of a correspondence decision this commit passed to other seats (a
    ``your_turn`` to each of its ``seats``), or None: not correspondence, no player decision
    next, a timeout, or the same player acting again."""
    if not event.state.config.correspondence or not event.events:
        return None
    clock = event.events[-1].next
    if clock is None or clock.phase not in PLAYER_DECISIONS:
        return None
    by = getattr(event.command, "seat", None)
    if by is None or by in clock.seats:
        return None
    return clock
