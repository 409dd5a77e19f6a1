"""The variants' own rules, one hand-built position each: plakoto's pins and mothers, fevga's
blocks, first checker, starting quarter and prime, the Greek scoring, and the common interface
(engine.variants) the server and the bots will dispatch on."""

import pytest

from engine.position import Position, PositionError
from engine.results import ResultKind
from engine.validate import IllegalPlay, Reason
from engine.variants import NAMES, VARIANTS, Finish, Opening, Side, UnknownVariant, rules, variant
from engine.variants.fevga.position import FevgaPosition, their_point
from engine.variants.plakoto.position import PlakotoPosition

PLAKOTO = variant("plakoto")
FEVGA = variant("fevga")


def moves_of(v, position, d1, d2) -> set:
    return {play.moves for play in v.legal_plays(position, d1, d2)}


def results_of(v, position, d1, d2) -> set:
    return {play.position for play in v.legal_plays(position, d1, d2)}


def refusal(v, position, d1, d2, moves) -> IllegalPlay:
    with pytest.raises(IllegalPlay) as caught:
        v.validate(position, d1, d2, moves)
    return caught.value


# -- the interface ------------------------------------------------------------------------------


def test_every_name_has_rules_and_the_single_games_a_variant():
    assert NAMES == (
        "backgammon", "nackgammon", "hypergammon", "portes", "plakoto", "fevga", "tavli"
    )
    for name in NAMES:
        assert rules(name).name == name
    for name, v in VARIANTS.items():
        assert variant(name) is v and rules(name).rotation == (v,)
        assert rules(name).game(1) is v and rules(name).game(7) is v
        start = v.start()
        assert start.swapped() == start  # the same seen from either side
        assert sum(start.mover) == v.checkers == sum(start.opponent)
        assert v.ending(start) is None
        v.check(start)
        extra = (*start.mover[:-1], 1)  # one checker too many, on the bar
        bad = (
            Position.unchecked(extra, start.opponent)
            if isinstance(start, Position)
            else start.__class__(extra, start.opponent)
        )
        with pytest.raises(PositionError):
            v.check(bad)
    assert [rules("tavli").game(n).name for n in range(1, 8)] == [
        "portes", "plakoto", "fevga", "portes", "plakoto", "fevga", "portes"
    ]


def test_cube_opening_and_largest_win_per_variant():
    table = {name: (v.cube, v.opening, v.largest) for name, v in VARIANTS.items()}
    backgammon = (True, Opening.ROLLOFF, ResultKind.BACKGAMMON)
    greek = (False, Opening.REROLL, ResultKind.GAMMON)
    assert table == {
        "backgammon": backgammon, "nackgammon": backgammon, "hypergammon": backgammon,
        "portes": greek, "plakoto": greek, "fevga": greek,
    }
    assert rules("backgammon").cube and not rules("tavli").cube


@pytest.mark.parametrize("bad", ["Backgammon", "tavla", "", None, 3, "tavli "])
def test_unknown_names_are_refused_with_a_typed_error(bad):
    with pytest.raises(UnknownVariant):
        rules(bad)
    with pytest.raises(UnknownVariant):
        variant(bad)


def test_tavli_is_a_match_not_a_single_game():
    with pytest.raises(UnknownVariant, match="match of portes, plakoto and fevga"):
        variant("tavli")
    with pytest.raises(ValueError):
        rules("tavli").game(0)


# -- the backgammon family ----------------------------------------------------------------------


def test_nackgammon_and_hypergammon_play_by_backgammon_rules():
    backgammon = variant("backgammon")
    position = Position.from_points({13: 3, 8: 4, 6: 4, 25: 1, 1: 3}, {22: 2, 13: 5, 6: 8})
    for name in ("nackgammon", "portes"):
        assert variant(name).legal_plays(position, 4, 2) == backgammon.legal_plays(position, 4, 2)
    hyper = variant("hypergammon")
    # Three checkers: bearing off begins once the three are home (not fifteen).
    home = hyper.start().__class__.unchecked((0, 1, 0, 2) + (0,) * 22, (0,) * 22 + (1, 1, 1, 0))
    assert moves_of(hyper, home, 3, 1) == {((3, 2), (3, 0)), ((3, 0), (1, 0))}


