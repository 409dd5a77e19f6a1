"""brain/: the board converter, the shared nets, play ranking and cube decisions against bgsage's
own answers (its move generator, its analyzer) and GNU Backgammon's position ids."""

from __future__ import annotations

import random
from concurrent.futures import ThreadPoolExecutor

import bgbot_cpp
import bgsage
import gnubg_nn as gnubg
import pytest

from brain.board import from_board, to_board
from brain.context import MONEY, CubeContext, Owner, context_for
from brain.nets import nets
from engine import position_id
from engine.match import Match, MatchOptions
from engine.movegen import legal_plays
from engine.position import Position
from engine.results import result_kind
from harness.corpus import random_play, to_gnubg


@pytest.fixture(scope="module")
def positions() -> list[Position]:
    return random_play(random.Random(12), 40)


@pytest.fixture(scope="module")
def analyzer():
    return bgsage.BgBotAnalyzer(eval_level="1ply")


def test_board_round_trip_and_perspective(positions):
    """Every position survives the trip; bgsage's flip is our swap and its pip counts ours."""
    assert len(positions) > 2000
    for position in positions:
        board = to_board(position)
        assert from_board(board) == position
        assert list(bgbot_cpp.flip_board(board)) == to_board(position.swapped())
        # bgsage reads the board as we mean it: pips, contact, game over.
        assert tuple(bgbot_cpp.pip_counts(board)) == position.pips()
        assert bgbot_cpp.is_race(board) == (not position.is_contact())
    assert to_board(Position.start()) == list(bgsage.STARTING_BOARD)


def test_board_agrees_with_gnubg_ids(positions):
    """GNU Backgammon's position id of the half-boards equals ours of the converted board."""
    for position in positions[::10]:
        back = from_board(to_board(position))
        halves = [list(half) for half in to_gnubg(position)]
        assert gnubg.position_id(halves) == position_id.encode(back)


def test_from_board_rejects_impossible_boards():
    with pytest.raises(ValueError):
        from_board([0] * 25)
    with pytest.raises(ValueError):
        from_board([0, 16] + [0] * 24)  # 16 checkers


def test_bgsage_generates_the_same_results_as_our_engine(positions):
    """bgsage's move generator reaches exactly our legal results (it returns the unchanged board
    where no play exists, which our engine calls a pass)."""
    rng = random.Random(3)
    for position in positions:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        ours = {tuple(to_board(p.position)) for p in legal_plays(position, d1, d2)}
        theirs = {tuple(b) for b in bgbot_cpp.possible_moves(to_board(position), d1, d2)}
        if not ours:
            assert theirs <= {tuple(to_board(position))}
        else:
            assert ours == theirs


def test_rank_plays_matches_bgsage_checker_play(positions, analyzer):
    """1-ply ranking of our legal plays equals bgsage's own checker_play, money and match."""
    rng = random.Random(4)
    brain = nets()
    for position in positions[::40]:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        away = rng.choice([(0, 0), (3, 5), (1, 2)])
        context = CubeContext(away=away)
        ranked = brain.rank_plays(position, d1, d2, context)
        theirs = analyzer.checker_play(to_board(position), d1, d2, away1=away[0], away2=away[1],
                                       jacoby=False)
        if not ranked:
            continue
        by_board = {tuple(m.board): m.equity for m in theirs.moves}
        assert len(by_board) == len(ranked)
        for scored in ranked:
            assert scored.equity == pytest.approx(by_board[tuple(to_board(scored.play.position))],
                                                  abs=1e-5)
        assert ranked == sorted(ranked, key=lambda s: -s.equity)


def test_two_ply_matches_bgsage_two_ply():
    brain = nets()
    deep = bgsage.BgBotAnalyzer(eval_level="2ply", parallel_threads=1)
    start = Position.start()
    ranked = brain.rank_plays(start, 3, 1, MONEY, ply=2)
    theirs = deep.checker_play(to_board(start), 3, 1, jacoby=False)
    assert to_board(ranked[0].play.position) == list(theirs.moves[0].board)
    assert ranked[0].equity == pytest.approx(theirs.moves[0].equity, abs=1e-5)


def test_deep_ranking_puts_three_plays_on_one_scale(positions):
    """Hints show the top three: at 2-ply they are all re-scored at 2-ply, so in order."""
    rng = random.Random(6)
    brain = nets()
    for position in positions[::400]:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        ranked = brain.rank_plays(position, d1, d2, MONEY, ply=2)
        top = [s.equity for s in ranked[:3]]
        assert top == sorted(top, reverse=True)
        assert len(ranked) == len(legal_plays(position, d1, d2))


