"""XGIDs: hand-checked examples, the round trip, refusals naming the field, and Debian's gnubg
as the oracle: its ``set xgid`` must give the Position ID and Match ID we derive from the same
XGID, on hundreds of random positions and match states.
"""

from __future__ import annotations

import base64
import random
from dataclasses import replace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine import match_id, position_id
from engine.match_id import MatchKey
from engine.position import Position
from engine.xgid import Xgid, XgidError, decode, encode
from harness.corpus import random_play
from harness.gnubg import gnubg_command, xgid_ids

# ------------------------------------------------------------------ read by hand

# Each example is read field by field in its comment; the expected values are written from
# that reading, not from the code.
EXAMPLES = [
    # The opening: top's bar '-', bottom's point 1 'b' = two top checkers (top's 24), 'E' five
    # bottom checkers on 6, 'C' three on 8, 'e' five top on bottom's 12 (top's 13), 'E' five
    # bottom on 13, 'c' three top on 17 (top's 8), 'e' five top on 19 (top's 6), 'B' two bottom
    # on 24, bottom's bar '-'. Cube 2^0, centred; bottom (1) on roll; not rolled; 0-0; money,
    # no Jacoby, no beavers; max cube 2^10.
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10",
     Position.start(),
     MatchKey(dice_owner=1, turn=1)),
    # The same board, the top player on roll with 5-2 rolled, 9-point match at 2 (bottom) to 4
    # (top), cube 2 owned by the bottom player: seat 0 (top) rolled, scores (top, bottom).
    ("XGID=-b----E-C---eE---c-e----B-:1:1:-1:52:2:4:0:9:10",
     Position.start(),
     MatchKey(cube=2, cube_owner=1, dice_owner=0, turn=0, dice=(5, 2), length=9,
              score=(4, 2))),
    # A bear-off: the bottom player has 'B' two on point 1 and 'A' one on point 3; the top
    # player 'a' one checker on bottom's 22 (top's 3) and 'b' two on bottom's 24 (top's 1). Top
    # on roll and has doubled (D) to 4 ... the cube (2^1) centred? No: owned by the top (-1);
    # 4-away, 3-away in a 7-point match (bottom 3, top 4); Crawford flag 0.
    ("XGID=-B-A------------------a-b-:1:-1:-1:D:3:4:0:7:10",
     Position.from_points({3: 1, 1: 2}, {1: 2, 3: 1}),
     MatchKey(cube=2, cube_owner=0, dice_owner=0, turn=1, doubled=True, length=7,
              score=(4, 3))),
    # Checkers on both bars ('a' top's bar, 'A' bottom's bar) in a money game with the Jacoby
    # rule and beavers (3 = 1 + 2), bottom on roll with 6-6.
    ("XGID=aE-----------------------A:0:0:1:66:0:0:3:0:10",
     Position.from_points({1: 5, 25: 1}, {25: 1}),
     MatchKey(dice_owner=1, turn=1, dice=(6, 6))),
]


@pytest.mark.parametrize(("text", "position", "key"), EXAMPLES, ids=range(len(EXAMPLES)))
def test_examples_read_by_hand(text, position, key):
    xgid = decode(text)
    assert xgid.position == position
    assert xgid.key == key
    assert encode(xgid) == text
    assert decode(text.removeprefix("XGID=")) == xgid  # the prefix is optional


def test_the_money_rules_field():
    assert (decode(EXAMPLES[3][0]).jacoby, decode(EXAMPLES[3][0]).beavers) == (True, True)
    assert decode(EXAMPLES[0][0]).jacoby is False
    crawford = decode("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:6:2:1:7:10")
    assert crawford.key.crawford and crawford.key.score == (2, 6)


# ------------------------------------------------------------------ round trip


def random_xgid(rng: random.Random, position: Position) -> Xgid:
    length = rng.choice([0, 0, 1, 3, 5, 7, 11, 25])
    if length:
        score = (rng.randrange(length), rng.randrange(length))
    else:
        score = (rng.randrange(30), rng.randrange(30))
    crawford = bool(length) and (score[0] == length - 1) != (score[1] == length - 1) \
        and rng.random() < 0.6
    cube_log = 0 if crawford else rng.choice([0, 0, 1, 2, 3, 6])
    owner = None if cube_log == 0 else rng.choice([0, 1])
    on_roll = rng.randrange(2)
    doubled = not crawford and owner in (None, on_roll) and rng.random() < 0.25
    dice = (0, 0) if doubled or rng.random() < 0.3 else (rng.randint(1, 6), rng.randint(1, 6))
    key = MatchKey(cube=1 << cube_log, cube_owner=owner, dice_owner=on_roll, crawford=crawford,
                   turn=1 - on_roll if doubled else on_roll, doubled=doubled, dice=dice,
                   length=length, score=score)
    money = not length
    return Xgid(position, key, jacoby=money and rng.random() < 0.5,
                beavers=money and rng.random() < 0.5, max_cube=rng.choice([6, 8, 10, 12]))


