"""The snapshot's ``heads``: each seat's latest public link, which its next reveal hashes to
(so a client joining part way verifies the next roll), and nothing before both committed
(nor any held-back reveal)."""

from __future__ import annotations

import random

from engine.match import MatchOptions
from harness.machine_driver import Seat
from protocol.fairdice import GameId, chain_step
from server.machine import core
from server.machine.commands import Join
from server.machine.state import Config, Phase
from server.machine.view import public_view

MID = "00112233445566778899aabbccddeeff"


def test_heads_lead_to_every_next_reveal_and_never_show_a_held_reveal():
    state, _ = core.create(MID, Config(MatchOptions.single_game(), clock_ms=30_000), "ann", 0)
    state = core.apply(state, Join(1, name="bob"), 1).state
    rng = random.Random(3)
    seats = [Seat(0, random.Random(1)), Seat(1, random.Random(2))]
    now, checked = 10, 0
    while not state.is_over and checked < 60:
        view = public_view(state).game
        heads = view.heads if view is not None else (None, None)
        if state.phase is Phase.COMMIT or None in state.dice.commitments:
            assert heads == (None, None)  # not before both committed
        else:
            # Each head is the seat's link at index k: the next reveal hashes to it.
            for seat in (0, 1):
                chain = seats[seat].chain(MID, state.dice.game)
                assert heads[seat] == chain.link(view.k)
                game_id = GameId(bytes.fromhex(MID), state.dice.game)
                nxt = chain.link(view.k + 1)
                assert chain_step(game_id, seat, view.k + 1, nxt) == heads[seat]
                held = state.dice.pending[seat]
                assert held is None or held not in heads  # a held reveal never shows
            checked += 1
        for seat in rng.sample(seats, 2):
            command = seat.decide(state)
            if command is not None:
                now += 1
                state = core.apply(state, command, now).state
                break
    assert checked >= 20
