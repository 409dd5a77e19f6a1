"""Roll derivation: the seed of roll ``k`` from both reveals, then two unbiased dice.

::

    seed_k = SHA-256("fairgammon/v1/roll" ‖ match_id ‖ u32be(game_no) ‖ u32be(k)
                     ‖ s_seat0[k] ‖ s_seat1[k])
    block_ctr = SHA-256("fairgammon/v1/dice" ‖ seed_k ‖ u32be(ctr))      ctr = 0, 1, ...

The bytes of block 0, then block 1, ... are read in order; a byte ``b < 252`` gives the die
``b % 6 + 1`` and a byte ``>= 252`` is skipped, until two dice are taken: ``d1`` first, then
``d2``. Since 252 = 42 * 6, every face has exactly 42 accepted byte values: no bias. The reveals
enter in seat order (seat 0 first), never in arrival order.

>>> game = GameId(bytes(16), 1)
>>> seed = roll_seed(game, 1, bytes(32), bytes([1]) * 32)
>>> derive_dice(game, 1, bytes(32), bytes([1]) * 32) == dice_from_seed(seed)
True
>>> sample_dice([bytes([252, 255, 11, 0]) + bytes(28)])  # 252 and 255 skipped: 11 -> 6, 0 -> 1
(6, 1)
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from protocol.fairdice.encoding import (
    ACCEPT_BELOW,
    DOMAIN_DICE,
    DOMAIN_ROLL,
    LINK_SIZE,
    GameId,
    check_bytes,
    u32be,
)
from protocol.fairdice.errors import FairDiceError


def roll_message(game: GameId, k: int, reveal0: bytes, reveal1: bytes) -> bytes:
    """The 106 bytes hashed into ``seed_k`` (seat 0's reveal first)."""
    check_bytes(reveal0, LINK_SIZE, "seat 0 reveal")
    check_bytes(reveal1, LINK_SIZE, "seat 1 reveal")
    return DOMAIN_ROLL + game.fields() + u32be(k) + reveal0 + reveal1


def roll_seed(game: GameId, k: int, reveal0: bytes, reveal1: bytes) -> bytes:
    """``seed_k``: the 32-byte seed of roll ``k``."""
    return hashlib.sha256(roll_message(game, k, reveal0, reveal1)).digest()


def dice_block(seed: bytes, ctr: int) -> bytes:
    """Block ``ctr`` of the byte stream drawn from ``seed``."""
    check_bytes(seed, LINK_SIZE, "seed")
    return hashlib.sha256(DOMAIN_DICE + seed + u32be(ctr)).digest()


def dice_blocks(seed: bytes) -> Iterator[bytes]:
    """Blocks 0, 1, 2, ... of ``seed`` (endless; consumers stop after two dice)."""
    ctr = 0
    while True:
        yield dice_block(seed, ctr)
        ctr += 1


class SamplerExhausted(FairDiceError):
    """A finite block sequence ran out before two dice were taken (tests and vectors only)."""

    code = "sampler_exhausted"


def sample_dice(blocks: Iterable[bytes]) -> tuple[int, int]:
    """The two dice taken from ``blocks`` by rejection sampling (see the module docstring).

    >>> sample_dice([bytes([255] * 31 + [5]), bytes([251]) + bytes(31)])  # needs block 1
    (6, 6)
    """
    dice: list[int] = []
    for block in blocks:
        for byte in block:
            if byte < ACCEPT_BELOW:
                dice.append(byte % 6 + 1)
                if len(dice) == 2:
                    return dice[0], dice[1]
    raise SamplerExhausted("the blocks ran out before two dice were taken")


def dice_from_seed(seed: bytes) -> tuple[int, int]:
    """``(d1, d2)`` for a roll seed."""
    return sample_dice(dice_blocks(seed))


def derive_dice(game: GameId, k: int, reveal0: bytes, reveal1: bytes) -> tuple[int, int]:
    """``(d1, d2)`` of roll ``k`` from both seats' reveals (seat 0's first)."""
    return dice_from_seed(roll_seed(game, k, reveal0, reveal1))


@dataclass(frozen=True, slots=True)
class DiceTrace:
    """How the dice of one seed were drawn: for test vectors and the verify view.

    ``taken`` lists ``(ctr, index, byte)`` of the two accepted bytes; ``rejected`` lists the
    skipped bytes (``>= 252``) before the second die, also as ``(ctr, index, byte)``.

    >>> t = trace_dice(bytes(32))
    >>> (t.d1, t.d2) == dice_from_seed(bytes(32)), t.blocks_used
    (True, 1)
    """

    seed: bytes
    blocks: tuple[bytes, ...]
    taken: tuple[tuple[int, int, int], ...]
    rejected: tuple[tuple[int, int, int], ...]
    d1: int
    d2: int

    @property
    def blocks_used(self) -> int:
        """How many blocks were read (1 except with probability about 2**-181)."""
        return len(self.blocks)


def trace_dice(seed: bytes) -> DiceTrace:
    """:func:`dice_from_seed`, recording every block read and every byte taken or skipped."""
    blocks: list[bytes] = []
    taken: list[tuple[int, int, int]] = []
    rejected: list[tuple[int, int, int]] = []
    for ctr, block in enumerate(dice_blocks(seed)):
        blocks.append(block)
        for index, byte in enumerate(block):
            if byte >= ACCEPT_BELOW:
                rejected.append((ctr, index, byte))
                continue
            taken.append((ctr, index, byte))
            if len(taken) == 2:
                d1, d2 = (b % 6 + 1 for _, _, b in taken)
                return DiceTrace(seed, tuple(blocks), tuple(taken), tuple(rejected), d1, d2)
    raise AssertionError("unreachable: dice_blocks is endless")
