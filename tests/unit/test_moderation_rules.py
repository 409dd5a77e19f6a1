"""The pure rules of sanctions (server/players/moderation.py): every sanction is laid and lifted
with an audit entry, refused when it cannot be (nothing changes), and stored by field names."""

from __future__ import annotations

import json

import pytest

from protocol.errors import ErrorCode
from protocol.http_errors import HttpCode
from server.players import moderation as rules


@pytest.mark.parametrize("kind", rules.SANCTIONS)
def test_each_sanction_is_laid_then_lifted_with_its_audit_entries(kind):
    none = rules.Sanctions()
    laid, entry = rules.decide(none, rules.Sanction(kind, "  a   reason ", "mod"), 10, "ann")
    assert laid.active() == (kind,) and none.active() == ()  # values, not mutated
    assert entry.as_json() == {"at": 10, "moderator": "mod", "action": kind, "target": "ann",
                               "sanction": None, "reason": "a reason", "report": None}  # fmt: skip
    chat, rated, report = rules.may_chat(laid), rules.may_play_rated(laid), rules.may_report(laid)
    expected = {"mute": ("muted", None, None), "suspend": (None, "rating_suspended", None),
                "ban": ("banned", "banned", "banned")}[kind]  # fmt: skip
    assert (chat, rated, report) == expected
    lifted, entry = rules.decide(laid, rules.Lift(kind, "appeal", "mod2"), 20, "ann")
    assert lifted.active() == () and (entry.action, entry.sanction) == ("lift", kind)
    assert (rules.may_chat(lifted), rules.may_play_rated(lifted)) == (None, None)


def test_refusals_change_nothing_and_are_catalogued_codes():
    s, _ = rules.decide(rules.Sanctions(), rules.Sanction("mute", "spam", "mod"), 1)
    for command, code in [
        (rules.Sanction("mute", "again", "mod"), HttpCode.SANCTION_CONFLICT),
        (rules.Lift("ban", "none laid", "mod"), HttpCode.SANCTION_CONFLICT),
        (rules.Sanction("gag", "what", "mod"), ErrorCode.BAD_FIELD),
        (rules.Sanction("ban", "x", "mod"), ErrorCode.BAD_FIELD),  # reason too short
        (rules.Sanction("ban", "a\x00b", "mod"), ErrorCode.BAD_FIELD),
    ]:
        with pytest.raises(rules.Refused) as refused:
            rules.decide(s, command, 2)
        assert refused.value.code is code
    assert s.active() == ("mute",)


def test_the_stored_form_is_by_name_and_reads_back():
    s, _ = rules.decide(rules.Sanctions(), rules.Sanction("suspend", "farming", "mod"), 5)
    s, _ = rules.decide(s, rules.Sanction("mute", "insults", "mod"), 6)
    stored = json.loads(json.dumps(s.as_json()))
    assert list(stored) == ["mute", "suspend"]  # mildest first, whatever the order laid
    assert stored["suspend"] == {"by": "mod", "at": 5, "reason": "farming"}
    assert rules.Sanctions.of(stored) == s
    assert rules.Sanctions.of({"mute": stored["mute"], "future_kind": {}}).active() == ("mute",)
