"""The fast legal-play generator: one hand-built position per rule, the opening counts, perft
from the start position, and differential runs against GNU Backgammon and the reference."""

import functools
import random

import gnubg_nn as gnubg
import pytest

from engine.movegen import Play, legal_plays
from engine.position import BAR, OFF, Position
from engine.reference import reference_plays, single_moves
from harness.corpus import (
    FAMILIES,
    ROLLS,
    Case,
    gnubg_results,
    random_play_cases,
    to_gnubg,
    tricky_cases,
)


def plays_of(position: Position, d1: int, d2: int) -> dict[tuple, Position]:
    """moves -> resulting position, for compact expectations."""
    return {play.moves: play.position for play in legal_plays(position, d1, d2)}


def only(*, mover: dict[int, int], opponent: dict[int, int]) -> Position:
    return Position.from_points(mover, opponent)


# -- one rule at a time -----------------------------------------------------------------------


def test_both_dice_must_be_used_when_possible():
    # 13/7 is blocked; 13/12 alone would leave the 6 unplayed, but 13/12/6 uses both.
    position = only(mover={13: 1}, opponent={18: 2})
    assert plays_of(position, 6, 1) == {((13, 12), (12, 6)): only(mover={6: 1}, opponent={18: 2})}


def test_higher_die_when_only_one_die_can_be_played():
    # 13/7 or 13/8 alone are possible, both in a row are not (point 2 is held): play the 6.
    position = only(mover={13: 1}, opponent={23: 2})
    assert list(plays_of(position, 6, 5)) == [((13, 7),)]
    assert list(plays_of(position, 5, 6)) == [((13, 7),)]


def test_smaller_die_when_the_larger_cannot_be_played():
    position = only(mover={13: 1}, opponent={23: 2, 18: 2})  # 13/7 blocked too
    assert list(plays_of(position, 6, 5)) == [((13, 8),)]


def test_doubles_play_four_times():
    position = only(mover={13: 1}, opponent={24: 2})
    assert list(plays_of(position, 2, 2)) == [((13, 11), (11, 9), (9, 7), (7, 5))]


def test_partial_double_is_the_whole_turn():
    position = only(mover={13: 1}, opponent={18: 2})  # 13/10/7: 7 is held
    assert list(plays_of(position, 3, 3)) == [((13, 10),)]


def test_no_playable_die_passes():
    position = only(mover={25: 1, 6: 2}, opponent=dict.fromkeys(range(1, 7), 2))
    assert legal_plays(position, 6, 5) == ()
    assert legal_plays(position, 4, 4) == ()


def test_bar_checker_enters_before_anything_else():
    # The 1 cannot enter (24-point held): enter with the 6, then the 1 anywhere.
    position = only(mover={25: 1, 6: 14}, opponent={1: 2})
    assert set(plays_of(position, 6, 1)) == {((25, 19), (19, 18)), ((25, 19), (6, 5))}


def test_several_checkers_on_the_bar():
    position = only(mover={25: 2, 6: 13}, opponent={1: 2})
    assert list(plays_of(position, 6, 3)) == [((25, 22), (25, 19))]
    # Only the 6 enters; the second checker is stuck, so the 1 is lost.
    assert list(plays_of(position, 6, 1)) == [((25, 19),)]
    three = only(mover={25: 3, 6: 12}, opponent={})
    assert set(plays_of(three, 3, 3)) == {
        ((25, 22), (25, 22), (25, 22), (22, 19)),
        ((25, 22), (25, 22), (25, 22), (6, 3)),
    }


def test_both_dice_by_one_checker_need_an_open_stopover():
    position = only(mover={13: 1}, opponent={14: 2})  # 11 held (opponent's 14): via 9 only
    assert list(plays_of(position, 4, 2)) == [((13, 9), (9, 7))]
    both_held = only(mover={13: 1}, opponent={14: 2, 16: 2})
    assert legal_plays(both_held, 4, 2) == ()


