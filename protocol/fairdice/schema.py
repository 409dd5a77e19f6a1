"""Reading a transcript from JSON: strict structure and types, with the JSON path of any fault.

Only the layout is checked here (every field present, no unknown field, the right types and
ranges, lowercase hex of the right length); whether the values are *true* is
:mod:`protocol.fairdice.verify`'s job. Integers must be JSON integers (not ``true``, not
``1.0``) and at most ``2**53 - 1``, so that JavaScript reads them exactly.

>>> parse_transcript("[]")
Traceback (most recent call last):
...
protocol.fairdice.errors.TranscriptError: transcript: expected an object, got array
>>> parse_transcript('{"a": 1, "a": 2}')
Traceback (most recent call last):
...
protocol.fairdice.errors.TranscriptError: not valid JSON: duplicate key 'a'
"""

from __future__ import annotations

import json
import re
from typing import Any, NoReturn

from protocol.fairdice.encoding import (
    LINK_SIZE,
    MATCH_ID_SIZE,
    SCHEME,
    U32_MAX,
    GameId,
    from_hex,
)
from protocol.fairdice.errors import EncodingError, Problem, TranscriptError
from protocol.fairdice.rolloff import RollKind
from protocol.fairdice.transcript import (
    ACTION_KEYS,
    FORMAT,
    Action,
    Commitment,
    Evidence,
    Recommitment,
    Result,
    ResultReason,
    RollRecord,
    SeatInfo,
    Transcript,
)

SAFE_INT_MAX = 2**53 - 1
MAX_NAME_LENGTH = 100
MAX_CUBE = 64
ACTION_TYPE = re.compile(r"[a-z][a-z0-9_]{0,31}")
MAX_MOVES = 4


def _json_name(value: object) -> str:
    names = {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}
    if isinstance(value, int | float) and not isinstance(value, bool):
        return "number"
    return names.get(type(value), type(value).__name__)


def _fail(path: str, message: str) -> NoReturn:
    raise TranscriptError(Problem.SCHEMA, f"{path}: {message}", path=path)


def _int(value: object, path: str, lo: int = 0, hi: int = SAFE_INT_MAX) -> int:
    if type(value) is not int:
        _fail(path, f"expected an integer, got {_json_name(value)}")
    if not lo <= value <= hi:
        _fail(path, f"expected an integer in {lo} .. {hi}, got {value}")
    return value


def _seat(value: object, path: str, *, nullable: bool = False) -> int | None:
    if value is None and nullable:
        return None
    if type(value) is not int or value not in (0, 1):
        _fail(path, f"expected seat 0 or 1{' or null' if nullable else ''}, got {value!r}")
    return value


def _hex(value: object, size: int, path: str) -> bytes:
    try:
        return from_hex(value, size, path, lowercase_only=True)  # type: ignore[arg-type]
    except EncodingError as exc:
        raise TranscriptError(Problem.SCHEMA, str(exc), path=path) from None


def _object(value: object, path: str, keys: tuple[str, ...]) -> dict[str, Any]:
    """``value`` as a dict with exactly ``keys``."""
    if not isinstance(value, dict):
        _fail(path, f"expected an object, got {_json_name(value)}")
    missing = [k for k in keys if k not in value]
    if missing:
        _fail(path, f"missing field {missing[0]!r}")
    extra = [k for k in value if k not in keys]
    if extra:
        _fail(path, f"unknown field {extra[0]!r}")
    return value


def _array(value: object, path: str, length: int | None = None) -> list[Any]:
    if not isinstance(value, list):
        _fail(path, f"expected an array, got {_json_name(value)}")
    if length is not None and len(value) != length:
        _fail(path, f"expected {length} items, got {len(value)}")
    return value


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    obj: dict[str, Any] = {}
    for key, value in pairs:
        if key in obj:
            raise ValueError(f"duplicate key {key!r}")
        obj[key] = value
    return obj


def _no_constants(name: str) -> NoReturn:
    raise ValueError(f"{name} is not allowed")


def load_json(text: str | bytes) -> Any:
    """Parse JSON strictly (UTF-8, no duplicate keys, no NaN/Infinity) or raise
    :class:`TranscriptError` with problem ``json``."""
    try:
        if isinstance(text, bytes):
            text = text.decode("utf-8")
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constants)
    except (ValueError, RecursionError) as exc:
        raise TranscriptError(Problem.JSON, f"not valid JSON: {exc}") from None


