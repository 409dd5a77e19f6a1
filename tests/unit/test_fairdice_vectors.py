"""The shared vectors (protocol/fairdice/vectors/fairdice-v1.json), checked entry by entry.

Each entry is checked twice: against the library, and against the byte layouts of
docs/fairness.md re-stated here with plain hashlib, so that neither a library bug nor a
generator bug can hide behind the other. The generator script is never called.
"""

import copy
import hashlib
import json
import re
from pathlib import Path

import pytest

from protocol.fairdice import (
    CommitmentRejected,
    GameId,
    HashChain,
    TranscriptError,
    chain_step,
    check_commitment,
    check_recommitment,
    dice_block,
    link_ok,
    roll_seed,
    rolloff_winner,
    sample_dice,
    verify_json,
)
from protocol.fairdice.chain import chain_message
from protocol.fairdice.dice import roll_message, trace_dice

VECTORS = json.loads(
    (
        Path(__file__).parents[2] / "protocol" / "fairdice" / "vectors" / "fairdice-v1.json"
    ).read_text(encoding="utf-8")
)


def sha(data: bytes) -> bytes:
    return hashlib.sha256(data).digest()


def u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def h(text: str) -> bytes:
    assert text == text.lower()
    return bytes.fromhex(text)


def plain_chain(secret: bytes, match_id: bytes, game_no: int, seat: int, length: int) -> list:
    links = [b""] * (length + 1)
    links[length] = secret
    for i in range(length, 0, -1):
        links[i - 1] = sha(
            b"fairgammon/v1/chain" + match_id + u32(game_no) + bytes([seat]) + u32(i) + links[i]
        )
    return links


def plain_dice(seed: bytes) -> tuple[int, int]:
    dice = []
    ctr = 0
    while len(dice) < 2:
        for byte in sha(b"fairgammon/v1/dice" + seed + u32(ctr)):
            if byte < 252 and len(dice) < 2:
                dice.append(byte % 6 + 1)
        ctr += 1
    return dice[0], dice[1]


def test_file_describes_itself():
    assert VECTORS["scheme"] == "fairgammon/v1"
    assert VECTORS["domains"] == {
        "chain": "fairgammon/v1/chain",
        "roll": "fairgammon/v1/roll",
        "dice": "fairgammon/v1/dice",
    }
    for key in (
        "chain_steps",
        "chains",
        "rolls",
        "blocks",
        "sampler",
        "rolloff",
        "recommitment",
        "commitment_checks",
        "transcripts",
        "variant_transcripts",
    ):
        assert len(VECTORS[key]["description"]) > 40, key


@pytest.mark.parametrize("case", VECTORS["chain_steps"]["cases"], ids=lambda c: str(c["i"]))
def test_chain_steps(case):
    match_id, link = h(case["match_id"]), h(case["link"])
    message = (
        b"fairgammon/v1/chain"
        + match_id
        + u32(case["game_no"])
        + bytes([case["seat"]])
        + u32(case["i"])
        + link
    )
    assert len(message) == 76
    assert message.hex() == case["message"]
    assert sha(message).hex() == case["previous"]
    game = GameId(match_id, case["game_no"])
    assert chain_message(game, case["seat"], case["i"], link) == message
    assert chain_step(game, case["seat"], case["i"], link).hex() == case["previous"]
    assert link_ok(game, case["seat"], case["i"], link, h(case["previous"]))


@pytest.mark.parametrize("case", VECTORS["chains"]["cases"], ids=lambda c: c["note"][:30])
def test_chains(case):
    secret, match_id = h(case["secret"]), h(case["match_id"])
    game = GameId(match_id, case["game_no"])
    plain = plain_chain(secret, match_id, case["game_no"], case["seat"], case["length"])
    for stride in (1, 7, 32):
        chain = HashChain(secret, game, case["seat"], case["length"], stride=stride)
        for entry in case["links"]:
            assert chain.link(entry["i"]).hex() == entry["link"]
    for entry in case["links"]:
        assert plain[entry["i"]].hex() == entry["link"]
    assert plain[case["length"]] == secret
    assert HashChain(secret, game, case["seat"], case["length"]).commitment == plain[0]


def test_chains_differ_by_game_seat_and_length():
    commitments = [c["links"][0]["link"] for c in VECTORS["chains"]["cases"]]
    assert len(set(commitments)) == len(commitments)


