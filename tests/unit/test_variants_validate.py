"""Validation of plakoto and fevga plays: one case per refusal, and differential runs against an
oracle built from each variant's reference (every legal order of every play accepted as the
generator's play; random sequences accepted exactly when the oracle lists them)."""

import functools
import random

import pytest

from engine.validate import IllegalPlay, Reason
from engine.variants import variant
from engine.variants.fevga import reference as fevga_reference
from engine.variants.fevga.position import FevgaPosition, their_point
from engine.variants.plakoto import reference as plakoto_reference
from engine.variants.plakoto.position import PlakotoPosition
from harness.variant_corpus import family_cases, random_play_cases

PLAKOTO = variant("plakoto")
FEVGA = variant("fevga")
REFERENCE = {"plakoto": plakoto_reference, "fevga": fevga_reference}


def refusal(v, position, d1, d2, moves) -> IllegalPlay:
    with pytest.raises(IllegalPlay) as caught:
        v.validate(position, d1, d2, moves)
    return caught.value


# -- one case per reason ------------------------------------------------------------------------

P_START = PlakotoPosition.start()
F_START = FevgaPosition.start()
# Plakoto: our checker on 20 pinned by theirs (their 5); two of theirs on their 19 (our 6).
P_PINNED = PlakotoPosition.from_points({24: 12, 20: 1, 13: 2}, {24: 12, 5: 1, 19: 2}, [20], [])
P_HOME = PlakotoPosition.from_points({6: 2, 3: 3}, {24: 15})  # ten off, all home
P_CLOSED = PlakotoPosition.from_points({24: 15}, dict.fromkeys(range(2, 8), 2) | {13: 3})
F_TRAPPED = FevgaPosition.from_points({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 10: 3}, {19: 15})
F_QUARTER = FevgaPosition.from_points(
    {24: 7, 23: 2, 22: 2, 21: 2, 20: 2}, {their_point(p): 3 for p in range(14, 19)}
)


@pytest.mark.parametrize(
    ("name", "position", "dice", "moves", "reason", "step"),
    [
        ("plakoto", P_START, (6, 5), [(25, 19)], Reason.MALFORMED, 0),  # no bar
        ("plakoto", P_START, (6, 5), [(24, 24)], Reason.MALFORMED, 0),
        ("plakoto", P_START, (6, 5), [("24", "18")], Reason.MALFORMED, 0),
        ("plakoto", P_CLOSED, (6, 6), [(24, 18)], Reason.NO_LEGAL_MOVE, 0),
        ("plakoto", P_START, (6, 5), [(24, 18), (18, 13), (13, 8)], Reason.TOO_MANY_MOVES, 2),
        ("plakoto", P_START, (6, 5), [(13, 7)], Reason.NO_CHECKER, 0),
        ("plakoto", P_PINNED, (4, 1), [(20, 16)], Reason.PINNED, 0),
        ("plakoto", P_PINNED, (6, 1), [(13, 7), (7, 6)], Reason.BLOCKED, 1),
        ("plakoto", P_PINNED, (4, 1), [(24, 20)], Reason.BLOCKED, 0),  # their pinner holds it
        ("plakoto", P_PINNED, (6, 5), [(24, 21)], Reason.NO_SUCH_DIE, 0),
        ("plakoto", P_PINNED, (6, 5), [(13, 0)], Reason.NOT_ALL_HOME, 0),
        ("plakoto", P_HOME, (5, 4), [(3, 0)], Reason.BEAR_OFF_NOT_HIGHEST, 0),
        ("plakoto", P_HOME, (2, 1), [(6, 0)], Reason.NO_SUCH_DIE, 0),
        ("plakoto", P_START, (6, 5), [(24, 18)], Reason.MUST_USE_MORE_DICE, 1),
        ("fevga", F_START, (6, 5), [(24, 18), (24, 19)], Reason.FIRST_CHECKER, 1),
        ("fevga", F_START, (6, 6), [(24, 18), (18, 12)], Reason.TOO_MANY_MOVES, 1),
        ("fevga", F_START, (4, 4), [(24, 20), (20, 16), (16, 12)], Reason.TOO_MANY_MOVES, 2),
        ("fevga", F_TRAPPED, (2, 1), [(10, 8), (10, 9)], Reason.MUST_OPEN_PRIME, 0),
        ("fevga", F_QUARTER, (5, 4), [(24, 19)], Reason.START_QUARTER, 0),
        ("fevga", F_QUARTER, (5, 4), [(24, 20), (20, 15)], Reason.TOO_MANY_MOVES, 1),
        ("fevga", F_TRAPPED, (3, 1), [(10, 7)], Reason.BLOCKED, 0),  # their fifteen on our 7
    ],
)
def test_each_refusal(name, position, dice, moves, reason, step):
    found = refusal(variant(name), position, *dice, moves)
    assert (found.reason, found.step) == (reason, step), str(found)


