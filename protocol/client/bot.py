"""A bot that plays random legal moves (for trying a server, tests and load runs)."""

from __future__ import annotations

import asyncio
import random

from protocol import messages as m
from protocol.client.connection import ClientClosed, MatchClient
from protocol.client.tracker import Tracker
from protocol.events import PLAYER_DECISIONS

MY_TURN = PLAYER_DECISIONS | {"commit"}
"""What the bot acts on: a player's decisions, and its commitment once it commits by itself."""


async def play_random(
    client: MatchClient,
    rng: random.Random | None = None,
    *,
    double_rate: float = 0.05,
    take_rate: float = 0.7,
    think: tuple[float, float] = (0.0, 0.0),
    stop_money_after: int | None = None,
    timeout: float = 60,
) -> m.ServerMessage | None:
    """Play ``client``'s seat until the match ends; returns the final match_over data.

    In a money session the bot stops the session once ``stop_money_after`` games are finished
    (None: it plays on until the other side stops). It then commits by itself, so that its
    commitment never races its stop."""
    rng = rng or random.Random()
    seat = client.seat
    assert seat is not None, "spectators cannot play"
    if stop_money_after is not None:
        client.auto_commit = False

    def my_turn(t: Tracker) -> bool:
        return t.over is not None or t.owes(seat) in MY_TURN

    while True:
        await client.wait_for(my_turn, timeout)
        t = client.tracker
        if t.over is not None:
            return t.over  # type: ignore[return-value]
        owed = t.owes(seat)
        if think[1]:
            await asyncio.sleep(rng.uniform(*think))
        if owed == "commit":
            money = t.settings is not None and t.settings.mode == "money"
            if stop_money_after is not None and money and t.games_finished >= stop_money_after:
                await client.stop_session()
            elif not client.auto_commit:
                await client.commit()
            # wait for the phase to move on
            await client.wait_for(lambda t: t.owes(seat) != "commit" or t.over is not None)
            continue
        version = t.version
        try:
            reply = await _act(client, seat, owed, t, rng, double_rate, take_rate)
        except ClientClosed:
            # The match ended while this action waited for its answer (the link dropped
            # after the match_over event, before the ack): it is over, which is what we
            # played for. Any other end is the caller's to hear.
            if client.tracker.over is not None:
                return client.tracker.over  # type: ignore[return-value]
            raise
        if reply is None:
            continue  # the match moved on while we were being woken: look again
        if isinstance(reply, m.Reject):
            raise RuntimeError(f"the server refused a legal action: {reply}")
        # Wait for the event that our action caused before deciding again.
        await client.wait_for(lambda t, v=version: t.version > v or t.over is not None, timeout)


async def _act(
    client: MatchClient,
    seat: int,
    owed: str | None,
    t: Tracker,
    rng: random.Random,
    double_rate: float,
    take_rate: float,
) -> m.ServerMessage | None:
    """Send the action ``owed`` and return its answer (None: nothing this seat can do now)."""
    if owed == "decide":
        if t.may_double(seat) and rng.random() < double_rate:
            return await client.double()
        return await client.roll()
    if owed == "move":
        assert t.dice is not None
        plays = t.legal_plays(seat)
        return await client.move(rng.choice(plays).moves if plays else ())
    if owed == "take":
        if rng.random() < take_rate:
            return await client.take()
        return await client.drop_double()
    if owed == "resign":
        return await client.answer_resignation(rng.random() < 0.5)
    return None