def test_hypergammon_positions_are_checked_for_three_checkers():
    from engine.variants import hypergammon

    with pytest.raises(PositionError, match="expected 3"):
        hypergammon.position(Position.start().mover, hypergammon.start().opponent)
    with pytest.raises(PositionError, match="both players"):
        hypergammon.from_points({3: 1}, {22: 1})


@pytest.mark.parametrize(
    ("loser", "backgammon", "greek"),
    [
        ({6: 1}, ResultKind.SINGLE, ResultKind.SINGLE),  # the loser bore off 14
        ({13: 15}, ResultKind.GAMMON, ResultKind.GAMMON),
        ({24: 15}, ResultKind.BACKGAMMON, ResultKind.GAMMON),  # no triple in portes
        ({25: 1, 13: 14}, ResultKind.BACKGAMMON, ResultKind.GAMMON),
    ],
)
def test_portes_scores_a_backgammon_as_a_double(loser, backgammon, greek):
    won = Position.from_points({}, loser)
    assert variant("backgammon").ending(won).kind is backgammon
    end = variant("portes").ending(won)
    assert (end.winner, end.kind, end.finish, end.points) == (
        Side.MOVER, greek, Finish.BEAR_OFF, int(greek)
    )
    assert variant("portes").worst_possible(won.swapped()) is greek.__class__(
        min(int(variant("backgammon").worst_possible(won.swapped())), 2)
    )


# -- plakoto ------------------------------------------------------------------------------------

# The opponent's lone checker on its 20-point stands on the mover's 5-point.
LONE = PlakotoPosition.from_points({24: 14, 13: 1}, {24: 14, 20: 1})


def test_landing_on_a_lone_checker_pins_it():
    play = PLAKOTO.validate(LONE, 6, 2, [(13, 7), (7, 5)])
    assert play.position.pinned_points() == ((), (20,))
    assert play.position.opponent == LONE.opponent  # nothing is hit: it stays where it is
    assert play.position in results_of(PLAKOTO, LONE, 6, 2)


def test_a_pinned_checker_cannot_move_and_closes_its_point_to_its_owner():
    pinned = PLAKOTO.validate(LONE, 6, 2, [(13, 7), (7, 5)]).position.swapped()
    # Seen by the pinned side: its checker on 20 may not move, and 24/20 may not land there.
    for d1, d2 in [(4, 1), (4, 4), (6, 5), (2, 1)]:
        for moves in moves_of(PLAKOTO, pinned, d1, d2):
            assert all(frm != 20 and to != 20 for frm, to in moves)
    assert refusal(PLAKOTO, pinned, 4, 1, [(20, 16)]).reason is Reason.PINNED
    assert refusal(PLAKOTO, pinned, 4, 1, [(24, 20)]).reason is Reason.BLOCKED


def test_the_pinner_may_stack_and_its_leaving_frees_the_checker():
    pinning = PlakotoPosition.from_points({24: 13, 5: 1, 8: 1}, {24: 14, 20: 1}, [], [20])
    stacked = PLAKOTO.validate(pinning, 3, 1, [(8, 5), (24, 23)]).position
    assert stacked.mover[5] == 2 and stacked.pinned_points() == ((), (20,))
    freed = PLAKOTO.validate(pinning, 4, 1, [(5, 4), (24, 20)]).position
    assert freed.pinned_points() == ((), ()) and freed.opponent[20] == 1


def test_two_opposing_checkers_hold_a_point():
    held = PlakotoPosition.from_points({24: 14, 13: 1}, {24: 13, 20: 2})
    assert all(to != 5 for moves in moves_of(PLAKOTO, held, 6, 2) for _, to in moves)
    assert refusal(PLAKOTO, held, 6, 2, [(13, 7), (7, 5)]).reason is Reason.BLOCKED


