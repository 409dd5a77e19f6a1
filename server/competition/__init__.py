"""Competition tier: quick pairing and tournaments that run themselves.

The pure parts: the rules of the quick-pairing pool (``seeks``, with the vectors its Redis
script is held to: ``seek_vectors.json``, written by ``make_vectors``) and the tournament
machine (``machine``: ``apply(state, command, now)`` over the values of ``state``, ``commands``
and ``effects``; knockout brackets in ``knockout``, Swiss pairing in ``swiss`` over the matching
of ``matching``, arena pairing in ``arena``, points, tie-breaks and standings in ``scoring``).
The rules are written out in docs/tournaments.md.

The shells: quick pairing's pool in Redis and its one pairing script (``seek_pool``), the
matches it arranges and the news to the pages (``quick``, over ``news``: the processes' channel).

It may import ``server.match``, ``server.ops``, ``server.machine`` (the pure modules import only
``server.machine.serial``, ``engine`` and the standard library) and the packages below the
server; never ``server.players`` or ``server.work`` (its siblings) or ``server.web``. Checked by
``tests/unit/test_tiers.py``.
"""
