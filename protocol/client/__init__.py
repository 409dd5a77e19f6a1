"""An asyncio client library for fairgammon servers: connect, authenticate, track the match,
reconnect with resume, reveal dice automatically, and act. It powers the tests, the
``fairgammon play-random`` bot and the load benchmark.

>>> from protocol.client import MatchClient, Tracker, play_random
"""

from protocol.client.bot import play_random
from protocol.client.connection import ClientClosed, MatchClient
from protocol.client.lobby import LobbyError, create_match, join_match
from protocol.client.tracker import Tracker

__all__ = [
    "ClientClosed",
    "LobbyError",
    "MatchClient",
    "Tracker",
    "create_match",
    "join_match",
    "play_random",
]
