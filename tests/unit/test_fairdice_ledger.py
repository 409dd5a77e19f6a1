"""The commitment rules and the server-side DiceLedger."""

import hashlib

import pytest

from protocol.fairdice import (
    CommitmentCode,
    CommitmentRejected,
    DiceLedger,
    GameId,
    HashChain,
    InvalidReveal,
    Result,
    ResultReason,
    RevealRejected,
    RollKind,
    check_commitment,
    derive_dice,
    link_ok,
    verify_transcript,
)

GAME = GameId(hashlib.sha256(b"ledger match").digest()[:16], 2)


def chain(name: str, seat: int) -> HashChain:
    return HashChain(hashlib.sha256(name.encode()).digest(), GAME, seat, length=64)


def committed(c0: HashChain, c1: HashChain) -> DiceLedger:
    return DiceLedger(GAME).commit(0, c0.commitment, v=1, t=10).commit(1, c1.commitment, v=2, t=20)


def test_commitment_rules():
    good = bytes(range(1, 33))
    assert check_commitment(good, existing=None, other=None) == good
    assert check_commitment(bytearray(good), existing=None, other=bytes(range(2, 34))) == good
    cases = [
        (good[:31], None, None, CommitmentCode.WRONG_LENGTH),
        ("not bytes", None, None, CommitmentCode.WRONG_LENGTH),
        (bytes(32), None, None, CommitmentCode.ALL_ZERO),
        (good, None, good, CommitmentCode.SAME_AS_OPPONENT),
        (good, good, None, CommitmentCode.ALREADY_COMMITTED),
    ]
    for value, existing, other, code in cases:
        with pytest.raises(CommitmentRejected) as info:
            check_commitment(value, existing=existing, other=other)
        assert info.value.reason is code and info.value.code == code.value


def test_a_whole_roll_off_and_turns():
    c0, c1 = chain("a", 0), chain("b", 1)
    ledger = committed(c0, c1)
    assert ledger.committed and ledger.next_k == 1 and ledger.next_roller is None
    v = 3
    while ledger.first_mover is None:
        k = ledger.next_k
        ledger = ledger.reveal(1, c1.link(k)).reveal(0, c0.link(k))  # arrival order is free
        ledger, roll = ledger.roll(v=v, t=v * 10)
        v += 1
        assert roll.kind is RollKind.ROLLOFF and roll.roller is None
        assert (roll.d1, roll.d2) == derive_dice(GAME, k, c0.link(k), c1.link(k))
    decided = ledger.rolls[-1]
    assert ledger.first_mover == (0 if decided.d1 > decided.d2 else 1)
    expected_roller = 1 - ledger.first_mover
    for _ in range(4):
        assert ledger.next_kind is RollKind.TURN
        assert ledger.next_roller == expected_roller
        k = ledger.next_k
        ledger = ledger.reveal(expected_roller, (c0, c1)[expected_roller].link(k))
        assert ledger.roll_in_progress and not ledger.both_revealed
        ledger = ledger.reveal(1 - expected_roller, (c0, c1)[1 - expected_roller].link(k))
        ledger, roll = ledger.roll(v=v, t=v * 10)
        v += 1
        assert roll.roller == expected_roller
        expected_roller = 1 - expected_roller
    result = Result(0, ResultReason.RESIGN, 1, 1, 1, v=v, t=v * 10)
    verdict = verify_transcript(ledger.transcript((), result), replay=False)
    assert verdict.rolls == len(ledger.rolls)


def test_second_commitment_and_early_reveals_are_refused():
    c0, c1 = chain("a", 0), chain("b", 1)
    one = DiceLedger(GAME).commit(0, c0.commitment, v=1, t=1)
    with pytest.raises(CommitmentRejected, match="already_committed"):
        one.commit(0, c0.commitment, v=2, t=2)
    with pytest.raises(CommitmentRejected, match="same_as_opponent"):
        one.commit(1, c0.commitment, v=2, t=2)
    with pytest.raises(RevealRejected) as info:
        one.reveal(0, c0.link(1))
    assert info.value.code == "not_committed"
    ledger = one.commit(1, c1.commitment, v=2, t=2)
    held = ledger.reveal(0, c0.link(1))
    with pytest.raises(RevealRejected) as info:
        held.reveal(0, c0.link(1))
    assert info.value.code == "already_revealed"
    with pytest.raises(RevealRejected) as info:
        held.roll(v=3, t=3)
    assert info.value.code == "not_revealed"
    with pytest.raises(RevealRejected) as info:
        ledger.reveal(1, b"\x01" * 31)
    assert info.value.code == "wrong_length"


def test_an_invalid_reveal_keeps_the_evidence_and_changes_nothing():
    c0, c1 = chain("a", 0), chain("b", 1)
    ledger = committed(c0, c1)
    for bad in (c1.link(2), c0.link(1), bytes(32), c1.link(1)[:-1] + b"\x00"):
        with pytest.raises(InvalidReveal) as info:
            ledger.reveal(1, bad)
        assert info.value.evidence.k == 1 and info.value.evidence.seat == 1
        assert info.value.evidence.reveal == bad
        assert info.value.code == "invalid_reveal"
    assert ledger.pending == (None, None)
    assert ledger.reveal(1, c1.link(1)).pending[1] == c1.link(1)  # the old ledger still works


def test_recommitment_replaces_the_chain_from_the_next_roll():
    c0, c1 = chain("a", 0), chain("b", 1)
    ledger = committed(c0, c1)
    for k in (1, 2):
        ledger = ledger.reveal(0, c0.link(k)).reveal(1, c1.link(k))
        ledger, _ = ledger.roll(v=10 + k, t=100 + k)
    fresh = chain("b again", 1)
    ledger = ledger.recommit(1, fresh.link(2), v=20, t=200)
    record = ledger.recommitments[-1]
    assert (record.seat, record.applies_from, record.commitment) == (1, 3, fresh.link(2))
    with pytest.raises(InvalidReveal):
        ledger.reveal(1, c1.link(3))  # the lost chain no longer counts
    ledger = ledger.reveal(1, fresh.link(3)).reveal(0, c0.link(3))
    ledger, roll = ledger.roll(v=21, t=210)
    assert roll.reveals == (c0.link(3), fresh.link(3))
    assert link_ok(GAME, 1, 3, fresh.link(3), record.commitment)


def test_recommitment_limits():
    c0, c1 = chain("a", 0), chain("b", 1)
    ledger = committed(c0, c1)
    with pytest.raises(CommitmentRejected, match="not_committed"):
        DiceLedger(GAME).recommit(0, c0.commitment, v=1, t=1)
    for n in range(3):
        ledger = ledger.recommit(0, chain(f"new {n}", 0).link(0), v=3 + n, t=3)
    with pytest.raises(CommitmentRejected, match="too_many_recommitments"):
        ledger.recommit(0, chain("new 3", 0).link(0), v=9, t=9)
    ledger = ledger.recommit(1, chain("other new", 1).link(0), v=9, t=9)  # seat 1 still may
    held = ledger.reveal(0, chain("new 2", 0).link(1))
    with pytest.raises(CommitmentRejected, match="roll_in_progress"):
        held.recommit(1, chain("late", 1).link(0), v=10, t=10)
    with pytest.raises(CommitmentRejected, match="same_as_opponent"):
        ledger.recommit(1, ledger.heads[0], v=10, t=10)