@pytest.mark.parametrize("case", VECTORS["rolls"]["cases"], ids=lambda c: f"k{c['k']}")
def test_rolls(case):
    match_id, r0, r1 = h(case["match_id"]), h(case["reveal0"]), h(case["reveal1"])
    message = b"fairgammon/v1/roll" + match_id + u32(case["game_no"]) + u32(case["k"]) + r0 + r1
    assert len(message) == 106
    assert message.hex() == case["message"]
    seed = sha(message)
    assert seed.hex() == case["seed"]
    game = GameId(match_id, case["game_no"])
    assert roll_message(game, case["k"], r0, r1) == message
    assert roll_seed(game, case["k"], r0, r1) == seed
    for ctr, block in enumerate(case["blocks"]):
        assert sha(b"fairgammon/v1/dice" + seed + u32(ctr)).hex() == block
        assert dice_block(seed, ctr).hex() == block
    # rejected and taken bytes really are where the vector says, in reading order
    blocks = [h(b) for b in case["blocks"]]
    for entry in case["rejected"]:
        assert blocks[entry["ctr"]][entry["index"]] == entry["byte"] >= 252
    for entry in case["taken"]:
        assert blocks[entry["ctr"]][entry["index"]] == entry["byte"] < 252
    positions = [(e["ctr"], e["index"]) for e in case["rejected"] + case["taken"]]
    assert sorted(positions) == [(0, i) for i in range(len(positions))]  # a prefix of block 0
    assert [e["byte"] % 6 + 1 for e in case["taken"]] == [case["d1"], case["d2"]]
    assert plain_dice(seed) == (case["d1"], case["d2"])
    trace = trace_dice(seed)
    assert (trace.d1, trace.d2) == (case["d1"], case["d2"])
    assert [b.hex() for b in trace.blocks] == case["blocks"]


def test_rolls_include_rejected_bytes_in_the_first_positions():
    cases = VECTORS["rolls"]["cases"]
    leading = [sum(1 for e in c["rejected"] if e["index"] < c["taken"][0]["index"]) for c in cases]
    assert 1 in leading and 2 in leading and max(leading) >= 3
    assert any(c["rejected"] and c["taken"][0]["index"] > 0 for c in cases)


@pytest.mark.parametrize("case", VECTORS["blocks"]["cases"], ids=lambda c: f"ctr{c['ctr']}")
def test_blocks(case):
    seed = h(case["seed"])
    assert sha(b"fairgammon/v1/dice" + seed + u32(case["ctr"])).hex() == case["block"]
    assert dice_block(seed, case["ctr"]).hex() == case["block"]


@pytest.mark.parametrize("case", VECTORS["sampler"]["cases"], ids=lambda c: c["note"][:30])
def test_sampler(case):
    blocks = [h(b) for b in case["blocks"]]
    assert sample_dice(blocks) == (case["d1"], case["d2"])
    dice = [b % 6 + 1 for block in blocks for b in block if b < 252][:2]
    assert dice == [case["d1"], case["d2"]]


def test_sampler_covers_later_blocks():
    cases = VECTORS["sampler"]["cases"]
    assert any(len(c["blocks"]) >= 2 for c in cases)
    assert any(len(c["blocks"]) >= 3 for c in cases)


def test_rolloff_with_ties():
    v = VECTORS["rolloff"]
    game = GameId(h(v["match_id"]), v["game_no"])
    c0 = HashChain(h(v["secret0"]), game, 0, v["length"])
    c1 = HashChain(h(v["secret1"]), game, 1, v["length"])
    assert (c0.commitment.hex(), c1.commitment.hex()) == (v["commitment0"], v["commitment1"])
    rolls = v["rolls"]
    assert [r["k"] for r in rolls] == list(range(1, len(rolls) + 1))
    assert sum(r["tie"] for r in rolls) >= 2
    for roll in rolls:
        k = roll["k"]
        assert (c0.link(k).hex(), c1.link(k).hex()) == (roll["reveal0"], roll["reveal1"])
        seed = roll_seed(game, k, c0.link(k), c1.link(k))
        assert plain_dice(seed) == (roll["d1"], roll["d2"])
        assert roll["tie"] == (roll["d1"] == roll["d2"])
        assert roll["tie"] == (rolloff_winner(roll["d1"], roll["d2"]) is None)
    assert all(r["tie"] for r in rolls[:-1]) and not rolls[-1]["tie"]
    last = rolls[-1]
    winner = 0 if last["d1"] > last["d2"] else 1
    assert v["winner"] == winner
    assert v["first_play"] == {"k": last["k"], "seat": winner, "d1": last["d1"], "d2": last["d2"]}
    assert v["next_roll"] == {"k": last["k"] + 1, "roller": 1 - winner}


