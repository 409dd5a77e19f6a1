"""Deterministic simulated games through :class:`DiceLedger`: transcripts for tests, vectors
and demos (both seats honest, plays chosen at random among the legal ones).

>>> t = simulate_game(7, end="resign", turns=3)
>>> len([a for a in t.actions if a.type == "move"]), t.result.reason.value
(4, 'resign')
>>> t = simulate_game(7, end="resign", turns=3, variant="fevga", opener=1)
>>> t.rolls[0].kind.value, t.rolls[0].roller, len([a for a in t.actions if a.type == "move"])
('turn', 1, 3)
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from engine.position import OFF
from engine.results import ResultKind, jacoby_applies
from engine.rules import Opening, Side
from engine.variants import variant as variant_named
from protocol.fairdice.chain import HashChain
from protocol.fairdice.encoding import GameId
from protocol.fairdice.ledger import DiceLedger, InvalidReveal
from protocol.fairdice.transcript import Action, Result, ResultReason, SeatInfo, Transcript

START_TIME_MS = 1_767_225_600_000  # 2026-01-01T00:00:00Z: a fixed clock for reproducible output


def simulate_game(
    seed: int,
    *,
    game_no: int = 1,
    end: str = "bear_off",
    turns: int = 10_000,
    recommit: Mapping[int, int] | None = None,
    names: tuple[str | None, str | None] = (None, None),
    chain_length: int = 1024,
    deposit: bool = False,
    variant: str = "backgammon",
    opener: int | None = None,
    jacoby: bool = False,
) -> Transcript:
    """Play one game from ``seed``.

    ``end`` is ``"bear_off"`` (play to the end), or after ``turns`` turn rolls: ``"resign"``
    (the player to move resigns a single game), ``"drop"`` (the player to roll doubles and the
    other drops), ``"timeout"`` (the player to move lets the clock run out), ``"invalid_reveal"``
    (the responder of the next roll reveals a wrong value). ``recommit`` maps a roll index ``k0``
    to the seat that re-commits a fresh chain just before roll ``k0``. ``deposit``: as in a
    correspondence match, each play is followed by the mover's reveal of the next roll, deposited
    ahead (a ``reveal`` action: docs/fairness.md, section 15). ``variant`` names the rules
    played (a Greek game's roll-off winner rolls again), ``opener`` the seat that opens a Greek
    game without a roll-off; a game played to its end may then also end by plakoto's mothers.
    ``jacoby``: a money game under the Jacoby rule (nobody doubles here, so a gammon or
    backgammon borne off counts as a single).
    """
    rng = random.Random(seed)
    game = GameId(rng.randbytes(16), game_no)
    chains = [HashChain(rng.randbytes(32), game, s, chain_length) for s in (0, 1)]
    clock = _Clock(rng)
    rules = variant_named(variant)
    reroll = rules.opening is Opening.REROLL
    if opener is None:
        ledger = DiceLedger(game, variant=variant)
    else:
        ledger = DiceLedger.opened_by(game, variant, opener)
    for seat in (0, 1):
        ledger = ledger.commit(seat, chains[seat].commitment, **clock.tick())
    actions: list[Action] = []
    start = rules.start()
    boards = [start.mover, start.opponent]
    pinned = [0, 0]
    recommit = dict(recommit or {})
    turn_rolls = 0
    while True:
        k = ledger.next_k
        if k in recommit:
            seat = recommit.pop(k)
            chains[seat] = HashChain(rng.randbytes(32), game, seat, chain_length)
            ledger = ledger.recommit(seat, chains[seat].link(k - 1), **clock.tick())
        roller = ledger.next_roller
        if roller is not None and turn_rolls >= turns and end != "bear_off":
            return _finish(
                ledger,
                actions,
                end,
                roller=roller,
                boards=boards,
                chains=chains,
                clock=clock,
                names=names,
                largest=int(rules.largest),
                jacoby=jacoby,
            )
        if roller is not None:
            actions.append(Action(**clock.tick(), seat=roller, type="roll", payload={"k": k}))
        for seat in (0, 1) if roller is None else (roller, 1 - roller):
            ledger = ledger.reveal(seat, chains[seat].link(k))
        ledger, roll = ledger.roll(**clock.tick())
        if roller is None and (ledger.first_mover is None or reroll):
            continue  # a roll-off tie: roll again (or a Greek game: its winner rolls again)
        mover = ledger.first_mover if roller is None else roller
        assert mover is not None
        turn_rolls += roller is not None
        position = rules.seen(boards[mover], boards[1 - mover], pinned[mover], pinned[1 - mover])
        plays = rules.legal_plays(position, roll.d1, roll.d2)
        play = rng.choice(plays) if plays else None
        moves = [list(m) for m in play.moves] if play else []
        actions.append(
            Action(**clock.tick(), seat=mover, type="move", payload={"k": k, "moves": moves})
        )
        ending = None
        if play:
            after = play.position
            boards[mover], boards[1 - mover] = after.mover, after.opponent
            pinned[mover], pinned[1 - mover] = rules.pins(after)
            ending = rules.ending(after)
        if ending is not None:
            winner = None
            if ending.winner is not None:
                winner = mover if ending.winner is Side.MOVER else 1 - mover
            counted = ending.points
            if ending.kind is not None and jacoby_applies(
                ending.kind, jacoby=jacoby, cube_turned=False
            ):
                counted = int(ResultKind.SINGLE)
            result = Result(
                winner=winner,
                reason=ResultReason(ending.finish.value),
                multiplier=counted,
                cube=1,
                points=counted,
                **clock.tick(),
            )
            return ledger.transcript(tuple(actions), result, _seats(names), jacoby=jacoby)
        if deposit:
            actions.append(Action(**clock.tick(), seat=mover, type="reveal", payload={"k": k + 1}))


class _Clock:
    """Event versions 1, 2, 3, ... and server times that move forward by 0.2-5 s."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.v = 0
        self.t = START_TIME_MS

    def tick(self) -> dict[str, int]:
        self.v += 1
        self.t += self.rng.randint(200, 5000)
        return {"v": self.v, "t": self.t}


def _seats(names: tuple[str | None, str | None]) -> tuple[SeatInfo, SeatInfo]:
    return SeatInfo(0, names[0]), SeatInfo(1, names[1])


def _finish(
    ledger: DiceLedger,
    actions: list[Action],
    end: str,
    *,
    roller: int,
    boards: list,
    chains: list[HashChain],
    clock: _Clock,
    names: tuple[str | None, str | None],
    largest: int = 3,
    jacoby: bool = False,
) -> Transcript:
    """The game ended by ``end`` before ``roller``'s roll; a forfeit costs at most the
    variant's ``largest`` win (×2 in the Greek games)."""
    winner, multiplier, evidence = 1 - roller, 1, None
    if end == "resign":
        actions.append(Action(**clock.tick(), seat=roller, type="resign", payload={"value": 1}))
        actions.append(Action(**clock.tick(), seat=1 - roller, type="accept"))
    elif end == "drop":
        actions.append(Action(**clock.tick(), seat=roller, type="double", payload={"cube": 2}))
        actions.append(Action(**clock.tick(), seat=1 - roller, type="drop"))
        winner = roller
    elif end == "timeout":
        loser = boards[roller]
        multiplier = 1 if loser[OFF] else largest  # contact or not, the forfeit rule of rules.md
    elif end == "invalid_reveal":
        k = ledger.next_k
        actions.append(Action(**clock.tick(), seat=roller, type="roll", payload={"k": k}))
        ledger = ledger.reveal(roller, chains[roller].link(k))
        bad = bytes(b ^ 0x5A for b in chains[1 - roller].link(k))
        try:
            ledger.reveal(1 - roller, bad)
        except InvalidReveal as exc:
            evidence = exc.evidence
        winner = roller
        multiplier = 1 if boards[1 - roller][OFF] else largest
    else:
        raise ValueError(f"unknown end {end!r}")
    result = Result(
        winner=winner,
        reason=ResultReason(end),
        multiplier=multiplier,
        cube=1,
        points=multiplier,
        **clock.tick(),
        evidence=evidence,
    )
    return ledger.transcript(tuple(actions), result, _seats(names), jacoby=jacoby)
