"""work: the work queue — jobs on Redis Streams, leased to worker processes, for every kind of
background work (bot seats, game analyses, and the kinds to come), written once.

* :mod:`work.lease` — the lease rules, pure (time comes in): where a worker looks for work
  (:func:`~work.lease.plan`: idle entries of dead workers before new ones, streams by
  priority), what it holds (:class:`~work.lease.Leases`: capacity, renewals on its beat, leases
  lost to another worker) and each kind's :class:`~work.lease.Timing` (idle time before a
  take-over; renewed or not);
* :mod:`work.kind` — :class:`~work.kind.Kind`: a stream, its consumer group and its typed job
  (a frozen dataclass with ``fields()``, its stored form, and ``of(fields)``);
* :mod:`work.streams` — the Redis commands, one per step (``XADD``, ``XGROUP CREATE``,
  ``XAUTOCLAIM``, ``XREADGROUP``, ``XPENDING``, ``XCLAIM ... JUSTID``, ``XACK`` + ``XDEL``; the
  alive sorted set);
* :mod:`work.runner` — the worker loop: :class:`~work.runner.Runner` runs each job's handler
  in a task of its own with a :class:`~work.runner.Lease` to finish it.

The kinds live with their owners: ``bots/queue.py`` (the bot seats, ``fg:bots:jobs``, worker
``bots/worker.py``) and ``server/work/analysis_queue.py`` (games to analyse,
``fg:analysis:jobs`` and ``fg:analysis:deep``, worker ``server/work/analysis_worker.py``). The
command line runs any kind's workers the same way (``server/cli/workers.py``).

Adding a third kind (say, rollouts), file by file:

1. ``server/work/rollout_queue.py`` (or ``bots/``, ``analysis/``…: wherever its owner ranks)
   — its Redis keys in the docstring, the job type (a frozen dataclass with ``fields()`` and
   ``of()``; choose field names for good: they are a stored format), its
   ``Kind(stream, group, Job)``, its idle time (``CLAIM_IDLE_MS``; renewed if a job can last
   longer than that) and an ``enqueue(redis, ...)`` over :func:`work.streams.add`;
2. ``server/work/rollout_worker.py`` — ``handle(job, lease)``, doing one job and then
   ``await lease.finish()``, and a class whose ``run(stop)`` runs a
   ``Runner(redis, name, [Source(KIND, handle, Timing(...))], capacity=..., log=...)``;
3. ``server/cli/rollouts.py`` — a ``WorkerCommand`` (its name, the worker, its own flags, its
   count setting) with ``add_arguments`` and ``run`` from ``server/cli/workers.py``, and its
   line in ``SUBCOMMANDS`` of ``server/cli/__init__.py``; in ``server/cli/serve.py`` a
   ``workers.start_with_server(...)`` if ``fairgammon serve`` is to run some alongside;
4. whoever queues the jobs calls its ``enqueue``: a route, or a listener of the match-event
   bus registered in ``server/app.py`` (as ``server/work/analysis_listener.py`` does);
5. docs: the stream in ``docs/architecture.md``'s Redis layout, the kind's own doc page;
   tests: its job's stored form (``tests/unit/test_work_lease.py`` holds the others'), its
   worker against a real Redis.

Imports no package of ours (stdlib and ``redis`` only), so that both the bots (below the server)
and the server's work tier may use it.
"""
