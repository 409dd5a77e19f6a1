"""Swiss tournaments through the pure machine: pairing by score without repeats, byes, the
tie-breaks and standings after every round, no-shows, withdrawals, and the early end when no
pairing is left (docs/tournaments.md, "Swiss").

Every round the machine pairs is compared with a reference written here from the rule's words
alone: a depth-first search that takes each top player's partners in the documented order of
preference and keeps the first complete pairing of the round — no matching algorithm — so a
bug in :mod:`server.competition.matching` or :mod:`server.competition.swiss` cannot hide
behind itself.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from harness.tournament_driver import Driver, config, entrants, random_results
from server.competition import machine, swiss
from server.competition.commands import Connected, Join, Withdraw
from server.competition.effects import Finish, Pair, RoundOver, StartRound, Withdrawn
from server.competition.machine import next_due
from server.competition.state import Game, How, Kind, TournamentState


def order_of_preference(unpaired: Sequence[str], scores: dict[str, int]) -> list[str]:
    """The rule's words: the top player's own score group from the middle down, then its upper
    half upwards, then everyone of a lower score in ranking order."""
    top = unpaired[0]
    group = [x for x in unpaired if scores[x] == scores[top]]
    k = len(group)
    middle_down = group[k // 2 :] if k > 1 else []
    upper_half_up = list(reversed(group[1 : k // 2]))
    return middle_down + upper_half_up + [x for x in unpaired if scores[x] != scores[top]]


def reference_round(
    ranked: Sequence[str], scores: dict[str, int], met: set[frozenset[str]], had_bye: set[str]
) -> tuple[list[tuple[str, str]], str | None] | None:
    @functools.cache
    def first_pairing(rest: tuple[str, ...]) -> tuple[tuple[str, str], ...] | None:
        if not rest:
            return ()
        top = rest[0]
        for other in order_of_preference(rest, scores):
            if frozenset((top, other)) in met:
                continue
            tail = first_pairing(tuple(x for x in rest if x not in (top, other)))
            if tail is not None:
                return ((top, other), *tail)
        return None

    if len(ranked) % 2 == 0:
        found = first_pairing(tuple(ranked))
        return None if found is None else (list(found), None)
    for bye in reversed(ranked):
        if bye not in had_bye:
            found = first_pairing(tuple(x for x in ranked if x != bye))
            if found is not None:
                return list(found), bye
    return None


def round_as_paired(state: TournamentState, r: int) -> tuple[list[tuple[str, str]], str | None]:
    pairs = [p for p in state.pairings if p.round == r]
    real = [tuple(p.players) for p in sorted(pairs, key=lambda p: p.board) if p.match]
    byes = [p.players[0] for p in pairs if p.match is None]
    assert len(byes) <= 1
    return real, (byes[0] if byes else None)  # type: ignore[return-value]


Inputs = tuple[list[str], dict[str, int], set[frozenset[str]], set[str]]


def inputs_before(state: TournamentState, r: int) -> Inputs:
    """What round ``r`` was (or would be) paired from: the ranking of the players still in,
    the scores, the pairs met and the byes given in the rounds before it."""
    players = {p.id: p for p in state.players}
    earlier = [p for p in state.pairings if p.round < r]
    scores = dict.fromkeys(players, 0)
    for p in earlier:
        assert p.outcome is not None
        if p.outcome.winner is not None:
            scores[p.players[p.outcome.winner]] += 1  # type: ignore[index]
    gone = {p for p, player in players.items() if not player.active and not _in_round(state, p, r)}
    ranked = sorted(
        (p for p in players if p not in gone),
        key=lambda p: (-scores[p], -players[p].rating, players[p].entry),
    )
    met = {frozenset(p.players) for p in earlier if None not in p.players}
    had_bye = {p.players[0] for p in earlier if p.match is None}
    return ranked, scores, met, had_bye  # type: ignore[return-value]


def replay_rounds(driver: Driver) -> None:
    """Re-derive every round of a finished Swiss from the state before it and compare it with
    the reference; a Swiss that ended early must have had no pairing left, by the reference."""
    state = driver.state
    for r in range(1, state.round + 1):
        assert round_as_paired(state, r) == reference_round(*inputs_before(state, r))
    if state.end == "exhausted":
        assert reference_round(*inputs_before(state, state.round + 1)) is None


def _in_round(state: TournamentState, player: str, r: int) -> bool:
    return any(player in p.players for p in state.pairings if p.round == r)


def test_the_order_of_preference_is_the_rule_as_written() -> None:
    scores = {**dict.fromkeys("abcdefg", 2), **dict.fromkeys("hij", 1), "k": 0}
    unpaired = list("abcdefghijk")
    assert swiss.preference(unpaired, scores) == list("defgcb") + list("hijk")
    assert swiss.preference(unpaired, scores) == order_of_preference(unpaired, scores)
    assert swiss.preference(["h", "i", "j", "k"], scores) == ["i", "j", "k"]
    assert swiss.preference(["j", "k"], scores) == ["k"]  # alone in its group: floats down


def test_round_one_is_top_half_against_bottom_half() -> None:
    driver = Driver.new(config(Kind.SWISS, max_players=8, rounds=3))
    driver.join(entrants(8), at=0)
    seed = {p.id: p.seed for p in driver.state.players}
    boards = [tuple(seed[x] for x in e.players) for e in driver.effects if isinstance(e, Pair)]
    assert boards == [(1, 5), (2, 6), (3, 7), (4, 8)]


@settings(max_examples=30, deadline=None)
@given(
    n=st.integers(9, 64),
    seed=st.integers(0, 2**32),
    withdrawals=st.lists(st.integers(0, 63), max_size=3),
)
def test_seven_rounds_without_repeats(n: int, seed: int, withdrawals: list[int]) -> None:
    """9-64 players, 7 rounds of random results (up to three withdraw between rounds): no two
    players meet twice, nobody has two byes, the bye only with an odd field, every round as
    the reference pairs it, all 7 rounds played (unless the withdrawals made that impossible,
    which the reference confirms), standings after each."""
    terms = config(Kind.SWISS, max_players=n, rounds=7, break_ms=1_000)
    driver = Driver.new(terms, roundtrip_every=40)
    driver.join(entrants(n, seed), at=0)
    rng = random.Random(seed)
    policy = random_results(rng)
    leaving = [f"p{i:03d}" for i in withdrawals if i < n]
    while driver.state.phase.value == "running":
        driver.play(policy)  # the round, to its last match
        if driver.state.phase.value != "running":
            break
        if leaving:
            player = leaving.pop()
            if driver.state.player(player).active:  # type: ignore[union-attr]
                driver.do(Withdraw(player))  # between rounds
        due = machine.next_due(driver.state)
        assert due is not None
        driver.tick(due)  # the break is over: the next round
    state = driver.state
    # All 7 rounds, unless withdrawals left a field too small for them (then replay_rounds
    # below checks with the reference that no pairing was left).
    if state.end != "completed":
        assert state.end == "exhausted" and any(not p.active for p in state.players)
    else:
        assert state.round == 7
    met: set[frozenset[str]] = set()
    byes: list[str] = []
    for pairing in state.pairings:
        if pairing.match is None:
            byes.append(pairing.players[0])  # type: ignore[arg-type]
            continue
        pair = frozenset(pairing.players)
        assert pair not in met, f"{sorted(pair)} met twice"  # type: ignore[type-var]
        met.add(pair)  # type: ignore[arg-type]
    assert len(byes) == len(set(byes)), "at most one bye each"
    for r in range(1, state.round + 1):
        in_round = sum(1 for p in state.pairings if p.round == r for x in p.players if x)
        assert in_round % 2 == (
            1 if any(p.round == r and p.match is None for p in state.pairings) else 0
        )
    rounds_over = [e for e in driver.effects if isinstance(e, RoundOver)]
    assert [e.round for e in rounds_over] == list(range(1, state.round + 1))
    assert all(len(e.standings) == n for e in rounds_over)
    replay_rounds(driver)


FIVE = [
    Join("ann", "Ann", 1900.0),
    Join("bob", "Bob", 1800.0),
    Join("cat", "Cat", 1700.0),
    Join("dan", "Dan", 1600.0),
    Join("eve", "Eve", 1500.0),
]


def test_tie_breaks_and_standings_on_the_worked_example_of_the_docs() -> None:
    """docs/tournaments.md, "A Swiss worked through": five players, three rounds."""
    driver = Driver.new(config(Kind.SWISS, max_players=5, rounds=3))
    driver.join(FIVE, at=0)
    # Round 1, all on 0: the group of 5 less the bye (Eve, the lowest) is 4: Ann v Cat, Bob v Dan.
    assert _round(driver, 1) == ([("ann", "cat"), ("bob", "dan")], "eve")
    _win_all(driver, 1, seat=0)
    # Round 2: 1 point: Ann, Bob, Eve; 0: Cat, Dan. The bye: Dan (the lowest, none yet).
    # Ann's group is Ann, Bob, Eve: k = 3, from place 1 down: Bob. Then Eve, alone, floats: Cat.
    assert _round(driver, 2) == ([("ann", "bob"), ("eve", "cat")], "dan")
    _win_all(driver, 2, seat=1)
    # Round 3: 2 points: Bob; 1: Ann, Cat, Dan, Eve. The bye: Cat (Eve and Dan had one).
    # Bob floats down: Ann met him, Dan met him: Eve. Then Ann v Dan.
    assert _round(driver, 3) == ([("bob", "eve"), ("ann", "dan")], "cat")
    _win_all(driver, 3, seat=0)
    final = driver.effects[-1]
    assert isinstance(final, Finish) and final.end == "completed" and final.winner == "bob"
    table = [(line.rank, line.player, line.points, *line.tiebreaks) for line in final.standings]
    assert table == [
        (1, "bob", 3, 4, 4),  # Buchholz: Dan 1 + Ann 2 + Eve 1; beat all three
        (2, "ann", 2, 6, 3),  # Cat 2 + Bob 3 + Dan 1; beat Cat (2) and Dan (1)
        (3, "cat", 2, 5, 1),  # Ann 2 + Eve 1 + the bye (her own 2); beat Eve (1)
        (4, "dan", 1, 6, 0),  # Bob 3 + the bye (1) + Ann 2; level with Eve: rating
        (5, "eve", 1, 6, 0),  # the bye (1) + Cat 2 + Bob 3
    ]
    # After round 1 Eve leads the three on 1 point: her bye counts as an opponent with her own
    # score (1), while Ann's and Bob's opponents have 0.
    rounds = [e for e in driver.effects if isinstance(e, RoundOver)]
    first = [(line.player, line.points, *line.tiebreaks) for line in rounds[0].standings]
    assert first == [
        ("eve", 1, 1, 0), ("ann", 1, 0, 0), ("bob", 1, 0, 0), ("cat", 0, 1, 0), ("dan", 0, 1, 0),
    ]  # fmt: skip


def _round(driver: Driver, r: int) -> tuple[list[tuple[str, str]], str | None]:
    return round_as_paired(driver.state, r)


def _win_all(driver: Driver, r: int, seat: int) -> None:
    for pairing in [p for p in driver.running() if p.round == r]:
        driver.connect(pairing)
        driver.finish(pairing, seat, (Game(seat, "single", "bear_off"),))


def test_a_round_waits_for_its_last_match_and_the_break() -> None:
    driver = Driver.new(config(Kind.SWISS, max_players=6, rounds=2, break_ms=30_000))
    driver.join(entrants(6), at=0)
    first, second, third = driver.running()
    for pairing in (first, second):
        driver.connect(pairing)
        assert not any(isinstance(e, RoundOver) for e in driver.finish(pairing, 0))
    driver.connect(third)
    driver.now = 5_000
    effects = driver.finish(third, 1)
    over = [e for e in effects if isinstance(e, RoundOver)]
    assert len(over) == 1 and over[0].round == 1 and [x.rank for x in over[0].standings] == [
        1, 2, 3, 4, 5, 6]  # fmt: skip
    assert next_due(driver.state) == 35_000 and not driver.running()
    assert driver.tick(34_999) == ()
    effects = driver.tick(35_000)
    assert effects[0] == StartRound(2) and len(driver.running()) == 3


def test_no_shows_withdraw_at_the_second_and_withdrawn_players_are_not_paired() -> None:
    driver = Driver.new(config(Kind.SWISS, max_players=8, rounds=4))
    driver.join(entrants(8), at=0)
    absent = "p003"
    for r in (1, 2):
        for pairing in driver.running():
            for seat, player in enumerate(pairing.players):
                if player != absent:
                    driver.do(Connected(pairing.match, seat))  # type: ignore[arg-type]
        driver.tick(driver.now + 120_000)
        ours = next(p for p in driver.state.pairings if p.round == r and absent in p.players)
        assert ours.outcome.how is How.NO_SHOW and ours.outcome.winner == 1 - ours.players.index(
            absent
        )  # type: ignore[union-attr]
        others = [p for p in driver.running() if p.round == r]
        for pairing in others:
            driver.finish(pairing, 0)
    assert Withdrawn(absent, "no_shows") in driver.effects
    later = [p for p in driver.state.pairings if p.round > 2]
    assert later and all(absent not in p.players for p in later)
    assert driver.state.player(absent).no_shows == 2  # type: ignore[union-attr]


def test_when_nobody_can_be_paired_without_a_repeat_the_swiss_ends() -> None:
    """Four players meet each other in three rounds; a fourth round cannot be paired."""
    driver = Driver.new(config(Kind.SWISS, max_players=4, rounds=5))
    driver.join(entrants(4), at=0)
    driver.play(lambda pairing, state: (0, ()))
    state = driver.state
    assert state.end == "exhausted" and state.round == 3
    assert [e.round for e in driver.effects if isinstance(e, RoundOver)] == [1, 2, 3]
    assert isinstance(driver.effects[-1], Finish)
    assert driver.effects[-1].winner == driver.effects[-1].standings[0].player


def test_a_late_join_is_refused_and_withdrawing_before_the_start_leaves_no_trace() -> None:
    driver = Driver.new(config(Kind.SWISS, max_players=6, rounds=2, start_at=1_000))
    joins = entrants(6)
    driver.join(joins[:5], at=0)
    driver.do(Withdraw(joins[4].player))
    assert len(driver.state.players) == 4
    driver.do(joins[4])
    assert [p.entry for p in driver.state.players] == [1, 2, 3, 4, 6]
    driver.tick(1_000)
    assert driver.state.phase.value == "running"
    from server.competition.errors import Refused

    with pytest.raises(Refused) as refused:
        driver.do(joins[5])
    assert refused.value.code == "started"


def test_byes_go_to_the_lowest_ranked_without_one() -> None:
    driver = Driver.new(config(Kind.SWISS, max_players=7, rounds=6))
    driver.join(entrants(7, seed=3), at=0)
    rng = random.Random(3)
    driver.play(random_results(rng))
    state = driver.state
    assert state.end == "completed"
    rating = {p.id: (p.rating, p.entry) for p in state.players}
    given: list[str] = []
    for r in range(1, 7):
        before = [p for p in state.pairings if p.round < r]
        score = dict.fromkeys(rating, 0)
        for p in before:
            if p.outcome.winner is not None:  # type: ignore[union-attr]
                score[p.players[p.outcome.winner]] += 1  # type: ignore[union-attr,index]
        ranked = sorted(rating, key=lambda x: (-score[x], -rating[x][0], rating[x][1]))
        (bye,) = [p.players[0] for p in state.pairings if p.round == r and p.match is None]
        lowest = next(x for x in reversed(ranked) if x not in given)
        if bye != lowest:  # only when the others could not then all be paired without a repeat
            met = {frozenset(p.players) for p in before if None not in p.players}
            rest = [x for x in ranked if x != lowest]
            assert reference_round(rest, score, met, set()) is None  # type: ignore[arg-type]
        given.append(bye)  # type: ignore[arg-type]
    assert len(set(given)) == 6


def test_a_partner_that_would_leave_others_unpairable_is_passed_over() -> None:
    # a's first choice is c (k = 4: place 2), but then b and d, who met, would be left.
    scores = dict.fromkeys("abcd", 0)
    met = {frozenset("bd")}
    assert swiss.pair_round(list("abcd"), scores, met, set()) == ([("a", "d"), ("b", "c")], None)
    # The bye passes over the lowest players when the others could not then all be paired:
    # a, b and c met each other, so each needs d or e; the bye goes to c.
    zero = dict.fromkeys("abcde", 0)
    met = {frozenset("ab"), frozenset("ac"), frozenset("bc")}
    assert swiss.pair_round(list("abcde"), zero, met, set()) == ([("a", "d"), ("b", "e")], "c")
    # No round at all: five players who have all had their bye; four who have all met.
    met = {frozenset(p) for p in ("ab", "ac", "bd", "cd")}
    assert swiss.pair_round(list("abcde"), zero, met, set("abcde")) is None
    assert (
        swiss.pair_round(list("abcd"), zero, met | {frozenset("ad"), frozenset("bc")}, set())
        is None
    )


@settings(max_examples=400, deadline=None)
@given(st.data())
def test_one_round_matches_the_reference_on_crowded_histories(data: st.DataObject) -> None:
    """Small fields with many pairs already met (up to 70 %), any scores, some byes given:
    the pairing (or its absence) is the reference's."""
    n = data.draw(st.integers(2, 12), label="n")
    names = [f"x{i}" for i in range(n)]
    scores = {x: data.draw(st.integers(0, 3)) for x in names}
    density = data.draw(st.floats(0, 0.7))
    rng = random.Random(data.draw(st.integers(0, 2**32)))
    met = {
        frozenset((a, b))
        for i, a in enumerate(names)
        for b in names[i + 1 :]
        if rng.random() < density
    }
    had_bye = {x for x in names if rng.random() < 0.3}
    ranked = sorted(names, key=lambda x: (-scores[x], names.index(x)))
    found = swiss.pair_round(ranked, scores, met, had_bye)
    assert found == reference_round(ranked, scores, met, had_bye)
    if found is not None:
        pairs, bye = found
        assert all(frozenset(p) not in met for p in pairs)
        assert bye is None or bye not in had_bye
        assert sorted([x for p in pairs for x in p] + ([bye] if bye else [])) == sorted(names)
