"""The dice side of one game as a pure, immutable state: the reference model of the scheme.

The server does not use it: its match machine (``server/machine/core.py``) keeps the dice in the
match state and derives each roll with :func:`~protocol.fairdice.dice.derive_dice` itself. This
ledger models the same rules for simulated games, transcripts and vectors
(:mod:`protocol.fairdice.simulate`) and for client authors. A holder calls, in order:
:meth:`~DiceLedger.commit` for each seat, then for every roll :meth:`~DiceLedger.reveal` for each
seat (the roller's reveal comes with its ``ROLL``; the barrier — forwarding neither reveal before
both are held — is the server's job), then :meth:`~DiceLedger.roll` to derive and record the
dice, which it stores before broadcasting. :meth:`~DiceLedger.recommit` replaces a seat's chain
between rolls. Each call returns a new ledger or raises a typed error; nothing is changed on
error. :meth:`~DiceLedger.transcript` assembles the game's transcript at the end.

>>> from protocol.fairdice.chain import HashChain
>>> game = GameId(bytes(range(16)), 1)
>>> a = HashChain(bytes([1]) * 32, game, 0, length=16)
>>> b = HashChain(bytes([2]) * 32, game, 1, length=16)
>>> ledger = DiceLedger(game).commit(0, a.commitment, v=1, t=0).commit(1, b.commitment, v=2, t=0)
>>> ledger = ledger.reveal(0, a.link(1)).reveal(1, b.link(1))
>>> ledger, roll = ledger.roll(v=3, t=5)
>>> roll.k, roll.kind.value, roll.roller, (roll.d1, roll.d2)
(1, 'rolloff', None, (2, 6))
>>> ledger.first_mover, ledger.next_roller
(1, 0)
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TypeVar

from protocol.fairdice.chain import link_ok
from protocol.fairdice.commitments import check_commitment, check_recommitment
from protocol.fairdice.dice import derive_dice
from protocol.fairdice.encoding import LINK_SIZE, GameId, check_seat
from protocol.fairdice.errors import FairDiceError
from protocol.fairdice.rolloff import RollKind, rolloff_winner, turn_roller
from protocol.fairdice.transcript import (
    Action,
    Commitment,
    Evidence,
    Recommitment,
    Result,
    RollRecord,
    SeatInfo,
    Transcript,
)

T = TypeVar("T")


class RevealRejected(FairDiceError):
    """A reveal refused without consequence (malformed or out of place): ``code`` is one of
    ``not_committed``, ``already_revealed``, ``wrong_length``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code


class InvalidReveal(FairDiceError):
    """A well-formed reveal that does not hash to the seat's previous link: the seat forfeits
    (``invalid_reveal``) and :attr:`evidence` goes into the transcript's result."""

    code = "invalid_reveal"

    def __init__(self, k: int, seat: int, reveal: bytes) -> None:
        super().__init__(f"roll {k}: seat {seat} reveal does not hash to its previous link")
        self.evidence = Evidence(k, seat, reveal)


