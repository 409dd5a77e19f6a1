"""``fairgammon analyse``: run analysis worker processes.

Each worker takes finished games from the Redis work queue (``fg:analysis:jobs``), analyses them
with the nets at 1-ply (docs/analysis.md) and stores the reports that
``/api/matches/<id>/games/<n>/analysis.json`` serves; with no 1-ply work waiting, each worker
analyses those games again deeper and replaces their reports (``FAIRGAMMON_ANALYSIS_DEEP=0``:
not). Run as many as you like anywhere that reaches Redis: they share the queue, and a game left
by a worker that died is taken over. ``fairgammon serve`` already runs one (``--analysers``).
The flags and processes are those of every worker command (:mod:`server.cli.workers`).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from server.cli.workers import WorkerCommand

if TYPE_CHECKING:
    import asyncio


async def work(args: argparse.Namespace, redis_url: str, stop: asyncio.Event) -> None:
    from server.work.analysis_worker import AnalysisWorker

    await AnalysisWorker(redis_url).run(stop)


COMMAND = WorkerCommand(
    name="analyse", what="analysis worker", count_setting="FAIRGAMMON_ANALYSERS", work=work)
add_arguments = COMMAND.add_arguments
run = COMMAND.run
