"""Transcripts: the JSON round trip, verification of honest games, and tampering of every kind.

The core property: changing any byte of a hex field, any die, or the structure of a valid
transcript makes verification fail with a precise, typed error — never pass, never crash.
"""

import contextlib
import copy
import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.fairdice import Problem, TranscriptError, parse_transcript, verify_json
from protocol.fairdice.simulate import simulate_game

SHORT = simulate_game(11, end="resign", turns=10, recommit={6: 1, 9: 0}, names=("ann", "bo"))
SHORT_OBJ = SHORT.to_obj()


def test_short_game_has_what_the_flip_tests_need():
    assert len(SHORT.rolls) >= 10
    assert len(SHORT.recommitments) == 2
    assert verify_json(SHORT_OBJ).plays_replayed == len(
        [a for a in SHORT.actions if a.type == "move"]
    )


def test_json_round_trip():
    text = SHORT.to_json()
    assert parse_transcript(text) == SHORT
    assert parse_transcript(text.encode()) == SHORT
    assert json.loads(text) == SHORT_OBJ
    assert parse_transcript(SHORT_OBJ).to_json() == text


@pytest.mark.parametrize("end", ["bear_off", "resign", "drop", "timeout", "invalid_reveal"])
@pytest.mark.parametrize("seed", [1, 2])
def test_honest_games_verify(end, seed):
    t = simulate_game(seed, end=end, turns=6, recommit={4: seed % 2})
    verdict = verify_json(t.to_json())
    assert verdict.rolls == len(t.rolls)
    assert verdict.result.reason.value == end
    assert verdict.plays_replayed is not None and verdict.plays_replayed >= 6
    assert verify_json(t.to_json(), replay=False).plays_replayed is None


def hex_fields(obj):
    """(path, expected (problem, k, seat)) of every hex field whose change must be caught."""
    yield ("match_id",), ("link", 1, 0)
    for seat in (0, 1):
        yield ("commitments", seat, "commitment"), ("link", 1, seat)
    for i, r in enumerate(obj["recommitments"]):
        yield ("recommitments", i, "commitment"), ("link", r["applies_from"], r["seat"])
    for i, roll in enumerate(obj["rolls"]):
        for seat in (0, 1):
            yield ("rolls", i, "reveals", seat), ("link", roll["k"], seat)


def get(obj, path):
    for part in path:
        obj = obj[part]
    return obj


def put(obj, path, value):
    obj = copy.deepcopy(obj)
    target = obj
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return obj


def failure(obj, **kwargs):
    with pytest.raises(TranscriptError) as info:
        verify_json(obj, **kwargs)
    return info.value.code, info.value.k, info.value.seat


def test_every_hex_digit_change_is_caught_precisely():
    checked = 0
    for n, (path, expected) in enumerate(hex_fields(SHORT_OBJ)):
        text = get(SHORT_OBJ, path)
        for i in range(len(text)):
            offset = 1 + (i * 7 + n) % 15  # every other digit value occurs along the way
            digit = "0123456789abcdef"[(int(text[i], 16) + offset) % 16]
            changed = put(SHORT_OBJ, path, text[:i] + digit + text[i + 1 :])
            assert failure(changed) == expected, (path, i)
            checked += 1
    assert checked > 1500


def test_every_byte_flip_through_the_json_text_is_caught():
    # The same on the serialized file: flip each byte (two hex digits) of each reveal in place.
    text = SHORT.to_json()
    checked = 0
    for roll in SHORT_OBJ["rolls"][:4]:
        for reveal in roll["reveals"]:
            at = text.index(reveal)
            for b in range(0, 64, 2):
                byte = int(reveal[b : b + 2], 16) ^ 0xFF
                changed = text[: at + b] + f"{byte:02x}" + text[at + b + 2 :]
                with pytest.raises(TranscriptError) as info:
                    verify_json(changed)
                assert info.value.problem is Problem.LINK
                checked += 1
    assert checked == 4 * 2 * 32


