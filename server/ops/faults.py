"""Crash on purpose at a chosen point, for the failure tests (never set in production).

``FAIRGAMMON_CRASH_AT=<point>:<Command>`` makes the process exit abruptly (``os._exit``, no
cleanup, as SIGKILL would) the first time a ``<Command>`` (a class name of
:mod:`server.machine.commands`, or ``Expire`` for a timeout the clock settles) reaches
``<point>``:

* ``before_store`` — the transition is computed but not written: nothing happened;
* ``after_store`` — Redis has it (and published it to other processes) but this process has
  neither acknowledged it nor sent it to its own connections;
* ``after_finish`` — as ``after_store``, for the transition that ends a match only;
* ``mid_record`` — a finished match's result is recorded for its first account but not yet
  for the second (:mod:`server.players.results`);
* ``after_pairing`` — the pool paired seeks (stored) but their match is not created yet
  (:mod:`server.competition.quick`);
* ``after_tournament_store`` — a tournament's transition is stored but none of its effects
  carried out (:mod:`server.competition.tournaments`; ``<Command>`` is ``Pair`` for a
  transition that pairs matches, else the tournament command's class name: ``MatchFinished``,
  ``Join``, ``Tick``...).

``Any`` in place of a command matches every command. With ``FAIRGAMMON_CRASH_MATCH=<match id>``
as well, only that match's transitions count (``after_store``, ``after_finish``): a test may
crash the process that stores the end of one chosen match, a tournament's final.

>>> parse("after_store:Reveal")
('after_store', 'Reveal')
"""

from __future__ import annotations

import os

from server.ops import logs

log = logs.get("faults")


POINTS = (
    "before_store",
    "after_store",
    "after_finish",
    "mid_record",
    "after_pairing",
    "after_tournament_store",
)


def parse(spec: str) -> tuple[str, str] | None:
    point, _, command = spec.partition(":")
    if point not in POINTS or not command:
        return None
    return point, command


_ARMED = parse(os.environ.get("FAIRGAMMON_CRASH_AT", ""))
_MATCH = os.environ.get("FAIRGAMMON_CRASH_MATCH") or None


def check(point: str, command: object, match: str | None = None) -> None:
    name = "Expire" if command is None else type(command).__name__
    if _MATCH is not None and match != _MATCH:
        return
    if _ARMED is not None and point == _ARMED[0] and _ARMED[1] in (name, "Any"):
        log.warning("crashing on purpose", extra=logs.fields(point=point))
        os._exit(70)
