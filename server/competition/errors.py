"""The one error of the competition machines: a command or a value refused with a typed code.

Its codes (:class:`Code`) are the competition's own words, answered as they are by the HTTP
API (``server/web/tournaments.py``, ``server/web/seeks.py``: docs/protocol.md lists them); it is
not the match machine's ``Rejected``, whose codes travel on the WebSocket.

>>> try:
...     raise Refused(Code.FULL, "the tournament has 16 players already")
... except Refused as exc:
...     exc.code.value, exc.message
('full', 'the tournament has 16 players already')
"""

from __future__ import annotations

import enum


class Code(enum.StrEnum):
    """Why the competition refused something."""

    BAD_CONFIG = "bad_config"  # a tournament's terms outside the limits
    BAD_FIELD = "bad_field"  # an id, name, rating, seat, winner, score or game that is not one
    BAD_SEEK = "bad_seek"  # a seek the pairing rules cannot read
    UNKNOWN_COMMAND = "unknown_command"
    FULL = "full"  # a join when max_players are in
    STARTED = "started"  # a join once a knockout or Swiss has started
    FINISHED = "finished"  # a join or withdrawal once it is over
    NOT_A_PLAYER = "not_a_player"  # a withdrawal by someone not in it
    UNKNOWN_MATCH = "unknown_match"  # a match that is not one of its pairings


class Refused(Exception):
    """Refused with a stable ``code`` and a sentence naming what is wrong; whatever was
    refused changed nothing."""

    def __init__(self, code: Code, message: str) -> None:
        super().__init__(f"{code.value}: {message}")
        self.code = code
        self.message = message
