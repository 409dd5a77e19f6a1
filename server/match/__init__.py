"""Match tier: everything a live match needs around the pure machine (``server.machine``) — the
Redis store and its batches, the server clock and the deadline sweeper, the hub and fanout of
events between processes, the gateway (one WebSocket per seat or spectator) and the connections
it offers to features (``connections``: what rewind and chat may do with them), presence, rewind
after a store lost writes, the match service that applies and stores each transition (with what
each commit stores beside the state, ``stored``, and the global indexes, ``indexes``), the
match-event bus that tells the rest of the server what was stored (``bus``; its metrics
listener, ``tally``), the secrets of a match (``tokens``), the rematch, the one process across
matches (``rematch``), the replay of a log and the history of finished games (``history``:
transcripts, engine events, records).

Features of higher tiers hear of matches by listening on the bus (registered in
``server/app.py``), never by changing the match service.

It may import ``server.ops``, ``server.machine`` and the packages below the server (``engine``,
``protocol``, ``brain``, ``bots``, ``analysis``); never ``server.players``, ``server.work`` or
``server.web``, which build on it. Checked by ``tests/unit/test_tiers.py``.
"""
