"""bgsage's nets, loaded once per process, scoring what our engine says is legal.

The weights and the one-sided bear-off database load on first use (about 0.1–0.7 s, ~50 MB) and
stay for the life of the process: bgsage's own ``cube_action`` reloads its weight files on every
call (~44 ms), so cube decisions here go through the already-loaded net instead (the same 1-ply
answer in microseconds; ``tests/unit/test_brain.py`` checks it against ``cube_action``).

Every search runs on the calling thread (``n_threads=1``, no thread pool): a bot worker plays
many games at once and spreads them over threads itself, and on a small machine bgsage's own
per-call thread pools would only fight those for the cores. bgsage releases the GIL while it
evaluates, so ``asyncio.to_thread`` callers really run in parallel. bgsage's cubeless deep
searches keep a position cache and are not shared between threads: a small pool of them
(:data:`SEARCHES`, one per core) lends each to one caller at a time.
"""

from __future__ import annotations

import contextlib
import itertools
import math
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace

import bgbot_cpp
from bgsage.weights import bearoff_db_path, default_weights

from brain.board import to_board
from brain.context import CubeContext, Owner
from engine.movegen import Play, legal_plays
from engine.position import Position

# bgsage's analyzer classes read this (at call time) to size their thread pools: anyone in this
# process who builds one (the analysis code) gets one thread per call unless the operator chose
# otherwise.
os.environ.setdefault("BGBOT_MULTIPLY_THREADS", "1")

FILTER_MAX_MOVES = 5
"""Deeper searches re-score at most this many of the 1-ply best plays ..."""
FILTER_THRESHOLD = 0.08
"""... and only those within this much equity of the 1-ply best (bgsage's defaults) ..."""
MIN_DEEP = 3
"""... but always at least this many (the rest keep their 1-ply values, listed after)."""

_OWNER = {
    Owner.CENTRED: bgbot_cpp.CubeOwner.CENTERED,
    Owner.MOVER: bgbot_cpp.CubeOwner.PLAYER,
    Owner.OPPONENT: bgbot_cpp.CubeOwner.OPPONENT,
}


@dataclass(frozen=True, slots=True)
class Probs:
    """Game-outcome probabilities for one player: win, win a gammon, win a backgammon, lose a
    gammon, lose a backgammon (the gammon numbers include the backgammons)."""

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    @classmethod
    def of(cls, values) -> Probs:
        return cls(*(float(v) for v in values))

    def as_list(self) -> list[float]:
        return [self.win, self.win_gammon, self.win_backgammon, self.lose_gammon,
                self.lose_backgammon]

    def inverted(self) -> Probs:
        """The same outcomes seen by the other player."""
        return Probs(1.0 - self.win, self.lose_gammon, self.lose_backgammon, self.win_gammon,
                     self.win_backgammon)

    @property
    def cubeless_equity(self) -> float:
        """Expected points per unit cube, gammons and backgammons counted."""
        return (2.0 * self.win - 1.0 + self.win_gammon - self.lose_gammon
                + self.win_backgammon - self.lose_backgammon)


@dataclass(frozen=True, slots=True)
class ScoredPlay:
    """One legal play with its value for the player who makes it (higher is better).

    ``equity`` is cubeful in the context given (money: points per unit cube; match play:
    bgsage's match equity, −1 … +1); ``cubeless`` counts gammons at face value.
    """

    play: Play
    equity: float
    cubeless: float
    probs: Probs


@dataclass(frozen=True, slots=True)
class CubeAdvice:
    """The cube decision in a position before the roll, seen by the player on roll.

    ``double``: the player on roll should double (if the rules let them); ``take``: the opponent
    should take a double; ``beaver``: the opponent should take and beaver (money with beavers).
    ``no_double``/``double_take``/``double_pass`` are the player on roll's cubeful equities of
    the three outcomes, normalised to the current cube.
    """

    double: bool
    take: bool
    beaver: bool
    no_double: float
    double_take: float
    double_pass: float
    probs: Probs

    @property
    def equity(self) -> float:
        """The player on roll's cubeful equity with best play by both sides."""
        if not self.double:
            return self.no_double
        return min(self.double_take, self.double_pass)