def test_deepen_rescores_the_play_asked_for_on_the_deep_scale():
    """``deepen`` over a 1-ply ranking is ``rank_plays`` at 2-ply; a play named with ``also``
    far down the list is re-scored too (the analysis compares the play made with the best)."""
    brain = nets()
    start = Position.start()
    shallow = brain.rank_plays(start, 6, 4, MONEY)
    deep = brain.deepen(start, shallow, MONEY, 2)
    assert deep == brain.rank_plays(start, 6, 4, MONEY, ply=2)
    worst = shallow[-1]
    assert worst in deep  # not re-scored without ``also``: keeps its 1-ply value
    asked = brain.deepen(start, shallow, MONEY, 2, also=worst.play.position)
    assert len(asked) == len(shallow)
    rescored = next(s for s in asked if s.play.position == worst.play.position)
    assert rescored != worst
    assert rescored == brain.deepen(start, [worst], MONEY, 2)[0]


def test_cubeless_two_ply_matches_bgsage():
    deep = bgsage.BgBotAnalyzer(eval_level="2ply", cubeful=False, parallel_threads=1)
    position = Position.from_points({6: 3, 8: 2, 13: 4, 24: 2, 5: 4}, {6: 5, 8: 3, 13: 5, 24: 2})
    ranked = nets().rank_plays(position, 6, 2, CubeContext(cube_in_play=False), ply=2)
    theirs = deep.checker_play(to_board(position), 6, 2)
    assert to_board(ranked[0].play.position) == list(theirs.moves[0].board)
    assert ranked[0].equity == pytest.approx(theirs.moves[0].equity, abs=1e-5)


def test_cube_advice_matches_bgsage_cube_action(positions, analyzer):
    """The loaded net's cube answers equal bgsage's (reloading) cube_action at 1-ply."""
    rng = random.Random(5)
    brain = nets()
    cases = [
        (CubeContext(), {}),
        (CubeContext(value=2, owner=Owner.MOVER), {"cube_value": 2, "cube_owner": "player"}),
        (CubeContext(beavers=True), {"beaver": True}),
        (CubeContext(jacoby=True, beavers=True), {"jacoby": True, "beaver": True}),
        (CubeContext(away=(5, 3)), {"away1": 5, "away2": 3}),
        (CubeContext(value=2, owner=Owner.OPPONENT, away=(4, 7)),
         {"cube_value": 2, "cube_owner": "opponent", "away1": 4, "away2": 7}),
    ]
    seen = {"double": 0, "no_double": 0, "take": 0, "pass": 0, "beaver": 0}
    for position in positions[::160]:
        context, kwargs = rng.choice(cases)
        kwargs = {"jacoby": False, "beaver": False, **kwargs}
        advice = brain.cube_advice(position, context)
        theirs = analyzer.cube_action(to_board(position), **kwargs)
        assert advice.double == theirs.should_double
        assert advice.take == theirs.should_take
        assert advice.beaver == theirs.is_beaver
        assert advice.no_double == pytest.approx(theirs.equity_nd, abs=1e-5)
        assert advice.double_take == pytest.approx(theirs.equity_dt, abs=1e-5)
        assert advice.probs.win == pytest.approx(theirs.probs.win, abs=1e-6)
        seen["double" if advice.double else "no_double"] += 1
        seen["take" if advice.take else "pass"] += 1
        seen["beaver"] += advice.beaver
    assert all(seen.values()), seen  # the sample covers every kind of answer


CUBELESS = CubeContext(cube_in_play=False)


def _two_ply_by_hand(brain, position: Position, context: CubeContext) -> tuple[float, float]:
    """No-double and double/take equities two plies deep, composed from parts checked against
    bgsage at 1-ply: for each roll the best play by cubeless 1-ply equity over our engine's
    legal plays, then the opponent's 1-ply cube decision (their best cube play included)."""
    doubled = CubeContext(value=2 * context.value, owner=Owner.OPPONENT, away=context.away,
                          jacoby=context.jacoby, beavers=context.beavers)
    totals = [0.0, 0.0]
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            ranked = brain.rank_plays(position, d1, d2, CUBELESS)
            after = (ranked[0].play.position if ranked else position).swapped()
            for i, mine in enumerate((context, doubled)):
                theirs = mine.flipped()
                advice = brain.cube_advice(after, theirs)
                value = advice.equity if theirs.may_double else advice.no_double
                totals[i] += (1 if d1 == d2 else 2) * -value
    return totals[0] / 36, 2 * totals[1] / 36


def test_two_ply_cube_is_the_one_ply_decision_a_roll_later():
    """Money play: the 2-ply no-double and double/take equities are the 36-roll average of the
    opponent's 1-ply cubeful equity after our best play (the double/take one with the cube
    theirs at twice the value)."""
    brain = nets()
    positions = random_play(random.Random(12), 40)[::500]
    for position in positions:
        for context in (MONEY, CubeContext(value=2, owner=Owner.MOVER)):
            advice = brain.cube_advice(position, context, ply=2)
            no_double, double_take = _two_ply_by_hand(brain, position, context)
            assert advice.no_double == pytest.approx(no_double, abs=1e-5)
            assert advice.double_take == pytest.approx(double_take, abs=1e-5)
            assert advice.double == (min(double_take, 1.0) > no_double)


