"""``protocol.client.bot.play_random``: a match that ends while the seat's action waits for its
answer (the link dropped after the match_over event, before the ack: the kill loop's race) is
a match played to its end; a link that ends while the match is live is the caller's error."""

from __future__ import annotations

import asyncio

import pytest

from protocol.client.bot import play_random
from protocol.client.connection import ClientClosed


class Tracker:
    over: object = None
    version = 7
    settings = None

    def owes(self, seat: int) -> str:
        return "decide"

    def may_double(self, seat: int) -> bool:
        return False


class Client:
    """The few parts of ``MatchClient`` the bot uses; its roll's answer never comes."""

    def __init__(self, ends_match: bool) -> None:
        self.seat = 0
        self.tracker = Tracker()
        self.auto_commit = True
        self.ends_match = ends_match
        self.rolls = 0

    async def wait_for(self, predicate, timeout=None):  # type: ignore[no-untyped-def]
        assert predicate(self.tracker)

    async def roll(self):  # type: ignore[no-untyped-def]
        self.rolls += 1
        if self.ends_match:
            self.tracker.over = {"winner": 1}  # the match_over event arrived first
        raise ClientClosed(1006, "match_over" if self.ends_match else "", None)


def test_an_action_unanswered_when_the_match_ended_ends_the_play():
    client = Client(ends_match=True)
    assert asyncio.run(play_random(client)) == {"winner": 1}  # type: ignore[arg-type]
    assert client.rolls == 1


def test_an_action_unanswered_while_the_match_is_live_is_an_error():
    client = Client(ends_match=False)
    with pytest.raises(ClientClosed):
        asyncio.run(play_random(client))  # type: ignore[arg-type]