class Nets:
    """The loaded nets. Build one with :func:`nets` (it is shared by the whole process)."""

    def __init__(self) -> None:
        weights = default_weights()
        self._weights = weights
        base = bgbot_cpp.create_strategy(
            weights.strategy_type, weights.weight_paths_list, weights.hidden_sizes_list)
        self._bearoff = None
        path = bearoff_db_path()
        if path:
            db = bgbot_cpp.BearoffDB()
            if db.load(path):
                self._bearoff = db
        self._one_ply = (bgbot_cpp.BearoffStrategy(base, self._bearoff)
                         if self._bearoff is not None else base)
        self._searches: dict[int, _Searches] = {}

    @property
    def weights(self):  # type: ignore[no-untyped-def]
        """bgsage's weights description (``strategy_type``, ``weight_paths_list``,
        ``hidden_sizes_list``), for building other bgsage strategies (rollouts)."""
        return self._weights

    @property
    def bearoff(self):  # type: ignore[no-untyped-def]
        """bgsage's loaded bear-off database, or None when it is not installed."""
        return self._bearoff

    def _cubeless_search(self, ply: int) -> _Searches:
        """The pool of bgsage's cubeless ``ply``-deep searches, made on first use."""
        with _LOCK:
            pool = self._searches.get(ply)
            if pool is None:
                pool = self._searches[ply] = _Searches(self._new_search, ply, SEARCHES)
        return pool

    def _new_search(self, ply: int):  # type: ignore[no-untyped-def]
        w = self._weights
        search = bgbot_cpp.create_multipy(
            w.strategy_type, w.weight_paths_list, w.hidden_sizes_list, n_plies=ply,
            filter_max_moves=FILTER_MAX_MOVES, filter_threshold=FILTER_THRESHOLD,
            parallel_evaluate=False, parallel_threads=1)
        if self._bearoff is not None:
            bgbot_cpp.multipy_set_bearoff_db(search, self._bearoff)
        return search

    def _cubeless_probs(self, posts: list[list[int]], pre: list[int], ply: int) -> list[Probs]:
        """Cubeless ``ply``-deep outcome probabilities of the mover after each of the plays
        ``posts`` from ``pre`` (one search, its cache shared by the plays of one decision)."""
        with self._cubeless_search(ply).borrow() as search:
            try:
                return [Probs.of(search.evaluate_board(post, pre)["probs"]) for post in posts]
            finally:
                search.clear_cache()  # the cache is per decision: keep memory flat

    # -- evaluation ---------------------------------------------------------------------------

    def pre_roll_probs(self, position: Position) -> Probs:
        """1-ply outcome probabilities for the player on roll, before the roll."""
        flipped = to_board(position.swapped())
        raw = self._one_ply.evaluate_board(flipped, flipped)
        return Probs.of(raw["probs"]).inverted()

    def rank_plays(self, position: Position, d1: int, d2: int,
                   context: CubeContext, ply: int = 1) -> list[ScoredPlay]:
        """Every legal play of ``d1``-``d2`` (by :func:`engine.movegen.legal_plays`), best first.

        ``ply`` 1 scores every play with the net (gnubg's 0-ply); ``ply`` 2 or 3 re-scores the
        1-ply best (see :data:`FILTER_MAX_MOVES`, :data:`MIN_DEEP`) with a cube-aware search
        that deep, best first, followed by the others with their 1-ply values. Empty when no die
        can be played.
        """
        plays = legal_plays(position, d1, d2)
        if not plays:
            return []
        pre = to_board(position)
        scored = sorted((self._score_1ply(play, pre, context) for play in plays), key=_order)
        if ply <= 1 or len(scored) == 1:
            return scored
        return self.deepen(position, scored, context, ply)

    def score_unchanged(self, position: Position, context: CubeContext) -> ScoredPlay:
        """The empty play of a roll that cannot be played, scored at 1-ply like the plays of
        :meth:`rank_plays`: ``position`` (seen by the player on roll) stays as it is and the
        opponent rolls next. Its ``equity`` is on exactly the scale of a ranked play's."""
        return self._score_1ply(Play((), position), to_board(position), context)

    def deepen(self, position: Position, ranked: list[ScoredPlay], context: CubeContext,
               ply: int, also: Position | None = None) -> list[ScoredPlay]:
        """``ranked`` (the 1-ply plays from ``position``, best first, as :meth:`rank_plays`
        gives them) with the best of them re-scored ``ply`` deep and re-sorted, followed by the
        others with their 1-ply values. Re-scored are the plays within
        :data:`FILTER_THRESHOLD` of the best among the first :data:`FILTER_MAX_MOVES`, always
        at least the first :data:`MIN_DEEP`, and the play ending in ``also`` if given (so a
        play made and the best play are compared on one scale)."""
        keep, rest = deep_candidates(ranked, also)
        pre = to_board(position)
        deep = sorted((self._score_nply(s, pre, context, ply) for s in keep), key=_order)
        return deep + rest

    def settle(self, position: Position, ranked: list[ScoredPlay], context: CubeContext,
               ply: int, keep: int, within: float) -> list[ScoredPlay]:
        """``ranked`` (from ``position``, best first, as :meth:`rank_plays` gives them at any
        ply) with its close call looked at ``ply`` deep: the plays within ``within`` equity
        of the best, at most ``keep`` of them, re-scored by bgsage's cubeless ``ply``-deep
        search (its probabilities made cubeful in ``context`` as at 1-ply) and re-sorted,
        followed by the others as they were. When no other play is that close the choice is
        clear and ``ranked`` comes back unchanged."""
        if not ranked:
            return []
        best = ranked[0].equity
        close = list(itertools.takewhile(lambda s: best - s.equity < within, ranked[:keep]))
        if len(close) < 2:
            return list(ranked)
        pre = to_board(position)
        posts = [to_board(s.play.position) for s in close]
        deep = sorted((ScoredPlay(s.play, self._cubeful_post(post, probs, context),
                                  probs.cubeless_equity, probs)
                       for s, post, probs in zip(close, posts,
                                                 self._cubeless_probs(posts, pre, ply),
                                                 strict=True)), key=_order)
        return deep + list(ranked[len(close):])

    def _score_1ply(self, play: Play, pre: list[int], context: CubeContext) -> ScoredPlay:
        post = to_board(play.position)
        raw = self._one_ply.evaluate_board(post, pre)
        probs = Probs.of(raw["probs"])
        cubeless = probs.cubeless_equity
        return ScoredPlay(play, self._cubeful_post(post, probs, context), cubeless, probs)

    def _cubeful_post(self, post: list[int], probs: Probs, context: CubeContext) -> float:
        """1-ply cubeful equity of a position after the mover's play (Janowski)."""
        values = probs.as_list()
        race = bgbot_cpp.is_race(post)
        pips_me, pips_opp = bgbot_cpp.pip_counts(post)
        x = bgbot_cpp.cube_efficiency(values, race, pips_me, pips_opp)
        owner = _OWNER[context.owner]
        if context.is_match:
            return bgbot_cpp.cl2cf(values, context.value, owner, x, context.away[0],
                                   context.away[1], context.crawford, jacoby=False)
        if not context.cube_in_play:
            return probs.cubeless_equity
        return bgbot_cpp.cl2cf_money(
            values, owner, x, jacoby_active=context.jacoby and context.owner is Owner.CENTRED)

    def _score_nply(self, scored: ScoredPlay, pre: list[int], context: CubeContext,
                    ply: int) -> ScoredPlay:
        post = to_board(scored.play.position)
        if not context.is_match and not context.cube_in_play:
            # Cubeless play (a cubeless money game; bench/bots.py): the plain N-ply search.
            (probs,) = self._cubeless_probs([post], pre, ply)
            return ScoredPlay(scored.play, probs.cubeless_equity, probs.cubeless_equity, probs)
        owner, args = _nply_args(context)
        equity = bgbot_cpp.cubeful_equity_nply(
            bgbot_cpp.flip_board(post), owner, self._one_ply, ply, bearoff_db=self._bearoff,
            **args)
        return ScoredPlay(scored.play, -equity, scored.cubeless, scored.probs)

    def score_plays(self, position: Position, plays: Sequence[Play], context: CubeContext,
                    ply: int) -> list[ScoredPlay]:
        """``plays`` (legal plays from ``position``) each scored ``ply`` deep, best first, with
        the outcome probabilities of that same search (the cube-aware tree: after the play, the
        opponent's replies are chosen by cubeful equity). At 1-ply this is :meth:`rank_plays`'
        scoring; deeper, the equity is exactly :meth:`deepen`'s, and the probabilities (and the
        cubeless equity) are the deep search's instead of the net's. For the analysis board,
        which shows every figure at the depth asked for."""
        pre = to_board(position)
        if ply <= 1:
            return sorted((self._score_1ply(p, pre, context) for p in plays), key=_order)
        return sorted((self._score_nply_probs(p, pre, context, ply) for p in plays), key=_order)

    def _score_nply_probs(self, play: Play, pre: list[int], context: CubeContext,
                          ply: int) -> ScoredPlay:
        post = to_board(play.position)
        if not context.is_match and not context.cube_in_play:
            (probs,) = self._cubeless_probs([post], pre, ply)
            return ScoredPlay(play, probs.cubeless_equity, probs.cubeless_equity, probs)
        owner, args = _nply_args(context)
        raw = bgbot_cpp.cubeful_probs_and_equity_nply(
            bgbot_cpp.flip_board(post), owner, self._one_ply, ply, bearoff_db=self._bearoff,
            **args)
        probs = Probs.of(raw["probs"]).inverted()  # the search saw the opponent on roll
        return ScoredPlay(play, -float(raw["equity"]), probs.cubeless_equity, probs)

    def cube_decision(self, position: Position, context: CubeContext, ply: int) -> CubeAdvice:
        """:meth:`cube_advice` at ``ply``: 1-ply is :meth:`cube_advice` itself; deeper,
        bgsage's N-ply cube search (its probabilities and the no-double, double/take and
        double/pass equities from the same search; it loads its own copy of the weights on
        every call, about 0.1 s, so it is for single requests, not for bots)."""
        if ply <= 1:
            return self.cube_advice(position, context)
        w = self._weights
        if context.is_match:
            args = {"away1": context.away[0], "away2": context.away[1],
                    "is_crawford": context.crawford, "jacoby": False, "beaver": False}
        else:
            args = {"jacoby": context.jacoby, "beaver": context.beavers}
        raw = bgbot_cpp.cube_decision_nply_unified(
            to_board(position), context.value, _OWNER[context.owner], ply, w.strategy_type,
            w.weight_paths_list, w.hidden_sizes_list, n_threads=1, bearoff_db=self._bearoff,
            **args)
        beaver = bool(raw.get("is_beaver", False))
        return CubeAdvice(
            double=bool(raw["should_double"]),
            take=bool(raw["should_take"]),
            beaver=beaver,
            no_double=float(raw["equity_nd"]),
            double_take=float(raw["equity_dt"]),
            double_pass=float(raw["equity_dp"]),
            probs=Probs.of(raw["probs"]),
        )

    def cube_advice(self, position: Position, context: CubeContext, ply: int = 1) -> CubeAdvice:
        """The cube decision for the player on roll in ``position``: at ``ply`` 1 from the net's
        pre-roll probabilities (Janowski, with match equities in match play); at ``ply`` 2 or
        more the no-double and double/take equities come from a cube-aware search that deep,
        as bgsage's ``cube_action`` computes them (``tests/unit/test_brain.py`` checks both).
        ``probs`` are 1-ply at every depth. Meaningless when the cube is dead; callers check
        :attr:`CubeContext.may_double` first."""
        board = to_board(position)
        advice = self._advice_1ply(board, context)
        if ply <= 1:
            return advice
        best = self._best_plays(board)
        no_double = self._after_rolls(best, context, ply)
        doubled = replace(context, value=2 * context.value, owner=Owner.OPPONENT)
        double_take = self._rescaled(self._after_rolls(best, doubled, ply), doubled, context)
        take = double_take <= advice.double_pass
        # A trailer facing a 1-away opponent after the Crawford game doubles at once: losing
        # loses the match whatever the cube.
        double = _post_crawford_trailer(context) or min(double_take,
                                                        advice.double_pass) > no_double
        return self._with_beaver(advice.probs, context, double, take, no_double, double_take,
                                 advice.double_pass)

    def _advice_1ply(self, board: list[int], context: CubeContext) -> CubeAdvice:
        flipped = bgbot_cpp.flip_board(board)
        probs = Probs.of(self._one_ply.evaluate_board(flipped, flipped)["probs"]).inverted()
        values = probs.as_list()
        race = bgbot_cpp.is_race(board)
        pips_me, pips_opp = bgbot_cpp.pip_counts(board)
        x = bgbot_cpp.cube_efficiency(values, race, pips_me, pips_opp)
        decision = bgbot_cpp.cube_decision_1ply(
            values, context.value, _OWNER[context.owner], x,
            context.away[0], context.away[1], context.crawford,
            jacoby=context.jacoby and not context.is_match)
        return self._with_beaver(probs, context, bool(decision.should_double),
                                 bool(decision.should_take), float(decision.equity_nd),
                                 float(decision.equity_dt), float(decision.equity_dp))

    @staticmethod
    def _with_beaver(probs: Probs, context: CubeContext, double: bool, take: bool,
                     no_double: float, double_take: float, double_pass: float) -> CubeAdvice:
        beaver = bool(context.beavers and not context.is_match and take and double_take < 0.0)
        if beaver:
            double_take *= 2.0  # the taker redoubles at once and keeps the cube
            double = min(double_take, double_pass) > no_double
        return CubeAdvice(double=double, take=take, beaver=beaver, no_double=no_double,
                          double_take=double_take, double_pass=double_pass, probs=probs)

    def _nply_kwargs(self, context: CubeContext) -> dict[str, object]:
        if context.is_match:
            return {"cube_value": context.value, "away1": context.away[0],
                    "away2": context.away[1], "is_crawford": context.crawford,
                    "jacoby": False, "beaver": False}
        return {"cube_value": context.value, "jacoby": context.jacoby,
                "beaver": context.beavers}

    def _cubeful_nply(self, board: list[int], context: CubeContext, ply: int) -> float:
        """bgsage's cube-aware ``ply``-deep equity of the pre-roll ``board`` for its player on
        roll, cube as in ``context`` and best cube play by both sides from now on (money:
        per unit cube; match play: match equity at the context's cube value)."""
        return float(bgbot_cpp.cubeful_equity_nply(
            board, _OWNER[context.owner], self._one_ply, ply, n_threads=1,
            bearoff_db=self._bearoff, **self._nply_kwargs(context)))

    def _pre_roll_equity(self, board: list[int], context: CubeContext, ply: int) -> float:
        """The cubeful equity of the player on roll in ``board`` with best cube play from now
        on, this turn's double included: bgsage's search at 2 or more; at 1-ply the 1-ply
        decision of :meth:`cube_advice` (bgsage's ``cubeful_equity_nply`` at 1-ply leaves out
        the double now)."""
        if ply > 1:
            return self._cubeful_nply(board, context, ply)
        advice = self._advice_1ply(board, context)
        return advice.equity if context.may_double else advice.no_double

    @staticmethod
    def _rescaled(equity: float, at: CubeContext, to: CubeContext) -> float:
        """An equity normalised to the cube of ``at``, normalised to the cube of ``to``."""
        if not to.is_match:
            return equity * at.value / to.value
        mine, theirs = to.away
        mwc = bgbot_cpp.eq2mwc(equity, mine, theirs, at.value, to.crawford)
        return float(bgbot_cpp.mwc2eq(mwc, mine, theirs, to.value, to.crawford))

    def _after_rolls(self, best: list[tuple[int, int, int, list[int], float]],
                     context: CubeContext, ply: int) -> float:
        """The equity of the player on roll, ``ply`` deep, who does not double now: over the
        21 rolls, the play the net likes best (``best``: cubeless, 1-ply, as bgsage's search
        picks it), then the opponent's cubeful equity ``ply - 1`` deep with their own cube
        options, seen from this side."""
        them = context.flipped()
        total = 0.0
        for _d1, _d2, weight, post, _value in best:
            won = bgbot_cpp.check_game_over(post)
            if won > 0:
                total += weight * self._won(won, context)
                continue
            theirs = self._pre_roll_equity(list(bgbot_cpp.flip_board(post)), them, ply - 1)
            if context.is_match:
                mwc = 1.0 - bgbot_cpp.eq2mwc(theirs, them.away[0], them.away[1], context.value,
                                             context.crawford)
                total += weight * bgbot_cpp.mwc2eq(mwc, context.away[0], context.away[1],
                                                   context.value, context.crawford)
            else:
                total += weight * -theirs
        return total / 36.0

    def roll_equities(self, position: Position) -> list[tuple[int, int, int, float]]:
        """For each of the 21 rolls ``(d1, d2, weight, equity)`` (``d1 <= d2``, ``weight`` of
        36): the cubeless 1-ply equity of the player on roll in ``position`` after the best play
        of that roll (the points won where it ends the game; the position as it is where no
        play exists). What a roll's luck is measured against (``bench/bots.py``)."""
        return [(d1, d2, w, value) for d1, d2, w, _post, value in
                self._best_plays(to_board(position))]

    def _best_plays(self, board: list[int]) -> list[tuple[int, int, int, list[int], float]]:
        """Each roll's best play from the pre-roll ``board``, as bgsage's searches pick it
        (cubeless 1-ply), with its value. bgsage's generator, which tests/unit/test_brain.py
        checks reaches exactly our legal results (the board unchanged where none exists)."""
        out = []
        for d1, d2, weight in _ROLLS:
            best, best_value = board, -math.inf
            for post in bgbot_cpp.possible_moves(board, d1, d2):
                won = bgbot_cpp.check_game_over(post)
                value = (float(won) if won else
                         Probs.of(self._one_ply.evaluate_board(post, board)["probs"])
                         .cubeless_equity)
                if value > best_value:
                    best, best_value = post, value
            out.append((d1, d2, weight, best, best_value))
        return out

    @staticmethod
    def _won(kind: int, context: CubeContext) -> float:
        """What the game just won (1 single, 2 gammon, 3 backgammon) is worth, on the scale of
        :meth:`cube_advice`'s equities."""
        if not context.is_match:
            jacoby = context.jacoby and context.owner is Owner.CENTRED
            return 1.0 if jacoby else float(kind)
        certain = [1.0, float(kind >= 2), float(kind >= 3), 0.0, 0.0]
        mine, theirs = context.away
        mwc = bgbot_cpp.cubeless_mwc(certain, mine, theirs, context.value, context.crawford)
        return float(bgbot_cpp.mwc2eq(mwc, mine, theirs, context.value, context.crawford))