def test_two_ply_cube_advice_agrees_with_bgsage(positions):
    """bgsage's own 2-ply cube_action gives the same decisions, and in money play nearly the
    same equities. Its search picks each roll's play its own way (a pubeval pre-filter where
    there are more than 16, and a batch evaluation whose choice is not always the 1-ply net's
    best): at some match scores that moves its equities by a tenth."""
    rng = random.Random(5)
    brain = nets()
    deep = bgsage.BgBotAnalyzer(eval_level="2ply", parallel_threads=1)
    cases = [
        (CubeContext(), {}),
        (CubeContext(beavers=True), {"beaver": True}),
        (CubeContext(away=(5, 3)), {"away1": 5, "away2": 3}),
        (CubeContext(value=2, owner=Owner.OPPONENT, away=(4, 7)),
         {"cube_value": 2, "cube_owner": "opponent", "away1": 4, "away2": 7}),
        (CubeContext(away=(4, 1)), {"away1": 4, "away2": 1}),
    ]
    doubles = 0
    for position in positions[::300]:
        context, kwargs = rng.choice(cases)
        advice = brain.cube_advice(position, context, ply=2)
        theirs = deep.cube_action(to_board(position), **{"jacoby": False, "beaver": False,
                                                          **kwargs})
        assert (advice.double, advice.take, advice.beaver) == (
            theirs.should_double, theirs.should_take, theirs.is_beaver)
        if not context.is_match:
            assert advice.no_double == pytest.approx(theirs.equity_nd, abs=0.01)
            assert advice.double_take == pytest.approx(theirs.equity_dt, abs=0.01)
        doubles += advice.double
    assert 0 < doubles < len(positions[::300])


def test_settle_looks_at_close_calls_three_plies_deep():
    """The close plays of a 2-ply ranking re-scored with bgsage's cubeless 3-ply search, equal
    to its own analyzer's; the rest as they were; a clear choice left alone."""
    brain = nets()
    deep = bgsage.BgBotAnalyzer(eval_level="3ply", cubeful=False, parallel_threads=1)
    start = Position.start()
    ranked = brain.rank_plays(start, 4, 3, CUBELESS, ply=2)
    settled = brain.settle(start, ranked, CUBELESS, 3, keep=3, within=0.5)
    assert len(settled) == len(ranked)
    assert [s.equity for s in settled[:3]] == sorted((s.equity for s in settled[:3]),
                                                     reverse=True)
    assert settled[3:] == ranked[3:]
    theirs = {tuple(m.board): m.equity
              for m in deep.checker_play(to_board(start), 4, 3).moves}
    for scored in settled[:3]:
        assert scored.equity == pytest.approx(theirs[tuple(to_board(scored.play.position))],
                                              abs=1e-5)
    # Nothing within 0.001 of the best: the 2-ply choice stands.
    assert brain.settle(start, ranked, CUBELESS, 3, keep=3, within=0.001) == ranked
    assert brain.settle(start, [], CUBELESS, 3, keep=3, within=0.1) == []


def test_deep_searches_run_side_by_side():
    """Threads share the pool of deep searches and get the answers one thread gets alone."""
    brain = nets()
    cases = [(Position.start(), d1, d2) for d1, d2 in ((4, 3), (6, 2), (5, 3), (2, 1))]

    def settle(case):
        position, d1, d2 = case
        ranked = brain.rank_plays(position, d1, d2, MONEY, ply=1)
        return brain.settle(position, ranked, MONEY, 3, keep=2, within=0.5)[:2]

    alone = [settle(case) for case in cases]
    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(settle, cases)) == alone


def test_roll_equities_are_the_best_play_of_each_roll(positions):
    brain = nets()
    for position in positions[::700]:
        rolls = brain.roll_equities(position)
        assert sum(w for _, _, w, _ in rolls) == 36
        for d1, d2, _, equity in rolls:
            ranked = brain.rank_plays(position, d1, d2, CUBELESS)
            expected = (ranked[0].equity if ranked
                        else brain.score_unchanged(position, CUBELESS).equity)
            if ranked and ranked[0].play.position.mover[0] == 15:
                expected = float(int(result_kind(ranked[0].play.position.opponent,
                                                 ranked[0].play.position.mover)))
            assert equity == pytest.approx(expected, abs=1e-6)


def test_context_for_tracks_cube_and_score():
    match, _ = Match.new(MatchOptions.match(7)).start_game()
    match = match.__class__(**{**{f: getattr(match, f) for f in match.__slots__},
                               "score": (2, 5)})
    context = context_for(match, 0)
    assert context.away == (5, 2) and context.may_double
    assert context_for(match, 1).away == (2, 5)
    money = context_for(Match.new(MatchOptions.money(jacoby=True, beavers=True)).start_game()[0], 0)
    assert money.jacoby and money.beavers and not money.is_match
    assert not CubeContext(away=(2, 5), value=2).may_double  # the cube already wins it
    assert not CubeContext(away=(1, 3), crawford=True).may_double
