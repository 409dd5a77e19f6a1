"""The asyncio client on a new device (the seat token, no dice secret): it re-commits a fresh
chain between rolls by itself and plays on; the finished game's transcript verifies with the
re-commitment in it (docs/fairness.md, section 7)."""

from __future__ import annotations

import asyncio
import json
import random

from harness.failure_kit import play_until
from harness.srv_support import Recorder, check_stream, seat_two, stored_frames
from protocol import events as pe
from protocol import messages as m
from protocol.client import play_random
from protocol.client.lobby import get_text
from protocol.fairdice import verify_json


async def test_a_seat_taken_over_by_a_new_device_recommits_and_finishes(server):
    seated = await seat_two(server.base, mode="single_game")
    rng = random.Random(5)
    a = seated.client(server.ws, 0)
    old_b = seated.client(server.ws, 1)
    async with a, old_b:
        # Played one decision at a time up to a moment between two rolls (re-committing is
        # allowed then, not during a roll): Ann is to roll, Bob's laptop goes away.
        await play_until((a, old_b), lambda: a.tracker.k > 4 and a.owes() == "decide", rng)
        await old_b.close()
        # Bob's phone: the seat token only, an empty secrets store.
        log, store = Recorder(), {}
        phone = seated.client(server.ws, 1, secrets_store=store)
        async with phone:
            await phone.wait_for(lambda t: t.recommits[1] == 1, timeout=10)
            k0 = phone.tracker.recommitted[1][1]
            await play_until((a, phone), lambda: a.tracker.k > k0 + 3 and a.owes() == "decide")
        (answer,) = phone.recommit_replies
        assert isinstance(answer, m.Ack), answer
        # The phone's app restarts: the same store, a new client (it gets a snapshot, which
        # counts the re-commitment without its link): it reveals on from the kept chain.
        again = seated.client(server.ws, 1, secrets_store=store, on_event=log)
        async with again:
            results = await asyncio.wait_for(
                asyncio.gather(
                    play_random(a, random.Random(rng.random())),
                    play_random(again, random.Random(rng.random())),
                ),
                90,
            )
        assert results[0] == results[1]
        assert results[0].reason == "completed", results[0]
        assert again.recommit_replies == [] and again.tracker.recommits == [0, 1]
        recommits = [e for e in phone.tracker.history if isinstance(e, pe.Recommitted)]
        assert [(r.seat, r.game, r.k) for r in recommits] == [(1, 1, k0)]
    check_stream(log.messages, await stored_frames(server.redis_url, seated.match_id))
    path = f"/api/matches/{seated.match_id}/games/1/transcript.json"
    transcript = await get_text(server.base, path)
    verdict = verify_json(transcript)
    assert verdict.recommitments == 1
    assert [r["seat"] for r in json.loads(transcript)["recommitments"]] == [1]
