"""A driver for the pure tournament machine (used by its tests and, later, its bench).

:class:`Driver` applies commands at a moving server time and checks, after every accepted
transition, what must always hold: the version grew by one, the state survives its stored form
unchanged, nobody sits in two undecided matches, every player's points are the sum of what
their pairings awarded, and a decided pairing never changes again. :meth:`Driver.play` plays
every running match to a result chosen by a policy, so whole tournaments run in a few lines.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from engine.match import MatchOptions
from server.competition import machine
from server.competition.commands import Command, Connected, Join, MatchFinished, Tick
from server.competition.effects import Effect, Pair
from server.competition.state import Config, Game, Kind, Pairing, TournamentState, dumps, loads

TID = "t-0123456789"


def config(kind: Kind, **terms: object) -> Config:
    """A tournament's terms with every-match options of a match to 3, and ``terms``."""
    defaults: dict[str, object] = {"options": MatchOptions.match(3), "max_players": 256}
    if kind is Kind.SWISS:
        defaults |= {"rounds": 7, "break_ms": 0}
    if kind is Kind.ARENA:
        defaults |= {"duration_ms": 30 * 60_000}
    return Config(kind, **(defaults | terms))  # type: ignore[arg-type]


def entrants(n: int, seed: int = 0) -> list[Join]:
    """``n`` players ``p000``… with distinct ratings drawn from ``seed``."""
    rng = random.Random(seed)
    ratings = rng.sample(range(1000, 2500), n)
    return [Join(f"p{i:03d}", f"Player {i}", float(r)) for i, r in enumerate(ratings)]


Policy = Callable[[Pairing, TournamentState], tuple[int | None, tuple[Game, ...]]]
"""Chooses a running match's result: the winning seat and the games."""


def higher_rating_wins(pairing: Pairing, state: TournamentState) -> tuple[int, tuple[Game, ...]]:
    ratings = [state.player(p).rating for p in pairing.players]  # type: ignore[union-attr]
    winner = 0 if ratings[0] >= ratings[1] else 1
    return winner, (Game(winner, "single", "bear_off"),)


def random_results(rng: random.Random) -> Policy:
    def policy(pairing: Pairing, state: TournamentState) -> tuple[int, tuple[Game, ...]]:
        winner = rng.randrange(2)
        return winner, (Game(winner, rng.choice(["single", "gammon", "backgammon"]), "bear_off"),)

    return policy


@dataclass
class Driver:
    state: TournamentState
    now: int = 0
    effects: list[Effect] = field(default_factory=list)
    states: int = 0  # accepted transitions checked
    # Check the stored form's round trip on every n-th state (a 256-player state takes ~9 ms).
    roundtrip_every: int = 1

    @classmethod
    def new(cls, config: Config, now: int = 0, roundtrip_every: int = 1) -> Driver:
        return cls(
            machine.create(TID, config, "creator", now), now, roundtrip_every=roundtrip_every
        )

    def do(self, command: Command, at: int | None = None) -> tuple[Effect, ...]:
        """Apply ``command`` at ``at`` (default: the driver's time, which moves to ``at``)."""
        if at is not None:
            assert at >= self.now, "server time does not go back"
            self.now = at
        before = self.state
        step = machine.apply(before, command, self.now)
        if isinstance(step, machine.Unchanged):
            return ()
        self.states += 1
        check_transition(before, step.state, roundtrip=self.states % self.roundtrip_every == 0)
        self.state = step.state
        self.effects.extend(step.effects)
        return step.effects

    def join(self, joins: Iterable[Join], at: int | None = None) -> None:
        for join in joins:
            self.do(join, at)

    def tick(self, at: int) -> tuple[Effect, ...]:
        return self.do(Tick(), at)

    def running(self) -> list[Pairing]:
        return [p for p in self.state.pairings if p.outcome is None and p.match is not None]

    def connect(self, pairing: Pairing) -> None:
        assert pairing.match is not None
        for seat in (0, 1):
            if not pairing.connected[seat]:
                self.do(Connected(pairing.match, seat))

    def finish(
        self, pairing: Pairing, winner: int | None, games: tuple[Game, ...] = ()
    ) -> tuple[Effect, ...]:
        assert pairing.match is not None
        score = tuple(sum(1 for g in games if g.winner == s) for s in (0, 1))
        return self.do(MatchFinished(pairing.match, winner, score, games))  # type: ignore[arg-type]

    def play(self, policy: Policy, step_ms: int = 100) -> None:
        """Play every running match to the result ``policy`` chooses, the oldest first, until
        none is running or the tournament is over: both seats of every running match connect
        at once, and time moves on by ``step_ms`` before each result."""
        while self.state.phase.value == "running" and (running := self.running()):
            for pairing in running:
                if not all(pairing.connected):
                    self.connect(pairing)
            current = next(p for p in self.state.pairings if p.match == running[0].match)
            if current.outcome is None:
                self.now += step_ms
                self.finish(current, *policy(current, self.state))

    def pairs(self) -> list[Pair]:
        return [e for e in self.effects if isinstance(e, Pair)]


def check_transition(
    before: TournamentState, after: TournamentState, roundtrip: bool = True
) -> None:
    """What every accepted transition keeps (the module's docstring)."""
    assert after.version == before.version + 1
    if roundtrip or after.phase.value == "finished":
        assert loads(dumps(after)) == after
    busy: set[str] = set()
    for pairing in after.pairings:
        if pairing.outcome is None and pairing.match is not None:
            for player in pairing.players:
                assert player is not None and player not in busy, f"{player} plays twice"
                busy.add(player)
    for old, new in zip(before.pairings, after.pairings, strict=False):
        assert (old.round, old.board, old.players, old.match) == (
            new.round,
            new.board,
            new.players,
            new.match,
        ), "pairings are only ever appended"
        if old.outcome is not None:
            assert new.outcome == old.outcome, "a decided pairing never changes"
    awarded: dict[str, int] = {}
    for pairing in after.pairings:
        if pairing.outcome is not None:
            for seat, player in enumerate(pairing.players):
                if player is not None:
                    awarded[player] = awarded.get(player, 0) + pairing.outcome.awarded[seat]
    for player in after.players:
        assert player.points == awarded.get(player.id, 0), player
