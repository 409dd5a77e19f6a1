"""Hints, only in matches against the computer (where they cannot help anyone cheat).

    POST /api/matches/{id}/hint   {token}

For the seat holding ``token``, in the decision it owes now:

* ``move`` — the best plays of the current roll, up to three, best first, each with its
  ``moves`` (``[from, to]`` pairs, as in a ``move`` message), the same written in the standard
  notation of the move record (``play``: ``bar/23 6/5(2)``, :func:`engine.notation.play_text`),
  its ``equity`` and the chance to ``win``; equities are the Expert level's (bgsage 2-ply),
  cubeful, from the player's side (money: points per unit cube; match play: match equity,
  −1 … +1);
* ``decide`` — the cube advice: ``double`` or ``no_double`` (``cube`` is null when the rules do
  not allow a double now: just roll). The rules are the engine's, the same as the Double
  button's (:func:`engine.match.cube_in_play`, :meth:`engine.cube.Cube.may_double`): a dead
  cube may be turned (a match to 1, a leader after the Crawford game). A double then gains the
  player nothing and gives the opponent a match-winning cube, so the advice is ``no_double``
  with ``dead`` true and no equities (the nets' cube figures mean nothing there);
* ``take`` — the answer to the double: ``take``, ``drop`` or ``beaver``.

``cube`` carries the three cubeful equities of the player on roll (``no_double``,
``double_take``, ``double_pass``; null for a dead cube), ``dead`` and the ``win`` chance of the
player asking. Facing a double (``take``) the figures of the player who must decide are added:
``take`` and ``pass``, that player's equities after taking and after passing (the doubler's
``double_take`` and ``double_pass`` with the sign turned; null in the other phases).

One search per decision: the answer depends only on the match state, so each process keeps the
last answers by (match, seat, version) and asks the nets once however often a player asks
(concurrent asks wait for the same search); at most ``SEARCHES`` searches run at once.

Errors: ``hints_unavailable`` (403) in a match between people, and in a game of plakoto or
fevga (the nets know backgammon's moves only: the computer plays those by a heuristic);
``forbidden`` (403) for a token that holds no seat; ``no_decision`` (409) when the seat owes
no move or cube decision now.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route

from bots.catalog import STYLES, Level
from bots.heuristic import SCORES
from brain.context import context_for
from engine.match import cube_is_dead
from engine.notation import play_text
from protocol.errors import ErrorCode
from server.machine import core
from server.machine.state import MatchState, owing
from server.match.tokens import seat_of
from server.web.common import BadRequest, handles_errors, match_id_of, required_secret, service
from server.web.http_input import STRING, Fields, takes
from server.work import botmatch

TOP = 3
HINT_PLY = STYLES[Level.EXPERT].ply
SEARCHES = 2
"""Hint searches running at once in one process (each keeps a core busy)."""
HINT: Fields = {"token": STRING}
NO_NETS = frozenset(SCORES)
"""The variants the computer plays by a heuristic (plakoto, fevga): no hints there."""


class Answers:
    """The last ``size`` answers by key; concurrent asks for one key share one computation."""

    def __init__(self, size: int = 512) -> None:
        self.size = size
        self._entries: OrderedDict[Hashable, asyncio.Future[Any]] = OrderedDict()

    async def get(self, key: Hashable, compute: Callable[[], Awaitable[Any]]) -> Any:
        entry = self._entries.get(key)
        if entry is None:
            entry = asyncio.ensure_future(compute())
            self._entries[key] = entry
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
        return await asyncio.shield(entry)


_answers = Answers()
_searches = asyncio.Semaphore(SEARCHES)


async def _search(state: MatchState, seat: int) -> dict[str, Any]:
    async with _searches:
        return await asyncio.to_thread(advise, state, seat)


def advise(state: MatchState, seat: int) -> dict[str, Any]:
    """The hint for ``seat`` in ``state`` (pure but for the nets; runs on a thread)."""
    from brain.nets import nets  # noqa: PLC0415 — loaded by the first hint, not at start-up

    seats, decision = owing(state)
    match = state.match
    game = match.game
    if seat not in seats or decision not in ("move", "decide", "take") or game is None:
        raise core.Rejected(ErrorCode.NO_DECISION, "hints are for your own move or cube decision")
    brain = nets()
    body: dict[str, Any] = {"match": state.match_id, "seat": seat, "phase": decision,
                            "plays": [], "cube": None}
    if decision == "move":
        assert game.dice is not None
        ranked = brain.rank_plays(game.position(seat), *game.dice, context_for(match, seat),
                                  ply=HINT_PLY)
        before = game.position(seat)
        body["plays"] = [
            {"moves": [list(m) for m in s.play.moves], "play": play_text(before, s.play.moves),
             "equity": round(s.equity, 4), "win": round(s.probs.win, 4)}
            for s in ranked[:TOP]
        ]
        return body
    roller = seat if decision == "decide" else 1 - seat
    context = context_for(match, roller)
    if decision == "decide" and not game.can_double(seat):
        return body
    options = match.options
    if decision == "decide" and cube_is_dead(options.mode, options.length, match.score,
                                             game.cube.value, seat):
        win = brain.pre_roll_probs(game.position(seat)).win
        body["cube"] = {"action": "no_double", "dead": True, "no_double": None,
                        "double_take": None, "double_pass": None, "take": None, "pass": None,
                        "win": round(win, 4)}
        return body
    advice = brain.cube_advice(game.position(roller), context)
    if decision == "decide":
        action = "double" if advice.double else "no_double"
    else:
        action = "beaver" if advice.beaver and game.can_beaver(seat) else (
            "take" if advice.take else "drop")
    win = advice.probs.win if roller == seat else 1.0 - advice.probs.win
    body["cube"] = {"action": action, "dead": False, "no_double": round(advice.no_double, 4),
                    "double_take": round(advice.double_take, 4),
                    "double_pass": round(advice.double_pass, 4), "take": None, "pass": None,
                    "win": round(win, 4)}
    if decision == "take":  # the figures of the player who must decide
        body["cube"]["take"] = round(-advice.double_take, 4)
        body["cube"]["pass"] = round(-advice.double_pass, 4)
    return body


@handles_errors
@takes(HINT)
async def hint(request: Request, body: dict[str, Any]) -> JSONResponse:
    match_id = match_id_of(request)
    token = required_secret(body, "token", "your seat token")
    matches = service(request)
    state = await matches.load(match_id, fresh=True)
    if await botmatch.level_of(matches.store, match_id) is None:
        raise BadRequest(ErrorCode.HINTS_UNAVAILABLE,
                         "hints are only given in matches against the computer", 403)
    seat = seat_of(await matches.store.seat_hashes(match_id) or (None, None), token)
    if seat is None:
        raise BadRequest(ErrorCode.FORBIDDEN, "that token holds no seat of this match", 403)
    game = state.match.game
    if game is not None and game.variant.name in NO_NETS:
        raise BadRequest(ErrorCode.HINTS_UNAVAILABLE,
                         f"no hints in {game.variant.name}: the nets know backgammon's moves "
                         "only", 403)
    key = (match_id, seat, state.version)
    return JSONResponse(await _answers.get(key, lambda: _search(state, seat)))


routes = [Route("/api/matches/{match_id}/hint", hint, methods=["POST"])]
