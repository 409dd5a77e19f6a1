"""Rebuild a match's state from its event log alone, by replaying the recorded commands
through the pure machine. The machine is deterministic, so the result must equal the stored
snapshot: a check of the log's completeness, and a way to recover if a snapshot is ever lost.
"""

from __future__ import annotations

import msgpack

from server.machine import commands, core, serial
from server.machine.state import Config, MatchState
from server.store import Store

_COMMANDS = {
    name: getattr(commands, name)
    for name in dir(commands)
    if isinstance(getattr(commands, name), type)
    and issubclass(getattr(commands, name), commands.Command)
}


def rebuild(match_id: str, records: list[bytes]) -> MatchState:
    state: MatchState | None = None
    for raw in records:
        kind, body, now = msgpack.unpackb(raw, raw=False)
        if kind == "Create":
            config = serial.load(Config, body[0])
            state, _ = core.create(match_id, config, body[1], now)
            continue
        assert state is not None, "the log must start with the match's creation"
        if kind == "Expire":
            outcome = core.expire(state, now)
        else:
            command = serial.load(_COMMANDS[kind], body)
            outcome = core.apply(state, command, now)
        assert isinstance(outcome, core.Accepted), f"{kind} did not replay: {outcome}"
        state = outcome.state
    assert state is not None, "empty log"
    return state


async def rebuild_from_store(store: Store, match_id: str) -> MatchState:
    return rebuild(match_id, await store.commands(match_id))
