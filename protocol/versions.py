"""What each older protocol version lacks, and the frames a server sends a client of that version
(pure): the one place that knows the wire's history (docs/protocol.md, "Versions and
deprecation").

Version 2 added the time reserve: ``match_created.reserve`` (so also the snapshot's
``settings.reserve``) and ``clock.reserves`` (in an event's ``n`` and the snapshot's
``game.clock``). A version-1 client takes part only in matches without a reserve (its
``hello`` for another match is refused ``unsupported_version``), and :func:`for_version` takes
those fields out of every frame it is sent, so it receives exactly the frames version 1 had.
Version 3 added no field to any frame of a match an older client may play. Version 4 added the
event kind ``clock_credit`` (:data:`KINDS_ADDED`): a client of an older version is sent, in place
of such an event, a snapshot of the match (which has the new deadline); the server builds it
(:class:`server.match.crash_credit.SnapshotInstead`), :func:`lacks_kind` tells which frames.
Version 5 added the variants: ``match_created.variant``, ``game_started.variant`` and the
snapshot's ``game.variant`` and ``game.pinned``. A client of version 4 or older takes part only
in backgammon matches (its ``hello`` for another is refused ``unsupported_version``) and
:func:`for_version` takes those fields out of every frame it is sent, so it receives exactly
the frames its version had.

>>> from protocol.codec import encode
>>> from protocol.events import Clock, Passed
>>> from protocol.messages import Event
>>> frame = encode(Event(v=3, data=Passed(1, 1, 7), next=Clock("decide", (0,), 123)))
>>> import msgpack

from protocol.limits import PROTOCOL_VERSION, PROTOCOL_VERSIONS
>>> msgpack.unpackb(for_version(frame, 1))["n"]
{'phase': 'decide', 'seats': [0], 'deadline': 123}
>>> for_version(frame, 2) == frame
True
>>> from protocol.events import MatchCreated
>>> created = encode(Event(v=1, data=MatchCreated("match", 3, False, False, 30_000), next=None))
>>> sorted(msgpack.unpackb(for_version(created, 4))["p"]) == sorted(
...     set(msgpack.unpackb(created)["p"]) - {"variant"})
True
"""

from __future__ import annotations

from typing import Any

import msgpack

from protocol.limits import PROTOCOL_VERSION, PROTOCOL_VERSIONS

ADDED: dict[int, dict[str, tuple[str, ...]]] = {
    2: {"match_created": ("reserve",), "clock": ("reserves",)},
    5: {
        "match_created": ("variant",),
        "game_started": ("variant",),
        "game": ("variant", "pinned"),
    },
}
"""The fields each version added to existing maps (the map named as the docs' tables name it),
for the docs and for :func:`for_version`."""

KINDS_ADDED: dict[int, tuple[str, ...]] = {
    4: ("clock_credit",),
}
"""The event kinds each version added to matches an older client may play: a client of an
older version is sent a snapshot in place of each such event (:func:`lacks_kind`)."""

SUNSET: dict[int, str] = {1: "2027-06-30"}
"""The deprecated versions and the last day (UTC) a server is promised to speak each: at least
six months after the version that replaced it shipped (docs/protocol.md, "Versions and
deprecation"); told to every client at ``GET /api/protocol``."""


def info() -> dict[str, object]:
    """What ``GET /api/protocol`` answers: the newest version, every version spoken, and the
    deprecated ones with their last day."""
    return {
        "version": PROTOCOL_VERSION,
        "versions": list(PROTOCOL_VERSIONS),
        "deprecated": [{"version": v, "until": day} for v, day in sorted(SUNSET.items())],
    }


def for_version(frame: bytes, proto: int) -> bytes:
    """The server's frame as a client of version ``proto`` is to receive it: unchanged for the
    newest version; for an older one without the fields the later versions added."""
    if proto >= PROTOCOL_VERSION or (proto >= 2 and b"variant" not in frame):
        return frame  # (the cheap test: only frames naming a variant change for versions 2..4)
    obj = msgpack.unpackb(frame, raw=False)
    changed = False
    for version in sorted(ADDED):
        if proto < version:
            changed |= _drop_added(obj, ADDED[version])
    return msgpack.packb(obj, use_bin_type=True) if changed else frame


def _drop_added(obj: dict[str, Any], added: dict[str, tuple[str, ...]]) -> bool:
    """Take the fields ``added`` names out of a frame (an event or a snapshot)."""
    changed = False
    kind = obj.get("t")
    if kind == "event":
        payload = obj.get("p")
        names = added.get(obj.get("k", ""), ())
        if names and isinstance(payload, dict):
            changed |= _drop(payload, names)
        changed |= _drop(obj.get("n"), added.get("clock", ()))
    elif kind == "snapshot":
        state = (obj.get("p") or {}).get("state") or {}
        game = state.get("game") or {}
        changed |= _drop(state.get("settings"), added.get("match_created", ()))
        changed |= _drop(game, added.get("game", ()))
        changed |= _drop(game.get("clock"), added.get("clock", ()))
    return changed


_LATER_KINDS: dict[int, tuple[bytes, ...]] = {
    proto: tuple(
        kind.encode() for v, kinds in KINDS_ADDED.items() if v > proto for kind in kinds
    )
    for proto in PROTOCOL_VERSIONS
}


def lacks_kind(frame: bytes, proto: int) -> bool:
    """Whether ``frame`` is an event of a kind that version ``proto`` does not have.

    >>> from protocol.codec import encode
    >>> from protocol.events import Clock, ClockCredit
    >>> from protocol.messages import Event
    >>> frame = encode(Event(v=9, data=ClockCredit(0, 800), next=Clock("move", (0,), 123)))
    >>> lacks_kind(frame, 3), lacks_kind(frame, 4)
    (True, False)
    """
    later = _LATER_KINDS.get(proto, ())
    if not any(kind in frame for kind in later):
        return False  # (the cheap test: no such name anywhere in the frame)
    obj = msgpack.unpackb(frame, raw=False)
    return obj.get("t") == "event" and obj.get("k", "").encode() in later


def _drop(fields: Any, names: tuple[str, ...]) -> bool:
    if not isinstance(fields, dict):
        return False
    found = [n for n in names if n in fields]
    for name in found:
        del fields[name]
    return bool(found)
