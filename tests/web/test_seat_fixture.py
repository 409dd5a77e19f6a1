"""The seat-core conversation fixture (web-client/test/fixtures/seat-conversations.json) is up
to date, and the Python core, fed each conversation's inputs afresh, returns the recorded
effects; web-client/test/seatCore.test.ts checks the TypeScript core on the same file."""

from __future__ import annotations

import itertools
import json
from types import ModuleType
from typing import Any

import pytest

from harness.web_tools import load_web_tool
from protocol.client import seat as sc
from protocol.codec import decode_from_client, decode_from_server
from protocol.fairdice import GameId, HashChain


def load_tool() -> ModuleType:
    return load_web_tool("make_seat_fixture")


FIXTURE = json.loads(load_tool().FIXTURE.read_text(encoding="utf-8"))


def test_fixture_is_up_to_date() -> None:
    tool = load_tool()
    assert tool.FIXTURE.read_text(encoding="utf-8") == tool.render(), (
        "run .venv/bin/python web-client/tools/make_seat_fixture.py"
    )


def test_the_conversations_cover_what_the_cores_decide() -> None:
    outs = [o for c in FIXTURE["conversations"] for s in c["steps"] for o in s["out"]]
    kinds = {k for o in outs for k in o}
    assert {"send", "answer", "wake", "connect", "need", "notice", "ended"} <= kinds
    assert {"watch", "drop"} <= kinds  # the dead-link check (frozen_server)
    sent = {decode_from_client(bytes.fromhex(o["send"])).__class__.__name__
            for o in outs if "send" in o}  # fmt: skip
    assert {"Hello", "Commit", "Recommit", "Reveal", "Roll", "Move", "Echo"} - sent == set()
    assert any(o.get("ended") == "replaced" for o in outs)


def held(match_id: str, seat: int, game: int, h: dict[str, Any] | None) -> sc.Held | None:
    if h is None:
        return None
    gid = GameId(bytes.fromhex(match_id), game)
    chain = HashChain(bytes.fromhex(h["secret"]), gid, seat, h["length"])
    return sc.Held(chain, h["n"], h["from"])


def rendered(tool: ModuleType, effects: list[sc.Effect]) -> list[dict[str, Any]]:
    return [tool.effect(e) for e in effects]


@pytest.mark.parametrize("conv", FIXTURE["conversations"], ids=lambda c: c["name"])
def test_the_python_core_replays_each_conversation(conv: dict[str, Any]) -> None:
    tool = load_tool()
    cfg = conv["config"]
    config = sc.Config(
        cfg["chainLength"], cfg["autoCommit"], cfg["autoReveal"], cfg["autoRoll"],
        cfg["nextGameShare"], cfg["firstLastV"], cfg["reconnectCap"], cfg["deadLink"],
    )  # fmt: skip
    cycle = itertools.cycle(FIXTURE["jitter"])
    core = sc.SeatCore(conv["match_id"], conv["token"], None, config, lambda: next(cycle))
    for i, step in enumerate(conv["steps"]):
        now = step.get("now", 0)
        name = step["in"]
        if name == "receive":
            result: Any = core.receive(decode_from_server(bytes.fromhex(step["frame"])), now)
        elif name == "act":
            result = core.act(decode_from_client(bytes.fromhex(step["frame"])), now)  # type: ignore[arg-type]
        elif name == "closed":
            result = core.closed(step["code"], now)
        elif name == "chain_ready":
            seat = core.seat if core.seat is not None else 0
            result = core.chain_ready(step["game"], held(conv["match_id"], seat, step["game"],
                                                         step["held"]), now)  # fmt: skip
        else:
            result = getattr(core, name)(now)
        effects = result[1] if isinstance(result, tuple) else result
        if isinstance(result, tuple):
            assert result[0] == step["ticket"], (i, step)
        assert rendered(tool, effects) == step["out"], (i, step["in"])
