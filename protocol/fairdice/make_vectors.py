"""Generate ``vectors/fairdice-v1.json``, the shared test vectors of scheme v1.

Deterministic: every input is a constant or the SHA-256 of a fixed label, and the searches walk
counters from 0, so running it again reproduces the file byte for byte::

    python -m protocol.fairdice.make_vectors            # rewrite the file
    python -m protocol.fairdice.make_vectors --check    # exit 1 if the file is stale

The Python tests (``tests/unit/test_fairdice_vectors.py``) and the browser client's tests load the
file
and check every entry on their own; they never call this script.
"""

from __future__ import annotations

import argparse
import copy
import hashlib
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from protocol.fairdice.chain import HashChain, chain_message, chain_step
from protocol.fairdice.commitments import (
    MAX_RECOMMITMENTS,
    CommitmentRejected,
    check_commitment,
    check_recommitment,
)
from protocol.fairdice.dice import DiceTrace, dice_block, roll_message, roll_seed, trace_dice
from protocol.fairdice.encoding import (
    ACCEPT_BELOW,
    DOMAIN_CHAIN,
    DOMAIN_DICE,
    DOMAIN_ROLL,
    SCHEME,
    U32_MAX,
    GameId,
)
from protocol.fairdice.errors import TranscriptError
from protocol.fairdice.rolloff import rolloff_winner
from protocol.fairdice.simulate import simulate_game
from protocol.fairdice.verify import verify_json

PATH = Path(__file__).with_name("vectors") / "fairdice-v1.json"
JACOBY_GAMMON_SEED, JACOBY_BACKGAMMON_SEED = 3, 139  # short simulated games that end so
LINK_INDEXES = (0, 1, 2, 511, 1023, 1024)
SEARCH_TRIES = 1 << 21


def label(text: str) -> bytes:
    """A 32-byte value derived from a label, so inputs are reproducible and look random."""
    return hashlib.sha256(b"fairgammon/vectors/" + text.encode()).digest()


MATCH_A = bytes.fromhex("00112233445566778899aabbccddeeff")
MATCH_B = label("match B")[:16]


def trace_obj(trace: DiceTrace) -> dict[str, Any]:
    return {
        "seed": trace.seed.hex(),
        "blocks": [b.hex() for b in trace.blocks],
        "rejected": [{"ctr": c, "index": i, "byte": b} for c, i, b in trace.rejected],
        "taken": [{"ctr": c, "index": i, "byte": b} for c, i, b in trace.taken],
        "d1": trace.d1,
        "d2": trace.d2,
    }


def roll_case(game: GameId, k: int, r0: bytes, r1: bytes, note: str = "") -> dict[str, Any]:
    case: dict[str, Any] = {"note": note} if note else {}
    case |= {
        "match_id": game.match_id.hex(),
        "game_no": game.game_no,
        "k": k,
        "reveal0": r0.hex(),
        "reveal1": r1.hex(),
        "message": roll_message(game, k, r0, r1).hex(),
    }
    return case | trace_obj(trace_dice(roll_seed(game, k, r0, r1)))


def chain_steps() -> dict[str, Any]:
    cases = []
    for game, seat, i, link in (
        (GameId(MATCH_A, 1), 0, 1, label("step 1")),
        (GameId(MATCH_A, 0), 1, 1024, label("step 2")),
        (GameId(MATCH_B, U32_MAX), 1, 7, label("step 3")),
    ):
        cases.append(
            {
                "match_id": game.match_id.hex(),
                "game_no": game.game_no,
                "seat": seat,
                "i": i,
                "link": link.hex(),
                "message": chain_message(game, seat, i, link).hex(),
                "previous": chain_step(game, seat, i, link).hex(),
            }
        )
    return {
        "description": "Single chain steps s[i-1] = SHA-256(message), message = "
        "'fairgammon/v1/chain' (19 ASCII bytes) || match_id (16) || u32be(game_no) (4) || "
        "seat (1) || u32be(i) (4) || link (32) = 76 bytes; link is s[i], previous is s[i-1].",
        "cases": cases,
    }


