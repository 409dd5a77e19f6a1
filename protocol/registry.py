"""The message catalogue: which message types exist, who sends them, and their envelopes.

Message classes register themselves with the ``message`` and ``event`` decorators; the codec,
the generated docs and the tests all read these tables, so adding a message is one dataclass.

Envelope shapes (the outer map of every frame; short keys):

- ``plain``:  ``{"t": type, "p": payload}``
- ``action``: ``{"t": type, "s": seq, "p": payload}`` -- client actions; ``seq`` lives in the
  dataclass as its first field ``seq``
- ``event``:  ``{"t": "event", "v": version, "k": kind, "p": data}``

>>> Direction.CLIENT.value, Envelope.ACTION.value
('client', 'action')
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Callable
from typing import TypeVar

from protocol.schema import Struct, struct_spec

T = TypeVar("T", bound=type)


class Direction(enum.Enum):
    """Who sends a message: ``CLIENT`` (decoded by the server) or ``SERVER``."""

    CLIENT = "client"
    SERVER = "server"


class Envelope(enum.Enum):
    PLAIN = "plain"
    ACTION = "action"
    EVENT = "event"


@dataclasses.dataclass(frozen=True, slots=True)
class MessageType:
    """A registered message type. ``payload`` is the spec of ``p`` (for actions: every field
    but ``seq``; for ``event``: unused, each kind has its own spec in ``EVENT_KINDS``)."""

    name: str
    cls: type
    direction: Direction
    envelope: Envelope
    payload: Struct
    doc: str


@dataclasses.dataclass(frozen=True, slots=True)
class EventKind:
    """A registered event kind: the dataclass of its ``data`` and that dataclass's spec."""

    name: str
    cls: type
    payload: Struct
    doc: str


MESSAGES: dict[Direction, dict[str, MessageType]] = {d: {} for d in Direction}
EVENT_KINDS: dict[str, EventKind] = {}
BY_CLASS: dict[type, MessageType] = {}
KIND_BY_CLASS: dict[type, EventKind] = {}
NESTED: list[type] = []
"""Dataclasses used as nested maps (documented in their own tables), in definition order."""


def _doc(cls: type) -> str:
    return " ".join((cls.__doc__ or "").split())


def message(
    name: str, direction: Direction, *, envelope: Envelope = Envelope.PLAIN
) -> Callable[[T], T]:
    """Register a message dataclass under ``name``."""

    def register(cls: T) -> T:
        spec = struct_spec(cls)
        if envelope is Envelope.ACTION:
            if spec.fields[0].name != "seq":
                raise TypeError(f"action {name}: the first field must be seq")
            spec = Struct(cls, spec.fields[1:])
        table = MESSAGES[direction]
        if name in table or cls in BY_CLASS:
            raise TypeError(f"message {name} registered twice")
        mt = MessageType(name, cls, direction, envelope, spec, _doc(cls))
        table[name] = mt
        BY_CLASS[cls] = mt
        return cls

    return register


def event(name: str) -> Callable[[T], T]:
    """Register an event kind (the dataclass of its ``data``) under ``name``."""

    def register(cls: T) -> T:
        if name in EVENT_KINDS or cls in KIND_BY_CLASS:
            raise TypeError(f"event kind {name} registered twice")
        kind = EventKind(name, cls, struct_spec(cls), _doc(cls))
        EVENT_KINDS[name] = kind
        KIND_BY_CLASS[cls] = kind
        return cls

    return register


def nested(cls: T) -> T:
    """Mark a dataclass that appears as a nested map inside messages (for the docs)."""
    struct_spec(cls)
    NESTED.append(cls)
    return cls
