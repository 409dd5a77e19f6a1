"""The analysis board: a position with its match state and, given dice, every legal play ranked;
without dice, the cube decision with its doubling window. Pure apart from the nets it is given.

API
---

``setup_from_ids(position_id, match_id=None, dice=None, *, jacoby=False, beavers=False)``
``setup_from_xgid(xgid, dice=None)``
    A :class:`Setup` from gnubg's Position ID (+ Match ID for score, cube and who is on roll;
    without it: money, cube centred at 1, gnubg's player 1 on roll) or from an XGID
    (:mod:`engine.xgid`). ``dice`` given here win over the ID's; an ID with rolled dice gives
    them. Anything wrong raises :class:`SetupError` with a stable ``code``.

``setup_from_request(position_id=None, match_id=None, xgid=None, dice=None)``
    The API's choice between the two: a Position ID (and perhaps a Match ID) or an XGID,
    exactly one of them (``bad_position_id`` otherwise; a Match ID with an XGID is
    ``bad_match_id``).

``analyse_position(setup, ply=1, loaded=None) -> BoardAnalysis``
    With dice: ``plays``, every legal play (:func:`engine.movegen.legal_plays`) best first, each
    a :class:`RankedPlay`: its standard notation (``bar/23 6/5(2)``,
    :func:`engine.notation.play_text`), the gnubg Position ID after it seen by the mover (as in
    the move record), its cubeful equity, its loss to the best and the mover's outcome
    probabilities, all from one evaluation at the ply it shows. At 2- and 3-ply the 1-ply best
    plays are searched that deep (:func:`brain.nets.deep_candidates`, with gnubg's wider move
    filter: up to :data:`WIDE_MOVES` within :data:`WIDE_THRESHOLD`), then any play whose
    1-ply value would still rank it first or second is searched too, until the first two are
    both deep: the rest keep their 1-ply figures and say so (``ply``). A roll that cannot be
    played gives no plays (``passes``). Without dice: ``cube``, a :class:`CubeView`.

``to_json(analysis) -> dict``
    The API's answer (docs/analysis.md, "Analysis board").

Plies are bgsage's (1-ply is the net itself, gnubg's 0-ply). Equities are per unit cube for the
player on roll, money points or bgsage's normalised match equity (EMG), as in the game analysis.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from brain.context import CubeContext, seat_context
from brain.nets import Nets, Probs, ScoredPlay, deep_candidates, nets
from brain.window import DoublingWindow, doubling_window
from engine import position_id as position_ids
from engine import xgid as xgids
from engine.match import MAX_MATCH_LENGTH, Mode
from engine.match_id import GameState, MatchIdError, MatchKey
from engine.match_id import decode as decode_match_id
from engine.match_id import encode as encode_match_id
from engine.movegen import legal_plays
from engine.notation import play_text
from engine.position import Position
from engine.reference import Move

PLIES = (1, 2, 3)
WIDE_MOVES = 8
"""The board searches deeper up to this many of the 1-ply best plays ...  (gnubg's own move
filter for its deeper plies; the bots and the game analysis search at most 5 within 0.08)"""
WIDE_THRESHOLD = 0.16
"""... those within this much of the 1-ply best."""


class SetupError(ValueError):
    """A position or request the board cannot analyse; ``code`` is stable (the API's)."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(code, message)
        self.code = code
        self.message = message

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"


@dataclass(frozen=True, slots=True)
class Setup:
    """What is analysed: the position seen by the player on roll (the Match ID's dice owner),
    the match state as a gnubg Match ID key, that player's :class:`CubeContext`, the dice to
    play (None: the cube decision) and the money rules."""

    position: Position
    key: MatchKey
    context: CubeContext
    dice: tuple[int, int] | None
    jacoby: bool = False
    beavers: bool = False


@dataclass(frozen=True, slots=True)
class RankedPlay:
    play: str
    moves: tuple[Move, ...]
    position_id: str
    equity: float
    loss: float
    probs: Probs
    ply: int


@dataclass(frozen=True, slots=True)
class CubeView:
    """The cube decision of the player on roll. ``available``: the rules let them double (not
    the Crawford game, a dead cube or the opponent's cube). ``pending``: the Match ID says the
    double is made and the opponent decides. ``action``: ``no_double``, ``double_take``,
    ``double_pass``, ``double_beaver`` or ``too_good`` (None when unavailable); ``answer``: the
    opponent's right reply to a double, ``take``, ``pass`` or ``beaver``; ``window``: the
    doubling window (:mod:`brain.window`), when the player may double."""

    ply: int
    available: bool
    pending: bool
    probs: Probs
    no_double: float
    double_take: float
    double_pass: float
    equity: float
    action: str | None
    answer: str
    window: DoublingWindow | None


@dataclass(frozen=True, slots=True)
class BoardAnalysis:
    setup: Setup
    ply: int
    plays: tuple[RankedPlay, ...] = ()
    cube: CubeView | None = None

    @property
    def passes(self) -> bool:
        """Dice were given and no die can be played."""
        return self.setup.dice is not None and not self.plays


# ------------------------------------------------------------------ setting up


def setup_from_ids(position_id: str, match_id: str | None = None,
                   dice: tuple[int, int] | None = None, *, jacoby: bool = False,
                   beavers: bool = False) -> Setup:
    """A setup from gnubg IDs (see the module docstring)."""
    try:
        position = position_ids.decode(position_id)
    except position_ids.PositionIdError as exc:
        raise SetupError("bad_position_id", str(exc)) from None
    if match_id is None:
        key = MatchKey(dice_owner=1, turn=1)  # gnubg's player 1: XG's bottom player
    else:
        try:
            key = decode_match_id(match_id)
        except MatchIdError as exc:
            raise SetupError("bad_match_id", str(exc)) from None
    return _setup(position, key, dice, jacoby, beavers)


def setup_from_xgid(text: str, dice: tuple[int, int] | None = None) -> Setup:
    """A setup from an XGID (its money rules included)."""
    try:
        found = xgids.decode(text)
    except xgids.XgidError as exc:
        raise SetupError("bad_xgid", str(exc)) from None
    return _setup(found.position, found.key, dice, found.jacoby, found.beavers)


def setup_from_request(position_id: str | None = None, match_id: str | None = None,
                       xgid: str | None = None, dice: object = None) -> Setup:
    """A setup from the API's fields (see the module docstring).

    >>> setup_from_request(xgid="XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10").dice
    (3, 1)
    >>> setup_from_request(match_id="cIkFAAAAAAAA")
    Traceback (most recent call last):
    ...
    analysis.board.SetupError: bad_position_id: give a position_id or an xgid
    """
    if xgid is not None:
        if position_id is not None:
            raise SetupError("bad_position_id", "give a position_id or an xgid, not both")
        if match_id is not None:
            raise SetupError("bad_match_id", "an XGID holds the match state: no match_id")
        return setup_from_xgid(xgid, dice)  # type: ignore[arg-type]
    if position_id is None:
        raise SetupError("bad_position_id", "give a position_id or an xgid")
    return setup_from_ids(position_id, match_id, dice)  # type: ignore[arg-type]


def _setup(position: Position, key: MatchKey, dice: object, jacoby: bool,
           beavers: bool) -> Setup:
    if key.state is not GameState.PLAYING or key.resigned:
        raise SetupError("not_playing", "the Match ID is not a game being played (over, not "
                                        "started, or a resignation pending)")
    if key.doubled != (key.turn != key.dice_owner):
        raise SetupError("bad_match_id", "the player to decide is the one on roll, or the other "
                                         "after a double")
    if position.is_over():
        raise SetupError("game_over", "a player has borne off every checker")
    if key.length > MAX_MATCH_LENGTH:
        raise SetupError("unsupported", f"a {key.length}-point match (at most "
                                        f"{MAX_MATCH_LENGTH})")
    if key.length and max(key.score) >= key.length:
        raise SetupError("bad_match_id", f"the score {key.score[0]}-{key.score[1]} ends a "
                                         f"{key.length}-point match")
    if dice is None and key.dice != (0, 0):
        dice = key.dice
    if dice is not None:
        if (not isinstance(dice, list | tuple) or len(dice) != 2
                or any(type(d) is not int or not 1 <= d <= 6 for d in dice)):
            raise SetupError("bad_dice", f"dice are two numbers from 1 to 6, got {dice!r}")
        if key.doubled:
            raise SetupError("bad_dice", "a double is pending: there are no dice to play")
        dice = (dice[0], dice[1])
    mode = Mode.MATCH if key.length else Mode.MONEY
    seat = key.dice_owner
    context = seat_context(mode, seat, value=key.cube, owner=key.cube_owner,
                           length=key.length, score=key.score, crawford=key.crawford,
                           jacoby=jacoby and mode is Mode.MONEY,
                           beavers=beavers and mode is Mode.MONEY)
    return Setup(position, key, context, dice, jacoby and mode is Mode.MONEY,
                 beavers and mode is Mode.MONEY)


# ------------------------------------------------------------------ analysing


def analyse_position(setup: Setup, ply: int = 1, loaded: Nets | None = None) -> BoardAnalysis:
    """The board's analysis of ``setup`` at ``ply`` (see the module docstring)."""
    if ply not in PLIES:
        raise SetupError("bad_ply", f"ply is 1, 2 or 3, got {ply!r}")
    brain = loaded or nets()
    if setup.dice is None:
        return BoardAnalysis(setup, ply, cube=cube_view(setup, ply, brain))
    return BoardAnalysis(setup, ply, plays=ranked_plays(setup, ply, brain))


def ranked_plays(setup: Setup, ply: int, brain: Nets) -> tuple[RankedPlay, ...]:
    position, context = setup.position, setup.context
    assert setup.dice is not None
    d1, d2 = setup.dice
    if not legal_plays(position, d1, d2):
        return ()
    shallow = brain.rank_plays(position, d1, d2, context, ply=1)
    scored: list[tuple[ScoredPlay, int]] = [(s, 1) for s in shallow]
    if ply > 1:
        keep, rest = deep_candidates(shallow, max_moves=WIDE_MOVES, threshold=WIDE_THRESHOLD)
        deep = brain.score_plays(position, [s.play for s in keep], context, ply)
        scored = _sorted([(s, ply) for s in deep] + [(s, 1) for s in rest])
        # Nothing ranks first or second on a shallower value than the others: search those.
        while (stale := next((i for i in range(min(2, len(scored))) if scored[i][1] < ply),
                             None)) is not None:
            again = brain.score_plays(position, [scored[stale][0].play], context, ply)[0]
            scored[stale] = (again, ply)
            scored = _sorted(scored)
    best = scored[0][0].equity
    return tuple(
        RankedPlay(play_text(position, s.play.moves), s.play.moves,
                   position_ids.encode(s.play.position), s.equity, max(0.0, best - s.equity),
                   s.probs, depth)
        for s, depth in scored
    )


def _sorted(scored: list[tuple[ScoredPlay, int]]) -> list[tuple[ScoredPlay, int]]:
    return sorted(scored, key=lambda item: (-item[0].equity, -item[0].cubeless,
                                            item[0].play.moves))


def cube_view(setup: Setup, ply: int, brain: Nets) -> CubeView:
    context = setup.context
    advice = brain.cube_decision(setup.position, context, ply)
    available = context.may_double
    action: str | None = None
    window = None
    if available:
        if advice.double:
            action = ("double_beaver" if advice.beaver else "double_take" if advice.take
                      else "double_pass")
        elif not advice.take and advice.no_double > advice.double_pass:
            action = "too_good"
        else:
            action = "no_double"
        window = doubling_window(setup.position, advice.probs, context)
    answer = "beaver" if advice.beaver else "take" if advice.take else "pass"
    equity = advice.equity if available else advice.no_double
    return CubeView(ply, available, setup.key.doubled, advice.probs, advice.no_double,
                    advice.double_take, advice.double_pass, equity, action, answer, window)


# ------------------------------------------------------------------ the API's JSON

FORMAT = "fairgammon-board/1"


def to_json(analysis: BoardAnalysis) -> dict:
    """The API's answer: stable keys, rounded numbers."""
    setup = analysis.setup
    key = replace(setup.key, dice=setup.dice or (0, 0))  # the dice analysed, in the IDs too
    out: dict = {
        "format": FORMAT,
        "ply": analysis.ply,
        "position_id": position_ids.encode(setup.position),
        "match_id": encode_match_id(key),
        "xgid": xgids.encode(xgids.Xgid(setup.position, key, setup.jacoby, setup.beavers)),
        "dice": list(setup.dice) if setup.dice else None,
        "units": {"equity": "EMG per unit cube, for the player on roll"},
        "plays": [_play_json(p) for p in analysis.plays],
        "passes": analysis.passes,
        "cube": None,
    }
    cube = analysis.cube
    if cube is not None:
        window = cube.window
        out["cube"] = {
            "ply": cube.ply,
            "available": cube.available,
            "pending": cube.pending,
            "action": cube.action,
            "answer": cube.answer,
            "equity": _r(cube.equity),
            "no_double": _r(cube.no_double),
            "double_take": _r(cube.double_take),
            "double_pass": _r(cube.double_pass),
            **_probs_json(cube.probs),
            "window": None if window is None else {
                "double": _r(window.double), "cash": _r(window.cash),
                "too_good": _r(window.too_good)},
        }
    return out


def _play_json(play: RankedPlay) -> dict:
    return {"play": play.play, "position_id": play.position_id, "equity": _r(play.equity),
            "loss": _r(play.loss), **_probs_json(play.probs), "ply": play.ply}


def _probs_json(probs: Probs) -> dict:
    return {"win": _r(probs.win), "gammon": _r(probs.win_gammon),
            "backgammon": _r(probs.win_backgammon), "lose_gammon": _r(probs.lose_gammon),
            "lose_backgammon": _r(probs.lose_backgammon)}


def _r(x: float) -> float | None:
    return None if math.isnan(x) else round(float(x), 4)  # NaN: a point that does not exist