def chains() -> dict[str, Any]:
    specs = [
        ("seat 0 of match A, game 1", label("secret A0"), GameId(MATCH_A, 1), 0, 1024),
        ("seat 1 of match A, game 1", label("secret A1"), GameId(MATCH_A, 1), 1, 1024),
        (
            "the same secret as the first case in game 2",
            label("secret A0"),
            GameId(MATCH_A, 2),
            0,
            1024,
        ),
        (
            "the same secret as the first case for seat 1",
            label("secret A0"),
            GameId(MATCH_A, 1),
            1,
            1024,
        ),
        ("match B, game 0, all-0xff secret", b"\xff" * 32, GameId(MATCH_B, 0), 1, 1024),
    ]
    cases = []
    for note, secret, game, seat, length in specs:
        chain = HashChain(secret, game, seat, length)
        cases.append(
            {
                "note": note,
                "secret": secret.hex(),
                "match_id": game.match_id.hex(),
                "game_no": game.game_no,
                "seat": seat,
                "length": length,
                "links": [{"i": i, "link": chain.link(i).hex()} for i in LINK_INDEXES],
            }
        )
    short = HashChain(label("secret A0"), GameId(MATCH_A, 1), 0, 3)
    cases.append(
        {
            "note": "a chain of length 3 from the first case's secret: every link differs from "
            "the length-1024 chain, because s[N] is the secret and indexes count from the top",
            "secret": label("secret A0").hex(),
            "match_id": MATCH_A.hex(),
            "game_no": 1,
            "seat": 0,
            "length": 3,
            "links": [{"i": i, "link": short.link(i).hex()} for i in range(4)],
        }
    )
    return {
        "description": "Chains built from a secret s[N] (N = length) by s[i-1] = H(chain message "
        "with index i and s[i]) for i = N .. 1. links[].link is s[i]; s[0] is the commitment and "
        "s[N] the secret itself.",
        "cases": cases,
    }


def _search_rejections() -> list[dict[str, Any]]:
    """Walk reveal1 = label('search <n>') for n = 0, 1, ... with match A, game 1, roll 1 and
    reveal0 = label('search reveal0'); keep the first seed whose block 0 starts with a rejected
    byte, the first starting with two, and the seed whose second die comes from the latest
    position in block 0."""
    game = GameId(MATCH_A, 1)
    r0 = label("search reveal0")
    sha = hashlib.sha256
    roll_prefix = DOMAIN_ROLL + game.fields() + (1).to_bytes(4, "big") + r0
    label_prefix = b"fairgammon/vectors/search "
    ctr0 = (0).to_bytes(4, "big")
    first_one = first_two = None
    best_n, best_pos = -1, -1
    for n in range(SEARCH_TRIES):
        r1 = sha(label_prefix + str(n).encode()).digest()
        block = sha(DOMAIN_DICE + sha(roll_prefix + r1).digest() + ctr0).digest()
        if block[0] < ACCEPT_BELOW and block[1] < ACCEPT_BELOW:
            continue  # the common case: nothing rejected before the second die
        if first_one is None and block[0] >= ACCEPT_BELOW:
            first_one = n
        if first_two is None and block[0] >= ACCEPT_BELOW and block[1] >= ACCEPT_BELOW:
            first_two = n
        accepted = [i for i, b in enumerate(block) if b < ACCEPT_BELOW]
        if accepted[1] > best_pos:
            best_n, best_pos = n, accepted[1]
    found = [
        (first_one, "the first search input whose block 0 starts with a rejected byte"),
        (first_two, "the first search input whose block 0 starts with two rejected bytes"),
        (
            best_n,
            f"of {SEARCH_TRIES} search inputs, the one whose second die comes latest "
            f"(block 0 byte {best_pos}): the closest to needing block 1",
        ),
    ]
    cases = []
    for n, note in found:
        assert n is not None
        r1 = label(f"search {n}")
        cases.append(roll_case(game, 1, r0, r1, f"{note} (reveal1 = label 'search {n}')"))
    return cases


