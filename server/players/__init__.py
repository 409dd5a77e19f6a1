"""Players tier: accounts and their store, FIBS ratings (``ratings``, the pure formula) and the
exactly-once results saga (``results``, a listener of the match-event bus, before and after
the commit that ends a match), profiles and leaderboards (``profiles``), and chat.

It may import ``server.match``, ``server.ops``, ``server.machine`` and the packages below the
server; never ``server.work`` (a sibling) or ``server.web``. Checked by
``tests/unit/test_tiers.py``.
"""