def test_the_higher_die_is_required_when_only_one_die_can_be_played():
    # One checker left, on 13: 13/7 or 13/9, but the 3-point (their 22) is held after either.
    position = PlakotoPosition.from_points({13: 1}, {22: 2, 24: 13})
    plays = PLAKOTO.legal_plays(position, 6, 4)
    assert {p.moves for p in plays} == {((13, 7),)}
    assert refusal(PLAKOTO, position, 6, 4, [(13, 9)]).reason is Reason.HIGHER_DIE_REQUIRED


def test_a_play_that_stops_short_names_the_missing_step():
    found = refusal(FEVGA, F_START, 5, 5, [(24, 19), (19, 14)])
    assert (found.reason, found.step, found.move) == (Reason.MUST_USE_MORE_DICE, 2, None)


def test_moves_must_be_a_list():
    found = refusal(PLAKOTO, P_START, 6, 5, "24/18")
    assert (found.reason, found.step) == (Reason.MALFORMED, None)
    with pytest.raises(ValueError):
        PLAKOTO.validate(P_START, 7, 1, [])


def test_the_pass_is_the_empty_play():
    assert PLAKOTO.validate(P_CLOSED, 6, 6, []).moves == ()
    assert not PLAKOTO.can_play(P_CLOSED, 6, 6) and PLAKOTO.can_play(P_START, 6, 6)


def test_any_legal_order_is_accepted_and_returns_the_listed_play():
    # 5-5 from the start: the second checker may leave only after the first passed 12.
    play = FEVGA.validate(F_START, 5, 5, [(24, 19), (19, 14), (14, 9), (24, 19)])
    assert play in FEVGA.legal_plays(F_START, 5, 5)
    pinning = PlakotoPosition.from_points({24: 14, 11: 1}, {24: 14, 20: 1})
    a = PLAKOTO.validate(pinning, 6, 1, [(11, 5), (5, 4)])  # pin, then leave: freed again
    b = PLAKOTO.validate(pinning, 6, 1, [(11, 10), (10, 4)])
    assert a == b and a.position.pinned_points() == ((), ())


# -- differential runs against the reference's sequences ---------------------------------------


def legal_sequences(name: str, position, d1: int, d2: int) -> set[tuple]:
    """Every order of single steps (by the reference's rules) that makes a legal play: as many
    steps as the legal plays have, ending on one of them."""
    ref = REFERENCE[name]
    plays = ref.reference_plays(position, d1, d2)
    if not plays:
        return {()}
    most = len(next(iter(plays.values())))
    found = set()
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]

    def walk(pos, dice, moves):
        if len(moves) == most:
            if pos in plays:
                found.add(moves)
            return
        if dice:
            for move in ref.single_moves(pos, dice[0]):
                walk(ref.apply_move(pos, move), dice[1:], (*moves, move))

    for order in orders:
        walk(position, order, ())
    return found


@functools.cache
def cases(name: str) -> list:
    picked = random_play_cases(variant(name), seed=77, n=250, games=30)
    for family in family_cases(name, seed=78, per_family=25).values():
        picked += family
    return picked


@pytest.mark.parametrize("name", ["plakoto", "fevga"])
def test_every_legal_order_is_accepted_as_the_generators_play(name):
    v = variant(name)
    checked = 0
    for position, d1, d2 in cases(name):
        sequences = legal_sequences(name, position, d1, d2)
        plays = {p.position: p for p in v.legal_plays(position, d1, d2)}
        for moves in sorted(sequences)[:12]:
            play = v.validate(position, d1, d2, list(moves))
            assert play == plays.get(play.position) or (moves == () and not plays)
            checked += 1
    assert checked > 2000


@pytest.mark.parametrize("name", ["plakoto", "fevga"])
def test_random_sequences_are_accepted_exactly_when_legal(name):
    v = variant(name)
    rng = random.Random(5)
    accepted = refused = 0
    for position, d1, d2 in cases(name):
        legal = legal_sequences(name, position, d1, d2)
        dice = [d1] * 4 if d1 == d2 else [d1, d2]
        for _ in range(6):
            moves = []
            for _ in range(rng.choice([0, 1, 2, 2, 3, 4])):
                occupied = [p for p in range(1, 25) if position.mover[p]]
                frm = rng.choice([*occupied, rng.randint(1, 24)])
                moves.append((frm, max(0, frm - rng.choice([*dice, rng.randint(1, 6)]))))
            if rng.random() < 0.5 and legal:
                moves = list(rng.choice(sorted(legal)))
                if moves and rng.random() < 0.5:
                    rng.shuffle(moves)
            try:
                v.validate(position, d1, d2, moves)
                ok = True
            except IllegalPlay:
                ok = False
            assert ok == (tuple(moves) in legal), (str(position), d1, d2, moves)
            accepted += ok
            refused += not ok
    assert accepted > 300 and refused > 300