def rolls() -> dict[str, Any]:
    game = GameId(MATCH_A, 1)
    a0 = HashChain(label("secret A0"), game, 0)
    a1 = HashChain(label("secret A1"), game, 1)
    cases = [
        roll_case(game, k, a0.link(k), a1.link(k), "links k of the first two chains cases")
        for k in range(1, 41)
    ]
    cases += _search_rejections()
    cases.append(roll_case(GameId(MATCH_B, U32_MAX), U32_MAX, b"\xff" * 32, bytes(32), "extremes"))
    cases.append(
        roll_case(
            game, 5, a1.link(5), a0.link(5), "the reveals of k = 5 swapped: seat order matters"
        )
    )
    return {
        "description": "Roll derivation. message = 'fairgammon/v1/roll' (18 bytes) || "
        "match_id (16) || u32be(game_no) || u32be(k) || reveal0 (seat 0's s[k], 32) || "
        "reveal1 (seat 1's, 32) = 106 bytes; seed = SHA-256(message); "
        "blocks[ctr] = SHA-256('fairgammon/v1/dice' (18) || "
        "seed || u32be(ctr)) for ctr = 0, 1, ... (blocks lists those read). Bytes are read in "
        "order; rejected lists the bytes >= 252 skipped before the second die, taken the two "
        "accepted bytes; die = byte % 6 + 1; d1 comes from the first taken byte. A second block "
        "(ctr = 1) is needed only when at most one of block 0's 32 bytes is below 252: "
        "probability 2017 / 2^192, about 2^-181, so no real input reaches it; see 'blocks' and "
        "'sampler' for ctr >= 1.",
        "cases": cases,
    }


def blocks() -> dict[str, Any]:
    seed = roll_seed(GameId(MATCH_A, 1), 1, label("secret A0"), label("secret A1"))
    return {
        "description": "Dice blocks SHA-256('fairgammon/v1/dice' || seed || u32be(ctr)) for "
        "several ctr, including ctr >= 1 which real rolls practically never read.",
        "cases": [
            {"seed": seed.hex(), "ctr": ctr, "block": dice_block(seed, ctr).hex()}
            for ctr in (0, 1, 2, 255, 256, U32_MAX)
        ],
    }


def sampler() -> dict[str, Any]:
    def blk(*head: int, fill: int = 255) -> bytes:
        return bytes(head) + bytes([fill] * (32 - len(head)))

    specs = [
        ("every byte accepted: the first two decide", [blk(0, 5, fill=1)], (1, 6)),
        ("byte -> die: 6 -> 1, 11 -> 6", [blk(6, 11)], (1, 6)),
        (
            "251 is the largest accepted byte (251 % 6 + 1 = 6); 252 .. 255 are skipped",
            [blk(252, 253, 254, 255, 251, 246)],
            (6, 1),
        ),
        (
            "block 0 gives d1 from its last byte, block 1 gives d2",
            [bytes([255] * 31 + [3]), blk(4)],
            (4, 5),
        ),
        ("block 0 entirely rejected: both dice from block 1", [blk(), blk(17, 200)], (6, 3)),
        ("two rejected blocks, then dice from block 2", [blk(), blk(), blk(100, 101)], (5, 6)),
        ("identical bytes give a double", [blk(42, 42)], (1, 1)),
    ]
    return {
        "description": "The rejection sampler alone, on given block sequences (not hashes): read "
        "the blocks' bytes in order, skip bytes >= 252, die = byte % 6 + 1, stop after two dice.",
        "cases": [
            {"note": note, "blocks": [b.hex() for b in bs], "d1": d[0], "d2": d[1]}
            for note, bs, d in specs
        ],
    }


def rolloff() -> dict[str, Any]:
    """Search match ids label('rolloff <n>')[:16] until rolls 1 and 2 are both ties."""
    n = 0
    while True:
        game = GameId(label(f"rolloff {n}")[:16], 1)
        c0 = HashChain(label("rolloff secret 0"), game, 0)
        c1 = HashChain(label("rolloff secret 1"), game, 1)
        found = []
        k = 1
        while True:
            t = trace_dice(roll_seed(game, k, c0.link(k), c1.link(k)))
            found.append((k, c0.link(k), c1.link(k), t.d1, t.d2))
            if t.d1 != t.d2:
                break
            k += 1
        if len(found) >= 3:
            break
        n += 1
    k_last, _, _, d1, d2 = found[-1]
    winner = rolloff_winner(d1, d2)
    assert winner is not None
    return {
        "description": "An opening roll-off with ties. Each roll-off roll uses the ordinary "
        "derivation; d1 is seat 0's die and d2 seat 1's; equal dice repeat with the next k; the "
        "higher die wins and that seat plays the deciding roll (both numbers) as the first "
        "turn; the next roll (k + 1) is a turn roll of the other seat.",
        "match_id": game.match_id.hex(),
        "game_no": game.game_no,
        "secret0": label("rolloff secret 0").hex(),
        "secret1": label("rolloff secret 1").hex(),
        "length": 1024,
        "commitment0": c0.commitment.hex(),
        "commitment1": c1.commitment.hex(),
        "rolls": [
            {"k": k, "reveal0": r0.hex(), "reveal1": r1.hex(), "d1": a, "d2": b, "tie": a == b}
            for k, r0, r1, a, b in found
        ],
        "winner": winner,
        "first_play": {"k": k_last, "seat": winner, "d1": d1, "d2": d2},
        "next_roll": {"k": k_last + 1, "roller": 1 - winner},
    }