def _post_crawford_trailer(context: CubeContext) -> bool:
    return context.is_match and not context.crawford and context.away[1] == 1 < context.away[0]


_ROLLS = tuple((d1, d2, 1 if d1 == d2 else 2) for d1 in range(1, 7) for d2 in range(d1, 7))
"""The 21 distinct rolls with their weights (out of 36)."""


def deep_candidates(ranked: Sequence[ScoredPlay], also: Position | None = None, *,
                    max_moves: int = FILTER_MAX_MOVES, threshold: float = FILTER_THRESHOLD
                    ) -> tuple[list[ScoredPlay], list[ScoredPlay]]:
    """The 1-ply ``ranked`` plays (best first) split into those a deeper search re-scores and
    the rest: the plays within ``threshold`` of the best among the first ``max_moves``
    (:data:`FILTER_THRESHOLD`, :data:`FILTER_MAX_MOVES` unless said), always at least the first
    :data:`MIN_DEEP`, and the play ending in ``also`` when given."""
    if not ranked:
        return [], []
    best = ranked[0].equity
    close = [s for s in ranked[:max_moves] if best - s.equity < threshold]
    # At least the first MIN_DEEP plays get the deep value: a hint's top three must be
    # compared on one scale.
    count = max(len(close), MIN_DEEP)
    keep, rest = list(ranked[:count]), list(ranked[count:])
    if also is not None and not any(s.play.position == also for s in keep):
        keep += [s for s in rest if s.play.position == also]
        rest = [s for s in rest if s.play.position != also]
    return keep, rest


