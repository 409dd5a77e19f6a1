"""Work tier: the server's side of background work — the analysis jobs (on the work queue of the
top-level ``work`` package, which the bots share), their listener on the match-event bus
(``analysis_listener``: each finished game queued) and their worker, and the matches against the
computer (``botmatch``: a bot seated through the bots' queue).

It may import ``server.match``, ``server.ops``, ``server.machine`` and the packages below the
server; never ``server.players`` (a sibling) or ``server.web``. Checked by
``tests/unit/test_tiers.py``.
"""
