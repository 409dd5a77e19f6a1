"""The variants' legal plays: exhaustive counts from the start, perft, and differential runs
of each fast generator against its reference written from the rules text (engine.variants).

Nackgammon and hypergammon are also checked against GNU Backgammon in
tests/unit/test_variants_gnubg.py; bench/variants.py runs the differential on many more
positions and prints the figures.
"""

import functools

import pytest

from engine.variants import VARIANTS, variant
from engine.variants.fevga import reference as fevga_reference
from engine.variants.fevga.limits import holds_start_quarter, runner_waiting, trapped_point
from engine.variants.fevga.position import check as check_fevga
from engine.variants.plakoto.position import check as check_plakoto
from harness.variant_corpus import ROLLS, family_cases, random_play_cases

# -- counts from the starting position ------------------------------------------------------

# Legal plays of each of the 21 rolls from each variant's start (fast and reference agree).
OPENING = {
    "backgammon": [15, 16, 17, 14, 18, 17, 8, 8, 9, 9, 10, 14, 14, 14, 7, 42, 75, 73, 52, 4, 11],
    "nackgammon": [23, 22, 27, 15, 17, 17, 12, 16, 17, 11, 10, 13, 13, 8, 7, 70, 103, 101, 25,
                   17, 3],
    "hypergammon": [6, 7, 8, 7, 8, 9, 7, 8, 9, 9, 7, 8, 9, 9, 9, 7, 11, 15, 15, 15, 12],
    "portes": [15, 16, 17, 14, 18, 17, 8, 8, 9, 9, 10, 14, 14, 14, 7, 42, 75, 73, 52, 4, 11],
    "plakoto": [2] * 15 + [5, 5, 5, 5, 5, 4],
    "fevga": [1] * 15 + [1, 1, 1, 1, 2, 1],
}  # fmt: skip
ORDER = [(d1, d2) for d1 in range(2, 7) for d2 in range(1, d1)] + [(d, d) for d in range(1, 7)]

# Perft: leaves of the tree of all 21 rolls and all distinct plays, the board turned between
# plies, a pass counting as one child. Depth 2 checked against the reference (and, for
# nackgammon and hypergammon, gnubg) by bench/variants.py --perft.
PERFT = {
    "backgammon": (447, 202_782),
    "nackgammon": (547, 324_161),
    "hypergammon": (195, 38_017),
    "portes": (447, 202_782),
    "plakoto": (59, 3_474),
    "fevga": (22, 479),
}
PERFT_3 = {"plakoto": 708_405, "fevga": 21_893}  # fevga's is pinned here, plakoto's in bench


@pytest.mark.parametrize("name", VARIANTS)
def test_opening_counts(name):
    v = variant(name)
    start = v.start()
    counts = [len(v.legal_plays(start, d1, d2)) for d1, d2 in ORDER]
    assert counts == OPENING[name]
    assert [len(v.legal_plays(start, d2, d1)) for d1, d2 in ORDER] == counts
    assert [len(v.reference(start, d1, d2)) for d1, d2 in ORDER] == counts


def perft(v, position, depth: int, children) -> int:
    if depth == 0:
        return 1
    total = 0
    for d1, d2 in ROLLS:
        results = children(v, position, d1, d2) or [position]
        total += sum(perft(v, child.swapped(), depth - 1, children) for child in results)
    return total


def fast(v, position, d1, d2):
    return [play.position for play in v.legal_plays(position, d1, d2)]


def slow(v, position, d1, d2):
    return list(v.reference(position, d1, d2))


@pytest.mark.parametrize("name", VARIANTS)
def test_perft_from_the_start(name):
    v = variant(name)
    assert perft(v, v.start(), 1, fast) == perft(v, v.start(), 1, slow) == PERFT[name][0]
    if name in ("backgammon", "portes"):
        # the engine's own generator from the same start: depth 2 is pinned (202,782) and
        # checked against gnubg in tests/unit/test_movegen.py
        assert v.legal_plays is variant("backgammon").legal_plays
        return
    assert perft(v, v.start(), 2, fast) == PERFT[name][1]
    if name in ("plakoto", "fevga"):
        assert perft(v, v.start(), 2, slow) == PERFT[name][1]


def test_fevga_perft_depth_3():
    assert perft(variant("fevga"), variant("fevga").start(), 3, fast) == PERFT_3["fevga"]


# -- differential runs --------------------------------------------------------------------------


@functools.cache
def random_cases(name: str) -> list:
    n = {"plakoto": 800, "fevga": 1000, "hypergammon": 600}.get(name, 200)
    return random_play_cases(variant(name), seed=2027, n=n, games=60)


