"""Arenas through the pure machine: points per game won, gammons and backgammons, the streak
bonus, pairing as soon as a match ends, the cutoff and the end, no-shows, withdrawals and
coming back (docs/tournaments.md, "Arena")."""

from __future__ import annotations

import pytest

from harness.tournament_driver import Driver, config, entrants
from server.competition import machine
from server.competition.arena import Waiter, pair_waiting
from server.competition.commands import Connected, Join, MatchFinished, Tick, Withdraw
from server.competition.effects import Finish, Forfeit, Pair, Withdrawn
from server.competition.errors import Refused
from server.competition.machine import next_due
from server.competition.scoring import standings
from server.competition.state import Game, How, Kind

MIN = 60_000
SINGLE, GAMMON, BACKGAMMON = "single", "gammon", "backgammon"


def arena(n: int = 2, room: int = 0, **terms: object) -> Driver:
    """An arena of ``n`` players, started when full or, with ``room`` places more, at 1 ms."""
    start = {"start_at": 1} if room else {}
    driver = Driver.new(config(Kind.ARENA, max_players=n + room, **start, **terms))
    driver.join(entrants(n), at=0)
    if room:
        driver.tick(1)
    assert driver.state.phase.value == "running"
    return driver


def play_one(driver: Driver, winner: int, *games: tuple[int, str, str]) -> tuple[object, ...]:
    """Finish the oldest running match: ``winner`` and its games (seat, result, reason)."""
    pairing = driver.running()[0]
    driver.connect(pairing)
    driver.now += 1_000
    return driver.finish(pairing, winner, tuple(Game(*g) for g in games))


def points(driver: Driver) -> dict[str, tuple[int, int]]:
    return {p.id: (p.points, p.streak) for p in driver.state.players}


def test_points_per_game_won_and_the_streak_bonus() -> None:
    """p000 v p001 again and again (two players, no wait before meeting again)."""
    driver = arena(2, repeat_wait_ms=0)
    a, b = sorted(driver.state.players, key=lambda p: p.entry)
    seat_of_a = driver.running()[0].players.index(a.id)

    def result(a_wins: bool, *games: tuple[bool, str, str]) -> None:
        pairing = driver.running()[0]
        seat = pairing.players.index(a.id)
        winner = seat if a_wins else 1 - seat
        play_one(driver, winner, *((seat if mine else 1 - seat, r, why) for mine, r, why in games))

    assert seat_of_a in (0, 1)
    result(True, (True, SINGLE, "bear_off"))  # 1, streak 1
    assert points(driver)[a.id] == (1, 1)
    result(True, (False, GAMMON, "bear_off"), (True, GAMMON, "bear_off"), (True, SINGLE, "drop"))
    assert points(driver) == {a.id: (4, 2), b.id: (2, 0)}  # 2 + 1; the loser's gammon counts
    result(True, (True, BACKGAMMON, "bear_off"))  # on a streak: 3 x 2
    assert points(driver)[a.id] == (10, 3)
    result(False, (True, SINGLE, "bear_off"), (False, GAMMON, "resign"), (False, SINGLE, "drop"))
    # a was on a streak for this match: its one game counts 2; then the streak is broken.
    assert points(driver) == {a.id: (12, 0), b.id: (5, 1)}
    result(True, (True, BACKGAMMON, "forfeit"))  # a forfeited game counts 1 whatever its size
    assert points(driver) == {a.id: (13, 1), b.id: (5, 0)}
    awarded = [p.outcome.awarded for p in driver.state.pairings if p.outcome]
    assert sum(x for pair in awarded for x in pair) == 13 + 5


def test_players_are_paired_by_rating_at_the_start_and_again_as_soon_as_free() -> None:
    driver = arena(6)
    seed = {p.id: p.seed for p in driver.state.players}
    first = [tuple(seed[x] for x in e.players) for e in driver.effects if isinstance(e, Pair)]
    assert first == [(1, 2), (3, 4), (5, 6)]
    top, middle, _ = sorted(driver.running(), key=lambda p: p.board)
    driver.connect(top)
    effects = driver.finish(top, 0, (Game(0, SINGLE, "bear_off"),))
    assert not [e for e in effects if isinstance(e, Pair)], "each other's last opponent"
    assert next_due(driver.state) == driver.now + 20_000  # both may meet again in 20 s
    driver.connect(middle)
    effects = driver.finish(middle, 1, (Game(1, GAMMON, "bear_off"),))
    # Four free now, two pairs of last opponents: each meets one of the other pair at once.
    pairs = [set(e.players) for e in effects if isinstance(e, Pair)]
    assert len(pairs) == 2 and set().union(*pairs) == set(top.players) | set(middle.players)
    assert all(pair not in (set(top.players), set(middle.players)) for pair in pairs)