def parse_transcript(data: str | bytes | dict[str, Any]) -> Transcript:
    """A :class:`Transcript` from JSON text or an already parsed object."""
    obj = load_json(data) if isinstance(data, str | bytes) else data
    optional = tuple(
        k for k in ("variant", "opener", "jacoby") if isinstance(obj, dict) and k in obj
    )
    top = _object(
        obj,
        "transcript",
        (
            "format",
            "scheme",
            "match_id",
            "game_no",
            *optional,
            "seats",
            "commitments",
            "recommitments",
            "rolls",
            "actions",
            "result",
        ),
    )
    if top["format"] != FORMAT:
        raise TranscriptError(
            Problem.VERSION, f"format: expected {FORMAT!r}, got {top['format']!r}", path="format"
        )
    if top["scheme"] != SCHEME:
        raise TranscriptError(
            Problem.VERSION, f"scheme: expected {SCHEME!r}, got {top['scheme']!r}", path="scheme"
        )
    return Transcript(
        game=GameId(
            _hex(top["match_id"], MATCH_ID_SIZE, "match_id"),
            _int(top["game_no"], "game_no", 0, U32_MAX),
        ),
        seats=_seats(top["seats"]),
        commitments=_commitments(top["commitments"]),
        recommitments=tuple(
            _recommitment(r, f"recommitments[{i}]")
            for i, r in enumerate(_array(top["recommitments"], "recommitments"))
        ),
        rolls=tuple(_roll(r, f"rolls[{i}]") for i, r in enumerate(_array(top["rolls"], "rolls"))),
        actions=tuple(
            _action(a, f"actions[{i}]") for i, a in enumerate(_array(top["actions"], "actions"))
        ),
        result=_result(top["result"], "result"),
        **_rules(top),
    )


def _rules(top: dict[str, Any]) -> dict[str, Any]:
    """The optional ``variant`` (a variant of :data:`engine.variants.VARIANTS` but
    backgammon, which is written by leaving it out), ``opener`` (a seat, only in a variant
    whose opening is ``reroll``) and ``jacoby`` (``true`` only, in a variant with a cube: a
    game without the Jacoby rule is written by leaving it out)."""
    from engine.rules import Opening  # noqa: PLC0415
    from engine.variants import VARIANTS  # noqa: PLC0415 (the engine, on demand)

    out: dict[str, Any] = {}
    if "variant" in top:
        name = top["variant"]
        others = [n for n in VARIANTS if n != "backgammon"]
        if name not in others:
            _fail("variant", f"expected one of {', '.join(others)}, got {name!r}")
        out["variant"] = name
    if "opener" in top:
        out["opener"] = _seat(top["opener"], "opener")
        name = out.get("variant", "backgammon")
        if VARIANTS[name].opening is not Opening.REROLL:
            _fail("opener", f"a {name} game opens with the roll-off: no opener")
    if "jacoby" in top:
        if top["jacoby"] is not True:
            _fail("jacoby", "expected true (a game without the Jacoby rule leaves it out)")
        name = out.get("variant", "backgammon")
        if not VARIANTS[name].cube:
            _fail("jacoby", f"{name} has no cube: no money play, no Jacoby rule")
        out["jacoby"] = True
    return out


def _seats(value: object) -> tuple[SeatInfo, SeatInfo]:
    seats = []
    for i, item in enumerate(_array(value, "seats", 2)):
        path = f"seats[{i}]"
        obj = _object(item, path, ("seat", "name"))
        if obj["seat"] != i or type(obj["seat"]) is not int:
            _fail(f"{path}.seat", f"expected {i}, got {obj['seat']!r}")
        name = obj["name"]
        if name is not None and (not isinstance(name, str) or len(name) > MAX_NAME_LENGTH):
            _fail(f"{path}.name", f"expected null or a string of at most {MAX_NAME_LENGTH}")
        seats.append(SeatInfo(i, name))
    return seats[0], seats[1]


def _commitments(value: object) -> tuple[Commitment, Commitment]:
    found = []
    for i, item in enumerate(_array(value, "commitments", 2)):
        path = f"commitments[{i}]"
        obj = _object(item, path, ("seat", "commitment", "v", "t"))
        if obj["seat"] != i or type(obj["seat"]) is not int:
            _fail(f"{path}.seat", f"expected {i} (seat order), got {obj['seat']!r}")
        found.append(
            Commitment(
                seat=i,
                commitment=_hex(obj["commitment"], LINK_SIZE, f"{path}.commitment"),
                v=_int(obj["v"], f"{path}.v"),
                t=_int(obj["t"], f"{path}.t"),
            )
        )
    return found[0], found[1]


def _recommitment(value: object, path: str) -> Recommitment:
    obj = _object(value, path, ("seat", "applies_from", "commitment", "v", "t"))
    seat = _seat(obj["seat"], f"{path}.seat")
    assert seat is not None
    return Recommitment(
        seat=seat,
        applies_from=_int(obj["applies_from"], f"{path}.applies_from", 1, U32_MAX),
        commitment=_hex(obj["commitment"], LINK_SIZE, f"{path}.commitment"),
        v=_int(obj["v"], f"{path}.v"),
        t=_int(obj["t"], f"{path}.t"),
    )