def test_every_die_change_is_caught_precisely():
    for i, roll in enumerate(SHORT_OBJ["rolls"]):
        for field in ("d1", "d2"):
            for value in range(1, 7):
                if value == roll[field]:
                    continue
                changed = put(SHORT_OBJ, ("rolls", i, field), value)
                assert failure(changed) == ("dice", roll["k"], None)
                code = failure(changed, replay=False)
                assert code == ("dice", roll["k"], None)
    rolls = SHORT_OBJ["rolls"]
    swapped = put(SHORT_OBJ, ("rolls", 3), rolls[3] | {"d1": rolls[3]["d2"], "d2": rolls[3]["d1"]})
    if rolls[3]["d1"] != rolls[3]["d2"]:
        assert failure(swapped) == ("dice", 4, None)


def test_ids_and_indexes_are_bound():
    for game_no in (0, 2, 2**32 - 1):
        assert failure(put(SHORT_OBJ, ("game_no",), game_no)) == ("link", 1, 0)
    for i in range(len(SHORT_OBJ["rolls"])):
        assert failure(put(SHORT_OBJ, ("rolls", i, "k"), i + 2))[0] == "sequence"
    # dropping a roll breaks the chain at the next one
    obj = copy.deepcopy(SHORT_OBJ)
    del obj["rolls"][4]
    assert failure(obj)[0] in ("sequence", "link")
    # replaying a roll of another game with the same secrets is caught
    assert failure(put(SHORT_OBJ, ("match_id",), "00" * 16)) == ("link", 1, 0)


def test_rolloff_and_turn_order_are_checked():
    obj = SHORT_OBJ
    decided = next(i for i, r in enumerate(obj["rolls"]) if r["d1"] != r["d2"])
    assert failure(put(obj, ("rolls", decided, "roller"), 0))[0] == "rolloff"
    assert failure(put(obj, ("rolls", decided + 1, "kind"), "rolloff"))[0] == "rolloff"
    roller = obj["rolls"][decided + 1]["roller"]
    assert failure(put(obj, ("rolls", decided + 1, "roller"), 1 - roller)) == (
        "rolloff",
        decided + 2,
        1 - roller,
    )
    assert failure(put(obj, ("rolls", decided + 1, "roller"), None))[0] == "rolloff"


def test_actions_are_checked_against_the_rolls():
    obj = SHORT_OBJ
    moves = [i for i, a in enumerate(obj["actions"]) if a["type"] == "move"]
    first = moves[0]
    k_first = obj["actions"][first]["k"]
    # a move for a roll that does not exist / for a roll-off tie / twice
    assert failure(put(obj, ("actions", first, "k"), 999))[0] == "action"
    if obj["rolls"][0]["d1"] == obj["rolls"][0]["d2"]:
        assert failure(put(obj, ("actions", first, "k"), 1))[0] == "action"
    second = moves[1]
    assert failure(put(obj, ("actions", second, "k"), k_first))[0] in ("action", "order")
    # a missing move when the roll had legal plays
    dropped = copy.deepcopy(obj)
    del dropped["actions"][moves[2]]
    code, _, _ = failure(dropped)
    assert code in ("action", "play")
    # an illegal play, found only by the replay
    illegal = put(obj, ("actions", first, "moves"), [[1, 0]])
    assert failure(illegal)[0] == "play"
    assert verify_json(illegal, replay=False).plays_replayed is None


def test_result_is_checked():
    assert failure(put(SHORT_OBJ, ("result", "points"), 3))[0] == "result"
    assert failure(put(SHORT_OBJ, ("result", "cube"), 3))[0] == "schema"
    full = simulate_game(5).to_obj()
    assert full["result"]["reason"] == "bear_off"
    winner = full["result"]["winner"]
    assert failure(put(full, ("result", "winner"), 1 - winner))[0] == "result"
    m = full["result"]["multiplier"]
    wrong = put(full, ("result",), full["result"] | {"multiplier": m % 3 + 1, "points": m % 3 + 1})
    assert failure(wrong)[0] == "result"
    assert failure(put(SHORT_OBJ, ("result", "reason"), "bear_off"))[0] == "result"


def test_forfeit_evidence_must_show_a_bad_reveal():
    t = simulate_game(3, end="invalid_reveal", turns=4, recommit={3: 1})
    obj = t.to_obj()
    evidence = obj["result"]["evidence"]
    assert verify_json(obj).result.reason.value == "invalid_reveal"
    # evidence that is in fact the right link proves nothing: refused
    from protocol.fairdice import HashChain  # noqa: F401 (documenting where links come from)

    k, seat = evidence["k"], evidence["seat"]
    good = bytes(b ^ 0x5A for b in bytes.fromhex(evidence["reveal"])).hex()  # undo the sim's xor
    assert failure(put(obj, ("result", "evidence", "reveal"), good)) == ("evidence", k, seat)
    assert failure(put(obj, ("result", "evidence", "seat"), 1 - seat))[0] == "evidence"
    assert failure(put(obj, ("result", "evidence", "k"), k + 1))[0] == "evidence"
    assert failure(put(obj, ("result", "evidence"), None))[0] == "evidence"
    assert failure(put(SHORT_OBJ, ("result", "evidence"), evidence))[0] == "evidence"


