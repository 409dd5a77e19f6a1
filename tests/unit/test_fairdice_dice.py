"""Roll derivation, the rejection sampler and the roll-off."""

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.fairdice import (
    GameId,
    derive_dice,
    dice_block,
    dice_from_seed,
    roll_seed,
    rolloff_winner,
    sample_dice,
    turn_roller,
)
from protocol.fairdice.dice import SamplerExhausted, dice_blocks, trace_dice

GAME = GameId(bytes(range(16)), 1)
A, B = bytes([0xAA]) * 32, bytes([0xBB]) * 32


def naive_sample(blocks):
    accepted = [b for block in blocks for b in block if b < 252]
    return accepted[0] % 6 + 1, accepted[1] % 6 + 1


@given(st.lists(st.binary(min_size=32, max_size=32), min_size=1, max_size=4))
def test_sampler_takes_the_first_two_accepted_bytes(blocks):
    accepted = [b for block in blocks for b in block if b < 252]
    if len(accepted) < 2:
        with pytest.raises(SamplerExhausted):
            sample_dice(blocks)
    else:
        assert sample_dice(blocks) == naive_sample(blocks)


def test_each_face_has_exactly_42_accepted_byte_values():
    faces = [b % 6 + 1 for b in range(252)]
    assert all(faces.count(f) == 42 for f in range(1, 7))
    for b in range(252, 256):
        assert sample_dice([bytes([b]) + bytes([0, 0])]) == (1, 1)  # b skipped


def test_sampler_reads_later_blocks_lazily():
    read = []

    def blocks():
        for n in itertools.count():
            read.append(n)
            yield bytes([255] * 31 + [n])

    assert sample_dice(blocks()) == (1, 2)  # byte 0 of block 0 -> 1, byte 1 of block 1 -> 2
    assert read == [0, 1]


def test_blocks_are_counter_mode_hashes_of_the_seed():
    seed = roll_seed(GAME, 1, A, B)
    first = list(itertools.islice(dice_blocks(seed), 3))
    assert first == [dice_block(seed, c) for c in range(3)]
    assert len(set(first)) == 3


def test_derivation_depends_on_everything_and_on_seat_order():
    seed = roll_seed(GAME, 1, A, B)
    variants = {
        roll_seed(GAME, 2, A, B),
        roll_seed(GAME, 1, B, A),
        roll_seed(GameId(GAME.match_id, 2), 1, A, B),
        roll_seed(GameId(bytes(16), 1), 1, A, B),
        roll_seed(GAME, 1, A, bytes([0xBC]) * 32),
    }
    assert seed not in variants and len(variants) == 5
    assert derive_dice(GAME, 1, A, B) == dice_from_seed(seed)


def test_trace_matches_the_dice():
    for k in range(1, 200):
        seed = roll_seed(GAME, k, A, B)
        trace = trace_dice(seed)
        assert (trace.d1, trace.d2) == dice_from_seed(seed)
        assert all(b >= 252 for _, _, b in trace.rejected)
        assert [b % 6 + 1 for _, _, b in trace.taken] == [trace.d1, trace.d2]


def test_bad_derivation_arguments():
    with pytest.raises(ValueError):
        roll_seed(GAME, 1, A, B[:31])
    with pytest.raises(ValueError):
        roll_seed(GAME, -1, A, B)
    with pytest.raises(ValueError):
        dice_block(b"short", 0)


def test_rolloff_winner_and_turn_order():
    for d1 in range(1, 7):
        for d2 in range(1, 7):
            winner = rolloff_winner(d1, d2)
            assert winner == (None if d1 == d2 else (0 if d1 > d2 else 1))
    assert [turn_roller(0, i) for i in range(4)] == [1, 0, 1, 0]
