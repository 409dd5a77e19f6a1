"""A worked example: seat 1 reconnects mid-game, then plays a whole turn (frames in order).

docs/protocol.md shows it (through ``protocol.docgen``), and the tests check it is valid: every
frame encodes and decodes, and the play and Position ID come from the rules engine. The two
reveals are placeholders (0x11.., 0x22..): the dice 6-4 are not derived from them here.

>>> [who for who, _, _ in TURN][:3]
['C1 → S', 'S → C1', 'S → C1']
"""

from __future__ import annotations

from engine import position_id
from engine.position import Position
from engine.validate import validate_play
from protocol.events import Clock, Dice, Moved
from protocol.messages import (
    Ack,
    AnyMessage,
    Event,
    Hello,
    Move,
    Reveal,
    RevealRequest,
    Roll,
    Welcome,
)

MATCH = "5f0c9e2a7b3d4e6f8a1b2c3d4e5f6a7b"
TOKEN = "q3YxV0n8bWf2Kd9ZsL1mRt6uHc4JpE7o"
NOW = 1_767_225_600_000  # 2026-01-01T00:00:00Z in ms
SECOND = 1_000
REVEAL0 = bytes([0x11]) * 32
REVEAL1 = bytes([0x22]) * 32


def _after_turn_2() -> str:
    """Position ID after seat 1 plays 6-4 as 24/18/14, seat 0 having opened 3-1 with 8/5 6/5."""
    opening = validate_play(Position.start(), 3, 1, [(8, 5), (6, 5)])
    reply = validate_play(opening.position.swapped(), 6, 4, [(24, 18), (18, 14)])
    return position_id.encode(reply.position)


TURN: list[tuple[str, str, AnyMessage]] = [
    (
        "C1 → S",
        "seat 1 reconnects: it last saw version 16",
        Hello(1, MATCH, TOKEN, 16, "Ben"),
    ),
    (
        "S → C1",
        "the match is at version 17; the highest seq applied for seat 1 is 3",
        Welcome("seat1", MATCH, 17, NOW, 3),
    ),
    (
        "S → C1",
        "the event it missed: seat 1 must double or roll within 30 s",
        Event(17, Clock(1, NOW + 30 * SECOND)),
    ),
    (
        "C1 → S",
        "seat 1 does not double: it rolls, revealing link 2 of its chain",
        Roll(4, 1, 2, REVEAL1),
    ),
    ("S → C1", "stored (the reveal stays secret); no new event yet", Ack(4, 17)),
    (
        "S → C0",
        "to seat 0 only, not versioned: reveal link 2",
        RevealRequest(1, 2, NOW + 32 * SECOND),
    ),
    ("C0 → S", "seat 0's client answers automatically", Reveal(9, 1, 2, REVEAL0)),
    ("S → C0", "", Ack(9, 18)),
    (
        "S → all",
        "both reveals are in: the dice are stored, then broadcast",
        Event(18, Dice(1, 2, "turn", 1, REVEAL0, REVEAL1, 6, 4)),
    ),
    ("S → all", "", Event(19, Clock(1, NOW + 34 * SECOND))),
    ("C1 → S", "seat 1 plays 24/18/14", Move(5, 1, 2, ((24, 18), (18, 14)))),
    ("S → C1", "", Ack(5, 21)),
    ("S → all", "", Event(20, Moved(1, 1, 2, ((24, 18), (18, 14)), _after_turn_2()))),
    ("S → all", "seat 0 is on roll", Event(21, Clock(0, NOW + 41 * SECOND))),
]
"""(who, note, message): who is ``C0``/``C1`` (a seat's client), ``S`` (the server) or
``all`` (both seats and every spectator)."""