def test_the_longest_waiting_takes_the_closest_in_points() -> None:
    w = [
        arena_waiter("a", rank=3, points=4, since=0),
        arena_waiter("b", rank=0, points=12, since=5),
        arena_waiter("c", rank=2, points=6, since=5),
        arena_waiter("d", rank=1, points=7, since=6),
    ]
    # a (waiting longest) takes c (6: 2 from 4), then b takes d.
    assert pair_waiting(w, now=10, repeat_wait=0) == [("a", "c"), ("b", "d")]
    # equal gaps in points: the closer in the standings, then the better placed
    w = [arena_waiter("a", 1, 5, 0), arena_waiter("b", 0, 7, 1), arena_waiter("c", 2, 3, 1)]
    assert pair_waiting(w, now=10, repeat_wait=0) == [("a", "b")]
    w = [arena_waiter("a", 2, 5, 0), arena_waiter("b", 0, 7, 1), arena_waiter("c", 4, 3, 1)]
    assert pair_waiting(w, now=10, repeat_wait=0) == [("a", "b")]


def arena_waiter(pid: str, rank: int, points: int, since: int, last: str | None = None) -> Waiter:
    return Waiter(pid, rank, points, since, last)


def test_waiting_for_a_new_opponent_then_meeting_the_last_one_again() -> None:
    driver = arena(2)
    play_one(driver, 0, (0, SINGLE, "bear_off"))
    free = driver.now
    assert not driver.running() and next_due(driver.state) == free + 20_000
    assert driver.tick(free + 19_999) == ()
    effects = driver.tick(free + 20_000)
    assert [type(e) for e in effects] == [Pair]


def test_a_newcomer_is_paired_at_once_and_nobody_in_the_last_minutes() -> None:
    driver = arena(3, room=1, duration_ms=10 * MIN, cutoff_ms=MIN)
    driver.connect(driver.running()[0])
    (waiting,) = [p.id for p in driver.state.players if p.free_since is not None]
    effects = driver.do(Join("late", "Late", 1500.0), at=5 * MIN)
    (pair,) = [e for e in effects if isinstance(e, Pair)]
    assert set(pair.players) == {waiting, "late"}
    driver.connect(driver.running()[1])
    # In the last minute nothing is paired: the finished match's players wait for the end.
    end = 1 + 10 * MIN  # it started at 1 ms
    driver.now = end - MIN
    play_one(driver, 0, (0, SINGLE, "bear_off"))
    assert len(driver.running()) == 1 and next_due(driver.state) == end
    late_match = driver.running()[0]
    effects = driver.tick(end)
    (finish,) = effects
    assert isinstance(finish, Finish) and finish.end == "completed"
    assert finish.winner == finish.standings[0].player and driver.state.winner == finish.winner
    # A match still running at the end is played out but does not count.
    assert late_match.match is not None
    after = machine.apply(driver.state, MatchFinished(late_match.match, 0), end + 5)
    assert after == machine.Unchanged("the tournament is over: the match does not count")
    assert next_due(driver.state) is None


def test_standings_order_points_then_wins_then_rating() -> None:
    driver = arena(4, repeat_wait_ms=0)
    a, b = driver.running()
    driver.connect(a)
    driver.finish(a, 0, (Game(0, GAMMON, "bear_off"),))  # 2 points, 1 win
    driver.connect(b)
    driver.finish(b, 1, (Game(1, SINGLE, "bear_off"), Game(0, SINGLE, "bear_off")))
    table = standings(driver.state)
    assert [line.points for line in table] == sorted((line.points for line in table), reverse=True)
    assert table[0].player == a.players[0] and table[0].tiebreaks == (1,)
    # b's two players: 1 point each, one with a win: the winner first.
    assert (table[1].player, table[2].player) == (b.players[1], b.players[0])
    assert [line.rank for line in table] == [1, 2, 3, 4]