def recommitment() -> dict[str, Any]:
    game = GameId(MATCH_A, 7)
    old = HashChain(label("recommit old secret"), game, 1)
    new = HashChain(label("recommit new secret"), game, 1)
    other = HashChain(label("recommit seat 0 secret"), game, 0)
    k0 = 4
    rolls_ = []
    for k in range(1, 7):
        r0, r1 = other.link(k), (old.link(k) if k < k0 else new.link(k))
        t = trace_dice(roll_seed(game, k, r0, r1))
        chain1 = "old" if k < k0 else "new"
        rolls_.append(
            {
                "k": k,
                "reveal0": r0.hex(),
                "reveal1": r1.hex(),
                "chain1": chain1,
                "d1": t.d1,
                "d2": t.d2,
            }
        )
    return {
        "description": "Re-commitment indexing. Seat 1 lost its secret after roll 3 and "
        "re-commits before roll k0 = 4 with a fresh chain s' (new secret, same formula, same "
        "length 1024). The re-commitment value is s'[k0 - 1] = s'[3]; from roll k0 on the seat "
        "reveals s'[k] for roll k, which must hash, with index k as always, to its previous link: "
        "s'[4] to the re-commitment, s'[5] to s'[4], ... The index in every hash stays the roll "
        "index; a verifier only replaces the seat's previous link with the re-commitment.",
        "match_id": game.match_id.hex(),
        "game_no": game.game_no,
        "seat": 1,
        "applies_from": k0,
        "old_secret": label("recommit old secret").hex(),
        "old_commitment": old.commitment.hex(),
        "new_secret": label("recommit new secret").hex(),
        "recommitment": new.link(k0 - 1).hex(),
        "seat0_secret": label("recommit seat 0 secret").hex(),
        "seat0_commitment": other.commitment.hex(),
        "length": 1024,
        "rolls": rolls_,
    }


def commitment_checks() -> dict[str, Any]:
    good = label("commitment good")
    other = label("commitment other")
    commits = [
        ("a fresh 32-byte value", good, None, other),
        ("31 bytes", good[:31], None, other),
        ("33 bytes", good + b"\x01", None, other),
        ("all zero", bytes(32), None, other),
        ("equal to the other seat's commitment", other, None, other),
        ("a second commitment (even the same value)", good, good, other),
        ("before the other seat committed", good, None, None),
    ]
    cases = []
    for note, value, existing, other_value in commits:
        try:
            check_commitment(value, existing=existing, other=other_value)
            outcome = "ok"
        except CommitmentRejected as exc:
            outcome = exc.code
        cases.append(
            {
                "note": note,
                "kind": "commit",
                "value": value.hex(),
                "existing": existing.hex() if existing else None,
                "other": other_value.hex() if other_value else None,
                "expected": outcome,
            }
        )
    recommits = [
        ("a fresh chain's link between rolls", good, True, 0, other, False),
        ("the third re-commitment", good, True, MAX_RECOMMITMENTS - 1, other, False),
        ("a fourth re-commitment", good, True, MAX_RECOMMITMENTS, other, False),
        ("before the first commitment", good, False, 0, other, False),
        ("while a reveal of the next roll is held", good, True, 0, other, True),
        ("equal to the other seat's current link", other, True, 0, other, False),
        ("all zero", bytes(32), True, 0, other, False),
    ]
    for note, value, committed, so_far, other_head, in_progress in recommits:
        try:
            check_recommitment(
                value,
                committed=committed,
                recommitments_so_far=so_far,
                other_head=other_head,
                roll_in_progress=in_progress,
            )
            outcome = "ok"
        except CommitmentRejected as exc:
            outcome = exc.code
        cases.append(
            {
                "note": note,
                "kind": "recommit",
                "value": value.hex(),
                "committed": committed,
                "recommitments_so_far": so_far,
                "other_head": other_head.hex(),
                "roll_in_progress": in_progress,
                "expected": outcome,
            }
        )
    return {
        "description": "The commitment rules. kind 'commit': a seat's first commitment; existing "
        "is its earlier commitment (or null), other the other seat's (or null). kind 'recommit': "
        "committed says whether the seat made its first commitment, recommitments_so_far counts "
        f"its earlier re-commitments (at most {MAX_RECOMMITMENTS} per game), other_head is the "
        "other seat's current link, roll_in_progress whether a reveal of the next roll is already "
        "held. expected is 'ok' or the stable rejection code. Checks apply in this order: "
        "commit: already_committed, wrong_length, all_zero, same_as_opponent; recommit: "
        "not_committed, roll_in_progress, too_many_recommitments, wrong_length, all_zero, "
        "same_as_opponent.",
        "cases": cases,
    }


