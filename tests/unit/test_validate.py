"""Play validation: one hand-built case per reason, and differential runs against an
independent oracle (built from engine.reference) on the seeded corpus."""

import itertools
import random

import pytest

from engine.movegen import Play, legal_plays
from engine.position import Position
from engine.reference import Move, apply_move, single_moves
from engine.validate import IllegalPlay, Reason, check_prefix, validate_play
from harness.corpus import Case, random_play_cases, tricky_cases

START = Position.start()
CLOSED = Position.from_points({25: 1, 6: 2}, dict.fromkeys(range(1, 7), 2))


def only(mover: dict[int, int], opponent: dict[int, int]) -> Position:
    return Position.from_points(mover, opponent)


def refusal(position, d1, d2, moves) -> IllegalPlay:
    with pytest.raises(IllegalPlay) as caught:
        validate_play(position, d1, d2, moves)
    return caught.value


def test_reason_values_are_stable():
    assert {reason.value for reason in Reason} == {
        "malformed",
        "no_legal_move",
        "too_many_moves",
        "no_checker",
        "bar_first",
        "not_all_home",
        "no_such_die",
        "bear_off_not_highest",
        "blocked",
        "must_use_more_dice",
        "higher_die_required",
        # the variants' (engine.variants)
        "pinned",
        "first_checker",
        "start_quarter",
        "must_open_prime",
    }


@pytest.mark.parametrize(
    ("moves", "step", "move"),
    [
        ([(8, 9)], 0, (8, 9)),  # backwards
        ([(8, 8)], 0, (8, 8)),
        ([(26, 23)], 0, (26, 23)),
        ([(0, 0)], 0, (0, 0)),
        ([(8, -1)], 0, (8, -1)),
        ([(8, 5), (8,)], 1, None),
        ([(8, 5), (6, 5, 4)], 1, None),
        ([("8", "5")], 0, None),
        ([(True, False)], 0, None),
        ([(8.0, 5.0)], 0, None),
        ([None], 0, None),
    ],
)
def test_malformed_moves(moves, step, move):
    err = refusal(START, 3, 1, moves)
    assert (err.reason, err.step, err.move) == (Reason.MALFORMED, step, move)


def test_moves_must_be_a_sequence():
    err = refusal(START, 3, 1, "8/5 6/5")
    assert (err.reason, err.step, err.move) == (Reason.MALFORMED, None, None)


def test_lists_are_accepted_as_moves():
    assert validate_play(START, 3, 1, [[8, 5], [6, 5]]).moves == ((8, 5), (6, 5))


def test_no_checker():
    err = refusal(START, 3, 1, [(7, 4)])
    assert (err.reason, err.step, err.move) == (Reason.NO_CHECKER, 0, (7, 4))
    err = refusal(START, 3, 1, [(25, 22)])
    assert err.reason is Reason.NO_CHECKER


def test_bar_first():
    position = only({25: 1, 13: 14}, {})
    err = refusal(position, 3, 1, [(13, 10), (25, 24)])
    assert (err.reason, err.step, err.move) == (Reason.BAR_FIRST, 0, (13, 10))
    assert validate_play(position, 3, 1, [(25, 24), (13, 10)]).moves == ((25, 24), (13, 10))


def test_blocked():
    err = refusal(START, 6, 5, [(13, 7), (24, 19)])
    assert (err.reason, err.step, err.move) == (Reason.BLOCKED, 1, (24, 19))


def test_no_such_die():
    err = refusal(START, 3, 1, [(13, 11)])
    assert (err.reason, err.step) == (Reason.NO_SUCH_DIE, 0)
    err = refusal(START, 3, 1, [(8, 5), (6, 3)])  # the 3 is used up
    assert (err.reason, err.step, err.move) == (Reason.NO_SUCH_DIE, 1, (6, 3))


def test_not_all_home():
    err = refusal(only({7: 1, 3: 1}, {}), 4, 3, [(3, 0)])
    assert (err.reason, err.step) == (Reason.NOT_ALL_HOME, 0)


