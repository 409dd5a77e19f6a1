"""Operations tier: what a server process needs whatever it serves — settings from the
environment, logs, metrics, fault injection for the failure tests, child processes, the Redis
processes and links (sentinel, primary following), the durability guard, task helpers, the
unit a per-client limit counts and the token bucket of every allowance.

It may import the standard library, third-party packages and the packages below the server
(``protocol`` today); no other tier of ``server`` (everything else builds on it). Checked by
``tests/unit/test_tiers.py``.
"""