def _pointer_get(obj: Any, pointer: str) -> Any:
    for part in pointer.split("/")[1:]:
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    return obj



def _refused(mutations: Any, transcript: Callable[[int], Any]) -> list[dict[str, Any]]:
    """Each mutation ``(base, note, patch, needs_replay)`` applied to a copy of
    ``transcript(base)`` and verified: what the verifier refuses it with (a mutation that still
    verifies is a broken vector set: AssertionError)."""
    invalid = []
    for base, note, patch, replay_only in mutations:
        obj = copy.deepcopy(transcript(base))
        for pointer, value in patch:
            _pointer_set(obj, pointer, value)
        try:
            verify_json(obj)
        except TranscriptError as exc:
            invalid.append(
                {
                    "note": note,
                    "base": base,
                    "patch": [{"op": "replace", "path": p, "value": v} for p, v in patch],
                    "problem": exc.code,
                    "k": exc.k,
                    "seat": exc.seat,
                    "message": str(exc),
                    "needs_replay": replay_only,
                }
            )
            continue
        raise AssertionError(f"mutation {note!r} verified")
    return invalid

def _pointer_set(obj: Any, pointer: str, value: Any) -> None:
    *parents, last = pointer.split("/")[1:]
    for part in parents:
        obj = obj[int(part)] if isinstance(obj, list) else obj[part]
    if isinstance(obj, list):
        obj[int(last)] = value
    else:
        obj[last] = value


def _flip(hex_text: str, at: int = 10) -> str:
    digit = "0123456789abcdef"[(int(hex_text[at], 16) + 1) % 16]
    return hex_text[:at] + digit + hex_text[at + 1 :]


