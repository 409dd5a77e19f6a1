"""HTTP tier: the routes and pages — the lobby, its limits, accounts, hints, records, exports,
the pages with their Content-Security-Policy, the Origin check, the request guard (slow and
oversized requests) — and what the route modules share: the body reader (``http_input``) and
the rest (``common``: the error answer, how each refusal is answered, the match of the path,
seat tokens, the client's address). A route module imports no other route module.

It may import every lower tier of the server (``server.players``, ``server.work``,
``server.match``, ``server.ops``, ``server.machine``) and the packages below the server; only
``server.app`` and ``server.cli`` import it. Checked by ``tests/unit/test_tiers.py``.
"""