def test_bearing_off_waits_until_no_checker_is_pinned():
    # All fifteen home, but the one on the 2-point is pinned by the opponent's (its 23).
    stuck = PlakotoPosition.from_points({6: 5, 5: 5, 4: 4, 2: 1}, {23: 1, 13: 14}, [2], [])
    assert moves_of(PLAKOTO, stuck, 6, 5) == {((6, 1),)}
    assert refusal(PLAKOTO, stuck, 6, 5, [(6, 0)]).reason is Reason.NOT_ALL_HOME
    free = PlakotoPosition.from_points({6: 5, 5: 5, 4: 4, 2: 1}, {13: 15})
    assert ((6, 0), (5, 0)) in moves_of(PLAKOTO, free, 6, 5)


def test_pinning_the_mother_wins_double_once_the_own_start_is_empty():
    # The opponent's last checker on its 24 (our 1): pinning it with our start empty wins.
    position = PlakotoPosition.from_points({13: 14, 2: 1}, {24: 1, 1: 14})
    play = PLAKOTO.validate(position, 2, 1, [(2, 1), (13, 11)])
    end = PLAKOTO.ending(play.position)
    assert (end.winner, end.kind, end.finish, end.points) == (
        Side.MOVER, ResultKind.GAMMON, Finish.MOTHER, 2
    )


def test_a_mother_pinned_while_the_own_start_is_still_occupied_plays_on():
    position = PlakotoPosition.from_points({24: 2, 13: 12, 2: 1}, {24: 1, 13: 14})
    after = PLAKOTO.validate(position, 2, 1, [(2, 1), (13, 11)]).position
    assert after.pinned_points() == ((), (24,)) and PLAKOTO.ending(after) is None
    # Emptying the starting point later, the opponent's mother still pinned, wins.
    later = PlakotoPosition.from_points({24: 2, 13: 12, 1: 1}, {24: 1, 13: 14}, [], [24])
    won = PLAKOTO.validate(later, 6, 5, [(24, 18), (24, 19)]).position
    assert PLAKOTO.ending(won).finish is Finish.MOTHER


def test_both_mothers_pinned_is_a_draw():
    # Our mother is pinned (their checker on their 1); we pin theirs: a draw.
    position = PlakotoPosition.from_points({24: 1, 13: 13, 2: 1}, {24: 1, 1: 1, 11: 13}, [24], [])
    after = PLAKOTO.validate(position, 1, 1, [(2, 1), (13, 12), (13, 12), (13, 12)]).position
    end = PLAKOTO.ending(after)
    assert end.is_draw and end.finish is Finish.MOTHERS and end.points == 0


def test_plakoto_positions_are_checked():
    start = PlakotoPosition.start()
    with pytest.raises(PositionError, match="nobody pinned"):
        PlakotoPosition.from_points({24: 14, 5: 1}, {24: 14, 20: 1})
    with pytest.raises(PositionError, match="no bar"):
        PlakotoPosition.checked((0,) * 24 + (14, 1), start.opponent)
    with pytest.raises(PositionError, match="bitmask"):
        PlakotoPosition.checked(start.mover, start.opponent, 1)


# -- fevga --------------------------------------------------------------------------------------


def test_one_checker_holds_a_point():
    # The opponent's single checker on its 20 stands on our 8.
    position = FevgaPosition.from_points({24: 13, 10: 2}, {24: 14, 20: 1})
    assert their_point(8) == 20
    assert all(to != 8 for moves in moves_of(FEVGA, position, 2, 1) for _, to in moves)
    assert refusal(FEVGA, position, 2, 1, [(10, 8)]).reason is Reason.BLOCKED


