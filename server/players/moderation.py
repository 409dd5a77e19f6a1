"""Reports and moderators' sanctions: the rules, pure (docs/moderation.md).

No I/O and no clock reads: :mod:`server.players.moderation_store` keeps the values in Redis
and calls these functions with the time.

A **sanction** is one of :data:`SANCTIONS` on an account, each with who laid it, when and why:

* ``mute`` — the account cannot chat (its lines are refused on the server);
* ``suspend`` — its rating is suspended: it cannot create, join, seek or accept a rated match,
  nor join a rated tournament (it still plays unrated);
* ``ban`` — both of the above, and it cannot file reports either.

A moderator's command is :class:`Sanction` or :class:`Lift`; :func:`decide` answers the
account's sanctions after it and the audit entry that records it, or refuses it with a
:class:`Refused` (nothing changes). Every sanction is reversible: a lift ends it (and is
audited like the sanction).

>>> s, entry = decide(Sanctions(), Sanction("mute", "insults in chat", "mod"), 1000)
>>> s.active(), entry.as_json()["action"]
(('mute',), 'mute')
>>> may_chat(s) is not None, may_play_rated(s) is None
(True, True)
>>> s, entry = decide(s, Lift("mute", "served", "mod"), 2000)
>>> s.active(), may_chat(s) is None
((), True)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from protocol.errors import ErrorCode
from protocol.http_errors import ApiErrorCode, HttpCode

SANCTIONS = ("mute", "suspend", "ban")
"""The sanctions a moderator may lay, mildest first."""

ACTIONS = (*SANCTIONS, "lift", "dismiss")
"""What the audit log records: a sanction, its lift, or a report dismissed."""

REASON_CHARS = 500
"""A reason (a report's or a moderator's) is 3 to this many characters."""

REPORT_BURST = 5
REPORTS_PER_HOUR = 10
"""Reports one account may file: this many at once, then this many an hour (a token bucket,
:mod:`server.ops.allowance`)."""

CHAT_CONTEXT = 5
"""Lines kept on either side of a reported chat line (the evidence keeps them as they were)."""


class Refused(Exception):
    """A command or report the rules refuse: ``code`` (``bad_field``, ``sanction_conflict``)
    and a sentence."""

    def __init__(self, code: ApiErrorCode, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


def reason_of(raw: object) -> str:
    """A reason: whitespace collapsed, 3 to :data:`REASON_CHARS` printable characters.

    >>> reason_of("  spam   in chat ")
    'spam in chat'
    >>> reason_of("no")
    Traceback (most recent call last):
    ...
    server.players.moderation.Refused: a reason is 3 to 500 characters
    """
    if not isinstance(raw, str):
        raise Refused(ErrorCode.BAD_FIELD, "reason is a string")
    text = " ".join(raw.split())
    if not 3 <= len(text) <= REASON_CHARS:
        raise Refused(ErrorCode.BAD_FIELD, f"a reason is 3 to {REASON_CHARS} characters")
    if any(not ch.isprintable() for ch in text):
        raise Refused(ErrorCode.BAD_FIELD, "a reason has unprintable characters")
    return text


@dataclass(frozen=True)
class Laid:
    """One sanction in force: who laid it, when (server ms) and why."""

    by: str
    at: int
    reason: str

    def as_json(self) -> dict[str, Any]:
        return {"by": self.by, "at": self.at, "reason": self.reason}


@dataclass(frozen=True)
class Sanctions:
    """An account's sanctions in force, by kind (empty: none)."""

    laid: dict[str, Laid] = field(default_factory=dict)

    def active(self) -> tuple[str, ...]:
        return tuple(k for k in SANCTIONS if k in self.laid)

    def as_json(self) -> dict[str, Any]:
        """The stored form (keys by name, never by field order)."""
        return {k: self.laid[k].as_json() for k in self.active()}

    @classmethod
    def of(cls, raw: dict[str, Any] | None) -> Sanctions:
        raw = raw or {}
        return cls({k: Laid(str(v["by"]), int(v["at"]), str(v["reason"]))
                    for k, v in raw.items() if k in SANCTIONS})  # fmt: skip


@dataclass(frozen=True)
class Sanction:
    """A moderator lays ``kind`` (one of :data:`SANCTIONS`) for ``reason``."""

    kind: str
    reason: str
    moderator: str


