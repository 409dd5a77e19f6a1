"""The two forms of the token bucket (server/ops/allowance.py) give the same answers: the
in-memory :class:`TokenBucket` of a connection's frames and the Lua ``take_token`` of the
buckets kept in Redis (the lobby's creations, chat lines), driven through the same vectors on
a real Redis. The Lua form's wait is checked too: a refused take says when a token is there,
and a take at that moment succeeds."""

from __future__ import annotations

import math

import pytest

from harness.srv_support import store_at
from server.ops.allowance import TAKE_ONE, TokenBucket

# (capacity, tokens per second, [(seconds, taken?), ...]) from a full bucket at 0 s.
VECTORS = [
    (2, 1.0, [(0, True), (0, True), (0, False), (0.5, False), (1.0, True), (1.0, False),
              (3.5, True), (3.5, True), (3.5, False)]),
    # Chat's default: 5 at once, then one every 2 s.
    (5, 0.5, [*[(0, True)] * 5, (0, False), (1.999, False), (2.0, True), (2.0, False),
              (3.0, False), (4.0, True), (60.0, True), (60.0, True)]),
    # The lobby's default: 5 at once, then 10 a minute; never more than 5 however long it waits.
    (5, 10 / 60, [*[(0, True)] * 5, (0, False), (6.0, True), (6.0, False),
                  (3600.0, True), *[(3600.0, True)] * 4, (3600.0, False)]),
    (1, 2.0, [(0, True), (0.25, False), (0.5, True), (0.75, False), (10.0, True)]),
]  # fmt: skip


def in_memory(capacity: int, rate: float, takes: list[tuple[float, bool]]) -> list[bool]:
    bucket = TokenBucket(capacity, rate, now=0.0)
    return [bucket.take(t) for t, _ in takes]


@pytest.mark.parametrize(("capacity", "rate", "takes"), VECTORS)
async def test_both_forms_of_the_bucket_answer_the_vectors(
    redis_url: str, capacity: int, rate: float, takes: list[tuple[float, bool]]
) -> None:
    expected = [taken for _, taken in takes]
    assert in_memory(capacity, rate, takes) == expected
    per_ms = rate / 1000
    async with store_at(redis_url) as store:
        take = store.redis.register_script(TAKE_ONE)
        key = f"fg:test:bucket:{capacity}:{rate}"
        waits = [int(await take(keys=[key], args=[capacity, per_ms, int(t * 1000)]))
                 for t, _ in takes]  # fmt: skip
        assert [w == 0 for w in waits] == expected
        assert all(w > 0 for w in waits if w != 0)
        # An empty bucket's wait: still nothing one ms before it, a token at it.
        probe = f"{key}:probe"
        for _ in range(capacity):
            assert int(await take(keys=[probe], args=[capacity, per_ms, 0])) == 0
        wait = int(await take(keys=[probe], args=[capacity, per_ms, 0]))
        assert wait == math.ceil(1 / per_ms)
        assert int(await take(keys=[probe], args=[capacity, per_ms, wait - 1])) > 0
        assert int(await take(keys=[probe], args=[capacity, per_ms, wait])) == 0
        # The bucket expires once it would be full again (plus a second).
        ttl = await store.redis.pttl(probe)
        assert 0 < ttl <= math.ceil(capacity / per_ms) + 1000
