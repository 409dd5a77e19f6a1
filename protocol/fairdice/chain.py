"""Per-seat hash chains: generation from a secret, single steps, and link verification.

A seat draws a 32-byte secret ``s[N]`` and computes, for ``i = N … 1``::

    s[i-1] = SHA-256("fairgammon/v1/chain" ‖ match_id ‖ u32be(game_no) ‖ seat ‖ u32be(i) ‖ s[i])

``s[0]`` is its commitment; ``s[k]`` is its reveal for roll ``k``. Revealing ``s[k]`` tells
nobody anything about ``s[k+1]`` (a SHA-256 preimage), but everybody can check that it hashes to
``s[k-1]``, the link already known.

>>> game = GameId(bytes(16), 1)
>>> chain = HashChain(bytes(range(32)), game, seat=0, length=4)
>>> link_ok(game, 0, 3, chain.link(3), chain.link(2))
True
>>> link_ok(game, 1, 3, chain.link(3), chain.link(2))  # another seat's chain
False
"""

from __future__ import annotations

import hashlib
import hmac

from protocol.fairdice.encoding import (
    DEFAULT_CHAIN_LENGTH,
    DOMAIN_CHAIN,
    LINK_SIZE,
    GameId,
    check_bytes,
    seat_byte,
    u32be,
)
from protocol.fairdice.errors import EncodingError

MAX_CHAIN_LENGTH = 1 << 16
"""Longest chain :class:`HashChain` builds (2 MB of links). The scheme allows any u32 index; a
game needs a few hundred at most, and a bigger bound would only let a typo eat memory."""


def chain_message(game: GameId, seat: int, i: int, link: bytes) -> bytes:
    """The 76 bytes hashed to get ``s[i-1]`` from ``link = s[i]`` (for debugging byte layouts).

    >>> len(chain_message(GameId(bytes(16), 1), 0, 1, bytes(32)))
    76
    """
    check_bytes(link, LINK_SIZE, "link")
    if type(i) is not int or i < 1:
        raise EncodingError(f"chain index must be >= 1, got {i!r}")
    return DOMAIN_CHAIN + game.fields() + seat_byte(seat) + u32be(i) + link


def chain_step(game: GameId, seat: int, i: int, link: bytes) -> bytes:
    """``s[i-1]`` from ``s[i]``: one step down the chain."""
    return hashlib.sha256(chain_message(game, seat, i, link)).digest()


def link_ok(game: GameId, seat: int, k: int, reveal: bytes, previous: bytes) -> bool:
    """True when ``reveal`` (claimed ``s[k]``) hashes to ``previous`` (the known ``s[k-1]``).

    The comparison is constant-time. A reveal of the wrong length or type is simply not valid
    (False); a wrong seat, index or ``previous`` is a programming error (:class:`EncodingError`).
    """
    check_bytes(previous, LINK_SIZE, "previous link")
    if not isinstance(reveal, bytes | bytearray) or len(reveal) != LINK_SIZE:
        return False
    return hmac.compare_digest(chain_step(game, seat, k, bytes(reveal)), previous)


class HashChain:
    """One seat's chain for one game, built from its secret ``s[N]``.

    Memory: by default (``stride=1``) all ``N + 1`` links are kept in one ``bytes`` object,
    ``32 * (N + 1)`` bytes (32.8 KB for ``N = 1024``), and :meth:`link` is a slice. With a
    larger ``stride`` only every ``stride``-th link (and ``s[N]``) is kept, about
    ``32 * N / stride`` bytes, and :meth:`link` recomputes at most ``stride - 1`` hashes: e.g.
    ``stride=32`` keeps 1 KB and costs 15 hashes (~10 µs) per link on average — for tools that
    hold thousands of seats at once. Building costs ``N`` hashes either way (about 0.5 ms for
    ``N = 1024``). ``repr`` never shows the secret.

    >>> game = GameId(bytes(16), 0)
    >>> a = HashChain(bytes(range(32)), game, seat=1, length=64)
    >>> b = HashChain(bytes(range(32)), game, seat=1, length=64, stride=8)
    >>> all(a.link(k) == b.link(k) for k in range(65)), a.commitment == a.link(0)
    (True, True)
    >>> a
    HashChain(match_id=00000000000000000000000000000000, game_no=0, seat=1, length=64)
    """

    __slots__ = ("_kept", "_prefix", "game", "length", "seat", "stride")

    def __init__(
        self,
        secret: bytes,
        game: GameId,
        seat: int,
        length: int = DEFAULT_CHAIN_LENGTH,
        *,
        stride: int = 1,
    ) -> None:
        check_bytes(secret, LINK_SIZE, "secret")
        seat_byte(seat)
        if type(length) is not int or not 1 <= length <= MAX_CHAIN_LENGTH:
            raise EncodingError(f"chain length must be 1 .. {MAX_CHAIN_LENGTH}, got {length!r}")
        if type(stride) is not int or stride < 1:
            raise EncodingError(f"stride must be >= 1, got {stride!r}")
        self.game = game
        self.seat = seat
        self.length = length
        self.stride = stride
        self._prefix = prefix = DOMAIN_CHAIN + game.fields() + bytes([seat])
        sha256 = hashlib.sha256
        # Checkpoints are s[0], s[stride], s[2*stride], ... and always s[N] (the secret), so
        # checkpoint j is s[min(j * stride, N)]; with stride 1 that is every link.
        link = bytes(secret)
        kept = [link]
        for i in range(length, 0, -1):
            link = sha256(prefix + i.to_bytes(4, "big") + link).digest()
            if (i - 1) % stride == 0:
                kept.append(link)
        self._kept = b"".join(reversed(kept))

    @property
    def commitment(self) -> bytes:
        """``s[0]``: what the seat publishes before roll 1."""
        return self.link(0)

    def link(self, k: int) -> bytes:
        """``s[k]`` for ``0 <= k <= N`` (``s[N]`` is the secret itself)."""
        if type(k) is not int or not 0 <= k <= self.length:
            raise EncodingError(f"chain index must be 0 .. {self.length}, got {k!r}")
        j = -(-k // self.stride)  # the first checkpoint at or above k
        top = min(j * self.stride, self.length)
        link = self._kept[j * LINK_SIZE : (j + 1) * LINK_SIZE]
        for i in range(top, k, -1):
            link = hashlib.sha256(self._prefix + i.to_bytes(4, "big") + link).digest()
        return link

    def __repr__(self) -> str:
        return (
            f"HashChain(match_id={self.game.match_id.hex()}, game_no={self.game.game_no}, "
            f"seat={self.seat}, length={self.length})"
        )
