"""The transcript of one finished game: typed values and their JSON form.

The JSON layout (documented field by field in ``docs/fairness.md``)::

    {"format": "fairgammon-transcript/1", "scheme": "fairgammon/v1",
     "match_id": hex32, "game_no": u32,
     ["variant": str, "opener": 0|1,]   (only in a game of another variant than backgammon)
     ["jacoby": true,]                 (only in a money game played under the Jacoby rule)
     "seats": [{"seat": 0, "name": str|null}, {"seat": 1, "name": str|null}],
     "commitments": [{"seat": 0, "commitment": hex64, "v": int, "t": int}, {"seat": 1, ...}],
     "recommitments": [{"seat": s, "applies_from": k0, "commitment": hex64, "v": int, "t": int}],
     "rolls": [{"k": 1, "kind": "rolloff"|"turn", "roller": null|0|1,
                "reveals": [hex64, hex64], "d1": 1..6, "d2": 1..6, "v": int, "t": int}],
     "actions": [{"v": int, "t": int, "seat": 0|1|null, "type": str, ...payload}],
     "result": {"winner": 0|1|null, "reason": str, "multiplier": 0..3, "cube": int, "points": int,
                "v": int, "t": int, "evidence": null|{"k": int, "seat": 0|1, "reveal": hex64}}}

Binary values are lowercase hex; ``v`` is the event version in the match's event log and ``t``
the server time in milliseconds since the Unix epoch. Parsing lives in
:mod:`protocol.fairdice.schema`, checking in :mod:`protocol.fairdice.verify`.
"""

from __future__ import annotations

import enum
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from protocol.fairdice.encoding import SCHEME, GameId, to_hex
from protocol.fairdice.rolloff import RollKind

FORMAT = "fairgammon-transcript/1"

ACTION_KEYS = ("v", "t", "seat", "type")
"""The fixed keys of an action; every other key is its payload."""


class ResultReason(enum.StrEnum):
    """How a game ended (stable strings)."""

    BEAR_OFF = "bear_off"  # the winner bore off all 15 checkers
    DROP = "drop"  # the loser dropped a double
    RESIGN = "resign"  # the loser's resignation was accepted
    TIMEOUT = "timeout"  # the loser's clock ran out on a decision or move
    NO_REVEAL = "no_reveal"  # the loser did not reveal its link in time
    INVALID_REVEAL = "invalid_reveal"  # the loser revealed a value that does not verify
    ABANDON = "abandon"  # the loser left the match
    MOTHER = "mother"  # plakoto: the winner pinned the loser's mother checker
    MOTHERS = "mothers"  # plakoto: both mothers pinned, a draw (no winner, multiplier 0)


FORFEITS = frozenset(
    {
        ResultReason.TIMEOUT,
        ResultReason.NO_REVEAL,
        ResultReason.INVALID_REVEAL,
        ResultReason.ABANDON,
    }
)


def freeze(value: Any) -> Any:
    """A deeply immutable copy of a JSON value: lists become tuples, objects read-only maps.

    >>> freeze({"moves": [[24, 18]]})["moves"]
    ((24, 18),)
    """
    if isinstance(value, Mapping):
        return MappingProxyType({k: freeze(v) for k, v in value.items()})
    if isinstance(value, list | tuple):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The plain JSON value (dicts and lists) of a :func:`freeze`-d one."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, tuple | list):
        return [thaw(v) for v in value]
    return value


@dataclass(frozen=True, slots=True)
class SeatInfo:
    seat: int
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Commitment:
    """A seat's first commitment ``s[0]``, stored as event ``v`` at server time ``t``."""

    seat: int
    commitment: bytes
    v: int
    t: int


@dataclass(frozen=True, slots=True)
class Recommitment:
    """A fresh chain's link ``s'[applies_from - 1]``: from roll ``applies_from`` on, the seat's
    reveal for roll ``k`` is ``s'[k]`` (same index ``k`` as always, see ``docs/fairness.md``)."""

    seat: int
    applies_from: int
    commitment: bytes
    v: int
    t: int


@dataclass(frozen=True, slots=True)
class RollRecord:
    """Roll ``k``: both reveals (seat order), the dice, and who rolled (None in the roll-off)."""

    k: int
    kind: RollKind
    roller: int | None
    reveals: tuple[bytes, bytes]
    d1: int
    d2: int
    v: int
    t: int


@dataclass(frozen=True, slots=True)
class Action:
    """One accepted action: a move (``{"k": roll, "moves": [[from, to], ...]}``), a cube or
    resignation decision, or anything else the server logs. ``payload`` is frozen JSON."""

    v: int
    t: int
    seat: int | None
    type: str
    payload: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))

    def __post_init__(self) -> None:
        object.__setattr__(self, "payload", freeze(self.payload))


