"""Token buckets: the one rule of every allowance the server keeps — ``capacity`` at once, then
refilled at a steady rate (never beyond ``capacity``); a take with less than one token left is
refused and takes nothing.

Two forms of the rule, checked against the same vectors (tests/server/test_allowance.py):

* :class:`TokenBucket`, in this process's memory: a connection's frames (server/match/gateway.py;
  a frame must not cost a round trip to Redis);
* :data:`TAKE_TOKEN`, a Lua function for scripts that keep a bucket in Redis, so that every server
  process enforces the same allowance: the lobby's creations per client address
  (:data:`TAKE_ONE`, server/web/limits.py) and chat lines per speaker of a match, taken by the
  script that says the line (server/players/chat.py). Such a bucket is a hash, ``t``: the server
  time (ms) of its last take, ``n``: the tokens left then; it expires once it would be full again.
"""

from __future__ import annotations

import time

TAKE_TOKEN = """
local function take_token(key, cap, rate, now)
  local h = redis.call('HMGET', key, 't', 'n')
  local tokens = cap
  if h[1] then
    tokens = math.min(cap, tonumber(h[2]) + math.max(0, now - tonumber(h[1])) * rate)
  end
  if tokens < 1 then
    return math.ceil((1 - tokens) / rate)
  end
  redis.call('HSET', key, 't', now, 'n', tostring(tokens - 1))
  redis.call('PEXPIRE', key, math.ceil(cap / rate) + 1000)
  return 0
end
"""
"""``take_token(key, capacity, tokens per ms, now ms)``: takes one token from the bucket at
``key``; returns 0, or how many ms until there is one (then nothing is taken)."""

TAKE_ONE = (
    TAKE_TOKEN
    + "return take_token(KEYS[1], tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]))\n"
)
"""A script: KEYS: the bucket. ARGV: capacity, tokens per ms, now (ms). Returns 0 (one token
taken) or how many ms until there is one."""


class TokenBucket:
    """Burst ``capacity`` takes, refilled at ``rate`` per second, in memory.

    >>> b = TokenBucket(2, 1.0, now=0.0)
    >>> b.take(0.0), b.take(0.0), b.take(0.0), b.take(1.0)
    (True, True, False, True)
    """

    def __init__(self, capacity: int, rate: float, now: float | None = None) -> None:
        self.capacity = capacity
        self.rate = rate
        self.tokens = float(capacity)
        self.stamp = time.monotonic() if now is None else now

    def take(self, now: float | None = None) -> bool:
        now = time.monotonic() if now is None else now
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return True
        return False