def transcripts() -> dict[str, Any]:
    # A short game whose roll-off starts with a tie, with a re-commitment, ended by resignation;
    # and a game forfeited for an invalid reveal (with the evidence).
    seed = next(
        s
        for s in range(1000)
        if (t := simulate_game(s, end="resign", turns=0)).rolls[0].d1 == t.rolls[0].d2
    )
    short = simulate_game(
        seed, end="resign", turns=5, recommit={5: 1}, names=("alice", None)
    ).to_obj()
    forfeit = simulate_game(seed + 1, end="invalid_reveal", turns=3).to_obj()
    deposited = simulate_game(seed + 2, end="resign", turns=6, deposit=True).to_obj()
    # Money games under the Jacoby rule (docs/fairness.md, section 10): a gammon and a
    # backgammon borne off with the cube never turned count as a single; the gammon's game
    # without the rule scores its multiplier 2.
    gammon = simulate_game(JACOBY_GAMMON_SEED, jacoby=True).to_obj()
    backgammon = simulate_game(JACOBY_BACKGAMMON_SEED, jacoby=True).to_obj()
    plain = simulate_game(JACOBY_GAMMON_SEED).to_obj()
    assert plain["result"]["multiplier"] == 2 and gammon["result"]["multiplier"] == 1
    assert simulate_game(JACOBY_BACKGAMMON_SEED).result.multiplier == 3
    valid = []
    for note, obj in (
        ("roll-off tie, re-commitment by seat 1 before roll 5, resignation", short),
        ("forfeit for an invalid reveal; result.evidence keeps the bad value", forfeit),
        (
            "correspondence: each roll's reveal of the roller's opponent deposited ahead, right"
            " after its play (reveal actions)",
            deposited,
        ),
        (
            "a money game under the Jacoby rule (jacoby: true), borne off as a gammon with the cube"
            " never turned: it counts as a single (multiplier 1)",
            gammon,
        ),
        ("the same for a backgammon under the Jacoby rule: multiplier 1", backgammon),
        (
            "the Jacoby gammon's game played without the rule (no jacoby field): multiplier 2",
            plain,
        ),
    ):
        verdict = verify_json(obj)
        valid.append(
            {
                "note": note,
                "transcript": obj,
                "rolls": verdict.rolls,
                "rolloff_rolls": verdict.rolloff_rolls,
                "first_mover": verdict.first_mover,
                "plays": verdict.plays_replayed,
            }
        )
    rolls_ = short["rolls"]
    rec = short["recommitments"][0]
    k0 = rec["applies_from"]
    first_move = next(i for i, a in enumerate(short["actions"]) if a["type"] == "move")
    roll_action = next(
        i for i, a in enumerate(short["actions"]) if a["type"] == "roll" and a["k"] == k0
    )
    d1 = rolls_[2]["d1"]
    first_move_k = short["actions"][first_move]["k"]
    ra = short["actions"][roll_action]
    fm = f"/actions/{first_move}"
    mutations: list[tuple[str, list[tuple[str, Any]], bool]] = [
        ("a recorded die changed", [("/rolls/2/d1", d1 % 6 + 1)], False),
        (
            "a hex digit of seat 1's reveal in roll 3",
            [("/rolls/2/reveals/1", _flip(rolls_[2]["reveals"][1]))],
            False,
        ),
        (
            "a hex digit of seat 0's reveal in roll 1",
            [("/rolls/0/reveals/0", _flip(rolls_[0]["reveals"][0]))],
            False,
        ),
        (
            "the reveals of roll 2 swapped",
            [("/rolls/1/reveals", [rolls_[1]["reveals"][1], rolls_[1]["reveals"][0]])],
            False,
        ),
        (
            "a hex digit of seat 0's commitment",
            [("/commitments/0/commitment", _flip(short["commitments"][0]["commitment"]))],
            False,
        ),
        (
            "a hex digit of the re-commitment",
            [("/recommitments/0/commitment", _flip(rec["commitment"]))],
            False,
        ),
        (
            "the re-commitment applies one roll later",
            [("/recommitments/0/applies_from", k0 + 1)],
            False,
        ),
        ("a hex digit of the match id", [("/match_id", _flip(short["match_id"], 0))], False),
        ("another game number", [("/game_no", short["game_no"] + 1)], False),
        ("roll indexes not consecutive", [("/rolls/2/k", 4)], False),
        (
            "a turn roll given to the wrong seat",
            [("/rolls/3/roller", 1 - rolls_[3]["roller"])],
            False,
        ),
        ("the tie of roll 1 marked as a turn", [("/rolls/0/kind", "turn")], False),
        ("uppercase hex", [("/rolls/0/reveals/0", rolls_[0]["reveals"][0].upper())], False),
        ("a die out of range", [("/rolls/0/d2", 7)], False),
        ("a boolean where an integer is expected", [("/game_no", True)], False),
        (
            "the first play made by the roll-off loser",
            [(f"{fm}/seat", 1 - short["actions"][first_move]["seat"])],
            False,
        ),
        ("two events with the same v", [(f"{fm}/v", rolls_[first_move_k - 1]["v"])], False),
        ("time going backwards", [("/rolls/1/t", short["rolls"][0]["t"] - 1)], False),
        (
            "the re-commitment made after the roller's ROLL for that roll (v and t exchanged)",
            [
                ("/recommitments/0/v", ra["v"]),
                ("/recommitments/0/t", ra["t"]),
                (f"/actions/{roll_action}/v", rec["v"]),
                (f"/actions/{roll_action}/t", rec["t"]),
            ],
            False,
        ),
        ("points that are not multiplier x cube", [("/result/points", 2)], False),
        ("an unsupported scheme", [("/scheme", "fairgammon/v2")], False),
        (
            "a play the rules do not allow (found by the engine replay)",
            [(f"{fm}/moves", [[24, 23], [24, 23]])],
            True,
        ),
    ]
    reveals = [i for i, a in enumerate(deposited["actions"]) if a["type"] == "reveal"]
    first_reveal = deposited["actions"][reveals[0]]
    deposit_mutations: list[tuple[str, list[tuple[str, Any]], bool]] = [
        (
            "a reveal deposited ahead by the seat that rolls that roll",
            [(f"/actions/{reveals[0]}/seat", 1 - first_reveal["seat"])],
            False,
        ),
        (
            "a second deposit of one seat for one roll",
            [(f"/actions/{reveals[2]}/k", deposited["actions"][reveals[0]]["k"])],
            False,
        ),
    ]
    jacoby_mutations: list[tuple[int, str, list[tuple[str, Any]], bool]] = [
        (
            3,
            "the Jacoby gammon claimed at its full multiplier 2",
            [("/result/multiplier", 2), ("/result/points", 2)],
            True,
        ),
        (
            3,
            "the Jacoby gammon with the cube turned (cube 2): the rule no longer applies, so"
            " multiplier 1 is refused",
            [("/result/cube", 2), ("/result/points", 2)],
            True,
        ),
        (
            4,
            "the Jacoby backgammon claimed as a gammon",
            [("/result/multiplier", 2), ("/result/points", 2)],
            True,
        ),
        (3, "jacoby false (a game without the rule leaves the field out)", [("/jacoby", False)],
         False),
        (
            5,
            "the gammon claimed as a single without the Jacoby rule",
            [("/result/multiplier", 1), ("/result/points", 1)],
            True,
        ),
    ]
    invalid = _refused(
        [
            *((0, *m) for m in mutations),
            *((2, *m) for m in deposit_mutations),
            *jacoby_mutations,
        ],
        lambda base: valid[base]["transcript"],
    )
    assert _pointer_get(short, "/scheme") == SCHEME
    return {
        "description": "Complete transcripts (format in docs/fairness.md). valid[]: transcripts "
        "that verify, with what a verifier should report (rolls, roll-off rolls, first mover, "
        "plays replayed); among them money games under the Jacoby rule (jacoby: true), where "
        "a gammon or backgammon borne off with the cube never turned counts as a single. "
        "invalid[]: copies of valid[base].transcript changed by patch (JSON "
        "Patch, RFC 6902, 'replace' operations only); each must fail verification with the problem "
        "code and, when not null, the roll k and seat of the first fault. message is the Python "
        "verifier's wording (informative). needs_replay marks faults only a verifier that replays "
        "the plays through the rules can find.",
        "valid": valid,
        "invalid": invalid,
    }