def test_recommitment_indexing():
    v = VECTORS["recommitment"]
    match_id = h(v["match_id"])
    game = GameId(match_id, v["game_no"])
    seat, k0 = v["seat"], v["applies_from"]
    old = plain_chain(h(v["old_secret"]), match_id, v["game_no"], seat, v["length"])
    new = plain_chain(h(v["new_secret"]), match_id, v["game_no"], seat, v["length"])
    other = plain_chain(h(v["seat0_secret"]), match_id, v["game_no"], 0, v["length"])
    assert old[0].hex() == v["old_commitment"]
    assert other[0].hex() == v["seat0_commitment"]
    assert new[k0 - 1].hex() == v["recommitment"]
    head = old[0]
    for roll in v["rolls"]:
        k = roll["k"]
        if k == k0:
            head = h(v["recommitment"])  # the re-commitment replaces the previous link
        reveal = h(roll["reveal1"])
        assert reveal == (old[k] if k < k0 else new[k])
        assert roll["chain1"] == ("old" if k < k0 else "new")
        assert link_ok(game, seat, k, reveal, head)
        assert (
            sha(
                b"fairgammon/v1/chain"
                + match_id
                + u32(v["game_no"])
                + bytes([seat])
                + u32(k)
                + reveal
            )
            == head
        )
        if k == k0:
            assert not link_ok(game, seat, k, reveal, old[k - 1])  # the old chain no longer fits
        head = reveal
        assert h(roll["reveal0"]) == other[k]
        seed = roll_seed(game, k, other[k], reveal)
        assert plain_dice(seed) == (roll["d1"], roll["d2"])


@pytest.mark.parametrize(
    "case", VECTORS["commitment_checks"]["cases"], ids=lambda c: f"{c['kind']}-{c['note'][:25]}"
)
def test_commitment_checks(case):
    value = h(case["value"])
    try:
        if case["kind"] == "commit":
            check_commitment(
                value,
                existing=h(case["existing"]) if case["existing"] else None,
                other=h(case["other"]) if case["other"] else None,
            )
        else:
            check_recommitment(
                value,
                committed=case["committed"],
                recommitments_so_far=case["recommitments_so_far"],
                other_head=h(case["other_head"]),
                roll_in_progress=case["roll_in_progress"],
            )
        outcome = "ok"
    except CommitmentRejected as exc:
        outcome = exc.code
    assert outcome == case["expected"]


def test_commitment_checks_cover_every_code():
    codes = {c["expected"] for c in VECTORS["commitment_checks"]["cases"]}
    assert codes == {
        "ok",
        "wrong_length",
        "all_zero",
        "same_as_opponent",
        "already_committed",
        "not_committed",
        "too_many_recommitments",
        "roll_in_progress",
    }


@pytest.mark.parametrize(
    "case",
    VECTORS["transcripts"]["valid"] + VECTORS["variant_transcripts"]["valid"],
    ids=lambda c: c["note"][:30],
)
def test_valid_transcripts(case):
    verdict = verify_json(case["transcript"])
    assert verdict.rolls == case["rolls"] == len(case["transcript"]["rolls"])
    assert verdict.rolloff_rolls == case["rolloff_rolls"]
    assert verdict.first_mover == case["first_mover"]
    assert verdict.plays_replayed == case["plays"]
    # and the dice re-derive with plain hashlib
    t = case["transcript"]
    for roll in t["rolls"]:
        message = (
            b"fairgammon/v1/roll"
            + h(t["match_id"])
            + u32(t["game_no"])
            + u32(roll["k"])
            + h(roll["reveals"][0])
            + h(roll["reveals"][1])
        )
        assert plain_dice(sha(message)) == (roll["d1"], roll["d2"])


