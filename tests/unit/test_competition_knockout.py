"""Knockout tournaments through the pure machine: seeding, byes, the bracket, the winner, and the
no-shows and withdrawals that change who goes through (docs/tournaments.md, "Knockout")."""

from __future__ import annotations

import random

import pytest

from harness.tournament_driver import Driver, config, entrants, higher_rating_wins, random_results
from server.competition import knockout
from server.competition.commands import Connected, Join, Tick, Withdraw
from server.competition.effects import Bye, Finish, Forfeit, Pair, Started, StartRound, Withdrawn
from server.competition.errors import Refused
from server.competition.machine import next_due
from server.competition.state import How, Kind, Pairing

NO_SHOW = 120_000


def started(n: int, seed: int = 0) -> Driver:
    # Every state's stored form is checked in the small brackets, every 64th in the big one.
    driver = Driver.new(config(Kind.KNOCKOUT, max_players=n), roundtrip_every=64 if n > 64 else 1)
    driver.join(entrants(n, seed), at=10)
    assert driver.state.phase.value == "running"  # full: it started
    return driver


def seeds(driver: Driver) -> dict[str, int]:
    return {p.id: p.seed for p in driver.state.players}


def cells(driver: Driver) -> dict[tuple[int, int], Pairing]:
    return {(p.round, p.board): p for p in driver.state.pairings}


def winner_of(pairing: Pairing) -> str | None:
    assert pairing.outcome is not None
    seat = pairing.outcome.winner
    return None if seat is None else pairing.players[seat]