def _ended_by(variant: str, reason: str) -> dict[str, Any]:
    """The first simulated game of ``variant`` (seeds 0, 1, ...) played to an end by
    ``reason``, as a transcript object."""
    for seed in range(10_000):
        t = simulate_game(seed, variant=variant)
        if t.result.reason.value == reason:
            return t.to_obj()
    raise AssertionError(f"no {variant} game ends by {reason}")


def variant_transcripts() -> dict[str, Any]:
    """Transcripts of the variants (docs/fairness.md, sections 6 and 10): the field
    ``variant``, the Greek opening (the roll-off winner rolls again; ``opener``: no roll-off)
    and plakoto's endings, each with the faults a verifier must find."""
    cases = [
        (
            "nackgammon, resigned: backgammon's opening (the roll-off dice are the first play)",
            simulate_game(2, variant="nackgammon", end="resign", turns=6).to_obj(),
        ),
        ("hypergammon to the end (3 checkers a side)", _ended_by("hypergammon", "bear_off")),
        (
            "portes, resigned: the roll-off winner rolls again, nobody plays the deciding roll",
            simulate_game(3, variant="portes", end="resign", turns=6).to_obj(),
        ),
        ("plakoto won by pinning the mother (multiplier 2)", _ended_by("plakoto", "mother")),
        ("plakoto drawn: both mothers pinned (no winner)", _ended_by("plakoto", "mothers")),
        (
            "fevga opened by seat 1 without a roll-off (the last game's winner), resigned",
            simulate_game(4, variant="fevga", end="resign", turns=8, opener=1).to_obj(),
        ),
    ]
    valid = []
    for note, obj in cases:
        verdict = verify_json(obj)
        valid.append(
            {
                "note": note,
                "transcript": obj,
                "rolls": verdict.rolls,
                "rolloff_rolls": verdict.rolloff_rolls,
                "first_mover": verdict.first_mover,
                "plays": verdict.plays_replayed,
            }
        )
    portes = cases[2][1]
    decided = next(i for i, r in enumerate(portes["rolls"]) if r["d1"] != r["d2"])
    first_turn = portes["rolls"][decided + 1]
    mutations: list[tuple[int, str, list[tuple[str, Any]], bool]] = [
        (0, "another variant's name than the one played", [("/variant", "hypergammon")], True),
        (0, "a name that is no variant", [("/variant", "chouette")], False),
        (
            2,
            "the first turn roll of a Greek game given to the roll-off loser",
            [(f"/rolls/{decided + 1}/roller", 1 - first_turn["roller"])],
            False,
        ),
        (2, "a Greek game read as backgammon (its roll order)", [("/variant", "nackgammon")],
         False),
        (3, "a mother win claimed as a bear-off", [("/result/reason", "bear_off")], True),
        (4, "a draw given a winner", [("/result/winner", 0)], False),
        (4, "the draw claimed in portes", [("/variant", "portes")], False),
        (2, "a cube in portes, which has none", [("/result/cube", 2), ("/result/points", 2)],
         False),
        (5, "the opener changed", [("/opener", 0)], False),
    ]
    invalid = _refused(mutations, lambda base: valid[base]["transcript"])
    return {
        "description": "Transcripts of the variants (docs/fairness.md, sections 6 and 10; "
        "docs/protocol.md, 'Variants'), as transcripts[] above: valid[] verify (the field "
        "variant names the rules, opener a Greek game opened without a roll-off); invalid[] "
        "are copies of valid[base].transcript changed by patch that must fail with the problem "
        "code, roll k and seat given.",
        "valid": valid,
        "invalid": invalid,
    }