@dataclass(frozen=True, slots=True)
class Evidence:
    """The value a seat revealed for roll ``k`` that did not verify (kept for a forfeit)."""

    k: int
    seat: int
    reveal: bytes


@dataclass(frozen=True, slots=True)
class Result:
    """The end of the game: ``points = multiplier * cube`` to ``winner`` (None, multiplier
    and points 0: a drawn plakoto game)."""

    winner: int | None
    reason: ResultReason
    multiplier: int
    cube: int
    points: int
    v: int
    t: int
    evidence: Evidence | None = None


@dataclass(frozen=True, slots=True)
class Transcript:
    """Everything needed to re-check one finished game's dice (and its moves).

    ``variant`` names the rules the game was played by (:data:`engine.variants.VARIANTS`);
    ``opener`` the seat that opened it without a roll-off (a Greek game after a won one), if
    any. Both are written only when they are not backgammon's (no variant, no opener), so a
    backgammon game's transcript is what it always was. ``jacoby`` says the game was played
    under the Jacoby rule (a money session's option): a gammon or backgammon borne off with
    the cube never turned counts as a single (multiplier 1). It is written only when true; a
    transcript without it (every transcript written before the field existed, and every game
    without the rule) is held to the final position's full multiplier, as it always was."""

    game: GameId
    seats: tuple[SeatInfo, SeatInfo]
    commitments: tuple[Commitment, Commitment]
    recommitments: tuple[Recommitment, ...]
    rolls: tuple[RollRecord, ...]
    actions: tuple[Action, ...]
    result: Result
    variant: str = "backgammon"
    opener: int | None = None
    jacoby: bool = False

    def to_obj(self) -> dict[str, Any]:
        """The JSON object (plain dicts and lists) of this transcript."""
        result = self.result
        evidence = result.evidence
        rules: dict[str, Any] = {}
        if self.variant != "backgammon":
            rules["variant"] = self.variant
        if self.opener is not None:
            rules["opener"] = self.opener
        if self.jacoby:
            rules["jacoby"] = True
        return {
            "format": FORMAT,
            "scheme": SCHEME,
            "match_id": to_hex(self.game.match_id),
            "game_no": self.game.game_no,
            **rules,
            "seats": [{"seat": s.seat, "name": s.name} for s in self.seats],
            "commitments": [
                {"seat": c.seat, "commitment": to_hex(c.commitment), "v": c.v, "t": c.t}
                for c in self.commitments
            ],
            "recommitments": [
                {
                    "seat": r.seat,
                    "applies_from": r.applies_from,
                    "commitment": to_hex(r.commitment),
                    "v": r.v,
                    "t": r.t,
                }
                for r in self.recommitments
            ],
            "rolls": [
                {
                    "k": r.k,
                    "kind": r.kind.value,
                    "roller": r.roller,
                    "reveals": [to_hex(r.reveals[0]), to_hex(r.reveals[1])],
                    "d1": r.d1,
                    "d2": r.d2,
                    "v": r.v,
                    "t": r.t,
                }
                for r in self.rolls
            ],
            "actions": [
                {"v": a.v, "t": a.t, "seat": a.seat, "type": a.type, **thaw(a.payload)}
                for a in self.actions
            ],
            "result": {
                "winner": result.winner,
                "reason": result.reason.value,
                "multiplier": result.multiplier,
                "cube": result.cube,
                "points": result.points,
                "v": result.v,
                "t": result.t,
                "evidence": None
                if evidence is None
                else {"k": evidence.k, "seat": evidence.seat, "reveal": to_hex(evidence.reveal)},
            },
        }

    def to_json(self) -> str:
        """The transcript as JSON text: one line per top-level field and per list item, so
        that files read and diff well (UTF-8 when encoded; non-ASCII names kept as is)."""
        return dumps_lines(self.to_obj())


def dumps_lines(obj: Mapping[str, Any]) -> str:
    """JSON of an object with one line per key, and one line per item of list values.

    >>> print(dumps_lines({"a": [1, {"b": 2}], "c": None}))
    {
     "a": [
      1,
      {"b": 2}
     ],
     "c": null
    }
    <BLANKLINE>
    """

    def one(value: Any) -> str:
        return json.dumps(value, ensure_ascii=False)

    lines = []
    for key, value in obj.items():
        if isinstance(value, list) and value:
            items = ",\n".join(f"  {one(item)}" for item in value)
            lines.append(f" {one(key)}: [\n{items}\n ]")
        else:
            lines.append(f" {one(key)}: {one(value)}")
    return "{\n" + ",\n".join(lines) + "\n}\n"