def test_bear_off_not_highest():
    position = only({6: 1, 3: 1}, {})
    err = refusal(position, 6, 5, [(3, 0), (6, 0)])
    assert (err.reason, err.step, err.move) == (Reason.BEAR_OFF_NOT_HIGHEST, 0, (3, 0))
    # From the highest point the larger die bears off; and a move inside is fine too.
    assert validate_play(position, 6, 5, [(6, 0), (3, 0)]).position.is_over()
    assert validate_play(position, 6, 5, [(6, 1), (3, 0)]).position.mover[1] == 1


def test_bear_off_with_either_die():
    # (3, 0) can use the exact 3 or the 5 (3 is the highest point): both lead to a full play.
    position = only({3: 2}, {})
    assert validate_play(position, 5, 3, [(3, 0), (3, 0)]).position.is_over()
    # Checkers on 4 and 2, roll 3-1: after 4/3 the 3 cannot bear off from 2 (3 is higher).
    err = refusal(only({4: 1, 2: 1}, {}), 3, 1, [(4, 3), (2, 0)])
    assert (err.reason, err.step) == (Reason.BEAR_OFF_NOT_HIGHEST, 1)


def test_too_many_moves():
    err = refusal(START, 3, 1, [(8, 5), (6, 5), (5, 4)])
    assert (err.reason, err.step, err.move) == (Reason.TOO_MANY_MOVES, 2, (5, 4))
    # Only one die can be played: a second move is one too many.
    err = refusal(only({13: 1}, {23: 2}), 6, 5, [(13, 7), (7, 2)])
    assert (err.reason, err.step) == (Reason.TOO_MANY_MOVES, 1)


def test_must_use_more_dice_after_a_dead_end_step():
    # 9/8 with the 1 is legal by itself, but then no 6 can be played (7, 3 and 2 are held),
    # while 13/12/6 uses both dice.
    position = only({13: 1, 9: 1}, {18: 2, 22: 2, 23: 2})
    err = refusal(position, 6, 1, [(9, 8), (13, 7)])
    assert (err.reason, err.step, err.move) == (Reason.MUST_USE_MORE_DICE, 0, (9, 8))
    assert validate_play(position, 6, 1, [(13, 12), (12, 6)]).moves == ((13, 12), (12, 6))


def test_must_use_more_dice_when_stopping_early():
    err = refusal(START, 6, 5, [(13, 7)])
    assert (err.reason, err.step, err.move) == (Reason.MUST_USE_MORE_DICE, 1, None)
    err = refusal(START, 6, 5, [])
    assert (err.reason, err.step, err.move) == (Reason.MUST_USE_MORE_DICE, 0, None)


def test_must_use_more_dice_in_a_double():
    err = refusal(START, 6, 6, [(24, 18), (24, 18), (13, 7)])
    assert (err.reason, err.step, err.move) == (Reason.MUST_USE_MORE_DICE, 3, None)
    # A partial double is complete with fewer moves: 13/10 is all 3-3 allows here.
    assert validate_play(only({13: 1}, {18: 2}), 3, 3, [(13, 10)]).moves == ((13, 10),)
    err = refusal(only({13: 1}, {18: 2}), 3, 3, [(13, 10), (10, 7)])
    assert (err.reason, err.step) == (Reason.TOO_MANY_MOVES, 1)


def test_check_prefix_tells_unfinished_from_wrong():
    assert check_prefix(START, 3, 3, []) is None
    assert check_prefix(START, 3, 3, [(8, 5), (8, 5)]) is None
    play = check_prefix(START, 3, 3, [(8, 5), (8, 5), (6, 3), (6, 3)])
    assert play in legal_plays(START, 3, 3)
    with pytest.raises(IllegalPlay) as caught:
        check_prefix(only({13: 1, 9: 1}, {18: 2, 22: 2, 23: 2}), 6, 1, [(9, 8)])
    assert caught.value.reason is Reason.MUST_USE_MORE_DICE and caught.value.step == 0
    assert check_prefix(CLOSED, 6, 5, []) == Play((), CLOSED)


def test_higher_die_required():
    err = refusal(only({13: 1}, {23: 2}), 6, 5, [(13, 8)])
    assert (err.reason, err.step, err.move) == (Reason.HIGHER_DIE_REQUIRED, 0, (13, 8))
    assert validate_play(only({13: 1}, {23: 2}), 6, 5, [(13, 7)]).moves == ((13, 7),)