def test_seed_places_put_the_best_seeds_furthest_apart() -> None:
    for n in (2, 4, 8, 16, 32, 64, 128, 256):
        places = knockout.seed_places(n)
        assert sorted(places) == list(range(1, n + 1))
        assert all(places[i] + places[i + 1] == n + 1 for i in range(0, n, 2)), "1 v n, 2 v n-1"
        assert all(places[i] < places[i + 1] for i in range(0, n, 2)), "the better seed on top"
        # Cut the bracket into m equal blocks (the sections whose winners meet in the round of
        # m): the best m seeds are one in each block.
        m = n
        while m >= 1:
            blocks = [places[i : i + n // m] for i in range(0, n, n // m)]
            assert sorted(min(block) for block in blocks) == list(range(1, m + 1))
            m //= 2


@pytest.mark.parametrize("n", [5, 8, 13, 256])
def test_seeding_byes_bracket_and_winner_when_the_favourite_always_wins(n: int) -> None:
    driver = started(n)
    size = knockout.size(n)
    total = knockout.rounds(n)
    seed = seeds(driver)
    by_rating = sorted(driver.state.players, key=lambda p: -p.rating)
    assert [seed[p.id] for p in by_rating] == list(range(1, n + 1)), "seeded by rating"
    start = driver.effects[0]
    assert isinstance(start, Started) and [seed[p] for p in start.players] == list(range(1, n + 1))
    byes = [e for e in driver.effects if isinstance(e, Bye)]
    assert sorted(seed[b.player] for b in byes) == list(range(1, size - n + 1)), "best seeds"
    assert all(b.round == 1 and b.how == "bye" for b in byes)
    first = [e for e in driver.effects if isinstance(e, Pair) and e.round == 1]
    assert len(first) == n - size // 2
    assert all(seed[a] + seed[b] == size + 1 and seed[a] < seed[b] for a, b in (
        p.players for p in first))  # fmt: skip

    driver.play(higher_rating_wins)

    table = cells(driver)
    for r in range(1, total + 1):
        for b in range(1, size // 2**r + 1):
            cell = table[(r, b)]
            if r > 1:  # the winners of the two feeders, upper board in seat 0
                up, down = knockout.feeders(r, b)
                assert cell.players == (winner_of(table[up]), winner_of(table[down]))
                # the favourites won: round r is seeds x v y with x + y = size/2^(r-1) + 1
                x, y = (seed[p] for p in cell.players)  # type: ignore[index]
                assert x + y == size // 2 ** (r - 1) + 1
    finish = driver.effects[-1]
    assert isinstance(finish, Finish) and finish.end == "completed"
    assert seed[finish.winner] == 1 and driver.state.winner == finish.winner  # type: ignore[index]
    assert [e.round for e in driver.effects if isinstance(e, StartRound)] == list(
        range(1, total + 1)
    )
    matches = [p for p in driver.state.pairings if p.match is not None]
    assert len(matches) == n - 1, "each match sends one player home"
    assert len({p.match for p in matches}) == n - 1
    # Standings: by rounds won, players out in the same round share a rank.
    ranks = {line.player: line.rank for line in finish.standings}
    rounds_won = {p.id: p.points for p in driver.state.players}
    assert rounds_won[finish.winner] == total  # type: ignore[index]
    assert sorted(set(ranks.values()))[:3] == [1, 2, 3]
    for a, rank_a in ranks.items():
        for b, rank_b in ranks.items():
            assert (rank_a < rank_b) == (rounds_won[a] > rounds_won[b])


@pytest.mark.parametrize(("n", "seed"), [(5, 1), (8, 2), (13, 3), (256, 4)])
def test_random_results_make_a_consistent_bracket(n: int, seed: int) -> None:
    driver = started(n, seed)
    driver.play(random_results(random.Random(seed)))
    table = cells(driver)
    total = knockout.rounds(n)
    # Each player loses at most once and plays on only while unbeaten.
    lost: set[str] = set()
    for _, cell in sorted(table.items()):
        for player in cell.players:
            assert player is None or player not in lost, f"{player} played on after losing"
        loser = cell.players[1 - cell.outcome.winner] if cell.outcome.winner is not None else None  # type: ignore[union-attr]
        if loser is not None:
            lost.add(loser)
    champion = winner_of(table[(total, 1)])
    assert champion is not None and champion not in lost
    assert lost == {p.id for p in driver.state.players} - {champion}
    assert driver.state.winner == champion and driver.state.phase.value == "finished"


def test_the_next_round_is_paired_as_soon_as_both_feeders_are_known() -> None:
    driver = started(8)
    board1, board2 = (p for p in driver.running() if p.board in (1, 2))
    for pairing in (board1, board2):
        driver.connect(pairing)
        effects = driver.finish(pairing, 0)
    pair = next(e for e in effects if isinstance(e, Pair))
    assert (pair.round, pair.board) == (2, 1) and len(driver.running()) == 3
    assert StartRound(2) in effects


def test_a_no_show_loses_and_a_double_no_show_sends_nobody_through() -> None:
    driver = started(8)
    b1, b2, b3, b4 = sorted(driver.running(), key=lambda p: p.board)
    driver.do(Connected(b1.match, 0))  # type: ignore[arg-type]
    driver.connect(b3)
    driver.connect(b4)
    assert next_due(driver.state) == 10 + NO_SHOW
    assert driver.tick(10 + NO_SHOW - 1) == ()
    effects = driver.tick(10 + NO_SHOW)
    assert Forfeit(b1.match, (1,), "no_show") in effects  # type: ignore[arg-type]
    assert Forfeit(b2.match, (0, 1), "no_show") in effects  # type: ignore[arg-type]
    table = cells(driver)
    assert table[(1, 1)].outcome.how is How.NO_SHOW  # type: ignore[union-attr]
    assert winner_of(table[(1, 1)]) == b1.players[0] and winner_of(table[(1, 2)]) is None
    # Nobody came out of board 2: board 1's winner has a walkover into round 3's final slot.
    assert table[(2, 1)].outcome.how is How.WALKOVER  # type: ignore[union-attr]
    assert Bye(2, b1.players[0], "walkover") in effects  # type: ignore[arg-type]
    absent = driver.state.player(b1.players[1])  # type: ignore[arg-type]
    assert absent.no_shows == 1 and absent.points == 0  # type: ignore[union-attr]
    # Boards 3 and 4 play on; their winners meet, then the final.
    driver.play(higher_rating_wins)
    assert driver.state.phase.value == "finished"
    assert driver.state.winner in (winner_of(cells(driver)[(2, 2)]), b1.players[0])


def test_a_final_nobody_comes_to_has_no_winner() -> None:
    driver = Driver.new(config(Kind.KNOCKOUT, max_players=4))
    driver.join(entrants(4), at=0)
    for pairing in driver.running():
        driver.connect(pairing)
        driver.finish(pairing, 0)
    assert len(driver.running()) == 1  # the final
    effects = driver.tick(driver.now + NO_SHOW)
    finish = effects[-1]
    assert isinstance(finish, Finish) and finish.winner is None and finish.end == "completed"
    assert driver.state.winner is None


def test_withdrawing_during_a_match_forfeits_it_and_while_waiting_gives_a_walkover() -> None:
    driver = started(8)
    b1, b2, _, _ = sorted(driver.running(), key=lambda p: p.board)
    leaver = b1.players[1]
    effects = driver.do(Withdraw(leaver))  # type: ignore[arg-type]
    assert effects == (Withdrawn(leaver, "asked"), Forfeit(b1.match, (1,), "withdrew"))  # type: ignore[arg-type]
    assert winner_of(cells(driver)[(1, 1)]) == b1.players[0]
    assert driver.do(Withdraw(leaver)) == ()  # once is enough  # type: ignore[arg-type]
    # Board 1's winner withdraws while waiting for board 2: board 2's winner walks over.
    waiting = b1.players[0]
    assert driver.do(Withdraw(waiting)) == (Withdrawn(waiting, "asked"),)  # type: ignore[arg-type]
    driver.connect(b2)
    effects = driver.finish(b2, 1)
    assert Bye(2, b2.players[1], "walkover") in effects  # type: ignore[arg-type]
    assert all(not isinstance(e, Pair) for e in effects)


def test_when_full_starts_at_the_last_join_and_a_start_time_waits_for_it() -> None:
    timed = Driver.new(config(Kind.KNOCKOUT, max_players=8, start_at=60_000))
    timed.join(entrants(8), at=1)
    assert timed.state.phase.value == "open", "full, but it starts at its time"
    assert next_due(timed.state) == 60_000
    with pytest.raises(Refused) as refused:
        timed.do(Join("late", "Late", 1500.0), at=2)
    assert refused.value.code == "full"
    timed.tick(60_000)
    assert timed.state.phase.value == "running" and timed.state.started_at == 60_000


def test_too_few_players_at_the_start_time_cancels_it() -> None:
    driver = Driver.new(config(Kind.KNOCKOUT, max_players=8, start_at=60_000))
    driver.join(entrants(3), at=1)
    effects = driver.tick(60_000)
    assert effects == (Finish("cancelled", None, effects[0].standings),)  # type: ignore[union-attr]
    assert driver.state.end == "cancelled" and driver.state.winner is None
    never = Driver.new(config(Kind.KNOCKOUT, max_players=8, open_ms=60_000))
    never.join(entrants(7), at=1)
    assert next_due(never.state) == 60_000
    never.do(Tick(), at=60_000)
    assert never.state.end == "cancelled"
