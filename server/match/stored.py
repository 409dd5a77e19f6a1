"""What each commit stores beside the state snapshot (pure): the lobby's summary of the match
(field ``m`` of ``fg:{m:<id>}:state``) and the log's record of what caused the transition (field
``c`` of the transition's first log entry). Both are msgpack maps or lists of plain values, so
the stored form depends on field names, never on class names or field order."""

from __future__ import annotations

import msgpack

from server.machine import serial
from server.machine.commands import CREATE, EXPIRE, Command, record_kind
from server.machine.state import Config, MatchState, owing


def summary(state: MatchState) -> dict[str, object]:
    """What the lobby lists about a match (public), and what a player's list of games sorts
    by: its days per decision (0 in real time), who owes which decision (``owes``: the
    seats; ``decision``: the clock's phase) and by when (``deadline``, server time)."""
    options = state.config.options
    seats, decision = owing(state)
    return {
        "id": state.match_id,
        "mode": options.mode.value,
        "length": options.length,
        "variant": options.variant.name,
        "clock": state.config.clock_ms // 1000,
        "reserve": state.config.reserve_ms // 1000,
        "names": list(state.names),
        "score": list(state.match.score),
        "phase": state.phase.value,
        "private": state.config.private,
        "created": state.created,
        "winner": state.match.winner if state.is_over else None,
        "rematch_of": state.config.rematch_of,
        "rematch": state.rematch.match if state.rematch else None,
        "arranged": state.config.arranged,
        "days": state.config.days,
        "owes": list(seats),
        "decision": decision,
        "deadline": state.deadline,
    }


def command_record(command: Command | Config | None, now: int, name: str = "") -> bytes:
    """The log's record of what caused a transition, ``[kind, body, now]``: a command (its
    stable kind name, :data:`~server.machine.commands.RECORD_KINDS`, and its fields), the
    creation of the match (its config and the creator's name), or None for the clock.
    :mod:`server.match.replay` reads it."""
    if isinstance(command, Config):
        kind, body = CREATE, [serial.dump(command), name]
    elif command is None:
        kind, body = EXPIRE, None
    else:
        kind, body = record_kind(command), serial.dump(command)
    return msgpack.packb([kind, body, now], use_bin_type=True)


def blobs(state: MatchState, command: Command | Config | None, now: int) -> tuple[bytes, ...]:
    """What the commit script stores of a transition to ``state`` made at ``now`` by
    ``command``: the snapshot, its summary and the record of the cause, in that order."""
    return (
        serial.dumps(state),
        msgpack.packb(summary(state), use_bin_type=True),
        command_record(command, now, state.names[0]),
    )