def test_the_first_checker_must_pass_the_opponents_start_before_another_leaves():
    start = FevgaPosition.start()
    assert moves_of(FEVGA, start, 6, 5) == {((24, 19), (19, 13))}  # 24/13, by either route
    assert moves_of(FEVGA, start, 6, 6) == {((24, 18),)}  # 18/12 is their start: stuck
    assert moves_of(FEVGA, start, 5, 5) == {  # past their start after three fives
        ((24, 19), (19, 14), (14, 9), (24, 19)),
        ((24, 19), (19, 14), (14, 9), (9, 4)),
    }
    waiting = FevgaPosition.from_points({24: 14, 13: 1}, {24: 15})
    # 13/12 is held; once 13/7 has passed their start, a second checker may leave.
    assert moves_of(FEVGA, waiting, 6, 1) == {((13, 7), (7, 6)), ((13, 7), (24, 23))}
    assert refusal(FEVGA, waiting, 6, 1, [(24, 18)]).reason is Reason.FIRST_CHECKER
    passed = FevgaPosition.from_points({24: 14, 11: 1}, {24: 15})
    assert ((24, 23), (24, 18)) in moves_of(FEVGA, passed, 6, 1)


def test_a_play_may_not_close_all_six_points_of_the_starting_quarter():
    # 20..24 held, 19 open: 20/19 keeping 20 held (two there) would close the quarter.
    position = FevgaPosition.from_points({24: 10, 23: 1, 22: 1, 21: 1, 20: 2}, {20: 15})
    plays = FEVGA.legal_plays(position, 2, 1)
    assert plays and not any(all(p.position.mover[19:25]) for p in plays)
    assert refusal(FEVGA, position, 2, 1, [(20, 19), (24, 22)]).reason is Reason.START_QUARTER
    assert FEVGA.validate(position, 2, 1, [(20, 19), (20, 18)]).position.mover[20] == 0


def test_the_quarter_rule_can_cost_a_die_and_the_higher_die():
    # Two or more on each of 20..24, their checkers on our 14..18: every play of both dice, and
    # 24/19 with the five alone, would close the quarter; 24/20 with the four is all there is.
    position = FevgaPosition.from_points(
        {24: 7, 23: 2, 22: 2, 21: 2, 20: 2}, {their_point(p): 3 for p in range(14, 19)}
    )
    assert moves_of(FEVGA, position, 5, 4) == {((24, 20),)}
    assert refusal(FEVGA, position, 5, 4, [(24, 19)]).reason is Reason.START_QUARTER


def test_a_prime_with_every_opposing_checker_behind_it_must_be_opened():
    # All fifteen of theirs on their 19 (our 7); our 1..6 is their 13..18: a full prime.
    trapped = FevgaPosition.from_points(
        {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 10: 3}, {19: 15}
    )
    plays = FEVGA.legal_plays(trapped, 2, 1)
    assert plays and all(not all(p.position.mover[1:7]) for p in plays)
    assert refusal(FEVGA, trapped, 2, 1, [(10, 8), (10, 9)]).reason is Reason.MUST_OPEN_PRIME
    # With one of theirs already past the prime, nothing obliges us.
    free = FevgaPosition.from_points({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 10: 3}, {19: 14, 8: 1})
    assert ((10, 9), (10, 8)) in moves_of(FEVGA, free, 2, 1)
    # When no play can open it (every point of two, 6-5), the ordinary plays stand.
    assert moves_of(FEVGA, trapped, 6, 5) == moves_of(FEVGA, free, 6, 5)


def test_fevga_bears_off_as_backgammon_and_scores_the_greek_way():
    position = FevgaPosition.from_points({6: 1, 3: 1}, {20: 15})
    assert moves_of(FEVGA, position, 6, 5) == {((6, 1), (3, 0)), ((6, 0), (3, 0))}
    won = FEVGA.validate(position, 6, 5, [(6, 0), (3, 0)]).position
    assert FEVGA.ending(won).points == 2  # they bore off none
    assert FEVGA.worst_possible(won.swapped()) is ResultKind.GAMMON


def test_fevga_positions_are_checked():
    with pytest.raises(PositionError, match="both sides"):
        FevgaPosition.from_points({12: 1}, {24: 15})
    with pytest.raises(PositionError, match="expected 15"):
        FevgaPosition.checked((0,) * 26, FevgaPosition.start().opponent)