def test_valid_transcripts_cover_the_interesting_cases():
    valid = VECTORS["transcripts"]["valid"]
    first = valid[0]["transcript"]
    assert first["rolls"][0]["d1"] == first["rolls"][0]["d2"]  # a roll-off tie
    assert first["recommitments"]
    assert any(v["transcript"]["result"]["evidence"] for v in valid)
    # The Jacoby rule: an uncubed gammon and backgammon count as a single, and the same gammon
    # without the rule scores 2; claiming otherwise is refused by the replay.
    jacoby = [v["transcript"] for v in valid if v["transcript"].get("jacoby")]
    assert [t["result"]["multiplier"] for t in jacoby] == [1, 1]
    assert all(t["result"]["reason"] == "bear_off" and t["result"]["cube"] == 1 for t in jacoby)
    plain = [v["transcript"] for v in valid if "jacoby" not in v["transcript"]]
    same = [t for t in plain if t["match_id"] == jacoby[0]["match_id"]]
    assert [t["result"]["multiplier"] for t in same] == [2]
    invalid = VECTORS["transcripts"]["invalid"]
    refused = [c for c in invalid if valid[c["base"]]["transcript"] in jacoby]
    assert {c["problem"] for c in refused} == {"result", "schema"}


def apply_patch(obj, patch):
    obj = copy.deepcopy(obj)
    for op in patch:
        assert op["op"] == "replace"
        *parents, last = op["path"].split("/")[1:]
        target = obj
        for part in parents:
            target = target[int(part)] if isinstance(target, list) else target[part]
        if isinstance(target, list):
            target[int(last)] = op["value"]
        else:
            assert last in target
            target[last] = op["value"]
    return obj


INVALID = [("transcripts", c) for c in VECTORS["transcripts"]["invalid"]] + [
    ("variant_transcripts", c) for c in VECTORS["variant_transcripts"]["invalid"]
]


@pytest.mark.parametrize(("section", "case"), INVALID, ids=lambda x: str(x)[:40])
def test_invalid_transcripts(section, case):
    base = VECTORS[section]["valid"][case["base"]]["transcript"]
    broken = apply_patch(base, case["patch"])
    with pytest.raises(TranscriptError) as info:
        verify_json(broken)
    assert (info.value.code, info.value.k, info.value.seat) == (
        case["problem"],
        case["k"],
        case["seat"],
    )
    assert str(info.value) == case["message"]
    if not case["needs_replay"]:
        with pytest.raises(TranscriptError):
            verify_json(broken, replay=False)
    else:
        assert verify_json(broken, replay=False).plays_replayed is None


def test_the_variant_transcripts_cover_each_opening_and_ending():
    valid = [c["transcript"] for c in VECTORS["variant_transcripts"]["valid"]]
    assert {t["variant"] for t in valid} == {
        "nackgammon", "hypergammon", "portes", "plakoto", "fevga"
    }
    assert {t["result"]["reason"] for t in valid} >= {"bear_off", "mother", "mothers", "resign"}
    opened = [t for t in valid if "opener" in t]
    assert opened and all(t["rolls"][0]["kind"] == "turn" for t in opened)
    greek = [
        t for t in valid if t["variant"] in ("portes", "plakoto", "fevga") and "opener" not in t
    ]
    for t in greek:  # the deciding roll-off roll is played by nobody: the winner rolls again
        decided = next(r for r in t["rolls"] if r["kind"] == "rolloff" and r["d1"] != r["d2"])
        after = t["rolls"][decided["k"]]
        assert after["roller"] == (0 if decided["d1"] > decided["d2"] else 1)
        assert not any(a["type"] == "move" and a["k"] == decided["k"] for a in t["actions"])


def test_invalid_transcripts_cover_every_kind_of_fault():
    problems = {c["problem"] for c in VECTORS["transcripts"]["invalid"]}
    assert {"link", "dice", "sequence", "rolloff", "schema", "order", "action", "play"} <= problems


def test_the_docs_quote_the_vectors_exactly():
    # Every full-length hex value in docs/fairness.md's worked examples comes from the vectors.
    docs = (Path(__file__).parents[2] / "docs" / "fairness.md").read_text(encoding="utf-8")
    quoted = set(re.findall(r"\b[0-9a-f]{64}\b", docs))
    assert len(quoted) >= 8
    text = json.dumps(VECTORS)
    for value in quoted:
        assert value in text, value
