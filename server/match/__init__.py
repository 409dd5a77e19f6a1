"""Match tier: everything a live match needs around the pure machine (``server.machine``) — the
Redis store and its batches, the server clock and the deadline sweeper, the hub and fanout of
events between processes, the gateway (one WebSocket per seat or spectator) and the connections
it offers to features (``connections``: what rewind and chat may do with them), presence, rewind
after a store lost writes, the match service that applies and stores each transition, the replay
of a log and the history of finished games (``history``: transcripts, engine events, records).

It may import ``server.ops``, ``server.machine`` and the packages below the server (``engine``,
``protocol``, ``brain``, ``bots``, ``analysis``); never ``server.players``, ``server.work`` or
``server.web``, which build on it. Checked by ``tests/unit/test_tiers.py``.
"""