@pytest.fixture(scope="module")
def positions() -> list[Position]:
    return random_play(random.Random(31), 12)


@given(st.integers(0, 2**32))
def test_round_trip(positions, seed):
    rng = random.Random(seed)
    xgid = random_xgid(rng, rng.choice(positions))
    assert decode(encode(xgid)) == xgid


# ------------------------------------------------------------------ refusals

BAD = [
    ("", "10 fields"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0", "10 fields"),
    ("XGID=-b----E-C---eE---c-e----B:0:0:1:00:0:0:0:0:10", "field 1 (position): 26 squares"),
    ("XGID=-b----E-C---eE---c-e----Bz:0:0:1:00:0:0:0:0:10", "'z' at square 26"),
    ("XGID=Ab----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "on the top player's bar"),
    ("XGID=-b----E-C---eE---c-e----Ba:0:0:1:00:0:0:0:0:10", "on the bottom player's bar"),
    ("XGID=-b----O-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10", "the bottom player has 25"),
    ("XGID=-b----E-C---eE---c-e----B-:x:0:1:00:0:0:0:0:10", "field 2 (cube)"),
    ("XGID=-b----E-C---eE---c-e----B-:16:0:1:00:0:0:0:0:10", "field 2 (cube)"),
    ("XGID=-b----E-C---eE---c-e----B-:0:2:1:00:0:0:0:0:10", "field 3 (cube owner)"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:0:00:0:0:0:0:10", "field 4 (turn)"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:70:0:0:0:0:10", "field 5 (dice)"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:B:0:0:0:0:10", "a beaver pending"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:-1:0:0:0:10", "a score is not negative"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:2:7:10", "field 8 (Crawford)"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:4:0:10", "field 8 (rules)"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:65:10", "field 9 (match length)"),
    ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:99", "field 10 (max cube)"),
]


@pytest.mark.parametrize(("text", "why"), BAD, ids=range(len(BAD)))
def test_refusals_name_the_field(text, why):
    with pytest.raises(XgidError, match=rf"{__import__('re').escape(why)}"):
        decode(text)


@given(st.text(max_size=80))
def test_no_string_crashes_the_reader(text):
    try:
        xgid = decode(text)
    except XgidError:
        return
    assert decode(encode(xgid)) == xgid


def test_states_an_xgid_cannot_say(positions):
    good = decode(EXAMPLES[0][0])
    for key in (replace(good.key, resigned=2), replace(good.key, turn=0),
                replace(good.key, doubled=True, turn=0, dice=(3, 1))):
        with pytest.raises(XgidError):
            encode(replace(good, key=key))


# ------------------------------------------------------------------ gnubg, the oracle


def swapped(key: MatchKey) -> MatchKey:
    """The same state with gnubg's two players exchanged."""
    return replace(key, dice_owner=1 - key.dice_owner, turn=1 - key.turn,
                   cube_owner=None if key.cube_owner is None else 1 - key.cube_owner,
                   score=(key.score[1], key.score[0]))


def gnubg_key(mid: str) -> MatchKey:
    """A Match ID as gnubg 1.07 writes it after ``set xgid``: it sets bits past the 66 of the
    documented key (dropped here) and writes the higher die first (a roll is a roll)."""
    bits = int.from_bytes(base64.b64decode(mid), "little") & ((1 << 66) - 1)
    return match_id.decode(base64.b64encode(bits.to_bytes(9, "little")).decode())


def same_roll(key: MatchKey) -> MatchKey:
    return replace(key, dice=tuple(sorted(key.dice, reverse=True)))


def test_gnubg_reads_our_xgids_as_we_do(positions):
    assert gnubg_command() is not None, "gnubg is missing: apt-get install gnubg"
    rng = random.Random(5)
    cases = [random_xgid(rng, rng.choice(positions)) for _ in range(300)]
    texts = [encode(x) for x in cases]
    assert len(set(texts)) > 250
    theirs = xgid_ids(texts)
    for xgid, text, (pid, mid) in zip(cases, texts, theirs, strict=True):
        key = xgid.key
        if key.doubled:
            # gnubg sets the board after the Match ID, and setting the board steps back to
            # before a pending double ("Stepping back to the offering of the cube"): the
            # doubler is then on roll, to decide.
            key = replace(key, doubled=False, turn=key.dice_owner)
        if key.dice_owner == 0:
            key = swapped(key)  # gnubg puts the player on roll at the bottom
        assert pid == position_id.encode(xgid.position), text
        assert gnubg_key(mid) == same_roll(key), text


def test_xgid_vectors_of_the_browser_editor_are_up_to_date() -> None:
    from harness.web_tools import load_web_tool

    tool = load_web_tool("make_xgid_vectors")
    assert tool.VECTORS.read_text(encoding="utf-8") == tool.render(tool.build_cases()), (
        "web-client/test/vectors/xgid-vectors.json is stale: "
        "run .venv/bin/python web-client/tools/make_xgid_vectors.py"
    )
