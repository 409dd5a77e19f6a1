"""brain: backgammon judgement from bgsage's neural nets, over positions our engine defines.

A pure library (no I/O besides loading the nets once, no clock, no randomness): the computer
opponent (``bots/``) and game analysis build on it. ``engine/`` stays the rules authority: every
play scored here comes from :func:`engine.movegen.legal_plays`, never from bgsage's generator.
(Inside a search — the rolls a deeper ply looks at, a cube decision's look-ahead — bgsage's
own generator runs; ``tests/unit/test_brain.py`` checks that it reaches exactly our results.)

Ply numbers are bgsage's: 1-ply is the net's static evaluation (GNU Backgammon's 0-ply), 2-ply
looks one roll further (gnubg's 1-ply), and so on.

API
---

``brain.board``
    ``to_board(position) -> list[int]`` and ``from_board(board) -> Position``: our
    :class:`~engine.position.Position` (seen by the player on roll) to bgsage's 26-int board
    and back.

``brain.context``
    ``CubeContext(value, owner, away, crawford, jacoby, beavers, cube_in_play)``: the cube and
    score seen by one player; ``Owner`` (``CENTRED``, ``MOVER``, ``OPPONENT``); ``MONEY``;
    ``seat_context(mode, seat, value=, owner=, length=, score=, crawford=, jacoby=, beavers=)``
    builds it from the scoring mode, the cube and the score (a single game counts as
    1-away/1-away with a dead cube, the Crawford game has a dead cube); ``context_for(match,
    seat)`` does so for an :class:`engine.match.Match`.

``brain.nets``
    ``nets()`` returns the process's :class:`~brain.nets.Nets` (loaded once, thread-safe,
    single-threaded searches). Its methods:

    * ``rank_plays(position, d1, d2, context, ply=1) -> list[ScoredPlay]`` — every legal play,
      best first, each with ``equity`` (cubeful in ``context``: money points per unit cube, or
      bgsage's match equity), ``cubeless`` equity and ``probs`` (:class:`~brain.nets.Probs`);
      empty when no die can be played.
    * ``deepen(position, ranked, context, ply, also=None) -> list[ScoredPlay]`` — the 1-ply
      ``ranked`` plays with the best of them (and the play ending in ``also``) re-scored ``ply``
      deep, as ``rank_plays(..., ply)`` does: for a caller that already holds the 1-ply ranking.
    * ``score_plays(position, plays, context, ply) -> list[ScoredPlay]`` — the given plays each
      scored ``ply`` deep, best first, with the outcome probabilities of that same search (the
      cube-aware tree; the equities are exactly ``deepen``'s): for the analysis board, which
      shows every figure at the depth asked for.
    * ``settle(position, ranked, context, ply, keep, within) -> list[ScoredPlay]`` — a ranking's
      close call looked at deeper: the plays within ``within`` of the best (at most ``keep``;
      none when only the best is that close) re-scored by bgsage's cubeless ``ply``-deep
      search, made cubeful at the root as at 1-ply (Janowski), and re-sorted; the rest as they
      were. The Expert level's last look (3-ply).
    * ``score_unchanged(position, context) -> ScoredPlay`` — a roll that cannot be played, scored
      like a ranked play (the position stays, the opponent rolls next).
    * ``pre_roll_probs(position) -> Probs`` — the player on roll's outcome probabilities before
      the roll (1-ply); ``.cubeless_equity`` gives the cubeless equity.
    * ``cube_advice(position, context, ply=1) -> CubeAdvice`` — for the player on roll:
      ``double``, and for the opponent ``take`` / ``beaver``; with the no-double, double/take
      and double/pass equities and ``equity`` (the cubeful equity under best cube play). At
      1-ply from the net's pre-roll probabilities (Janowski, match equities in match play), the
      same answers as bgsage's ``cube_action`` at 1-ply without its per-call reload. At 2-ply
      the no-double and double/take equities look one roll ahead: for each of the 21 rolls the
      best play by the 1-ply net (cubeless), then the opponent's 1-ply cube decision, their own
      double included (deeper: bgsage's cube-aware search for the opponent's turn). A trailer
      facing a 1-away opponent after the Crawford game always doubles. ``probs`` are 1-ply at
      every depth.
    * ``roll_equities(position) -> list[(d1, d2, weight, equity)]`` — for each of the 21 rolls
      the cubeless 1-ply equity of the player on roll after the best play of that roll (what a
      roll's luck is measured against).

    * ``cube_decision(position, context, ply) -> CubeAdvice`` — ``cube_advice`` at ``ply``: 1-ply
      is ``cube_advice``; deeper, bgsage's N-ply cube search (about 0.1 s a call: it loads its
      own weights), for single requests such as the analysis board's.

    ``deep_candidates(ranked, also=None, max_moves=5, threshold=0.08)`` — which 1-ply plays a
    deeper search re-scores (``deepen``'s rule; the analysis board widens it).

    ``resignation_worth_accepting(probs, level, context)`` — whether a resignation at ``level``
    gives the receiver at least what playing on is worth.

``brain.window``
    ``doubling_window(position, probs, context) -> DoublingWindow`` — the winning chances at
    which the player on roll should start doubling, the opponent should pass, and the player is
    too good to double (Janowski's points at the position's cube life; match equities in match
    play).

Threads: every search runs single-threaded on the caller's thread (bgsage releases the GIL), and
``BGBOT_MULTIPLY_THREADS`` defaults to ``1`` in any process that imports ``brain.nets``: see the
docstring of :mod:`brain.nets` for why.
"""
