"""Lost writes are counted on the server's own evidence, never on a client's word.

A forged ``resync`` or ``hello`` whose ``last_v`` is beyond the stored version, from a seat or
an anonymous spectator, changes nothing: the client gets a snapshot of what the store holds,
the match plays on, nothing is counted in ``fairgammon_lost_writes_total`` and nothing is
logged at error level (one rate-limited warning, and ``fairgammon_unconfirmed_ahead_total``).
A real loss still counts: a match rolled back under a live server is counted when a client
comes back from a version this process had stored, and a Redis restarted from an old snapshot
is counted by the process that stored the lost writes, with no client's help
(docs/operations.md, "A failover that lost the last writes"). tests/failure/test_fail_failover.py
loses writes in a real failover."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

from harness.failure_kit import HUMAN, Stack, metric, play_until, stack_fixture, until
from harness.redis_cluster import command
from harness.serverproc import ServerProcess
from harness.srv_support import (
    Peer,
    assert_log_replays,
    play_out,
    seat_two,
    store_at,
    stored_version,
)
from protocol import codec
from protocol import messages as m
from protocol.client import MatchClient
from protocol.limits import PROTOCOL_VERSION
from server.match.store import log_key, state_key

stack = stack_fixture()
LOST = "fairgammon_lost_writes_total"
SEEN = ("resume", "audit", "gap", "commit", "action", "note")


async def lost_writes(proc: ServerProcess) -> dict[str, float]:
    return {seen: await metric(proc.base, LOST, f'{{seen="{seen}"}}') for seen in SEEN}


def log_lines(proc: ServerProcess, start: int) -> list[dict[str, Any]]:
    assert proc.log_path is not None
    lines = proc.log_path.read_bytes()[start:].decode().splitlines()
    return [json.loads(x) for x in lines if x.startswith("{")]


def log_size(proc: ServerProcess) -> int:
    assert proc.log_path is not None
    return proc.log_path.stat().st_size


async def quiet(*clients: MatchClient) -> None:
    """Until the match waits for a player's decision (nothing happens by itself: no reveal in
    flight) and every client has seen all of it."""
    await until(lambda: len({c.tracker.version for c in clients}) == 1
                and any(c.owes() in HUMAN for c in clients))  # fmt: skip


async def test_forged_claims_ahead_of_the_store_change_nothing_and_page_nobody(stack: Stack):
    proc = await asyncio.to_thread(stack.server)
    start = log_size(proc)
    seated = await seat_two(proc.base, mode="single_game")
    (a, b, w), (seen_a, _, _) = seated.recorded((proc.ws, 0), (proc.ws, 1), (proc.ws, None))
    async with a, b, w:
        await play_until((a, b), lambda: w.tracker.version >= 12)
        await quiet(a, b, w)
        stored = await stored_version(stack.redis.url, seated.match_id)
        # A seat, on its own connection: forged resyncs, many of them.
        for _ in range(20):
            mark = len(seen_a.messages)
            await a.send_raw(codec.encode(m.Resync(stored + 1000)))
            await until(lambda mark=mark: any(isinstance(x, m.Snapshot)
                                              for x in seen_a.messages[mark:]))  # fmt: skip
            snapshot = next(x for x in seen_a.messages[mark:] if isinstance(x, m.Snapshot))
            assert snapshot.v == stored  # what the store holds, nothing more
        # Anonymous spectators, in their hello.
        for _ in range(5):
            spectator = await Peer.open(proc.ws)
            hello = m.Hello(PROTOCOL_VERSION, seated.match_id, None, stored + 50, None)
            await spectator.send_msg(hello)
            assert (await spectator.next(m.Snapshot)).v == stored
            await spectator.close()
        # Nothing changed: the store is where it was, and the match plays on to its end.
        assert await stored_version(stack.redis.url, seated.match_id) == stored
        results = await play_out(a, b, seed=3)
        await w.wait_for(lambda t: t.over is not None)
        assert results[0] == results[1] == w.tracker.over
    assert await lost_writes(proc) == dict.fromkeys(SEEN, 0.0)
    assert await metric(proc.base, "fairgammon_unconfirmed_ahead_total", '{role="seat"}') == 20
    assert await metric(proc.base, "fairgammon_unconfirmed_ahead_total", '{role="spectator"}') == 5
    logged = log_lines(proc, start)
    assert [x for x in logged if x["level"] in ("error", "critical")] == []
    warned = [x for x in logged if "unconfirmed" in x["msg"]]
    assert len(warned) == 1, warned  # 25 claims in a few seconds: one warning (10 s apart)
    assert warned[0]["level"] == "warning" and warned[0]["match"] == seated.match_id
    await assert_log_replays(stack.redis.url, seated.match_id)


async def _dump(redis_url: str, match_id: str) -> dict[str, bytes]:
    async with store_at(redis_url) as store:
        keys = (state_key(match_id), log_key(match_id))
        return {k: await store.redis.dump(k) for k in keys}


async def _restore(redis_url: str, dumped: dict[str, bytes]) -> None:
    async with store_at(redis_url) as store:
        for key, blob in dumped.items():
            await store.redis.restore(key, 0, blob, replace=True)


async def test_a_match_rolled_back_under_the_server_is_counted_when_its_seat_comes_back(
    stack: Stack,
):
    """The store loses a match's last writes while the server lives (its keys are put back as
    they were a few moves earlier): the seat that comes back from the version it was shown is
    believed, because this process stored that version itself; it is counted once."""
    proc = await asyncio.to_thread(stack.server)
    start = log_size(proc)
    seated = await seat_two(proc.base, mode="single_game")
    a, b = seated.client(proc.ws, 0), seated.client(proc.ws, 1)
    async with a, b:
        await play_until((a, b), lambda: a.tracker.version >= 10)
        await quiet(a, b)
        before = await _dump(stack.redis.url, seated.match_id)
        rolled_back = await stored_version(stack.redis.url, seated.match_id)
        await play_until((a, b), lambda: a.tracker.version >= rolled_back + 4)
        await quiet(a, b)
        shown = a.tracker.version
    await _restore(stack.redis.url, before)
    assert await stored_version(stack.redis.url, seated.match_id) == rolled_back
    for claimed in (shown, shown):  # the second: the same loss, not counted again
        peer = await Peer.open(proc.ws)
        await peer.hello(seated.match_id, seated.tokens[0], last_v=claimed)
        assert (await peer.next(m.Snapshot)).v == rolled_back
        await peer.close()
    assert (await lost_writes(proc))["resume"] == 1
    errors = [x for x in log_lines(proc, start) if x["level"] == "error"]
    assert [(x["msg"], x["match"], x["seen"]) for x in errors] == [
        ("store behind clients: writes lost", seated.match_id, "resume")
    ]
    assert (errors[0]["client_version"], errors[0]["stored_version"]) == (shown, rolled_back)


async def test_redis_restarted_from_an_old_snapshot_is_counted_by_the_process_that_lost(
    stack: Stack,
):
    """Redis comes back from a snapshot older than its last writes (its AOF gone), maybe too
    fast for a heartbeat to fail: the server process that stored them notices another Redis
    answering (its run_id), finds the match behind, with no client claiming anything (both
    players are gone), and counts it; the seats then come back and play on from the store."""
    proc = await asyncio.to_thread(stack.server)
    seated = await seat_two(proc.base, mode="single_game")
    a, b = seated.client(proc.ws, 0), seated.client(proc.ws, 1)
    async with a, b:
        await play_until((a, b), lambda: a.tracker.version >= 10)
        await quiet(a, b)
        assert command(stack.redis.port, "SAVE").startswith(b"+OK")
        saved = await stored_version(stack.redis.url, seated.match_id)
        await play_until((a, b), lambda: a.tracker.version >= saved + 4)
        await quiet(a, b)
        shown = a.tracker.version
    redis = stack.redis
    redis.kill()
    shutil.rmtree(Path(redis.data_dir) / "appendonlydir")
    durable = redis.extra_args
    redis.extra_args = (*durable, "--appendonly", "no")  # load the snapshot ...
    await asyncio.to_thread(redis.start)
    redis.extra_args = durable
    # ... then durably again
    assert command(redis.port, "CONFIG", "SET", "appendonly", "yes").startswith(b"+OK")
    assert await stored_version(redis.url, seated.match_id) == saved < shown
    for _ in range(200):
        if (await lost_writes(proc))["audit"] >= 1:
            break
        await asyncio.sleep(0.05)
    assert await lost_writes(proc) == {**dict.fromkeys(SEEN, 0.0), "audit": 1.0}
    # A seat comes back from what it was shown: a snapshot, and the loss is not counted again.
    peer = await Peer.open(proc.ws)
    await peer.hello(seated.match_id, seated.tokens[0], last_v=shown)
    assert (await peer.next(m.Snapshot)).v == saved
    await peer.close()
    # The players play on from the store to the end; nothing more is counted.
    a2, b2 = seated.client(proc.ws, 0), seated.client(proc.ws, 1)
    async with a2, b2:
        await play_out(a2, b2, seed=9)
    assert await lost_writes(proc) == {**dict.fromkeys(SEEN, 0.0), "audit": 1.0}
    await assert_log_replays(redis.url, seated.match_id)
