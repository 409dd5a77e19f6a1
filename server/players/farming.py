"""The rules that keep ratings from being farmed (pure): what a finished rated match between two
accounts counts for, from the facts the results saga gathers (docs/fairplay.md).

1. **Too short to rate**: a match that ends (resigned, left, forfeited on time) before each
   player has made ``min_plays`` checker plays is *abandoned*: no rating change, no history
   line, not in the match count. Nobody plays three checker plays of a 3-point match and calls
   that a result; two accounts that trade resignations at the first roll gain nothing.
2. **Repeated pairings**: of the rated matches between the same two accounts, only the first
   ``pair_daily`` that end within ``WINDOW_MS`` (a day) move the ratings; the later ones are
   recorded as played, unrated (``void: "repeat"`` in the history line).
3. **One address**: two accounts that have signed up or logged in from the same address and
   play a rated match against each other are *flagged* for the moderators (never sanctioned
   automatically: households and clubs share an address); so is a pair past its daily cap.

>>> assess(Facts(plays=(1, 0), earlier_today=0, shared=()), Rules())
Verdict(counted=False, rated=False, void='early', flags=())
>>> assess(Facts(plays=(5, 5), earlier_today=3, shared=('203.0.113.9',)), Rules())
Verdict(counted=True, rated=False, void='repeat', flags=('same_address', 'repeat_pair'))
"""

from __future__ import annotations

from dataclasses import dataclass

WINDOW_MS = 86_400_000
"""The window of the daily cap of rated matches between the same two accounts."""

MIN_PLAYS = 3
PAIR_DAILY = 3

SAME_ADDRESS = "same_address"
REPEAT_PAIR = "repeat_pair"
FLAG_KINDS = (SAME_ADDRESS, REPEAT_PAIR)
"""What a flag says (the moderators' vocabulary; docs/fairplay.md)."""


@dataclass(frozen=True, slots=True)
class Rules:
    """The operator's settings (``FAIRGAMMON_RATED_MIN_PLAYS``, ``FAIRGAMMON_RATED_PAIR_DAILY``;
    0 turns a rule off)."""

    min_plays: int = MIN_PLAYS
    pair_daily: int = PAIR_DAILY


@dataclass(frozen=True, slots=True)
class Facts:
    """What one finished rated match between two accounts was: the checker plays each seat
    made, how many rated matches between the same two accounts already counted within the
    window, and the addresses both accounts were seen at."""

    plays: tuple[int, int]
    earlier_today: int
    shared: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Verdict:
    """``counted``: in the history and match counts; ``rated``: moves the ratings; ``void``:
    why a rated match does not (``early``, ``repeat``) or None; ``flags`` for the moderators."""

    counted: bool
    rated: bool
    void: str | None
    flags: tuple[str, ...]


def early(plays: tuple[int, int], rules: Rules) -> bool:
    """Whether a match ended before each player made ``min_plays`` checker plays."""
    return min(plays) < rules.min_plays


def assess(facts: Facts, rules: Rules) -> Verdict:
    """What a finished rated match between two accounts counts for."""
    flags: list[str] = []
    if facts.shared:
        flags.append(SAME_ADDRESS)
    if early(facts.plays, rules):
        return Verdict(False, False, "early", tuple(flags))
    if rules.pair_daily and facts.earlier_today >= rules.pair_daily:
        flags.append(REPEAT_PAIR)
        return Verdict(True, False, "repeat", tuple(flags))
    return Verdict(True, True, None, tuple(flags))
