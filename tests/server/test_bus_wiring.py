"""The listeners wired in server/app.py, through real server processes on one Redis: the
metrics listener (a third one beside analysis and results) hears each committed transition,
each finished game and the finished match exactly once across the processes, each in the
process that stored it; analysis queues every finished game with nobody asking for it; and
after a crash between a match's last commit and its listeners, as docs/architecture.md says,
the results listener (marked before the commit, swept after) still records the match, the
other listeners were told nothing, and the report is queued when first asked for."""

from __future__ import annotations

import asyncio
import random
import urllib.request
from collections import Counter

import msgpack
import redis.asyncio as aioredis

from harness.accounts import signed_up
from harness.failure_kit import Stack, command_records, stack_fixture
from harness.srv_support import seat_two
from protocol import events as pe
from protocol.client import ClientClosed, MatchClient, play_random
from protocol.client.lobby import get
from server.work import analysis_queue

CRASHED = 70

stack = stack_fixture()


async def samples(base: str, name: str) -> dict[str, float]:
    """Every sample of ``name`` on ``base``/metrics, by its label text (``{reason="..."}``)."""

    def fetch() -> str:
        with urllib.request.urlopen(f"{base}/metrics", timeout=5) as response:
            return response.read().decode()

    found = {}
    for line in (await asyncio.to_thread(fetch)).splitlines():
        if line.startswith((name + "{", name + " ")):
            key, value = line.rsplit(" ", 1)
            found[key[len(name):]] = float(value)
    return found


async def queued_games(redis_url: str, match_id: str, expected: int) -> list[int]:
    """The games of ``match_id`` on the analysis queue, once there are ``expected`` of them
    (queued by a task after the commit: waited for, up to 10 s)."""
    redis = aioredis.from_url(redis_url)
    try:
        for _ in range(200):
            entries = await redis.xrange(analysis_queue.JOBS)
            games = [int(f[b"game"]) for _, f in entries if f[b"match"] == match_id.encode()]
            if len(games) >= expected:
                return games
            await asyncio.sleep(0.05)
        return games
    finally:
        await redis.aclose()


async def test_each_transition_game_and_match_is_told_once_across_two_processes(
    stack: Stack,
) -> None:
    a = await asyncio.to_thread(stack.server)
    b = await asyncio.to_thread(stack.server)
    seated = await seat_two(a.base, mode="match", length=5)
    m = seated.match_id
    ann = MatchClient(a.ws, m, seated.tokens[0])  # seat 0 plays through process a
    bob = MatchClient(b.ws, m, seated.tokens[1])  # seat 1 through process b
    async with ann, bob:
        await asyncio.wait_for(
            asyncio.gather(  # no cube: a game is worth 3 points at most, so 2 games at least
                play_random(ann, random.Random(3), double_rate=0.0),
                play_random(bob, random.Random(4), double_rate=0.0),
            ),
            120,
        )
    logged = [e.data for e in await stack.log(m)]
    game_overs = [d for d in logged if isinstance(d, pe.GameOver)]
    (over,) = [d for d in logged if isinstance(d, pe.MatchOver)]
    transitions = len(await command_records(stack.redis.url, m))
    assert len(game_overs) >= 2 and over.reason == "completed"

    # The metrics listener of each process counted what that process stored: between them,
    # every transition once (each process some), every game once, the match once.
    per_process = [await samples(p.base, "fairgammon_commands_total") for p in (a, b)]
    assert all(sum(c.values()) > 0 for c in per_process), per_process
    assert sum(sum(c.values()) for c in per_process) == transitions
    games: Counter[str] = Counter()
    matches: Counter[str] = Counter()
    for p in (a, b):
        games.update(await samples(p.base, "fairgammon_games_finished_total"))
        matches.update(await samples(p.base, "fairgammon_matches_finished_total"))
    expected = Counter(f'{{reason="{g.reason}"}}' for g in game_overs)
    assert +games == expected
    assert +matches == Counter({'{reason="completed"}': 1})
    for p in (a, b):
        assert await samples(p.base, "fairgammon_listener_errors_total") == {}

    # The analysis listener queued every finished game, though nobody asked for a report.
    queued = await queued_games(stack.redis.url, m, len(game_overs))
    assert queued == [g.game for g in game_overs]


async def test_after_a_crash_between_the_last_commit_and_the_listeners(stack: Stack) -> None:
    proc = await asyncio.to_thread(stack.server, FAIRGAMMON_CRASH_AT="after_finish:Any")
    alice = await signed_up(proc.base, "alice")
    bob = await signed_up(proc.base, "bob")
    created = await alice.post("/api/matches", {"mode": "single_game"})
    assert created.status == 201, created.body
    m = created.body["match"]
    joined = await bob.post(f"/api/matches/{m}/join", {})
    assert joined.status == 200, joined.body

    # Bob leaves: the process stores the match's end, then dies before telling anyone.
    async with MatchClient(proc.ws, m, joined.body["token"]) as leaver:
        leaving = asyncio.create_task(leaver.leave())
        assert await stack.exited(proc) == CRASHED
        proc = await stack.restart(proc)
        try:
            await leaving  # resent to the new process: a duplicate, answered, not stored again
        except ClientClosed as closed:
            # Or the client heard the match end before the process died: the pub/sub copy of
            # the stored events may reach this process's connections before the committing
            # task goes on. Stored either way, once (below).
            assert closed.reason == "match_over", closed
    logged = [e.data for e in await stack.log(m)]
    assert [d.game for d in logged if isinstance(d, pe.GameOver)] == [1]
    assert logged[-1] == pe.MatchOver(0, logged[-1].score, "forfeit")

    # Results marked the match due before the commit: the new process's sweeper records it
    # for both accounts (the positive control: the new process is up and sweeping).
    redis = aioredis.from_url(stack.redis.url)
    try:
        for _ in range(200):
            histories = [await redis.lrange(f"fg:{{u:{n}}}:hist", 0, -1) for n in ("alice", "bob")]
            if all(histories):
                break
            await asyncio.sleep(0.1)
        for history in histories:
            assert [msgpack.unpackb(h, raw=False)["match"] for h in history] == [m]

        # The listeners told after the commit are told at most once: nobody told them.
        for name in ("commands", "games_finished", "matches_finished"):
            assert await samples(proc.base, f"fairgammon_{name}_total") == {}, name
        assert await analysis_queue.status(redis, m, 1) is None
        assert await redis.xlen(analysis_queue.JOBS) == 0
        # Analysis closes its gap on demand: the first request for the report queues it.
        answer = await get(proc.base, f"/api/matches/{m}/games/1/analysis.json")
        assert answer["status"] == "pending"
        assert await queued_games(stack.redis.url, m, 1) == [1]
    finally:
        await redis.aclose()