def _die(value: object, path: str) -> int:
    if type(value) is not int or not 1 <= value <= 6:
        _fail(path, f"expected a die 1 .. 6, got {value!r}")
    return value


def _roll(value: object, path: str) -> RollRecord:
    obj = _object(value, path, ("k", "kind", "roller", "reveals", "d1", "d2", "v", "t"))
    kind = obj["kind"]
    if kind not in (RollKind.ROLLOFF.value, RollKind.TURN.value):
        _fail(f"{path}.kind", f"expected 'rolloff' or 'turn', got {kind!r}")
    reveals = _array(obj["reveals"], f"{path}.reveals", 2)
    return RollRecord(
        k=_int(obj["k"], f"{path}.k", 1, U32_MAX),
        kind=RollKind(kind),
        roller=_seat(obj["roller"], f"{path}.roller", nullable=True),
        reveals=(
            _hex(reveals[0], LINK_SIZE, f"{path}.reveals[0]"),
            _hex(reveals[1], LINK_SIZE, f"{path}.reveals[1]"),
        ),
        d1=_die(obj["d1"], f"{path}.d1"),
        d2=_die(obj["d2"], f"{path}.d2"),
        v=_int(obj["v"], f"{path}.v"),
        t=_int(obj["t"], f"{path}.t"),
    )


def _action(value: object, path: str) -> Action:
    if not isinstance(value, dict):
        _fail(path, f"expected an object, got {_json_name(value)}")
    for key in ACTION_KEYS:
        if key not in value:
            _fail(path, f"missing field {key!r}")
    kind = value["type"]
    if not isinstance(kind, str) or not ACTION_TYPE.fullmatch(kind):
        _fail(f"{path}.type", f"expected a lowercase identifier, got {kind!r}")
    payload = {k: v for k, v in value.items() if k not in ACTION_KEYS}
    if kind in ("move", "roll", "reveal"):
        _int(payload.get("k"), f"{path}.k", 1, U32_MAX)
    if kind == "reveal":
        _seat(value["seat"], f"{path}.seat")
    if kind == "move":
        moves = _array(payload.get("moves"), f"{path}.moves")
        if len(moves) > MAX_MOVES:
            _fail(f"{path}.moves", f"expected at most {MAX_MOVES} moves, got {len(moves)}")
        for j, move in enumerate(moves):
            pair = _array(move, f"{path}.moves[{j}]", 2)
            _int(pair[0], f"{path}.moves[{j}][0]", 1, 25)
            _int(pair[1], f"{path}.moves[{j}][1]", 0, 24)
    return Action(
        v=_int(value["v"], f"{path}.v"),
        t=_int(value["t"], f"{path}.t"),
        seat=_seat(value["seat"], f"{path}.seat", nullable=True),
        type=kind,
        payload=payload,
    )


def _result(value: object, path: str) -> Result:
    obj = _object(
        value, path, ("winner", "reason", "multiplier", "cube", "points", "v", "t", "evidence")
    )
    reasons = [r.value for r in ResultReason]
    if obj["reason"] not in reasons:
        _fail(f"{path}.reason", f"expected one of {', '.join(reasons)}, got {obj['reason']!r}")
    draw = obj["reason"] == ResultReason.MOTHERS  # a drawn game: no winner, nothing scored
    winner = _seat(obj["winner"], f"{path}.winner", nullable=draw)
    if draw and winner is not None:
        _fail(f"{path}.winner", f"expected null for a drawn game, got {winner!r}")
    cube = _int(obj["cube"], f"{path}.cube", 1, MAX_CUBE)
    if cube & (cube - 1):
        _fail(f"{path}.cube", f"expected a power of two, got {cube}")
    evidence = None
    if obj["evidence"] is not None:
        ev = _object(obj["evidence"], f"{path}.evidence", ("k", "seat", "reveal"))
        seat = _seat(ev["seat"], f"{path}.evidence.seat")
        assert seat is not None
        evidence = Evidence(
            k=_int(ev["k"], f"{path}.evidence.k", 1, U32_MAX),
            seat=seat,
            reveal=_hex(ev["reveal"], LINK_SIZE, f"{path}.evidence.reveal"),
        )
    return Result(
        winner=winner,
        reason=ResultReason(obj["reason"]),
        multiplier=_int(obj["multiplier"], f"{path}.multiplier", *((0, 0) if draw else (1, 3))),
        cube=cube,
        points=_int(obj["points"], f"{path}.points", 0 if draw else 1, 3 * MAX_CUBE),
        v=_int(obj["v"], f"{path}.v"),
        t=_int(obj["t"], f"{path}.t"),
        evidence=evidence,
    )
