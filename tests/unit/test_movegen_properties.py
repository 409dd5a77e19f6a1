"""Properties of every generated play, on positions Hypothesis draws from the seeded families."""

import itertools
import random

from hypothesis import given
from hypothesis import strategies as st

from engine.movegen import legal_plays
from engine.position import BAR, CHECKERS, OFF, Position, pip_count
from engine.position_id import decode, encode
from engine.reference import apply_move, single_moves
from engine.validate import IllegalPlay, can_play, validate_play
from harness import corpus

MAKERS = {
    "crowded": corpus.crowded,
    "bar_closed_board": corpus.bar_against_closed_board,
    "bear_off": lambda rng: corpus.bear_off(rng, contact=False),
    "bear_off_hits": lambda rng: corpus.bear_off(rng, contact=True),
    "nearly_finished": corpus.nearly_finished,
    "blocked": corpus.blocked,
}
GAMES = corpus.random_play(random.Random(4), 8)


@st.composite
def cases(draw) -> tuple[Position, int, int]:
    kind = draw(st.sampled_from(["game", *MAKERS]))
    if kind == "game":
        position = draw(st.sampled_from(GAMES))
    else:
        position = MAKERS[kind](random.Random(draw(st.integers(0, 2**32))))
    return position, draw(st.integers(1, 6)), draw(st.integers(1, 6))


def dice_of(d1: int, d2: int) -> list[int]:
    return [d1] * 4 if d1 == d2 else [d1, d2]


def dice_used(moves, d1: int, d2: int) -> tuple[int, ...] | None:
    """Distinct dice of the roll, one per move, that can make each move (the exact distance,
    or a larger die to bear off); None if there are none."""
    for dice in set(itertools.permutations(dice_of(d1, d2), len(moves))):
        if all(
            die == frm - to or (to == OFF and die > frm)
            for (frm, to), die in zip(moves, dice, strict=True)
        ):
            return dice
    return None


@given(cases())
def test_checkers_are_conserved(case):
    for play in legal_plays(*case):
        assert sum(play.position.mover) == CHECKERS
        assert sum(play.position.opponent) == CHECKERS
        assert all(n >= 0 for n in play.position.mover + play.position.opponent)


@given(cases())
def test_pips_fall_by_the_dice_used_and_the_opponent_only_gains_by_hits(case):
    position, d1, d2 = case
    before_mover, before_opponent = position.pips()
    plays = legal_plays(position, d1, d2)
    assert len({len(play.moves) for play in plays}) <= 1  # every play uses as many dice
    for play in plays:
        used = dice_used(play.moves, d1, d2)
        assert used is not None
        after_mover, after_opponent = play.position.pips()
        walked = before_mover - after_mover
        assert walked == sum(frm - to for frm, to in play.moves)
        if all(to != OFF for _, to in play.moves):
            assert walked == sum(used)
        else:  # a larger die bearing off loses its overshoot
            assert walked <= sum(used)
        # A hit sends the blot on the mover's point t (the opponent's 25 - t) to the bar: +t.
        landed = {to for _, to in play.moves if to}
        hit = [t for t in landed if position.opponent[25 - t] == 1]
        assert after_opponent - before_opponent == sum(hit)
        assert play.position.opponent[BAR] - position.opponent[BAR] == len(hit)
        assert pip_count(play.position.opponent) >= before_opponent


@given(cases())
def test_results_are_possible_positions_and_round_trip_through_position_ids(case):
    for play in legal_plays(*case):
        result = Position(play.position.mover, play.position.opponent)  # validates the board
        assert decode(encode(result)) == result


@given(cases(), st.randoms(use_true_random=False))
def test_validation_accepts_the_legal_orders_of_every_play(case, rng):
    position, d1, d2 = case
    plays = legal_plays(position, d1, d2)
    for play in plays[:8]:
        order = list(play.moves)
        rng.shuffle(order)
        if is_legal_order(position, order, dice_of(d1, d2)):
            assert validate_play(position, d1, d2, order) == play
        assert validate_play(position, d1, d2, list(play.moves)) == play
    if not plays:
        assert validate_play(position, d1, d2, []).moves == ()


def is_legal_order(position: Position, moves, dice: list[int]) -> bool:
    if not moves:
        return True
    for i, die in enumerate(dice):
        if tuple(moves[0]) in single_moves(position, die):
            rest = dice[:i] + dice[i + 1 :]
            if is_legal_order(apply_move(position, tuple(moves[0])), moves[1:], rest):
                return True
    return False


@given(
    cases(),
    st.lists(st.tuples(st.integers(-1, 26), st.integers(-1, 26)), max_size=5),
)
def test_validation_refuses_what_is_not_a_legal_play(case, moves):
    position, d1, d2 = case
    plays = {play.position: play for play in legal_plays(position, d1, d2)}
    most = max((len(play.moves) for play in plays.values()), default=0)
    try:
        got = validate_play(position, d1, d2, moves)
    except IllegalPlay as err:
        assert err.step is None or 0 <= err.step <= len(moves)
        return
    # Accepted: a legal order of the maximal number of dice ending in a legal play (or a pass).
    assert len(moves) == most
    if most:
        assert is_legal_order(position, moves, dice_of(d1, d2))
        assert got == plays[got.position]
    else:
        assert got.moves == () and got.position == position


@given(cases(), st.randoms(use_true_random=False))
def test_validation_of_plausible_sequences(case, rng):
    """Single-die moves chained on the board, with dice that may already be used up: accepted
    exactly when they form a legal order of a legal play."""
    position, d1, d2 = case
    plays = {play.position: play for play in legal_plays(position, d1, d2)}
    most = max((len(play.moves) for play in plays.values()), default=0)
    moves, current = [], position
    for _ in range(rng.randint(1, 5)):
        candidates = single_moves(current, rng.choice((d1, d2)))
        if not candidates:
            break
        moves.append(rng.choice(candidates))
        current = apply_move(current, moves[-1])
    legal = len(moves) == most and is_legal_order(position, moves, dice_of(d1, d2))
    legal = legal and (current in plays or not plays)
    try:
        got = validate_play(position, d1, d2, moves)
    except IllegalPlay:
        assert not legal
    else:
        assert legal
        assert got == plays[current] if plays else got.moves == () and got.position == position


@given(cases())
def test_plays_are_distinct_sorted_and_moves_sorted(case):
    plays = legal_plays(*case)
    assert len({play.position for play in plays}) == len(plays)
    assert [p.moves for p in plays] == sorted((p.moves for p in plays), reverse=True)
    for play in plays:
        assert play.moves and list(play.moves) == sorted(play.moves, reverse=True)


@given(cases())
def test_a_play_exists_exactly_when_can_play_says_so(case):
    assert can_play(*case) == bool(legal_plays(*case))


def test_can_play_agrees_with_the_generator_on_every_roll_of_the_corpus():
    positions = GAMES + [
        make(random.Random(seed)) for make in MAKERS.values() for seed in range(40)
    ]
    checked = 0
    for position in positions:
        for d1, d2 in itertools.combinations_with_replacement(range(1, 7), 2):
            assert can_play(position, d1, d2) == bool(legal_plays(position, d1, d2)), (
                encode(position),
                d1,
                d2,
            )
            checked += 1
    assert checked > 5000
