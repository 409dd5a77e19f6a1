"""The doubling cube: value 1…64, owner (centred or a seat) and a pending offer.

A :class:`Cube` only knows cube arithmetic and ownership. *When* a double is allowed at all (the
player on roll, before rolling; never in the Crawford game or a cubeless game) and whether
beavers are played is decided by the game (:mod:`engine.game`), which calls these methods.

The pending offer is kept the way GNU Backgammon keeps it, so Match IDs come out identical:

* ``offer``: the value stays, ``offered_by`` is set; a take doubles the value and gives the cube
  to the taker; a drop ends the game and the doubler wins the current (pre-double) value.
* ``beaver`` (money option): the doubled player takes *and* immediately redoubles while keeping
  the cube: the value doubles now, the beaver owns it, and the original doubler must take (the
  value doubles again, the beaver keeps the cube) or drop (the beaver wins the doubled value).

>>> cube = Cube().offer(0)
>>> cube.pending, cube.offered_value
(True, 2)
>>> cube.taken(1)
Cube(value=2, owner=1, offered_by=None, beaver=False)
>>> Cube().offer(0).beavered(1).taken(0)
Cube(value=4, owner=1, offered_by=None, beaver=False)
"""

from __future__ import annotations

from dataclasses import dataclass

from engine.errors import CubeError, ErrorCode

MAX_CUBE = 64
"""Highest cube value: no double may take the cube above it."""


@dataclass(frozen=True, slots=True)
class Cube:
    """Cube value, owner (``None`` = centred) and a pending offer, if any.

    ``offered_by`` is the seat whose double (or beaver) awaits an answer; ``beaver`` tells that
    the pending offer is a beaver's redouble.
    """

    value: int = 1
    owner: int | None = None
    offered_by: int | None = None
    beaver: bool = False

    @property
    def centred(self) -> bool:
        return self.owner is None

    @property
    def pending(self) -> bool:
        """True while a double or beaver awaits take or drop."""
        return self.offered_by is not None

    @property
    def offered_value(self) -> int:
        """The value the cube will have if the pending offer is taken."""
        return self.value * 2

    def may_double(self, seat: int) -> bool:
        """Cube arithmetic allows ``seat`` to double: centred or theirs, and not above 64.

        >>> Cube(value=2, owner=1).may_double(0), Cube(value=64, owner=0).may_double(0)
        (False, False)
        """
        return (
            self.offered_by is None
            and self.owner in (None, seat)
            and self.value * 2 <= MAX_CUBE
        )

    def offer(self, seat: int) -> Cube:
        """``seat`` offers a double.

        >>> Cube(value=2, owner=1).offer(0)
        Traceback (most recent call last):
        ...
        engine.errors.CubeError: cube_unavailable: the cube belongs to seat 1
        """
        if self.offered_by is not None:
            raise CubeError(ErrorCode.CUBE_UNAVAILABLE, "a double is already pending")
        if self.owner not in (None, seat):
            raise CubeError(ErrorCode.CUBE_UNAVAILABLE, f"the cube belongs to seat {self.owner}")
        if self.value * 2 > MAX_CUBE:
            raise CubeError(ErrorCode.CUBE_UNAVAILABLE, f"the cube cannot go above {MAX_CUBE}")
        return Cube(self.value, self.owner, offered_by=seat)

    def may_beaver(self, seat: int) -> bool:
        """Cube arithmetic allows ``seat`` to beaver the pending double."""
        return (
            self.offered_by == 1 - seat
            and not self.beaver
            and self.value * 4 <= MAX_CUBE
        )

    def beavered(self, seat: int) -> Cube:
        """``seat`` beavers: takes the pending double and redoubles at once, keeping the cube."""
        self._check_answer(seat)
        if self.beaver:
            raise CubeError(ErrorCode.BEAVER_UNAVAILABLE, "a beaver cannot be beavered")
        if self.value * 4 > MAX_CUBE:
            raise CubeError(ErrorCode.BEAVER_UNAVAILABLE, f"the cube cannot go above {MAX_CUBE}")
        return Cube(self.value * 2, owner=seat, offered_by=seat, beaver=True)

    def taken(self, seat: int) -> Cube:
        """``seat`` takes the pending offer: the value doubles; the taker owns the cube (after a
        beaver, the beaver keeps it)."""
        self._check_answer(seat)
        owner = self.offered_by if self.beaver else seat
        return Cube(self.value * 2, owner=owner)

    def dropped(self, seat: int) -> int:
        """``seat`` drops the pending offer: the points the doubler wins (the current value).

        >>> Cube(value=2, owner=1).offer(1).dropped(0)
        2
        """
        self._check_answer(seat)
        return self.value

    def _check_answer(self, seat: int) -> None:
        if self.offered_by is None:
            raise CubeError(ErrorCode.NO_DOUBLE_PENDING, "no double to answer")
        if seat != 1 - self.offered_by:
            raise CubeError(ErrorCode.NOT_YOUR_TURN, "the doubler cannot answer their own double")


CENTRED = Cube()
"""The cube at the start of a game: value 1, centred."""