@dataclass(frozen=True)
class Lift:
    """A moderator lifts the account's ``kind`` sanction, for ``reason``."""

    kind: str
    reason: str
    moderator: str


@dataclass(frozen=True)
class AuditEntry:
    """One line of the append-only audit log: who did what to whom, when and why."""

    at: int
    moderator: str
    action: str
    target: str
    reason: str
    sanction: str | None = None
    report: int | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "at": self.at,
            "moderator": self.moderator,
            "action": self.action,
            "target": self.target,
            "sanction": self.sanction,
            "reason": self.reason,
            "report": self.report,
        }


def decide(
    sanctions: Sanctions, command: Sanction | Lift, now: int, target: str = ""
) -> tuple[Sanctions, AuditEntry]:
    """The sanctions after ``command`` and its audit entry; :class:`Refused` when it cannot be
    (an unknown kind, a sanction already in force, a lift of none, a bad reason).

    >>> s, _ = decide(Sanctions(), Sanction("ban", "engine use", "mod"), 5)
    >>> decide(s, Sanction("ban", "again", "mod"), 6)
    Traceback (most recent call last):
    ...
    server.players.moderation.Refused: the account is already under ban
    >>> decide(s, Lift("mute", "wrong one", "mod"), 6)
    Traceback (most recent call last):
    ...
    server.players.moderation.Refused: the account is not under mute
    """
    if command.kind not in SANCTIONS:
        raise Refused(ErrorCode.BAD_FIELD, f"a sanction is one of {', '.join(SANCTIONS)}")
    reason = reason_of(command.reason)
    laid = dict(sanctions.laid)
    if isinstance(command, Sanction):
        if command.kind in laid:
            raise Refused(
                HttpCode.SANCTION_CONFLICT, f"the account is already under {command.kind}"
            )
        laid[command.kind] = Laid(command.moderator, now, reason)
        action, sanction = command.kind, None
    else:
        if command.kind not in laid:
            raise Refused(HttpCode.SANCTION_CONFLICT, f"the account is not under {command.kind}")
        del laid[command.kind]
        action, sanction = "lift", command.kind
    entry = AuditEntry(now, command.moderator, action, target, reason, sanction)
    return Sanctions(laid), entry


def may_chat(sanctions: Sanctions) -> str | None:
    """Why the account may not chat (``muted`` or ``banned``), or None.

    >>> may_chat(Sanctions()) is None
    True
    """
    if "ban" in sanctions.laid:
        return "banned"
    if "mute" in sanctions.laid:
        return "muted"
    return None


def may_play_rated(sanctions: Sanctions) -> str | None:
    """Why the account may not play rated (``banned`` or ``rating_suspended``), or None."""
    if "ban" in sanctions.laid:
        return "banned"
    if "suspend" in sanctions.laid:
        return "rating_suspended"
    return None


def may_report(sanctions: Sanctions) -> str | None:
    """Why the account may not report (``banned``), or None."""
    return "banned" if "ban" in sanctions.laid else None


# ---------------------------------------------------------------- reports


@dataclass(frozen=True)
class ChatRef:
    """A chat line of a match: its room and number."""

    match: str
    room: str
    n: int


def report_fields(body: dict[str, Any], reporter_key: str, target_key: str) -> ChatRef | None:
    """Check a report's fields beyond their types: nobody reports themselves; a chat line is
    named by its match, ``room`` and number (``line``). Returns the chat line named, if any.

    >>> report_fields({"room": "players", "line": 3, "match": "abc"}, "ann", "bob")
    ChatRef(match='abc', room='players', n=3)
    >>> report_fields({}, "ann", "ann")
    Traceback (most recent call last):
    ...
    server.players.moderation.Refused: you cannot report yourself
    >>> report_fields({"line": 3}, "ann", "bob")
    Traceback (most recent call last):
    ...
    server.players.moderation.Refused: a chat line is reported with its match, room and line
    """
    if reporter_key == target_key:
        raise Refused(ErrorCode.BAD_FIELD, "you cannot report yourself")
    room, n, match = body.get("room"), body.get("line"), body.get("match")
    if room is None and n is None:
        return None
    if room is None or n is None or not match:
        raise Refused(ErrorCode.BAD_FIELD, "a chat line is reported with its match, room and line")
    if room not in ("players", "spectators") or not 1 <= n <= 2**40:
        raise Refused(ErrorCode.BAD_FIELD, "room is players or spectators, line a line's number")
    return ChatRef(str(match), room, n)
