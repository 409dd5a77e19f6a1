"""An arena stored without its decided pairings behaves exactly as one that keeps them
(server/competition/history.py): random arenas — joins mid-way, withdrawals and comebacks,
no-shows, results with games of every size, results delivered twice or late, time passing —
are run twice, once on the whole state and once on the state the shell stores (the decided
pairings moved out after every transition), and every step must give the same effects, the
same players, the same phase and the same ``next_due``; the pairings moved out, put back in
order, are the whole state's."""

from __future__ import annotations

import random

import pytest

from harness.tournament_driver import config, entrants
from server.competition import machine
from server.competition.commands import Connected, Join, MatchFinished, Tick, Withdraw
from server.competition.errors import Code, Refused
from server.competition.history import decided_elsewhere, split
from server.competition.state import Game, Kind, Phase

MINUTE = 60_000


def board_of(state, match: str) -> int:
    for b in range(1, state.boards + 1):
        if machine.match_id(state.id, 0, b) == match:
            return b
    return 0


def applied(state, command, now):
    """The machine's answer, with the shell's reading of a refusal for a moved-out pairing:
    it was counted, so only what is due by now is settled (a ``Tick``)."""
    try:
        return machine.apply(state, command, now)
    except Refused as exc:
        match = getattr(command, "match", None)
        moved = decided_elsewhere(state, match, board_of(state, match))
        if exc.code is Code.UNKNOWN_MATCH and moved:
            return machine.apply(state, Tick(), now)
        raise


@pytest.mark.parametrize("seed", range(6))
def test_an_arena_without_its_decided_pairings_is_the_same_arena(seed: int) -> None:
    rng = random.Random(seed)
    terms = config(
        Kind.ARENA,
        max_players=40,
        start_at=10_000,
        duration_ms=20 * MINUTE,
        cutoff_ms=MINUTE,
        repeat_wait_ms=20_000,
    )
    whole = machine.create("t-history", terms, "creator", 0)
    kept = whole
    moved = []
    people = entrants(40, seed)
    now = 0
    played = []  # every match ever paired (to deliver late and twice)
    for join in people[:24]:
        whole = machine.apply(whole, join, now).state
        kept = machine.apply(kept, join, now).state
    steps = 0
    while whole.phase is not Phase.FINISHED and steps < 3000:
        steps += 1
        now += rng.randrange(0, 9_000)
        running = [p for p in whole.pairings if p.outcome is None and p.match is not None]
        played += [p.match for p in running if p.match not in played]
        roll = rng.random()
        if roll < 0.45 and running:
            pairing = rng.choice(running)
            sizes = ["single", "gammon", "backgammon"]
            ends = ["bear_off", "drop", "resign", "forfeit"]
            games = tuple(
                Game(rng.randrange(2), rng.choice(sizes), rng.choice(ends))
                for _ in range(rng.randrange(1, 4))
            )
            winner = rng.choice([0, 1, 1, 0, None])
            command = MatchFinished(pairing.match, winner, (1, 0), games)
        elif roll < 0.65 and running:
            pairing = rng.choice(running)
            command = Connected(pairing.match, rng.randrange(2))
        elif roll < 0.72 and played:
            command = MatchFinished(rng.choice(played), 0)  # late or twice
        elif roll < 0.78 and whole.players:
            command = Withdraw(rng.choice(whole.players).id)
        elif roll < 0.86:
            pick = rng.choice(people)
            command = Join(pick.player, pick.name, pick.rating)
        else:
            command = Tick()
        try:
            a = machine.apply(whole, command, now)
        except Refused as exc:
            with pytest.raises(Refused) as same:
                applied(kept, command, now)
            assert same.value.code is exc.code
            continue
        b = applied(kept, command, now)
        assert type(a) is type(b), (command, a, b)
        if isinstance(a, machine.Unchanged):
            continue
        assert a.effects == b.effects
        assert a.state.players == b.state.players
        assert (a.state.phase, a.state.boards, a.state.version) == (
            b.state.phase,
            b.state.boards,
            b.state.version,
        )
        assert machine.next_due(a.state) == machine.next_due(b.state)
        whole = a.state
        kept, out = split(b.state)
        moved += out
        assert all(p.outcome is None for p in kept.pairings)
        assert kept.pairings == tuple(p for p in whole.pairings if p.outcome is None)
    assert whole.phase is Phase.FINISHED, steps
    assert sorted(moved, key=lambda p: p.board) == [p for p in whole.pairings if p.outcome]
    assert len(moved) > 40


def test_knockouts_and_swiss_keep_every_pairing() -> None:
    for kind in (Kind.KNOCKOUT, Kind.SWISS):
        state = machine.create("t", config(kind, max_players=4), "creator", 0)
        for join in entrants(4):
            state = machine.apply(state, join, 1).state
        first = state.pairings[0]
        state = machine.apply(state, MatchFinished(first.match, 0, (3, 0)), 2).state
        assert split(state) == (state, ())
        assert not decided_elsewhere(state, first.match, 1)