def _nply_args(context: CubeContext) -> tuple[object, dict]:
    """The cube owner and the arguments of bgsage's cubeful N-ply search of a position after a
    play by the player ``context`` belongs to: the search sees the opponent on roll."""
    them = context.flipped()
    if context.is_match:
        args = {"n_threads": 1, "cube_value": them.value, "away1": them.away[0],
                "away2": them.away[1], "is_crawford": them.crawford, "jacoby": False,
                "beaver": False}
    else:
        args = {"n_threads": 1, "jacoby": context.jacoby, "beaver": context.beavers}
    return _OWNER[them.owner], args


def _order(scored: ScoredPlay):
    # Cubeful equity saturates in lost positions; break ties on cubeless equity, then on the
    # moves, so the same position always gives the same ranking.
    return (-scored.equity, -scored.cubeless, scored.play.moves)


SEARCHES = max(1, min(4, os.cpu_count() or 1))
"""Cubeless deep searches of one depth that run at once in a process: one per core (each
keeps its own position cache, ~18 MB); more callers wait for one to be free."""


class _Searches:
    """A pool of bgsage's cubeless searches of one depth, lent to one caller at a time (a
    search keeps a position cache and is not shared between threads)."""

    def __init__(self, make, ply: int, size: int) -> None:  # type: ignore[no-untyped-def]
        self._make, self._ply, self._size = make, ply, size
        self._idle: list[object] = []
        self._made = 0
        self._free = threading.Condition()

    @contextlib.contextmanager
    def borrow(self):  # type: ignore[no-untyped-def]
        with self._free:
            while not self._idle and self._made >= self._size:
                self._free.wait()
            if self._idle:
                search = self._idle.pop()
            else:
                self._made += 1
                search = None
        if search is None:
            try:
                search = self._make(self._ply)
            except BaseException:
                with self._free:
                    self._made -= 1
                    self._free.notify()
                raise
        try:
            yield search
        finally:
            with self._free:
                self._idle.append(search)
                self._free.notify()