def test_two_no_shows_withdraw_a_player_who_may_come_back() -> None:
    driver = arena(3, repeat_wait_ms=0, no_show_ms=30_000)
    ghost = "p000"
    for _ in range(2):
        pairing = next(p for p in driver.running() if ghost in p.players)
        other = 1 - pairing.players.index(ghost)
        driver.do(Connected(pairing.match, other))  # type: ignore[arg-type]
        effects = driver.tick(pairing.deadline)  # type: ignore[arg-type]
        assert Forfeit(pairing.match, (1 - other,), "no_show") in effects  # type: ignore[arg-type]
        decided = next(p for p in driver.state.pairings if p.match == pairing.match)
        assert decided.outcome.how is How.NO_SHOW and decided.outcome.awarded[other] == 1  # type: ignore[union-attr]
        # the match played meanwhile (if any) ends so the others are free again
        for running in [p for p in driver.running() if ghost not in p.players]:
            driver.connect(running)
            driver.finish(running, 0)
    assert Withdrawn(ghost, "no_shows") in driver.effects
    player = driver.state.player(ghost)
    assert player.withdrawn.value == "no_shows" and player.free_since is None  # type: ignore[union-attr]
    assert all(ghost not in p.players for p in driver.running())
    kept = player.points  # type: ignore[union-attr]
    driver.do(Join(ghost, "Back", 1500.0))
    back = driver.state.player(ghost)
    assert back.active and back.points == kept and back.no_shows == 0 and back.streak == 0  # type: ignore[union-attr]


def test_withdrawing_mid_match_gives_the_opponent_the_match() -> None:
    driver = arena(2, repeat_wait_ms=0)
    for _ in range(2):
        play_one(driver, 0, (0, SINGLE, "bear_off"))
    pairing = driver.running()[0]
    leaver = pairing.players[1]
    winner = driver.state.player(pairing.players[0])
    assert winner.streak == 2  # type: ignore[union-attr]
    effects = driver.do(Withdraw(leaver))  # type: ignore[arg-type]
    assert effects == (Withdrawn(leaver, "asked"), Forfeit(pairing.match, (1,), "withdrew"))  # type: ignore[arg-type,union-attr]
    after = driver.state.player(pairing.players[0])
    assert after.points == winner.points + 2 and after.streak == 3  # type: ignore[union-attr]
    # The match's own end, delivered later, changes nothing.
    late = machine.apply(driver.state, MatchFinished(pairing.match, 1, (0, 1)), driver.now + 9)  # type: ignore[arg-type]
    assert late == machine.Unchanged("already counted")


def test_a_result_delivered_twice_counts_once() -> None:
    driver = arena(2, repeat_wait_ms=0)
    pairing = driver.running()[0]
    driver.connect(pairing)
    finished = MatchFinished(pairing.match, 0, (1, 0), (Game(0, GAMMON, "bear_off"),))  # type: ignore[arg-type]
    driver.do(finished)
    state = driver.state
    again = machine.apply(state, finished, driver.now + 1)
    assert again == machine.Unchanged("already counted")
    assert isinstance(
        machine.apply(state, Connected(pairing.match, 0), driver.now), machine.Unchanged
    )  # type: ignore[arg-type]
    assert isinstance(machine.apply(state, Tick(), driver.now), machine.Unchanged)


@pytest.mark.parametrize("n", [2, 50])
def test_a_whole_arena_runs_to_its_end(n: int) -> None:
    """Players who finish in turn, results by rating: the arena ends on time, every pairing
    is between two free players, and the points add up (the driver checks every state)."""
    driver = arena(n, duration_ms=20 * MIN, cutoff_ms=2 * MIN, repeat_wait_ms=10_000)
    while driver.state.phase.value == "running":
        running = driver.running()
        if running:
            for pairing in running:
                driver.connect(pairing)
            play_one(driver, 0, (0, SINGLE, "bear_off"), (0, GAMMON, "bear_off"))
            driver.now += 20_000
        else:
            due = next_due(driver.state)
            assert due is not None
            driver.tick(max(due, driver.now))
    assert driver.state.end == "completed" and driver.state.finished_at == 20 * MIN
    assert not any(p.outcome.how is How.NO_SHOW for p in driver.state.pairings if p.outcome)
    last_pair = max(e.deadline - 120_000 for e in driver.pairs())
    assert last_pair < 18 * MIN


def test_coming_back_needs_a_free_place() -> None:
    driver = arena(3)
    driver.do(Withdraw("p000"))
    driver.do(Join("new", "New", 1500.0))  # the place p000 left
    with pytest.raises(Refused) as refused:
        driver.do(Join("p000", "Player 0", 1500.0))
    assert refused.value.code == "full"
    driver.do(Withdraw("new"))
    driver.do(Join("p000", "Player 0", 1500.0))
    assert driver.state.player("p000").active  # type: ignore[union-attr]