def test_no_legal_move_and_the_pass():
    err = refusal(CLOSED, 6, 5, [(25, 19)])
    assert (err.reason, err.step, err.move) == (Reason.NO_LEGAL_MOVE, 0, (25, 19))
    assert validate_play(CLOSED, 6, 5, []) == Play((), CLOSED)
    assert validate_play(CLOSED, 6, 6, ()) == Play((), CLOSED)


def test_returns_the_generators_play_for_any_route():
    position = only({13: 1}, {})
    expected = legal_plays(position, 2, 1)
    assert len(expected) == 1
    assert validate_play(position, 2, 1, [(13, 11), (11, 10)]) == expected[0]
    assert validate_play(position, 2, 1, [(13, 12), (12, 10)]) == expected[0]


def test_refusal_is_a_typed_readable_exception():
    err = refusal(START, 6, 5, [(13, 7), (24, 19)])
    assert isinstance(err, Exception)
    assert str(err) == "move 2 (24, 19): blocked: the opponent holds point 19"
    with pytest.raises(ValueError, match="dice"):
        validate_play(START, 0, 1, [])


# -- differential: every legal order accepted, everything else refused -------------------------


def oracle(case: Case, moves, by_position: dict[Position, Play], most: int) -> Play | None:
    """The play ``moves`` makes if it is a legal order of single-die moves of ``most`` dice
    ending in a legal play; None otherwise. Built only from engine.reference."""
    position, d1, d2 = case
    if len(moves) != most:
        return None

    def walk(current: Position, dice: list[int], i: int) -> Play | None:
        if i == len(moves):
            return by_position.get(current)
        for j, die in enumerate(dice):
            if tuple(moves[i]) in single_moves(current, die):
                done = walk(apply_move(current, tuple(moves[i])), dice[:j] + dice[j + 1 :], i + 1)
                if done:
                    return done
        return None

    return walk(position, [d1] * 4 if d1 == d2 else [d1, d2], 0)


def cases() -> list[Case]:
    families = tricky_cases(seed=31, per_family=40)
    return random_play_cases(seed=17, n=400) + [c for family in families.values() for c in family]


def legal_orders(moves: tuple[Move, ...]) -> set[tuple[Move, ...]]:
    return set(itertools.permutations(moves))


def test_every_legal_order_of_every_play_is_accepted_as_that_play():
    checked = 0
    for case in cases():
        plays = legal_plays(*case)
        by_position = {play.position: play for play in plays}
        most = len(plays[0].moves) if plays else 0
        for play in plays[:6]:
            for order in legal_orders(play.moves):
                expected = oracle(case, order, by_position, most)
                if expected is None:  # a permutation that is not a legal order
                    with pytest.raises(IllegalPlay):
                        validate_play(*case, list(order))
                else:
                    assert expected == play
                    assert validate_play(*case, list(order)) == play
                    checked += 1
    assert checked > 5000


def random_sequence(rng: random.Random, case: Case) -> list[Move]:
    """Mostly plausible single-die moves, sometimes junk."""
    position, d1, d2 = case
    moves: list[Move] = []
    for _ in range(rng.randint(0, 5)):
        die = rng.choice((d1, d2))
        candidates = single_moves(position, die)
        if candidates and rng.random() < 0.85:
            move = rng.choice(candidates)
            position = apply_move(position, move)
        else:
            frm = rng.choice((25, *range(1, 25)))
            move = (frm, max(0, frm - rng.randint(1, 7)))
        moves.append(move)
    return moves


def test_random_sequences_are_accepted_exactly_when_legal():
    rng = random.Random(8)
    accepted = refused = 0
    for case in cases():
        plays = legal_plays(*case)
        by_position = {play.position: play for play in plays}
        most = len(plays[0].moves) if plays else 0
        for _ in range(10):
            moves = random_sequence(rng, case)
            expected = oracle(case, moves, by_position, most)
            if not moves and most == 0:
                expected = Play((), case[0])
            try:
                got = validate_play(*case, moves)
            except IllegalPlay as err:
                assert expected is None, (case, moves, err)
                assert err.step is not None and 0 <= err.step <= len(moves)
                refused += 1
            else:
                assert got == expected, (case, moves)
                accepted += 1
    assert accepted > 400 and refused > 2000
