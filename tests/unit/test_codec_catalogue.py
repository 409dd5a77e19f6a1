"""The catalogue's structure: message classes, error and close codes, limits, docs."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from typing import Annotated

import msgpack
import pytest
from hypothesis import given

from harness.codec import all_types, messages
from protocol import docgen, limits
from protocol.close_codes import CloseCode, close_code_for
from protocol.codec import DECODER_LIMITS, decode, encode
from protocol.errors import DESCRIPTIONS, DecodeError, ErrorCode
from protocol.examples import TURN
from protocol.messages import Move
from protocol.registry import (
    BY_CLASS,
    EVENT_KINDS,
    MESSAGES,
    NESTED,
    Direction,
    Envelope,
    event,
    message,
)
from protocol.schema import Int, struct_spec

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"


def camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


@pytest.mark.parametrize(
    "cls",
    [mt.cls for mt in all_types()] + [k.cls for k in EVENT_KINDS.values()] + NESTED,
    ids=lambda c: c.__name__,
)
def test_every_value_class_is_a_frozen_slotted_dataclass(cls):
    params = cls.__dataclass_params__
    assert params.frozen
    assert "__slots__" in cls.__dict__
    fields = dataclasses.fields(cls)
    instance = cls(*(None for _ in fields))
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(instance, fields[0].name, 1)


def test_class_names_follow_type_and_kind_names():
    for mt in all_types():
        assert mt.cls.__name__ == camel(mt.name)
    for kind in EVENT_KINDS.values():
        assert kind.cls.__name__ == camel(kind.name)


def test_the_catalogue_has_the_agreed_messages():
    assert set(MESSAGES[Direction.CLIENT]) == {
        "hello", "commit", "recommit", "roll", "reveal", "double", "take", "drop", "beaver",
        "move", "resign", "resign_reply", "leave", "stop", "ping", "echo", "resync",
        "chat_send", "chat_sync",
    }  # fmt: skip
    assert set(MESSAGES[Direction.SERVER]) == {
        "welcome", "ack", "reject", "event", "snapshot", "presence", "watchers", "pong", "probe",
        "error", "chat", "degraded", "restored",
    }  # fmt: skip
    # Who must act next rides in every event's envelope, not in an event kind of its own.
    assert "clock" not in EVENT_KINDS
    actions = {n for n, mt in MESSAGES[Direction.CLIENT].items() if mt.envelope is Envelope.ACTION}
    plain = {"hello", "ping", "echo", "resync", "chat_send", "chat_sync"}
    assert actions == set(MESSAGES[Direction.CLIENT]) - plain


def test_actions_carry_seq_first_and_other_client_messages_none():
    for mt in MESSAGES[Direction.CLIENT].values():
        names = [f.name for f in struct_spec(mt.cls).fields]
        assert (names[0] == "seq") == (mt.envelope is Envelope.ACTION)
        assert "seq" not in [f.name for f in mt.payload.fields]


def test_error_codes_cover_the_protocol_and_are_described():
    required = {
        "bad_frame", "too_large", "unsupported", "unknown_type", "bad_field", "not_authenticated",
        "auth_failed", "auth_timeout", "forbidden_origin", "replaced", "not_a_player",
        "not_your_turn", "wrong_phase", "illegal_play", "stale", "duplicate", "bad_commitment",
        "bad_reveal", "cube_unavailable", "no_double_pending", "no_resignation_pending",
        "rate_limited", "retry_later", "match_over", "not_found", "internal",
    }  # fmt: skip
    assert required <= {c.value for c in ErrorCode}
    for code in ErrorCode:
        assert re.fullmatch("[a-z_]+", code.value)
        assert DESCRIPTIONS[code]


def test_close_codes():
    required = {1000, 1003, 1008, 1009, 1011, 1012, 4001, 4002, 4003, 4004, 4008}
    assert required <= {int(c) for c in CloseCode}
    assert all(1000 <= c < 1016 or 4000 <= c < 5000 for c in CloseCode)
    assert all(code.meaning for code in CloseCode)
    assert not CloseCode.AUTH_FAILED.reconnect and not CloseCode.REPLACED.reconnect
    assert CloseCode.SERVICE_RESTART.reconnect and CloseCode.ABNORMAL.reconnect
    assert close_code_for(ErrorCode.AUTH_FAILED) is CloseCode.AUTH_FAILED
    assert close_code_for(ErrorCode.TOO_LARGE) is CloseCode.MESSAGE_TOO_BIG
    assert close_code_for(ErrorCode.UNSUPPORTED) is CloseCode.UNSUPPORTED_DATA
    assert close_code_for(ErrorCode.ILLEGAL_PLAY) is None


def test_decoder_limits_admit_every_valid_frame_and_no_ext():
    client, server = DECODER_LIMITS[Direction.CLIENT], DECODER_LIMITS[Direction.SERVER]
    assert client["max_ext_len"] == server["max_ext_len"] == 0
    assert client["max_array_len"] >= limits.MAX_MOVES
    assert server["max_array_len"] >= limits.BOARD_SLOTS
    assert client["max_str_len"] >= limits.MAX_NAME_BYTES
    assert server["max_str_len"] >= limits.MAX_MESSAGE_BYTES
    assert client["max_bin_len"] >= limits.HASH_SIZE
    # the server-side decoder (what attackers reach) is tighter than the client-side one
    assert all(client[k] <= server[k] for k in client)


def test_a_field_without_a_spec_is_a_definition_error():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Vague:
        x: int

    with pytest.raises(TypeError, match="no Spec"):
        struct_spec(Vague)


def test_names_and_classes_register_once():
    @dataclasses.dataclass(frozen=True, slots=True)
    class Extra:
        x: Annotated[int, Int(0, 1)]

    with pytest.raises(TypeError, match="registered twice"):
        message("ping", Direction.CLIENT)(Extra)
    with pytest.raises(TypeError, match="registered twice"):
        event("moved")(Extra)
    with pytest.raises(TypeError, match="first field must be seq"):
        message("extra_action", Direction.CLIENT, envelope=Envelope.ACTION)(Extra)
    assert "extra_action" not in MESSAGES[Direction.CLIENT]
    assert Extra not in BY_CLASS


# ---------------------------------------------------------------- docs/protocol.md


def test_the_generated_parts_of_the_protocol_doc_are_current():
    text = DOC.read_text()
    assert docgen.render(text) == text, "run: python -m protocol.docgen docs/protocol.md"
    assert docgen.main(["--check", str(DOC)]) == 0


def test_every_mention_of_the_protocol_version_is_generated():
    """The version a client must send is written once, in protocol/limits.py: each mention of
    it in the docs is a generated value (a stale "hello.proto ≠ 1" once told clients the
    opposite of what the server did)."""
    import re

    docs = [DOC.parent.parent / "README.md", *DOC.parent.glob("*.md")]
    stale = re.compile(r"(?i)(hello\.proto`?\s*(≠|!=|==?|is)\s*\d"
                       r"|protocol[^\n.]{0,30}version\)?\s*\d|\(version \d+\))")
    for path in docs:
        text = path.read_text()
        outside = re.sub(r"<!-- value:([a-z-]+) -->.*?<!-- /value:\1 -->", "", text)
        outside = re.sub(r"<!-- generated:([a-z-]+) -->.*?<!-- /generated:\1 -->", "", outside,
                         flags=re.DOTALL)
        assert stale.findall(outside) == [], path.name
    assert DOC.read_text().count("<!-- value:protocol-version -->") >= 2


def test_the_doc_has_every_generated_block_and_names_every_message():
    text = DOC.read_text()
    for name in docgen.BLOCKS:
        assert f"<!-- generated:{name} -->" in text
    for mt in all_types():
        assert f"#### `{mt.name}`" in text
    for kind in EVENT_KINDS:
        assert f"#### `{kind}`" in text
    who = text.split("## Who may send what")[1].split("\n## ")[0]
    for name in MESSAGES[Direction.CLIENT]:
        assert f"`{name}`" in who


def test_a_stale_doc_is_detected(tmp_path):
    stale = tmp_path / "protocol.md"
    stale.write_text(DOC.read_text().replace("| `game` |", "| `gaem` |", 1))
    assert docgen.main(["--check", str(stale)]) == 1
    assert docgen.main([str(stale)]) == 0
    assert stale.read_text() == DOC.read_text()


def test_the_worked_example_is_a_plausible_exchange():
    versions = [m.v for _, _, m in TURN if type(m).__name__ == "Event"]
    assert versions == list(range(versions[0], versions[0] + len(versions)))
    acks = {m.seq: m.v for _, _, m in TURN if type(m).__name__ == "Ack"}
    actions = {m.seq for who, _, m in TURN if who.endswith("→ S") and hasattr(m, "seq")}
    assert set(acks) == actions
    assert max(acks.values()) == versions[-1]
    move = next(m for _, _, m in TURN if isinstance(m, Move))
    assert decode(encode(move), Direction.CLIENT) == move


@given(messages())
def test_the_byte_annotator_accounts_for_every_byte(msg):
    frame = encode(msg)
    lines = docgen.annotate(frame)
    hex_bytes = "".join(re.match(r"\s*((?:[0-9a-f]{2} ?)+)", line).group(1) for line in lines)
    assert bytes.fromhex(hex_bytes.replace(" ", "")) == frame
    assert len(lines) >= 1 + 2 * len(msgpack.unpackb(frame))


def test_decode_error_is_the_only_decode_failure_type():
    assert issubclass(DecodeError, Exception) and not issubclass(DecodeError, ValueError)


def test_the_python_api_example_in_the_doc_runs():
    code = DOC.read_text().split("## Python API")[1].split("```python")[1].split("```")[0]
    scope: dict[str, object] = {}
    exec(code, scope)
    assert scope["msg"] == Move(5, 1, 2, ((24, 18), (18, 14)))
    assert decode(scope["reply"], Direction.SERVER).code is ErrorCode.BAD_FRAME
