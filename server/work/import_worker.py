"""The analysis workers' handler of imported games (:mod:`server.work.import_queue`): the
stored file read again (:func:`engine.importer.read_match`), the game analysed exactly as a game
played here (:func:`analysis.core.analyse`, the same report JSON), the report stored."""

from __future__ import annotations

import asyncio
import json
import time

import redis.asyncio as aioredis

from analysis.core import analyse
from analysis.equity import Evaluator
from analysis.game import GameInput
from analysis.report import to_json
from engine.importer import MatchFileError, read_match
from server.ops import logs
from server.work import import_queue as queue
from work.runner import Lease

log = logs.get("analysis")


def report_of(text: str, fmt: str, game: int, evaluator: Evaluator) -> dict:
    """Game ``game`` of the file, analysed (raises ``LookupError`` for no such finished game)."""
    record = read_match(text, fmt).record
    if not 1 <= game <= len(record.games) or record.games[game - 1].result is None:
        raise LookupError(f"no finished game {game}")
    return to_json(analyse(GameInput.of(record, record.games[game - 1]), evaluator))


async def handle(redis: aioredis.Redis, evaluator: Evaluator, job: queue.ImportedGame,
                 lease: Lease) -> None:
    started = time.perf_counter()
    try:
        stored = await queue.found(redis, job.imported)
        if stored is None:
            raise LookupError("no such import")
        body = await asyncio.to_thread(report_of, stored["text"], stored["format"], job.game,
                                       evaluator)
    except (LookupError, MatchFileError) as exc:
        await redis.set(queue.report_key(job.imported, job.game),
                        json.dumps({"status": "failed", "message": str(exc)}))
    except Exception as exc:  # a bug: say so, keep working
        log.exception("import analysis failed", extra=logs.fields(imported=job.imported))
        await redis.set(queue.report_key(job.imported, job.game),
                        json.dumps({"status": "failed", "message": repr(exc)}))
    else:
        body.update(status="done", game=job.game, seconds=round(time.perf_counter() - started, 3))
        await redis.set(queue.report_key(job.imported, job.game), json.dumps(body))
    await lease.finish()
