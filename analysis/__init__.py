"""Game analysis: how well each player played and how lucky the dice were (docs/analysis.md).

* :mod:`analysis.game` — :class:`GameInput`, one game's turns and match context;
* :mod:`analysis.core` — :func:`analyse`: pure, a game in, a :class:`GameReport` out (the
  deeper pass on the :class:`Basis` of the 1-ply report: its luck and cube figures);
* :mod:`analysis.equity` — the :class:`Evaluator` over :mod:`brain`'s loaded nets (1-ply) and
  the :class:`DeepEvaluator` of the deeper pass (checker plays at 2-ply);
* :mod:`analysis.report` — the report as the API's JSON;
* :mod:`analysis.board` — the analysis board: a position and dice in, every legal play ranked
  (or the cube decision with its doubling window) out.

No I/O here: the Redis work queue and the worker that analyses every finished game in the
background are the server's (``server/work/analysis_queue.py``, ``server/work/analysis_worker.py``).
"""