def test_hitting_sends_the_blot_to_the_bar_and_routes_with_different_hits_differ():
    position = only(mover={13: 1}, opponent={15: 1})  # a blot on the mover's 10
    assert plays_of(position, 3, 1) == {
        ((13, 12), (12, 9)): only(mover={9: 1}, opponent={15: 1}),
        ((13, 10), (10, 9)): only(mover={9: 1}, opponent={25: 1}),
    }


def test_same_position_by_two_routes_is_one_play():
    position = only(mover={13: 1}, opponent={})
    plays = legal_plays(position, 2, 1)
    assert [play.moves for play in plays] == [((13, 12), (12, 10))]


def test_bear_off_exact_oversize_from_highest_and_moving_inside():
    # Checkers on 6 and 3, roll 6-5: 6/off then 3/off (5 from the highest point); or 6/1 with
    # the 5 then 3/off with the 6. 3/off with the 5 first is illegal (6 is higher).
    position = only(mover={6: 1, 3: 1}, opponent={})
    assert plays_of(position, 6, 5) == {
        ((6, 0), (3, 0)): only(mover={}, opponent={}),
        ((6, 1), (3, 0)): only(mover={1: 1}, opponent={}),
    }


def test_no_bear_off_until_all_home():
    # 7/3 then 3/off is fine; 3/off first is not (7 is outside).
    position = only(mover={7: 1, 3: 1}, opponent={})
    assert set(plays_of(position, 4, 3).values()) == {only(mover={3: 1}, opponent={})}


def test_bear_off_hit_in_the_home_board():
    position = only(mover={6: 2, 5: 3}, opponent={21: 1})  # a blot on the mover's 4
    plays = plays_of(position, 2, 1)
    assert ((6, 4), (5, 4)) in plays
    assert plays[((6, 4), (5, 4))].opponent[BAR] == 1


def test_bear_off_doubles_mix_moves_and_bear_offs():
    position = only(mover={5: 1, 2: 2}, opponent={})
    # 5/1 is forced before 2s can leave with the 4 (oversize needs 2 to be the highest).
    assert set(plays_of(position, 4, 4)) == {((5, 1), (2, 0), (2, 0), (1, 0))}


def test_every_play_is_sorted_distinct_and_uses_gnubg_orientation():
    position = Position.start()
    plays = legal_plays(position, 4, 4)
    assert [p.moves for p in plays] == sorted((p.moves for p in plays), reverse=True)
    assert len({p.position for p in plays}) == len(plays)
    assert all(
        isinstance(p, Play) and p.moves == tuple(sorted(p.moves, reverse=True)) for p in plays
    )
    assert {p.position for p in plays} == gnubg_results(position, 4, 4)


def test_dice_out_of_range_are_refused():
    with pytest.raises(ValueError, match=r"1\.\.6"):
        legal_plays(Position.start(), 0, 3)
    with pytest.raises(ValueError, match=r"1\.\.6"):
        legal_plays(Position.start(), 3, 7)


# -- counts from the start -------------------------------------------------------------------

# rules.md: distinct legal plays from the start position for each of the 21 rolls.
OPENING_COUNTS = {
    (2, 1): 15, (3, 1): 16, (3, 2): 17, (4, 1): 14, (4, 2): 18, (4, 3): 17, (5, 1): 8,
    (5, 2): 8, (5, 3): 9, (5, 4): 9, (6, 1): 10, (6, 2): 14, (6, 3): 14, (6, 4): 14,
    (6, 5): 7, (1, 1): 42, (2, 2): 75, (3, 3): 73, (4, 4): 52, (5, 5): 4, (6, 6): 11,
}  # fmt: skip


@pytest.mark.parametrize(("dice", "count"), OPENING_COUNTS.items())
def test_opening_counts(dice, count):
    assert len(legal_plays(Position.start(), *dice)) == count
    assert len(legal_plays(Position.start(), *reversed(dice))) == count