_LOCK = threading.Lock()
_NETS: Nets | None = None


def nets() -> Nets:
    """The process's :class:`Nets`, loaded on the first call (thread-safe)."""
    global _NETS  # noqa: PLW0603 — one copy of ~50 MB of weights per process
    if _NETS is None:
        with _LOCK:
            if _NETS is None:
                _NETS = Nets()
    return _NETS


def resignation_worth_accepting(probs: Probs, level: int, context: CubeContext) -> bool:
    """Whether the receiver of a resignation at ``level`` (1 single, 2 gammon, 3 backgammon)
    should accept it: the points offered are at least what the receiver expects from playing on.

    ``probs`` are the receiver's outcome probabilities; ``context`` is the receiver's. In match
    play points beyond what either side needs count for nothing.

    >>> sure_single = Probs(1.0, 0.0, 0.0, 0.0, 0.0)
    >>> resignation_worth_accepting(sure_single, 1, CubeContext())
    True
    >>> resignation_worth_accepting(Probs(1.0, 0.6, 0.0, 0.0, 0.0), 1, CubeContext())
    False
    >>> resignation_worth_accepting(Probs(1.0, 0.6, 0.0, 0.0, 0.0), 1, CubeContext(away=(1, 3)))
    True
    """

    def points(kind: int, need: int) -> float:
        won = kind * context.value
        return float(min(won, need)) if context.is_match else float(won)

    mine, theirs = context.away
    single = probs.win - probs.win_gammon
    gammon = probs.win_gammon - probs.win_backgammon
    lost = 1.0 - probs.win
    expected = (single * points(1, mine) + gammon * points(2, mine)
                + probs.win_backgammon * points(3, mine)
                - (lost - probs.lose_gammon) * points(1, theirs)
                - (probs.lose_gammon - probs.lose_backgammon) * points(2, theirs)
                - probs.lose_backgammon * points(3, theirs))
    return points(level, mine) >= expected - 1e-9
