"""Codec test support: hypothesis strategies for valid protocol values, derived from the specs
themselves (a new message or event kind is covered by the codec tests the moment it is
registered), and sample values."""

from __future__ import annotations

import random
from typing import Any

from hypothesis import strategies as st

from protocol.events import Clock, GameOver, MatchCreated, MatchOver, RematchOffered
from protocol.messages import Event, Snapshot
from protocol.registry import BY_CLASS, EVENT_KINDS, MESSAGES, Direction, Envelope, MessageType
from protocol.schema import (
    Array,
    Bin,
    Bool,
    Const,
    EnumOf,
    Int,
    Nullable,
    OneOf,
    Spec,
    Str,
    Struct,
    Tuple,
    struct_spec,
)
from protocol.state import CubeState, DoubleOffer, GameState, MatchState, ResignOffer, SeatState

_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
SAFE_CHARS = st.characters(
    codec="utf-8", exclude_categories=("Cs", "Cc", "Zl", "Zp"), exclude_characters=_BIDI
)


def for_spec(spec: Spec) -> st.SearchStrategy[Any]:
    """Valid Python values of ``spec``."""
    if isinstance(spec, Int):
        return st.integers(spec.lo, spec.hi)
    if isinstance(spec, Const):
        return st.just(spec.value)
    if isinstance(spec, Bool):
        return st.booleans()
    if isinstance(spec, Str):
        if spec.pattern is not None:
            return st.from_regex(spec.pattern, fullmatch=True)
        return st.text(SAFE_CHARS, min_size=spec.min_chars, max_size=spec.max_chars).filter(
            lambda s: len(s.encode()) <= spec.max_bytes
        )
    if isinstance(spec, Bin):
        return st.binary(min_size=spec.lo, max_size=spec.hi)
    if isinstance(spec, OneOf):
        return st.sampled_from(spec.values)
    if isinstance(spec, EnumOf):
        return st.sampled_from(list(spec.enum))
    if isinstance(spec, Nullable):
        return st.none() | for_spec(spec.inner)
    if isinstance(spec, Array):
        return st.lists(for_spec(spec.item), min_size=spec.lo, max_size=spec.hi).map(tuple)
    if isinstance(spec, Tuple):
        return st.tuples(*(for_spec(s) for s in spec.items))
    if isinstance(spec, Struct):
        return st.builds(spec.cls, *(for_spec(f.spec) for f in spec.fields))
    raise TypeError(f"no strategy for {spec!r}")


def event_data() -> st.SearchStrategy[Any]:
    """The data of any event kind."""
    return st.one_of(*(for_spec(kind.payload) for kind in EVENT_KINDS.values()))


def for_type(mt: MessageType) -> st.SearchStrategy[Any]:
    """Valid messages of one registered type."""
    if mt.envelope is Envelope.EVENT:
        v = struct_spec(Event).fields[0].spec
        return st.builds(Event, for_spec(v), event_data())
    if mt.envelope is Envelope.ACTION:
        seq = struct_spec(mt.cls).fields[0].spec
        return st.builds(mt.cls, for_spec(seq), *(for_spec(f.spec) for f in mt.payload.fields))
    return for_spec(mt.payload)


def messages(direction: Direction | None = None) -> st.SearchStrategy[Any]:
    """Valid messages of every type (sent by ``direction``, or by either side)."""
    types = [mt for mt in BY_CLASS.values() if direction in (None, mt.direction)]
    return st.one_of(*(for_type(mt) for mt in types))


def all_types() -> list[MessageType]:
    return [mt for table in MESSAGES.values() for mt in table.values()]


def sample_snapshot(*, full: bool = False) -> Snapshot:
    """A plausible snapshot mid-game; ``full`` fills every nullable field (the largest shape)."""
    start = (0, 0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 0)
    game = GameState(
        game=2,
        crawford=False,
        phase="move",
        turn=5,
        on_roll=1,
        k=6,
        dice=(6, 2),
        boards=(start, start),
        cube=CubeState(2, 0),
        double=DoubleOffer(1, 4) if full else None,
        resignation=ResignOffer(0, 3) if full else None,
        commitments=(bytes(32), b"\x01" * 32),
        recommits=(0, 1),
        clock=Clock("move", (1,), 1_767_225_630_000),
        result=GameOver(2, 1, 192, "backgammon", "forfeit", (0, 192)) if full else None,
        heads=(b"\x02" * 32, b"\x03" * 32),
    )
    state = MatchState(
        match="00112233445566778899aabbccddeeff",
        settings=MatchCreated("match", 5, False, False, 30_000),
        seats=(SeatState("Ana", "online"), SeatState("\U0001f3b2" * 24 if full else None, "gone")),
        score=(1, 0),
        game=game,
        result=MatchOver(None, (2**31 - 1, 0), "stopped") if full else None,
        rematch=RematchOffered(1, "ffeeddccbbaa99887766554433221100") if full else None,
    )
    return Snapshot(v=57, state=state)


def random_value(spec: Spec, rng: random.Random) -> Any:
    """A valid value of ``spec`` from a seeded ``random.Random`` (for volume loops, where
    hypothesis' own generation would be the bottleneck)."""
    if isinstance(spec, Int):
        return rng.choice([spec.lo, spec.hi, rng.randint(spec.lo, spec.hi)])
    if isinstance(spec, Const):
        return spec.value
    if isinstance(spec, Bool):
        return rng.random() < 0.5
    if isinstance(spec, Str):
        if spec.pattern is not None:
            return rng.choice(_PATTERN_SAMPLES[spec.pattern.pattern])
        n = rng.randint(spec.min_chars, spec.max_chars)
        return "".join(rng.choice("aZ09 _-éß名🂡") for _ in range(n))[: spec.max_bytes // 4]
    if isinstance(spec, Bin):
        return rng.randbytes(rng.randint(spec.lo, spec.hi))
    if isinstance(spec, OneOf):
        return rng.choice(spec.values)
    if isinstance(spec, EnumOf):
        return rng.choice(list(spec.enum))
    if isinstance(spec, Nullable):
        return None if rng.random() < 0.3 else random_value(spec.inner, rng)
    if isinstance(spec, Array):
        return tuple(random_value(spec.item, rng) for _ in range(rng.randint(spec.lo, spec.hi)))
    if isinstance(spec, Tuple):
        return tuple(random_value(s, rng) for s in spec.items)
    if isinstance(spec, Struct):
        return spec.cls(*(random_value(f.spec, rng) for f in spec.fields))
    raise TypeError(f"no generator for {spec!r}")


_PATTERN_SAMPLES = {
    "[0-9a-f]{32}": ["0123456789abcdef" * 2, "f" * 32],
    "[A-Za-z0-9_-]{1,64}": ["t", "tok_EN-1", "x" * 64],
    "[A-Za-z0-9+/]{14}": ["4HPwATDgc/ABMA", "AAAAAAAAAAAAAA"],
}


def random_message(mt: MessageType, rng: random.Random) -> Any:
    """A valid message of one registered type from a seeded ``random.Random``."""
    if mt.envelope is Envelope.EVENT:
        kind = rng.choice(list(EVENT_KINDS.values()))
        return Event(rng.randint(1, 2**31 - 1), random_value(kind.payload, rng))
    values = [random_value(f.spec, rng) for f in mt.payload.fields]
    if mt.envelope is Envelope.ACTION:
        return mt.cls(rng.randint(1, 2**31 - 1), *values)
    return mt.cls(*values)
