"""The quick-pairing pool's Lua script (server/competition/seek_pool.py) on a real redis-server,
held to every case of server/competition/seek_vectors.json: the same pairs in the same order,
the same seeks gone by age, the same computer offers as the pure rules (server/competition/
seeks.py). Then what the script writes: the pairs leave the pool once (a second run pairs
nobody again), their match ids are derived, the outcomes are readable, an offer of the computer
is new only once, and outcomes are forgotten after KEEP_MS."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import redis.asyncio as aioredis

from server.competition import seek_pool
from server.competition.seek_pool import KEEP_MS, Keys, SeekPool, seek_json
from server.competition.seeks import Seek, offer_computer

VECTORS = json.loads(
    (Path(seek_pool.__file__).with_name("seek_vectors.json")).read_text(encoding="utf-8")
)


def seek(row: dict) -> Seek:
    return Seek(**row)


async def test_the_script_pairs_every_vector_case_as_the_rules_do(redis_url):
    redis = aioredis.from_url(redis_url)
    try:
        cases = VECTORS["cases"]
        assert len(cases) >= 70
        for n, case in enumerate(cases):
            pool = SeekPool(redis, Keys(f"fg:{{seeks}}:case{n}"))
            async with redis.pipeline(transaction=False) as pipe:
                for row in case["pool"]:
                    s = seek(row)
                    pipe.zadd(pool.k_pool, {s.id: s.since})
                    pipe.hset(pool.k_data, s.id, seek_json(s))
                await pipe.execute()
            run = await pool.run(case["now"])
            got = [[p.older, p.newer] for p in run.pairs]
            assert got == case["pairs"], case["name"]
            assert sorted(run.expired) == sorted(case["expired"]), case["name"]
            assert sorted(run.computer) == sorted(case["computer"]), case["name"]
            for p in run.pairs:
                label = f"fairgammon/seek-match/{p.older}/{p.newer}".encode()
                assert p.match == hashlib.sha1(label).hexdigest()[:32]
                assert await pool.state(p.older) == {"state": "paired", "match": p.match, "seat": 0}
                assert await pool.state(p.newer) == {"state": "paired", "match": p.match, "seat": 1}
                record = await pool.pair_record(p.match)
                assert record["seeks"] == [p.older, p.newer]
            for gone in run.expired:
                assert await pool.state(gone) == {"state": "gone", "why": "expired"}
            paired = {s for p in run.pairs for s in (p.older, p.newer)}
            assert set(run.computer_new) == set(run.computer) - paired - set(run.expired)
            left = {s.decode() for s in await redis.zrange(pool.k_pool, 0, -1)}
            assert left == {r["id"] for r in case["pool"]} - paired - set(run.expired)
            # Nobody is paired twice: a second run at the same time pairs and expires nobody;
            # it offers the computer to those the rules now find alone (their partners were
            # paired away), each once.
            again = await pool.run(case["now"])
            assert again.pairs == () and again.expired == ()
            rest = [seek(r) for r in case["pool"] if r["id"] in left]
            alone = {s.id for s in rest if offer_computer(s, rest, case["now"])}
            assert set(again.computer) == alone
            assert set(again.computer_new) == alone - set(run.computer_new)
    finally:
        await redis.aclose()


async def test_a_new_seek_pairs_at_once_cancel_and_forgetting(redis_url):
    redis = aioredis.from_url(redis_url)
    try:
        pool = SeekPool(redis)
        t = 1_000_000
        ann = Seek("a" * 32, "match", 3, 30, False, "b1", t)
        bob = Seek("b" * 32, "match", 3, 30, False, "b2", t + 10)
        cat = Seek("c" * 32, "match", 3, 30, False, "b3", t + 20)
        first = await pool.run(t, (ann.id, seek_json(ann, name="Ann")))
        assert first.pairs == () and await pool.state(ann.id) == {
            "state": "waiting",
            "computer": False,
        }
        second = await pool.run(t + 10, (bob.id, seek_json(bob, name="Bob")))
        assert [(p.older, p.newer) for p in second.pairs] == [(ann.id, bob.id)]
        record = await pool.pair_record(second.pairs[0].match)
        assert [d["name"] for d in record["data"]] == ["Ann", "Bob"]
        # The match waits for a process to create it: claimed only once the lease ran out.
        match = second.pairs[0].match
        assert await pool.claim_launches(t + 10) == []
        assert await pool.claim_launches(t + 10 + seek_pool.LAUNCH_LEASE_MS) == [match]
        await pool.launched(match)
        assert await pool.is_launched(match)
        # Alone for 5 s: the computer, told once.
        await pool.run(t + 20, (cat.id, seek_json(cat)))
        offer = await pool.run(t + 20 + 5_000)
        assert offer.computer_new == (cat.id,) and (await pool.state(cat.id))["computer"]
        assert (await pool.run(t + 20 + 6_000)).computer_new == ()
        assert await pool.looking(t + 20 + 6_000) == {("match", 3, 30, False): 1}
        # A page that closes takes its seek out; a paired seek stays paired.
        assert await pool.cancel(cat.id, t + 30_000) == {"state": "gone", "why": "cancelled"}
        assert (await pool.cancel(ann.id, t + 30_000))["state"] == "paired"
        assert await pool.cancel("f" * 32, t + 30_000) is None
        assert await pool.looking(t + 30_000) == {}
        # Outcomes and pair records are forgotten KEEP_MS after the seek left the pool.
        await pool.run(t + 10 + KEEP_MS)
        assert await pool.state(ann.id) is None and await pool.pair_record(match) is None
        assert (await pool.state(cat.id))["why"] == "cancelled"  # it left later
    finally:
        await redis.aclose()
