"""The analysis worker: takes finished games from the Redis work queue
(:mod:`server.work.analysis_queue`, through the work queue's runner :mod:`work.runner`), reads
each game's event log, analyses it with the nets (:func:`analysis.core.analyse`, in a thread:
the nets release the GIL) and stores the report. Progress is written to the game's status key
while it runs. Run by ``fairgammon analyse`` (and by ``fairgammon serve``).

Deeper when time allows (``deep``, ``FAIRGAMMON_ANALYSIS_DEEP``, on unless ``0``): once a 1-ply
report is stored the game is queued on ``fg:analysis:deep``; a worker with no 1-ply job waiting
analyses it again with :class:`analysis.equity.DeepEvaluator` (checker plays at 2-ply) and then
replaces the stored report in one ``SET``. Until then the 1-ply report is served: a deeper
report is never stored half done, and the status key is not touched. The deeper pass changes
only how checker plays are judged, so it takes the luck and the cube figures over from the 1-ply
pass (the unrounded :class:`analysis.core.Basis`, stored with the 1-ply report under
``basis_key``) instead of computing them again; without it (a job queued before, a basis that
cannot be read) it computes everything, to the same report.

The analysis board's deeper requests (:mod:`server.work.board_queue`, handled by
:mod:`server.work.board_worker`) are taken first: a player waits for them. Rollout batches
(:mod:`server.work.rollout_queue`, :mod:`server.work.rollout_worker`) come after the games and
the imported games (:mod:`server.work.import_queue`, :mod:`server.work.import_worker`), one
batch per turn.

An I/O shell: the analysis itself is the pure :mod:`analysis.core`; this module only moves
games in and reports out.
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import time

import redis.asyncio as aioredis

from analysis.core import Basis, GameReport, analyse
from analysis.equity import DeepEvaluator, Evaluator
from analysis.game import GameInput, NotAnalysed, check_analysed
from analysis.report import to_json
from server.machine import serial
from server.match.history import find_game, match_record, read_log
from server.match.store import Store
from server.ops import logs
from server.work import analysis_queue as queue
from server.work import (
    board_queue,
    board_worker,
    import_queue,
    import_worker,
    rollout_queue,
    rollout_worker,
)
from work.lease import Timing
from work.runner import Lease, Runner, Source

log = logs.get("analysis")

PROGRESS_EVERY_S = 0.25


class Unanalysable(Exception):
    """The job names no finished game."""


def deep_from_env() -> bool:
    """``FAIRGAMMON_ANALYSIS_DEEP``: analyse every game again deeper (default on; ``0`` off)."""
    return os.environ.get("FAIRGAMMON_ANALYSIS_DEEP", "1").strip() not in ("0", "", "false", "no")


class AnalysisWorker:
    """An analysis worker: the :class:`work.runner.Runner` of the analysis queue, one game at
    a time, 1-ply jobs first and deeper ones (when ``deep``) only when no 1-ply job waits; a
    job left by a dead worker is taken over after ``claim_idle_ms`` (default
    :data:`server.work.analysis_queue.CLAIM_IDLE_MS`). On ``stop`` it finishes the game in
    hand first."""

    def __init__(self, redis_url: str, name: str | None = None,
                 evaluator: Evaluator | None = None, deep: bool | None = None,
                 claim_idle_ms: int | None = None) -> None:
        self.redis = aioredis.from_url(redis_url)
        self.store = Store(self.redis)
        self.name = name or f"{socket.gethostname()}-{os.getpid()}"
        self._evaluator = evaluator
        self.deep = deep_from_env() if deep is None else deep
        self.analysed = 0
        self.deepened = 0
        timing = Timing(queue.CLAIM_IDLE_MS if claim_idle_ms is None else claim_idle_ms)
        boards = Timing(board_queue.CLAIM_IDLE_MS if claim_idle_ms is None else claim_idle_ms)
        sources: list[Source] = [  # a player waits for a board request: it goes first
            Source(board_queue.BOARDS, lambda job, lease: board_worker.handle(
                self.redis, job, lease), boards),
            Source(queue.GAMES, self.handle_game, timing),
            Source(import_queue.GAMES, lambda job, lease: import_worker.handle(
                self.redis, self.evaluator, job, lease), timing),
            Source(rollout_queue.BATCHES, lambda job, lease: rollout_worker.handle(
                self.redis, job, lease), Timing(rollout_queue.CLAIM_IDLE_MS))]
        if self.deep:
            sources.append(Source(queue.DEEPER, self.handle_deeper, timing))
        self.runner = Runner(self.redis, self.name, sources, drain=True, log=log)

    @property
    def evaluator(self) -> Evaluator:
        if self._evaluator is None:
            self._evaluator = Evaluator()
        return self._evaluator

    async def run(self, stop: asyncio.Event | None = None) -> None:
        # Load the nets before the first job, off the event loop.
        await asyncio.to_thread(lambda: self.evaluator)
        log.info("analysis worker ready", extra=logs.fields(worker=self.name))
        try:
            await self.runner.run(stop)
        finally:
            await self.redis.aclose()

    async def handle_game(self, job: queue.GameAnalysis, lease: Lease) -> None:
        """The 1-ply analysis of a finished game: its report stored (and the game queued for
        the deeper pass), or its status set to failed with the reason."""
        match_id, game_no = job.match_id, job.game
        started = time.perf_counter()
        try:
            report = await self.report(match_id, game_no)
        except NotAnalysed as exc:  # a variant the nets do not know: said so, for good
            await self.redis.set(queue.status_key(match_id, game_no), queue.unavailable(exc))
        except Unanalysable as exc:
            await self.redis.set(queue.status_key(match_id, game_no),
                                 json.dumps({"status": "failed", "message": str(exc)}))
        except Exception as exc:  # a bug: say so in the status, keep working
            log.exception("analysis failed", extra=logs.fields(match=match_id, game=game_no))
            await self.redis.set(queue.status_key(match_id, game_no),
                                 json.dumps({"status": "failed", "message": repr(exc)}))
        else:
            body = report_body(report, match_id, game_no)
            body["seconds"] = round(time.perf_counter() - started, 3)
            if self.deep:  # pages showing this report keep asking until the deeper one lands
                body["deeper"] = True
            async with self.redis.pipeline(transaction=True) as pipe:
                pipe.set(queue.report_key(match_id, game_no), json.dumps(body))
                if self.deep:  # what the deeper pass takes over
                    pipe.set(queue.basis_key(match_id, game_no), serial.dumps(report.basis()))
                pipe.set(queue.status_key(match_id, game_no), json.dumps({"status": "done"}))
                await pipe.execute()
            self.analysed += 1
            log.info("game analysed", extra=logs.fields(
                match=match_id, game=game_no, seconds=body["seconds"]))
            if self.deep:
                await queue.enqueue_deep(self.redis, match_id, game_no)
        await lease.finish()

    async def handle_deeper(self, job: queue.DeepAnalysis, lease: Lease) -> None:
        """The deeper pass of :meth:`_deepen`, then the entry is finished whatever came of it."""
        await self._deepen(job.match_id, job.game)
        await lease.finish()

    async def _deepen(self, match_id: str, game_no: int) -> None:
        """Analyse a game again deeper and replace its stored report, in one ``SET``, once the
        deeper report is whole; on any failure the 1-ply report stays. The 1-ply pass's basis
        is used when there is one, and deleted either way (nothing else reads it)."""
        started = time.perf_counter()
        deeper = DeepEvaluator(self.evaluator.nets)
        basis = await self.basis(match_id, game_no, deeper)
        try:
            report = await self.report(match_id, game_no, deeper, report_progress=False,
                                       basis=basis)
        except Exception:
            log.exception("deeper analysis failed", extra=logs.fields(
                match=match_id, game=game_no))
            await self.redis.delete(queue.basis_key(match_id, game_no))
            await self._no_deeper(match_id, game_no)
            return
        body = report_body(report, match_id, game_no)
        body["seconds"] = round(time.perf_counter() - started, 3)
        async with self.redis.pipeline(transaction=True) as pipe:
            pipe.set(queue.report_key(match_id, game_no), json.dumps(body))
            pipe.delete(queue.basis_key(match_id, game_no))
            await pipe.execute()
        self.deepened += 1
        log.info("game analysed deeper", extra=logs.fields(
            match=match_id, game=game_no, depth=body["level"], seconds=body["seconds"],
            reused=basis is not None))

    async def _no_deeper(self, match_id: str, game_no: int) -> None:
        """The stored 1-ply report no longer says a deeper one is coming (it failed)."""
        raw = await self.redis.get(queue.report_key(match_id, game_no))
        body = json.loads(raw) if raw else None
        if isinstance(body, dict) and body.pop("deeper", None) is not None:
            await self.redis.set(queue.report_key(match_id, game_no), json.dumps(body))

    async def basis(self, match_id: str, game_no: int, evaluator: Evaluator) -> Basis | None:
        """The stored basis of a game's analysis by ``evaluator``: None when there is none, or
        none it can use (then the analysis computes everything)."""
        blob = await self.redis.get(queue.basis_key(match_id, game_no))
        if blob is None:
            return None
        try:
            basis = serial.loads(Basis, blob)
        except Exception:  # stored by another version: the full analysis gives the same report
            log.warning("unreadable analysis basis", extra=logs.fields(
                match=match_id, game=game_no))
            return None
        return basis if basis.level == evaluator.base_level else None

    async def game_input(self, match_id: str, game_no: int) -> GameInput:
        """The analysis input of one finished game (raises :class:`Unanalysable` when there is
        none), from the match's event log."""
        entries = await read_log(self.store, match_id)
        if not entries:
            raise Unanalysable("no such match")
        record = match_record(entries)
        try:
            game = find_game(record, game_no)
        except KeyError:
            raise Unanalysable(f"no game {game_no}") from None
        if not game.is_over:
            raise Unanalysable(f"game {game_no} is not finished")
        check_analysed(game)  # NotAnalysed: a variant the nets do not know
        return GameInput.of(record, game)

    async def report(self, match_id: str, game_no: int, evaluator: Evaluator | None = None,
                     report_progress: bool = True, basis: Basis | None = None) -> GameReport:
        """The analysis of one finished game (raises :class:`Unanalysable` when there is none):
        by ``evaluator`` (default the worker's, 1-ply) on ``basis`` if given (see
        :func:`analysis.core.analyse`), writing progress to the status key when
        ``report_progress``."""
        game_input = await self.game_input(match_id, game_no)
        progress: list[tuple[int, int]] = []
        task = asyncio.to_thread(analyse, game_input, evaluator or self.evaluator,
                                 lambda done, total: progress.append((done, total)), basis)
        running = asyncio.ensure_future(task)
        key = queue.status_key(match_id, game_no)
        while not running.done():
            await asyncio.wait({running}, timeout=PROGRESS_EVERY_S)
            if report_progress and progress and not running.done():
                await self.redis.set(key, queue.pending(progress[-1]))
        return running.result()


def report_body(report: GameReport, match_id: str, game_no: int) -> dict:
    """The stored JSON of a game's report (without its ``seconds``)."""
    body = to_json(report)
    body["match"] = match_id
    body["game"] = game_no
    return body