def perft(position: Position, depth: int, children) -> int:
    """Leaves of the tree of all 21 rolls and all distinct plays (a pass is one child)."""
    if depth == 0:
        return 1
    total = 0
    for d1, d2 in ROLLS:
        results = children(position, d1, d2) or [position]
        total += sum(perft(child.swapped(), depth - 1, children) for child in results)
    return total


def ours(position, d1, d2):
    return [play.position for play in legal_plays(position, d1, d2)]


def gnubgs(position, d1, d2):
    return sorted(gnubg_results(position, d1, d2), key=lambda p: (p.mover, p.opponent))


# Pinned: the same figures as gnubg's generator computes live below.
PERFT = {1: 447, 2: 202_782}


@pytest.mark.parametrize("depth", [1, 2])
def test_perft_from_the_start(depth):
    mine = perft(Position.start(), depth, ours)
    assert mine == PERFT[depth]
    assert mine == perft(Position.start(), depth, gnubgs)


# -- differential runs -------------------------------------------------------------------------


@functools.cache
def random_play() -> list[Case]:
    return random_play_cases(seed=2026, n=8000, games=200)


@functools.cache
def tricky() -> dict[str, list[Case]]:
    return tricky_cases(seed=7, per_family=400)


def assert_same_as_gnubg(cases):
    for position, d1, d2 in cases:
        plays = legal_plays(position, d1, d2)
        results = [play.position for play in plays]
        assert len(set(results)) == len(results), (position, d1, d2)
        assert set(results) == gnubg_results(position, d1, d2), (str(position), d1, d2)
        moves = [play.moves for play in plays]
        assert moves == sorted(moves, reverse=True)


def test_random_play_positions_match_gnubg():
    assert len(random_play()) == 8000
    assert_same_as_gnubg(random_play())


@pytest.mark.parametrize("family", FAMILIES)
def test_tricky_families_match_gnubg(family):
    cases = tricky()[family]
    assert len(cases) == 400
    assert_same_as_gnubg(cases)


def test_tricky_families_really_are_tricky():
    """The families hold what their names promise (so the runs above test those rules)."""
    one_die = tricky()["one_die_only"]
    assert all(
        d1 != d2 and {len(p.moves) for p in legal_plays(position, d1, d2)} == {1}
        for position, d1, d2 in one_die
    )
    # The higher-die rule bites: the smaller die alone was playable too.
    bites = [
        (position, d1, d2)
        for position, d1, d2 in one_die
        if single_moves(position, max(d1, d2)) and single_moves(position, min(d1, d2))
    ]
    assert len(bites) > 20
    assert sum(position.mover[BAR] > 1 for position, _, _ in tricky()["bar_closed_board"]) > 50
    partial = {len(legal_plays(*case)[0].moves) for case in tricky()["partial_doubles"]}
    assert partial == {1, 2, 3}
    assert any(
        play.position.opponent[BAR] > position.opponent[BAR]
        for position, d1, d2 in tricky()["bear_off_hits"]
        for play in legal_plays(position, d1, d2)
    )
    assert any(position.mover[OFF] >= 12 for position, _, _ in tricky()["nearly_finished"])


def test_matches_the_reference_generator():
    rng = random.Random(99)
    sample = rng.sample(random_play(), 150) + [
        case for family in tricky().values() for case in rng.sample(family, 15)
    ]
    for position, d1, d2 in sample:
        assert {p.position for p in legal_plays(position, d1, d2)} == set(
            reference_plays(position, d1, d2)
        )


def test_gnubg_oracle_orientation():
    """gnubg keeps the mover as the side on roll after generating moves, like our results."""
    position = Position.start()
    boards = [gnubg.board_from_position_key(k) for k in gnubg.moves(to_gnubg(position), 6, 5)]
    running = only(
        mover={24: 1, 13: 6, 8: 3, 6: 5}, opponent={24: 2, 13: 5, 8: 3, 6: 5}
    )  # 24/18/13
    assert (running.opponent[1:26], running.mover[1:26]) in boards
    assert running in gnubg_results(position, 6, 5)
