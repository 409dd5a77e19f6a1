"""The global indexes of matches (``fg:idx:open``, ``fg:idx:live``, ``fg:idx:deadlines``), kept
up to date after each commit by the process that made it, with as few round trips as is safe.

The indexes are hints: the commit script writes the match's own keys only (one slot), and the
lobby and the deadline sweeper re-check every entry against the stored state, so an index
update that is lost (a crash, a failed command) costs nothing but a stale hint.
"""

from __future__ import annotations

from server.machine.state import MatchState, Phase
from server.match.store import Store

Entry = tuple[int | None, int | None, int | None]
"""A match's place in the indexes: (open since, live since, deadline), None for absent."""


def entry(state: MatchState) -> Entry:
    """Where ``state`` belongs: listed as open (waiting for an opponent, public, not a
    rematch, nor a match whose players were arranged), listed as live (under way, public),
    and when its deadline falls due for the sweeper (the deadline plus the lag allowance,
    plus 1 ms)."""
    waiting = state.phase is Phase.WAITING
    public = not state.config.private  # a private match is never listed, even when live
    config = state.config
    joinable = config.rematch_of is None and config.arranged is None
    return (
        state.created if waiting and public and joinable else None,
        state.created if not waiting and not state.is_over and public else None,
        state.deadline + state.config.grace_ms + 1 if state.deadline else None,
    )


class Indexes:
    """What this process last wrote to the indexes per match (at most ``size`` matches)."""

    def __init__(self, store: Store, size: int) -> None:
        self.store = store
        self.size = size
        self._written: dict[str, Entry] = {}

    async def update(self, state: MatchState, force: bool = False) -> None:
        """Update the lobby and deadline indexes for ``state``.

        Skipped when this process last indexed the same lobby entries and a deadline no later
        than the new one: every turn moves the deadline on, and rewriting it costs a round trip
        per command. An index deadline earlier than the real one is safe (the sweeper claims
        the match, finds nothing due and puts the real deadline back, ``force``); a later one
        never happens, because the skip needs the indexed deadline to be at most the new one.
        """
        new = entry(state)
        last = self._written.get(state.match_id)
        if (
            not force
            and last is not None
            and last[:2] == new[:2]
            and last[2] is not None
            and new[2] is not None
            and last[2] <= new[2]
        ):
            return
        await self.store.index(
            state.match_id, open_since=new[0], live_since=new[1], deadline=new[2]
        )
        if len(self._written) >= self.size:
            self._written.clear()
        self._written[state.match_id] = new
