"""Hash chains: generation, checkpointing, link verification, argument checks."""

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from protocol.fairdice import EncodingError, GameId, HashChain, chain_step, link_ok
from protocol.fairdice import chain as chain_module

GAME = GameId(bytes(range(16)), 3)
SECRET = hashlib.sha256(b"test secret").digest()


def test_links_step_down_from_the_secret():
    chain = HashChain(SECRET, GAME, 1, length=50)
    assert chain.link(50) == SECRET
    for i in range(50, 0, -1):
        assert chain_step(GAME, 1, i, chain.link(i)) == chain.link(i - 1)
        assert link_ok(GAME, 1, i, chain.link(i), chain.link(i - 1))
    assert chain.commitment == chain.link(0)


@given(
    length=st.integers(1, 200),
    stride=st.integers(1, 64),
    secret=st.binary(min_size=32, max_size=32),
)
def test_checkpointed_chains_give_the_same_links(length, stride, secret):
    full = HashChain(secret, GAME, 0, length)
    sparse = HashChain(secret, GAME, 0, length, stride=stride)
    assert [sparse.link(k) for k in range(length + 1)] == [full.link(k) for k in range(length + 1)]


def test_default_chain_memory_is_one_bytes_object_of_all_links():
    chain = HashChain(SECRET, GAME, 0)
    assert chain.length == 1024
    assert len(chain._kept) == 32 * 1025
    assert len(HashChain(SECRET, GAME, 0, stride=32)._kept) == 32 * 33


def test_links_depend_on_match_game_seat_and_index():
    base = HashChain(SECRET, GAME, 0, 8).commitment
    others = [
        HashChain(SECRET, GameId(bytes(16), 3), 0, 8).commitment,
        HashChain(SECRET, GameId(GAME.match_id, 4), 0, 8).commitment,
        HashChain(SECRET, GAME, 1, 8).commitment,
        HashChain(SECRET, GAME, 0, 9).commitment,
    ]
    assert base not in others and len(set(others)) == 4


def test_a_reveal_is_checked_against_the_right_index_and_seat():
    chain = HashChain(SECRET, GAME, 0, 8)
    assert link_ok(GAME, 0, 5, chain.link(5), chain.link(4))
    assert not link_ok(GAME, 0, 6, chain.link(5), chain.link(4))  # wrong index
    assert not link_ok(GAME, 1, 5, chain.link(5), chain.link(4))  # wrong seat
    assert not link_ok(GameId(GAME.match_id, 9), 0, 5, chain.link(5), chain.link(4))
    assert not link_ok(GAME, 0, 5, chain.link(6), chain.link(4))  # skipping a link
    assert not link_ok(GAME, 0, 5, chain.link(4), chain.link(4))


@pytest.mark.parametrize("reveal", [b"", b"x" * 31, b"x" * 33, "a" * 32, None, 5])
def test_malformed_reveals_are_invalid_not_errors(reveal):
    assert link_ok(GAME, 0, 1, reveal, bytes(32)) is False


def test_link_verification_uses_a_constant_time_compare(monkeypatch):
    calls = []
    real = chain_module.hmac.compare_digest

    def spy(a, b):
        calls.append((a, b))
        return real(a, b)

    monkeypatch.setattr(chain_module.hmac, "compare_digest", spy)
    chain = HashChain(SECRET, GAME, 0, 4)
    assert link_ok(GAME, 0, 2, chain.link(2), chain.link(1))
    assert not link_ok(GAME, 0, 2, chain.link(3), chain.link(1))
    assert len(calls) == 2


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"secret": b"short"}, "secret: expected 32 bytes"),
        ({"seat": 2}, "seat must be 0 or 1"),
        ({"seat": True}, "seat must be 0 or 1"),
        ({"length": 0}, "chain length must be"),
        ({"length": (1 << 16) + 1}, "chain length must be"),
        ({"stride": 0}, "stride must be"),
    ],
)
def test_bad_chain_arguments(kwargs, message):
    args = {"secret": SECRET, "game": GAME, "seat": 0, "length": 8} | kwargs
    stride = args.pop("stride", 1)
    with pytest.raises(EncodingError, match=message):
        HashChain(**args, stride=stride)


def test_bad_link_index_and_game_ids():
    chain = HashChain(SECRET, GAME, 0, 8)
    for k in (-1, 9, 1.0):
        with pytest.raises(EncodingError):
            chain.link(k)
    with pytest.raises(EncodingError):
        GameId(bytes(16), -1)
    with pytest.raises(EncodingError):
        GameId(bytes(16), 2**32)
    with pytest.raises(EncodingError):
        GameId.from_hex("zz" * 16, 0)
    with pytest.raises(EncodingError):
        chain_step(GAME, 0, 0, SECRET)  # index 0 has no predecessor


def test_repr_never_shows_the_secret():
    chain = HashChain(SECRET, GAME, 0, 8)
    assert SECRET.hex() not in repr(chain)
    assert chain.link(1).hex() not in repr(chain)
