"""Rebuild a match's state from its event log alone, by replaying the recorded commands
through the pure machine. The machine is deterministic, so the result must equal the stored
snapshot: a check of the log's completeness, and a way to recover if a snapshot is ever lost.
(Of a log stored before dataclasses were stored as maps, all but ``last_digest``: each seat's
last command's fingerprint hashes its stored form, see :func:`server.machine.core.digest`.)

The replay also says what the engine said on the way (:func:`engine_events`): the facts of
every game as the rules computed them, against which :mod:`server.match.history` (which
reads them back from the wire events) is checked.
"""

from __future__ import annotations

from collections.abc import Iterator

import msgpack

from engine import events as ev
from server.machine import commands, core, serial
from server.machine.state import Config, MatchState
from server.match.store import Store


def replay(match_id: str, records: list[bytes]) -> Iterator[core.Accepted]:
    """Each recorded transition, replayed in order: the machine's outcome (the creation's
    first: its state and events, no engine events)."""
    state: MatchState | None = None
    for raw in records:
        kind, body, now = msgpack.unpackb(raw, raw=False)
        if kind == commands.CREATE:
            config = serial.load(Config, body[0])
            state, events = core.create(match_id, config, body[1], now)
            yield core.Accepted(state, events)
            continue
        assert state is not None, "the log must start with the match's creation"
        if kind == commands.EXPIRE:
            outcome = core.expire(state, now)
        else:
            command = commands.recorded_command(kind, body)
            outcome = core.apply(state, command, now)
        assert isinstance(outcome, core.Accepted), f"{kind} did not replay: {outcome}"
        state = outcome.state
        yield outcome


def rebuild(match_id: str, records: list[bytes]) -> MatchState:
    state: MatchState | None = None
    for outcome in replay(match_id, records):
        state = outcome.state
    assert state is not None, "empty log"
    return state


def engine_events(match_id: str, records: list[bytes]) -> tuple[ev.Event, ...]:
    """Every event of the engine's match, in order, as the replay computes them."""
    return tuple(e for outcome in replay(match_id, records) for e in outcome.engine)


async def rebuild_from_store(store: Store, match_id: str) -> MatchState:
    return rebuild(match_id, await store.commands(match_id))