@dataclass(frozen=True, slots=True)
class DiceLedger:
    """Commitments, current chain heads, pending reveals and recorded rolls of one game."""

    game: GameId
    commitments: tuple[Commitment | None, Commitment | None] = (None, None)
    heads: tuple[bytes | None, bytes | None] = (None, None)
    """Each seat's previous link: what its next reveal must hash to."""
    pending: tuple[bytes | None, bytes | None] = (None, None)
    """Reveals for roll :attr:`next_k` received so far (secret until both are in)."""
    recommitments: tuple[Recommitment, ...] = ()
    rolls: tuple[RollRecord, ...] = ()
    first_mover: int | None = None
    """The roll-off winner, once the roll-off is decided (or the opener)."""
    variant: str = "backgammon"
    """The rules the game is played by (:data:`engine.variants.VARIANTS`): in the Greek games
    (opening ``reroll``) nobody plays the deciding roll-off roll (docs/fairness.md, section
    6)."""
    opener: int | None = None
    """A Greek game opened without a roll-off by this seat (the previous game's winner): give
    it as :attr:`first_mover` too (:meth:`opened_by`)."""

    @classmethod
    def opened_by(cls, game: GameId, variant: str, seat: int) -> DiceLedger:
        """The ledger of a Greek game that ``seat`` opens without a roll-off."""
        check_seat(seat)
        if not _reroll(variant):
            raise ValueError(f"a {variant} game opens with the roll-off")
        return cls(game, first_mover=seat, variant=variant, opener=seat)

    @property
    def next_k(self) -> int:
        """The index of the next roll."""
        return len(self.rolls) + 1

    @property
    def committed(self) -> bool:
        """Both seats have committed: rolling may start."""
        return None not in self.commitments

    @property
    def next_kind(self) -> RollKind:
        return RollKind.ROLLOFF if self.first_mover is None else RollKind.TURN

    @property
    def next_roller(self) -> int | None:
        """The seat whose ``ROLL`` starts the next roll (None while the roll-off lasts)."""
        if self.first_mover is None:
            return None
        decided_at = 0 if self.opener is not None else next(
            r.k for r in self.rolls if r.kind is RollKind.ROLLOFF and r.d1 != r.d2
        )
        return turn_roller(self.first_mover, self.next_k - decided_at - 1, _reroll(self.variant))

    @property
    def roll_in_progress(self) -> bool:
        """Some reveal of the next roll is held."""
        return self.pending != (None, None)

    def recommitment_count(self, seat: int) -> int:
        return sum(1 for r in self.recommitments if r.seat == seat)

    def commit(self, seat: int, value: bytes, *, v: int, t: int) -> DiceLedger:
        """Record ``seat``'s commitment ``s[0]`` (event ``v`` at server time ``t``)."""
        check_seat(seat)
        existing = self.commitments[seat]
        other = self.commitments[1 - seat]
        value = check_commitment(
            value,
            existing=existing.commitment if existing else None,
            other=other.commitment if other else None,
        )
        return replace(
            self,
            commitments=_set(self.commitments, seat, Commitment(seat, value, v, t)),
            heads=_set(self.heads, seat, value),
        )

    def recommit(self, seat: int, value: bytes, *, v: int, t: int) -> DiceLedger:
        """Replace ``seat``'s chain from roll :attr:`next_k` on: ``value`` is ``s'[next_k - 1]``
        of the seat's fresh chain (see ``docs/fairness.md``, re-commitment indexing)."""
        check_seat(seat)
        value = check_recommitment(
            value,
            committed=self.commitments[seat] is not None,
            recommitments_so_far=self.recommitment_count(seat),
            other_head=self.heads[1 - seat],
            roll_in_progress=self.roll_in_progress,
        )
        record = Recommitment(seat, self.next_k, value, v, t)
        return replace(
            self,
            recommitments=(*self.recommitments, record),
            heads=_set(self.heads, seat, value),
        )

    def reveal(self, seat: int, value: bytes) -> DiceLedger:
        """Hold ``seat``'s reveal for roll :attr:`next_k` after checking it against the seat's
        previous link (constant-time). Raises :class:`InvalidReveal` (forfeit) if it does not
        verify, :class:`RevealRejected` if it is malformed or out of place."""
        check_seat(seat)
        if not self.committed:
            raise RevealRejected("not_committed", "both seats must commit before rolling")
        if self.pending[seat] is not None:
            raise RevealRejected("already_revealed", f"seat {seat} already revealed this roll")
        if not isinstance(value, bytes | bytearray) or len(value) != LINK_SIZE:
            raise RevealRejected("wrong_length", f"a reveal is {LINK_SIZE} bytes")
        value = bytes(value)
        head = self.heads[seat]
        assert head is not None
        if not link_ok(self.game, seat, self.next_k, value, head):
            raise InvalidReveal(self.next_k, seat, value)
        return replace(self, pending=_set(self.pending, seat, value))

    @property
    def both_revealed(self) -> bool:
        return None not in self.pending

    def roll(self, *, v: int, t: int) -> tuple[DiceLedger, RollRecord]:
        """Derive roll :attr:`next_k` from both held reveals and record it (event ``v``)."""
        r0, r1 = self.pending
        if r0 is None or r1 is None:
            raise RevealRejected("not_revealed", "both seats must reveal before the dice")
        k = self.next_k
        d1, d2 = derive_dice(self.game, k, r0, r1)
        record = RollRecord(k, self.next_kind, self.next_roller, (r0, r1), d1, d2, v, t)
        first_mover = self.first_mover
        if first_mover is None:
            first_mover = rolloff_winner(d1, d2)
        ledger = replace(
            self,
            heads=(r0, r1),
            pending=(None, None),
            rolls=(*self.rolls, record),
            first_mover=first_mover,
        )
        return ledger, record

    def transcript(
        self,
        actions: tuple[Action, ...],
        result: Result,
        seats: tuple[SeatInfo, SeatInfo] = (SeatInfo(0), SeatInfo(1)),
        *,
        jacoby: bool = False,
    ) -> Transcript:
        """The finished game's transcript (verify it with
        :func:`protocol.fairdice.verify.verify_transcript`); ``jacoby``: the game was played
        under the Jacoby rule (a money session's option, not the dice's: the caller says)."""
        c0, c1 = self.commitments
        if c0 is None or c1 is None:
            raise RevealRejected("not_committed", "a transcript needs both commitments")
        return Transcript(
            game=self.game,
            seats=seats,
            commitments=(c0, c1),
            recommitments=self.recommitments,
            rolls=self.rolls,
            actions=actions,
            result=result,
            variant=self.variant,
            opener=self.opener,
            jacoby=jacoby,
        )


def _reroll(variant: str) -> bool:
    from engine.rules import Opening  # noqa: PLC0415 (the engine, on demand)
    from engine.variants import variant as variant_named  # noqa: PLC0415

    return variant_named(variant).opening is Opening.REROLL


def _set(pair: tuple[T, T], seat: int, value: T) -> tuple[T, T]:
    return (value, pair[1]) if seat == 0 else (pair[0], value)