def test_recommitment_limits_and_timing_are_checked():
    obj = SHORT_OBJ
    rec = obj["recommitments"][0]
    four = put(obj, ("recommitments",), [rec, rec, rec, rec])
    assert failure(four)[0] == "recommitment"
    assert failure(put(obj, ("recommitments", 0, "applies_from"), 99))[0] == "recommitment"
    assert failure(put(obj, ("recommitments", 0, "commitment"), "00" * 32))[0] == "commitment"
    early = put(obj, ("recommitments", 0, "v"), 3)
    assert failure(early)[0] == "order"


STRUCTURE_CASES = [
    ("", "json"),
    ("{", "json"),
    ("null", "schema"),
    ('{"format": NaN}', "json"),
    ("[1, 2]", "schema"),
    ('"transcript"', "schema"),
    (b"\xff\xfe{}", "json"),
]


@pytest.mark.parametrize(("text", "code"), STRUCTURE_CASES)
def test_broken_json_fails_cleanly(text, code):
    with pytest.raises(TranscriptError) as info:
        verify_json(text)
    assert info.value.code == code


def test_truncated_files_fail_cleanly():
    text = SHORT.to_json().rstrip()
    for cut in range(0, len(text), 37):
        with pytest.raises(TranscriptError) as info:
            verify_json(text[:cut])
        assert info.value.code == "json"


def test_missing_extra_and_mistyped_fields_fail_cleanly():
    for key in SHORT_OBJ:
        obj = copy.deepcopy(SHORT_OBJ)
        del obj[key]
        assert failure(obj)[0] == "schema"
    assert failure(SHORT_OBJ | {"extra": 1})[0] == "schema"
    for path, value in [
        (("rolls", 0, "reveals"), ["00" * 32]),
        (("rolls", 0, "d1"), 1.0),
        (("rolls", 0, "v"), -1),
        (("rolls", 0, "t"), 2**53),
        (("seats", 0, "seat"), 1),
        (("seats", 0, "name"), "x" * 101),
        (("commitments", 0, "seat"), 1),
        (("actions", 0, "type"), "Move"),
        (("actions", 0, "seat"), 2),
        (("result", "reason"), "won"),
        (("format",), "fairgammon-transcript/2"),
        (("match_id",), "00" * 15),
    ]:
        assert failure(put(SHORT_OBJ, path, value))[0] in ("schema", "version"), path


def leaf_paths(obj, prefix=()):
    yield prefix
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from leaf_paths(value, (*prefix, key))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from leaf_paths(value, (*prefix, i))


PATHS = [p for p in leaf_paths(SHORT_OBJ) if p]
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**60), 2**60) | st.floats() | st.text(max_size=70),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=8), children, max_size=4)
    ),
    max_leaves=10,
)


@given(path=st.sampled_from(PATHS), value=JSON_VALUES)
def test_any_replaced_value_verifies_or_fails_cleanly(path, value):
    # Anything but a TranscriptError (KeyError, TypeError, ...) fails the test.
    changed = put(SHORT_OBJ, path, value)
    with contextlib.suppress(TranscriptError):
        verify_json(changed)
    with contextlib.suppress(TranscriptError):
        verify_json(json.dumps(changed))  # the text path (NaN included) as well


def test_action_payloads_stay_open():
    obj = copy.deepcopy(SHORT_OBJ)
    for action in obj["actions"]:
        action["seq"] = 7  # e.g. the client's sequence number, logged by the server
    obj["actions"].append(
        {"v": obj["result"]["v"], "t": obj["result"]["t"], "seat": None, "type": "chat_x"}
    )
    obj["result"] = obj["result"] | {"v": obj["result"]["v"] + 1}
    assert verify_json(obj).actions == len(SHORT_OBJ["actions"]) + 1
    assert parse_transcript(obj).actions[0].payload["seq"] == 7
