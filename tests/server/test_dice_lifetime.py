"""The lifetime dice audit through a real server: a player's matches, a public and a private
one, are counted by the bus listener as they end, and the figures equal the audit recomputed
here from the matches' transcripts alone (verified; each player's turn rolls, and the
positions they were rolled in replayed from the transcript's plays): all of them for the
player, the public one for everyone else. Then, on the same Redis: a match whose count was lost
(the process died after the commit) is counted by the sweep, once however often it is swept or
recorded again; and an account whose history predates the counters is backfilled from it on
read, a bounded part per read, once however many readers ask at the same time."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

from analysis.dice_audit import Tally, tables, tally
from engine.position import Position
from engine.validate import validate_play
from harness.accounts import Browser, signed_up
from harness.srv_support import play_out, store_at
from protocol.client import MatchClient, join_match
from protocol.client.lobby import get
from protocol.fairdice import verify_json
from server.machine import serial
from server.machine.state import MatchState
from server.match.history import read_log
from server.players.accounts_store import DICE_DUE, AccountsStore, dice_done_key, dice_key
from server.players.dice_ledger import DiceLedger
from server.players.dice_ledger import figures as ledger_figures


def transcript_tally(doc: dict[str, Any], seat: int) -> Tally:
    """``seat``'s turn rolls in one game's transcript, verified, tallied in the positions
    replayed from the transcript's own plays (the deciding roll-off roll is nobody's roll)."""
    verdict = verify_json(doc)
    assert verdict.plays_replayed
    plays = {a["k"]: a for a in doc["actions"] if a["type"] == "move"}
    boards = [Position.start().mover, Position.start().opponent]
    rolls = []
    for roll in doc["rolls"]:
        k, d1, d2 = roll["k"], roll["d1"], roll["d2"]
        if roll["kind"] == "rolloff":
            if k not in plays:
                continue  # a tie
            mover = plays[k]["seat"]
        else:
            mover = roll["roller"]
        before = Position.unchecked(boards[mover], boards[1 - mover])
        moves = tuple(tuple(m) for m in plays.get(k, {}).get("moves", []))
        if roll["kind"] == "turn" and mover == seat:
            rolls.append(SimpleNamespace(dice=(d1, d2), before=before, moves=moves))
        after = validate_play(before, d1, d2, moves).position
        boards[mover], boards[1 - mover] = after.mover, after.opponent
    return tally(rolls)  # type: ignore[arg-type]


async def play(server, ann: Browser, private: bool, seed: int) -> tuple[str, int]:  # type: ignore[no-untyped-def]
    created = (await ann.post("/api/matches", {"mode": "match", "length": 1, "name": "x",
                                               "private": private})).body
    match_id = created["match"]
    invite = created["invite"].split("#join=")[1] if private else None
    joined = await join_match(server.base, match_id, name="Bob", invite=invite)
    a = MatchClient(server.ws, match_id, created["token"])
    b = MatchClient(server.ws, match_id, joined["token"])
    async with a, b:
        await play_out(a, b, seed=seed)
    return match_id, created["seat"]


async def audited(server, match_id: str, seat: int) -> Tally:  # type: ignore[no-untyped-def]
    export = await get(server.base, f"/api/matches/{match_id}/transcript.json")
    assert export["games"] and not export["left_out"]
    return sum((transcript_tally(g, seat) for g in export["games"]), Tally())


async def dice(browser: Browser) -> dict[str, Any]:
    reply = await browser.get("/api/players/dicer/skill")
    assert reply.status == 200, reply.body
    return reply.body["dice"]


def shown(counted: Tally) -> list[dict[str, Any]]:
    return [t.as_dict() for t in tables(counted)]


async def until(check, what: str) -> Any:  # type: ignore[no-untyped-def]
    for _ in range(300):
        if out := await check():
            return out
        await asyncio.sleep(0.05)
    raise AssertionError(f"never {what}")


async def test_lifetime_dice_audit(server, redis_url) -> None:
    ann = await signed_up(server.base, "dicer")
    public, seat_a = await play(server, ann, False, 5)
    private, seat_b = await play(server, ann, True, 6)
    mine = await audited(server, public, seat_a) + await audited(server, private, seat_b)
    theirs = await audited(server, public, seat_a)
    assert mine.rolls > 0  # (a double dropped early makes a short game: few rolls)

    async with store_at(redis_url) as store:
        redis = store.redis

        async def counted() -> bool:
            return await redis.scard(dice_done_key("dicer")) == 2

        # The listener counts each match as it ends, nobody reading (no backfill ran).
        await until(counted, "counted both matches")
        assert await redis.hget(dice_key("dicer"), "fill") is None
        figures = await dice(ann)
        assert figures == {"rolls": mine.rolls, "matches": 2, "pending": 0,
                           "tables": shown(mine)}
        # Anyone else (here: nobody signed in) sees the public match only.
        stranger = await dice(Browser(server.base))
        assert stranger == {"rolls": theirs.rolls, "matches": 1, "pending": 0,
                            "tables": shown(theirs)}

        async def load(match_id: str) -> MatchState:
            stored = await store.load(match_id)
            assert stored is not None
            return serial.loads(MatchState, stored.state)

        ledger = DiceLedger(AccountsStore(redis), load, lambda m: read_log(store, m))
        account = (await redis.hget("fg:{u:dicer}:acct", "id")).decode()
        before = await redis.hgetall(dice_key("dicer"))

        # Recorded again (a sweep's retry, another process): nothing changes.
        assert await asyncio.gather(ledger.record(public), ledger.record(private)) == [True, True]
        assert await redis.hgetall(dice_key("dicer")) == before

        # The process died after the commit, before counting: the counters never heard of the
        # public match (counted from scratch here), its mark is due. The sweep counts it once,
        # and a second sweep or a late listener adds nothing.
        await redis.delete(dice_key("dicer"), dice_done_key("dicer"))
        await redis.hset(dice_key("dicer"), "filled", "1")  # the backfill is through
        # (The server's own sweeper, every second, may claim the mark first: either counts.)
        await AccountsStore(redis).due(public, 0, index=DICE_DUE)
        await ledger.sweep_once()

        async def swept() -> bool:
            return not await redis.zcard(DICE_DUE)

        await until(swept, "swept the mark")
        assert await ledger.sweep_once() == 0
        assert await ledger.record(public) is True
        assert await dice(Browser(server.base)) == stranger
        assert (await dice(ann))["tables"] == shown(theirs)  # the private one is not counted

        # Counters lost or never kept (an account from before them): its history is counted on
        # read, at most FILL_GAMES games a read (here one, to see it), never twice.
        await redis.delete(dice_key("dicer"), dice_done_key("dicer"))
        assert await ledger.fill("dicer", account, games=1) == 1  # the oldest: the public one
        raw = await redis.hgetall(dice_key("dicer"))
        counters = {k.decode(): v.decode() for k, v in raw.items()}
        assert counters["fill"] == "1" and "filled" not in counters
        assert ledger_figures(counters, "all") == {
            "rolls": theirs.rolls, "matches": 1, "tables": shown(theirs)}
        assert ledger_figures(counters, "pub") == ledger_figures(counters, "all")
        # Readers at the same time: one backfills, the others wait for nothing; then the
        # figures are whole, each match once.
        readers = await asyncio.gather(*(dice(ann) for _ in range(3)), dice(Browser(server.base)))
        assert any(r["pending"] == 0 for r in readers)
        assert await dice(ann) == figures
        assert await dice(Browser(server.base)) == stranger
        assert await redis.hget(dice_key("dicer"), "filled") == b"1"
        assert await redis.scard(dice_done_key("dicer")) == 2
