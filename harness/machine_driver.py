"""Honest automatic players for the pure match machine (used by machine and server tests)."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field

from engine.game import Action
from engine.game import Phase as GamePhase
from protocol.fairdice import GameId, HashChain
from protocol.messages import Event
from server.machine import core
from server.machine.commands import (
    Beaver,
    Command,
    Commit,
    Double,
    Drop,
    MovePlay,
    Resign,
    ResignReply,
    Reveal,
    Roll,
    Take,
)
from server.machine.state import MatchState, Phase, owing


@dataclass
class Seat:
    """One player's secrets and habits: a hash chain per game, a random number generator."""

    seat: int
    rng: random.Random
    seq: int = 0
    chains: dict[int, HashChain] = field(default_factory=dict)
    double_rate: float = 0.05
    resign_rate: float = 0.01

    def chain(self, match_id: str, game: int) -> HashChain:
        if game not in self.chains:
            secret = hashlib.sha256(f"{self.seat}/{game}/{self.rng.random()}".encode()).digest()
            self.chains[game] = HashChain(secret, GameId(bytes.fromhex(match_id), game), self.seat)
        return self.chains[game]

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    def decide(self, state: MatchState) -> Command | None:
        """This seat's next command, or None when it owes nothing."""
        seats, _ = owing(state)
        if self.seat not in seats:
            return None
        dice = state.dice
        chain = self.chain(state.match_id, dice.game)
        seq = self.next_seq()
        if state.phase is Phase.COMMIT:
            return Commit(self.seat, seq, game=dice.game, commitment=chain.commitment)
        if state.phase in (Phase.ROLLOFF, Phase.REVEAL):
            return Reveal(self.seat, seq, game=dice.game, k=dice.k, reveal=chain.link(dice.k))
        game = state.match.game
        assert game is not None
        expected = game.expected()
        rng = self.rng
        if expected.phase is GamePhase.DECIDE:
            if Action.DOUBLE in expected.actions and rng.random() < self.double_rate:
                return Double(self.seat, seq, game=dice.game)
            if rng.random() < self.resign_rate and game.resignation_levels(self.seat):
                level = rng.choice(game.resignation_levels(self.seat))
                return Resign(self.seat, seq, game=dice.game, level=int(level))
            return Roll(self.seat, seq, game=dice.game, k=dice.k, reveal=chain.link(dice.k))
        if expected.phase is GamePhase.MOVE:
            play = rng.choice(game.legal_plays())
            return MovePlay(
                self.seat, seq, game=dice.game, turn=game.turns + 1, moves=play.moves
            )
        if expected.phase is GamePhase.TAKE:
            if Action.BEAVER in expected.actions and rng.random() < 0.2:
                return Beaver(self.seat, seq, game=dice.game)
            if rng.random() < 0.75:
                return Take(self.seat, seq, game=dice.game)
            return Drop(self.seat, seq, game=dice.game)
        if expected.phase is GamePhase.RESIGN:
            return ResignReply(self.seat, seq, game=dice.game, accept=rng.random() < 0.5)
        raise AssertionError(f"unexpected phase {expected.phase}")


def ahead(seat: Seat, state: MatchState) -> Command | None:
    """What an honest seat of a correspondence match deposits ahead, one command at a time
    (None when nothing is left), as its client does after each of its actions
    (docs/fairness.md, section 15): its reveal of the next roll when the opponent rolls it,
    its commitment to the next game, then its reveals for that game's roll-off."""
    if not state.config.correspondence or state.is_over:
        return None
    dice = state.dice
    match_id = state.match_id
    if state.phase is Phase.PLAY:
        roller = core.next_roller(state.match.game)
        if roller is not None and roller != seat.seat and dice.pending[seat.seat] is None:
            link = seat.chain(match_id, dice.game).link(dice.k)
            return Reveal(seat.seat, seat.next_seq(), game=dice.game, k=dice.k, reveal=link)
    playing = state.phase in (Phase.ROLLOFF, Phase.PLAY, Phase.REVEAL)
    if not playing or state.match.options.mode.value != "match":
        return None
    game = dice.game + 1
    chain = seat.chain(match_id, game)
    next_dice = state.ahead
    if next_dice is None or next_dice.commitments[seat.seat] is None:
        return Commit(seat.seat, seat.next_seq(), game=game, commitment=chain.commitment)
    if None in next_dice.commitments or next_dice.rolled_off or not core.rolls_off_ahead(state):
        return None
    if next_dice.pending[seat.seat] is not None:
        return None
    k = next_dice.k
    return Reveal(seat.seat, seat.next_seq(), game=game, k=k, reveal=chain.link(k))


def play_out(
    state: MatchState, seed: int, now: int = 1_000, max_steps: int = 20_000
) -> tuple[MatchState, list[Event]]:
    """Both seats play honestly (random legal plays) until the match ends."""
    rng = random.Random(seed)
    seats = [Seat(0, random.Random(rng.random())), Seat(1, random.Random(rng.random()))]
    log: list[Event] = []
    for _ in range(max_steps):
        if state.is_over:
            return state, log
        progressed = False
        for seat in rng.sample(seats, 2):
            command = seat.decide(state)
            if command is None:
                continue
            now += rng.randint(1, 2000)
            outcome = core.apply(state, command, now)
            assert isinstance(outcome, core.Accepted), outcome
            state = outcome.state
            log.extend(outcome.events)
            progressed = True
            break
        assert progressed, f"nobody can act in phase {state.phase}"
    raise AssertionError("match did not finish")


def play_until(state: MatchState, seats: list[Seat], decision: str, now: int) -> MatchState:
    """Let the seats play (in time, at server time ``now``) until some seat owes ``decision``."""
    for _ in range(500):
        if owing(state)[1] == decision:
            return state
        for seat in seats:
            command = seat.decide(state)
            if command is not None:
                outcome = core.apply(state, command, now)
                assert isinstance(outcome, core.Accepted)
                state = outcome.state
                break
    raise AssertionError(f"never reached {decision}")