@functools.cache
def families(name: str) -> dict[str, list]:
    per_family = {"plakoto": 120, "fevga": 80}[name]
    return family_cases(name, seed=11, per_family=per_family)


def assert_same_as_reference(v, cases) -> None:
    check = {"plakoto": check_plakoto, "fevga": check_fevga}.get(v.name)
    for position, d1, d2 in cases:
        plays = v.legal_plays(position, d1, d2)
        results = [play.position for play in plays]
        assert len(set(results)) == len(results), (str(position), d1, d2)
        assert set(results) == set(v.reference(position, d1, d2)), (str(position), d1, d2)
        moves = [play.moves for play in plays]
        assert moves == sorted(moves, reverse=True)
        assert len({len(m) for m in moves}) <= 1  # every play uses as many dice
        if check is not None:
            for play in plays:
                check(play.position)  # a possible position


@pytest.mark.parametrize("name", VARIANTS)
def test_random_play_positions_match_the_reference(name):
    cases = random_cases(name)
    assert len(cases) >= 200
    assert_same_as_reference(variant(name), cases)


@pytest.mark.parametrize(
    ("name", "family"),
    [("plakoto", f) for f in ("pins", "bear_off", "mothers")]
    + [("fevga", f) for f in ("opening", "quarter", "prime", "bear_off", "crowded")],
)
def test_rule_families_match_the_reference(name, family):
    assert_same_as_reference(variant(name), families(name)[family])


def test_the_plakoto_families_exercise_pins_and_mothers():
    v = variant("plakoto")
    cases = [case for family in families("plakoto").values() for case in family]
    cases += random_cases("plakoto")
    pinned_mover = [c for c in cases if c[0].mover_pinned]
    assert len(pinned_mover) > 100
    pins_made = endings = 0
    for position, d1, d2 in cases:
        for play in v.legal_plays(position, d1, d2):
            pins_made += play.position.opponent_pinned != position.opponent_pinned
            end = v.ending(play.position)
            endings += end is not None and end.finish.value != "bear_off"
    assert pins_made > 500 and endings > 20
    home = families("plakoto")["bear_off"]
    blocked_bear_off = [
        c for c in home
        if c[0].mover_pinned and not any(c[0].mover[7:25])
        and not any(to == 0 for p in v.legal_plays(*c) for _, to in p.moves)
    ]
    assert len(blocked_bear_off) > 5


def unrestricted(position, d1, d2) -> set:
    """Fevga's plays were there neither the starting-quarter nor the prime rule (the reference's
    own steps; as many dice as possible, the higher die)."""
    orders = [[d1] * 4] if d1 == d2 else [[d1, d2], [d2, d1]]
    seqs = []

    def walk(pos, dice, used):
        seqs.append((used, pos))
        if dice:
            for move in fevga_reference.single_moves(pos, dice[0]):
                walk(fevga_reference.apply_move(pos, move), dice[1:], (*used, dice[0]))

    for order in orders:
        walk(position, order, ())
    most = max(len(u) for u, _ in seqs)
    best = [(u, p) for u, p in seqs if len(u) == most]
    if most == 1 and d1 != d2:
        best = [(u, p) for u, p in best if u[0] == max(d1, d2)] or best
    return {p for _, p in best} if most else set()


def test_the_fevga_families_exercise_the_three_restrictions():
    v = variant("fevga")
    fams = families("fevga")
    opening = [c for c in fams["opening"] if runner_waiting(c[0].mover) or c[0].mover[24] == 15]
    assert len(opening) > 30
    changed = {"quarter": 0, "prime": 0}
    for family in changed:
        for position, d1, d2 in fams[family]:
            legal = {play.position for play in v.legal_plays(position, d1, d2)}
            if legal != unrestricted(position, d1, d2):
                changed[family] += 1
    assert changed["quarter"] > 5 and changed["prime"] > 5, changed
    assert sum(trapped_point(c[0]) is not None for c in fams["prime"]) > 20
    closed = [
        p for c in fams["quarter"] for p in unrestricted(*c) if holds_start_quarter(p.mover)
    ]
    assert closed  # the restriction had plays to refuse


def test_random_fevga_games_pass_through_the_opening_rule():
    assert sum(runner_waiting(c[0].mover) for c in random_cases("fevga")) > 5


def test_the_reference_and_the_generator_disagree_on_a_broken_rule(monkeypatch):
    """The differential can fail: drop the first-checker rule from the fast generator and the
    opening positions tell."""
    from engine.variants.fevga import movegen

    monkeypatch.setattr(movegen, "runner_waiting", lambda board: False)
    v = variant("fevga")
    start = v.start()
    assert {p.position for p in v.legal_plays(start, 6, 5)} != set(v.reference(start, 6, 5))
