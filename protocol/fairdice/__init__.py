"""Fair dice, scheme v1: per-seat hash chains, commit-reveal, unbiased derivation, transcripts.

Nobody — neither player nor the server — can choose or predict a roll: each seat commits to the
end ``s[0]`` of a hash chain it alone can extend backwards, reveals ``s[k]`` for roll ``k``, and
the dice come from both reveals. ``docs/fairness.md`` is the specification; the shared test
vectors are ``protocol/fairdice/vectors/fairdice-v1.json``.

What the server calls:

* :func:`check_commitment`, :func:`check_recommitment` — the commitment rules, or
  :class:`DiceLedger` — commitments, reveals, rolls and roll-off as one immutable state;
* :func:`link_ok` — a reveal against the seat's previous link (constant-time);
* :func:`derive_dice`, :func:`rolloff_winner` — the dice of roll ``k`` and the roll-off;
* :class:`Transcript` (``to_json``) and :func:`verify_transcript` / :func:`verify_json`.

What clients call: :class:`HashChain` (commitment and links from a secret), :func:`link_ok`,
:func:`derive_dice`.

>>> game = GameId(bytes(16), 1)
>>> seat0 = HashChain(bytes([1]) * 32, game, seat=0)
>>> seat1 = HashChain(bytes([2]) * 32, game, seat=1)
>>> link_ok(game, 0, 1, seat0.link(1), seat0.commitment)
True
>>> derive_dice(game, 1, seat0.link(1), seat1.link(1)) in {(a, b) for a in range(1, 7) for b in range(1, 7)}
True
"""  # noqa: E501

from protocol.fairdice.chain import HashChain, chain_step, link_ok
from protocol.fairdice.commitments import (
    MAX_RECOMMITMENTS,
    CommitmentCode,
    CommitmentRejected,
    check_commitment,
    check_recommitment,
)
from protocol.fairdice.dice import derive_dice, dice_block, dice_from_seed, roll_seed, sample_dice
from protocol.fairdice.encoding import DEFAULT_CHAIN_LENGTH, SCHEME, GameId
from protocol.fairdice.errors import EncodingError, FairDiceError, Problem, TranscriptError
from protocol.fairdice.ledger import DiceLedger, InvalidReveal, RevealRejected
from protocol.fairdice.rolloff import RollKind, rolloff_winner, turn_roller
from protocol.fairdice.schema import parse_transcript
from protocol.fairdice.transcript import (
    Action,
    Commitment,
    Evidence,
    Recommitment,
    Result,
    ResultReason,
    RollRecord,
    SeatInfo,
    Transcript,
)
from protocol.fairdice.verify import Verdict, verify_json, verify_transcript

__all__ = [
    "DEFAULT_CHAIN_LENGTH",
    "MAX_RECOMMITMENTS",
    "SCHEME",
    "Action",
    "Commitment",
    "CommitmentCode",
    "CommitmentRejected",
    "DiceLedger",
    "EncodingError",
    "Evidence",
    "FairDiceError",
    "GameId",
    "HashChain",
    "InvalidReveal",
    "Problem",
    "Recommitment",
    "Result",
    "ResultReason",
    "RevealRejected",
    "RollKind",
    "RollRecord",
    "SeatInfo",
    "Transcript",
    "TranscriptError",
    "Verdict",
    "chain_step",
    "check_commitment",
    "check_recommitment",
    "derive_dice",
    "dice_block",
    "dice_from_seed",
    "link_ok",
    "parse_transcript",
    "roll_seed",
    "rolloff_winner",
    "sample_dice",
    "turn_roller",
    "verify_json",
    "verify_transcript",
]
