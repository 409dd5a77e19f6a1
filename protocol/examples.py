"""A worked example: seat 1 reconnects mid-game, then plays a whole turn (frames in order).

docs/protocol.md shows it (through ``protocol.docgen``), and the tests check it is valid: every
frame encodes and decodes, the reveals are real links of real hash chains (scheme v1, chains
of length 8 from the secrets ``SHA-256("example/seat<S>/<n>")``), the roll-off and the dice are
derived from them, and the play and Position ID come from the rules engine.

>>> [who for who, _, _ in TURN][:3]
['C1 → S', 'S → C1', 'S → C1']
"""

from __future__ import annotations

import hashlib

from engine import position_id
from engine.movegen import legal_plays
from engine.position import Position
from engine.validate import validate_play
from protocol.events import Clock, Dice, Moved, Rolling
from protocol.fairdice import GameId, HashChain, derive_dice
from protocol.limits import PROTOCOL_VERSION
from protocol.messages import Ack, AnyMessage, Event, Hello, Move, Reveal, Roll, Welcome

MATCH = "5f0c9e2a7b3d4e6f8a1b2c3d4e5f6a7b"
TOKEN = "q3YxV0n8bWf2Kd9ZsL1mRt6uHc4JpE7o"
NOW = 1_767_225_600_000  # 2026-01-01T00:00:00Z in ms
SECOND = 1_000
GAME = GameId(bytes.fromhex(MATCH), 1)


def _chains() -> tuple[HashChain, HashChain]:
    """The first pair of example chains whose roll-off (roll 1) is 3-1: seat 0 opens 3-1."""
    n = 0
    while True:
        chains = tuple(
            HashChain(hashlib.sha256(f"example/seat{s}/{n}".encode()).digest(), GAME, s, length=8)
            for s in (0, 1)
        )
        if derive_dice(GAME, 1, chains[0].link(1), chains[1].link(1)) == (3, 1):
            return chains  # type: ignore[return-value]
        n += 1


CHAINS = _chains()
REVEAL0 = CHAINS[0].link(2)
REVEAL1 = CHAINS[1].link(2)
DICE = derive_dice(GAME, 2, REVEAL0, REVEAL1)


def _turn_2() -> tuple[tuple[tuple[int, int], ...], str]:
    """Seat 1's play of roll 2 (the first legal play, highest from-point first) after seat 0
    opened 3-1 with 8/5 6/5, and the Position ID after it."""
    opening = validate_play(Position.start(), 3, 1, [(8, 5), (6, 5)])
    seen_by_seat1 = opening.position.swapped()
    play = legal_plays(seen_by_seat1, *DICE)[0]
    return play.moves, position_id.encode(play.position)


PLAY, AFTER = _turn_2()

TURN: list[tuple[str, str, AnyMessage]] = [
    (
        "C1 → S",
        "seat 1 reconnects: it last saw version 16",
        Hello(PROTOCOL_VERSION, MATCH, TOKEN, 16, "Ben"),
    ),
    (
        "S → C1",
        "the match is at version 17; the highest seq applied for seat 1 is 3",
        Welcome("seat1", MATCH, 17, NOW, 3),
    ),
    (
        "S → C1",
        "the event it missed: seat 0's opening 3-1; now seat 1 must double or roll within 30 s",
        Event(
            17,
            Moved(1, 0, 1, ((8, 5), (6, 5)), "4HPwATCwZ/ABMA"),
            Clock("decide", (1,), NOW + 30 * SECOND),
        ),
    ),
    (
        "C1 → S",
        "seat 1 does not double: it rolls, revealing link 2 of its chain",
        Roll(4, 1, 2, REVEAL1),
    ),
    (
        "S → all",
        "stored; the reveal stays secret until seat 0's arrives (the barrier)",
        Event(18, Rolling(1, 2, 1), Clock("reveal", (0,), NOW + 32 * SECOND)),
    ),
    ("S → C1", "", Ack(4, 18)),
    ("C0 → S", "seat 0's client reveals link 2 automatically", Reveal(9, 1, 2, REVEAL0)),
    (
        "S → all",
        "both reveals are in: the dice are derived, stored, then broadcast with both reveals",
        Event(
            19,
            Dice(1, 2, "turn", 1, REVEAL0, REVEAL1, *DICE),
            Clock("move", (1,), NOW + 33 * SECOND),
        ),
    ),
    ("S → C0", "", Ack(9, 19)),
    ("C1 → S", "seat 1 plays its dice", Move(5, 1, 2, PLAY)),
    (
        "S → all",
        "seat 0 is on roll next",
        Event(20, Moved(1, 1, 2, PLAY, AFTER), Clock("decide", (0,), NOW + 41 * SECOND)),
    ),
    ("S → C1", "", Ack(5, 20)),
]
"""(who, note, message): who is ``C0``/``C1`` (a seat's client), ``S`` (the server) or
``all`` (both seats and every spectator)."""