def build() -> dict[str, Any]:
    return {
        "name": "fairgammon fair-dice test vectors",
        "scheme": SCHEME,
        "version": 1,
        "description": "Shared test vectors of the fairgammon fair-dice scheme v1 (see "
        "docs/fairness.md). H is SHA-256; binary values are lowercase hex; u32be(n) is n as 4 "
        "big-endian bytes; seat is one byte (0 or 1); match_id is 16 bytes; all links, secrets, "
        "reveals, seeds and blocks are 32 bytes. Every section has its own description.",
        "generator": "protocol/fairdice/make_vectors.py (deterministic)",
        "domains": {
            "chain": DOMAIN_CHAIN.decode(),
            "roll": DOMAIN_ROLL.decode(),
            "dice": DOMAIN_DICE.decode(),
        },
        "accept_below": ACCEPT_BELOW,
        "max_recommitments": MAX_RECOMMITMENTS,
        "chain_steps": chain_steps(),
        "chains": chains(),
        "rolls": rolls(),
        "blocks": blocks(),
        "sampler": sampler(),
        "rolloff": rolloff(),
        "recommitment": recommitment(),
        "commitment_checks": commitment_checks(),
        "transcripts": transcripts(),
        "variant_transcripts": variant_transcripts(),
    }


def render(obj: Any) -> str:
    """JSON with 1-space indentation, but any value that fits on one line of 100 columns kept
    on one line (readable, and stable across runs)."""

    def go(value: Any, indent: int) -> str:
        flat = json.dumps(value, ensure_ascii=False)
        if len(flat) + indent <= 100 or not isinstance(value, dict | list) or not value:
            return flat
        pad = " " * (indent + 1)
        if isinstance(value, dict):
            items = [f"{pad}{json.dumps(k)}: {go(v, indent + 1)}" for k, v in value.items()]
            return "{\n" + ",\n".join(items) + "\n" + " " * indent + "}"
        items = [pad + go(v, indent + 1) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + " " * indent + "]"

    return go(obj, 0) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="compare instead of writing")
    args = parser.parse_args(argv)
    text = render(build())
    if args.check:
        current = PATH.read_text(encoding="utf-8") if PATH.exists() else ""
        if current != text:
            print(f"{PATH.name} is stale: run python -m protocol.fairdice.make_vectors")
            return 1
        print(f"{PATH.name} is up to date")
        return 0
    PATH.write_text(text, encoding="utf-8")
    print(f"wrote {PATH} ({len(text)} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
