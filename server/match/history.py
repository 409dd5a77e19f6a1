"""The history of a match, out of its event log: the one place the facts of finished games
come from — fair-dice transcripts, the engine's events of each game (for the ``.mat`` export,
the game records and every analysis) and the match record.

The event log is the single source: each stored event is its wire frame, and the first event of
every transition carries the record of the command that caused it, with its server time.
:func:`read_log` is the only I/O here (one read of the log); everything else is pure, a log in
and facts out. :mod:`server.match.replay` rebuilds the match states from the same log.
"""

from __future__ import annotations

from dataclasses import dataclass

import msgpack

from engine import events as ev
from engine.match import MatchOptions, Mode
from engine.matfile import export as export_mat
from engine.record import GameRecord, MatchRecord
from engine.results import EndReason, ForfeitReason, Result, ResultKind
from protocol import events as pe
from protocol.codec import decode_from_server
from protocol.fairdice import (
    Action,
    Commitment,
    Evidence,
    GameId,
    Recommitment,
    RollKind,
    RollRecord,
    SeatInfo,
    Transcript,
)
from protocol.fairdice import Result as DiceResult
from protocol.fairdice import ResultReason as DiceReason
from protocol.messages import Event
from server.match.store import Store


@dataclass(frozen=True, slots=True)
class Logged:
    """One stored event with its server time."""

    v: int
    t: int
    data: pe.EventData


async def read_log(store: Store, match_id: str) -> list[Logged]:
    out: list[Logged] = []
    t = 0
    for v, fields in await store.log_entries(match_id):
        if b"c" in fields:
            t = msgpack.unpackb(fields[b"c"], raw=False)[2]
        event = decode_from_server(fields[b"e"])
        assert isinstance(event, Event)
        out.append(Logged(v, t, event.data))
    return out


# ---------------------------------------------------------------- transcripts

_FORFEIT_REASON = {
    "timeout": DiceReason.TIMEOUT,
    "no_reveal": DiceReason.NO_REVEAL,
    "invalid_reveal": DiceReason.INVALID_REVEAL,
    "abandoned": DiceReason.ABANDON,
}


def finished_games(log: list[Logged]) -> list[int]:
    return [e.data.game for e in log if isinstance(e.data, pe.GameOver)]


def transcript(match_id: str, log: list[Logged], game_no: int) -> Transcript:
    """The fair-dice transcript of finished game ``game_no`` (KeyError if there is none)."""
    names: list[str | None] = [None, None]
    commitments: list[Commitment | None] = [None, None]
    committed_at: dict[int, tuple[int, int]] = {}
    recommitments: list[Recommitment] = []
    rolls: list[RollRecord] = []
    actions: list[Action] = []
    result: DiceResult | None = None
    forfeit: pe.Forfeit | None = None
    cube = 1
    last_roll_k = 0
    for e in log:
        d = e.data
        if isinstance(d, pe.Seated):
            names[d.seat] = d.name
        if getattr(d, "game", None) != game_no:
            continue
        if isinstance(d, pe.CommitReceived):
            committed_at[d.seat] = (e.v, e.t)
        elif isinstance(d, pe.Committed):
            for seat, value in enumerate((d.commitment0, d.commitment1)):
                v, t = committed_at.get(seat, (e.v, e.t))
                commitments[seat] = Commitment(seat, value, v, t)
        elif isinstance(d, pe.Recommitted):
            recommitments.append(Recommitment(d.seat, d.k, d.commitment, e.v, e.t))
        elif isinstance(d, pe.Rolling):
            actions.append(Action(e.v, e.t, d.seat, "roll", {"k": d.k}))
        elif isinstance(d, pe.Dice):
            kind = RollKind.ROLLOFF if d.kind == "rolloff" else RollKind.TURN
            rolls.append(
                RollRecord(d.k, kind, d.roller, (d.reveal0, d.reveal1), d.d1, d.d2, e.v, e.t)
            )
            last_roll_k = d.k
        elif isinstance(d, pe.Moved):
            moves = [list(m) for m in d.moves]
            actions.append(Action(e.v, e.t, d.seat, "move", {"k": last_roll_k, "moves": moves}))
        elif isinstance(d, pe.Passed):
            actions.append(Action(e.v, e.t, d.seat, "move", {"k": last_roll_k, "moves": []}))
        elif isinstance(d, pe.Doubled):
            actions.append(Action(e.v, e.t, d.seat, "double", {"cube": d.value}))
        elif isinstance(d, pe.Taken | pe.Beavered):
            cube = d.value
            kind_name = "take" if isinstance(d, pe.Taken) else "beaver"
            actions.append(Action(e.v, e.t, d.seat, kind_name, {"cube": d.value}))
        elif isinstance(d, pe.Dropped):
            actions.append(Action(e.v, e.t, d.seat, "drop", {}))
        elif isinstance(d, pe.ResignOffered):
            actions.append(Action(e.v, e.t, d.seat, "resign", {"value": d.level}))
        elif isinstance(d, pe.ResignAccepted):
            actions.append(Action(e.v, e.t, d.seat, "accept", {}))
        elif isinstance(d, pe.ResignRejected):
            actions.append(Action(e.v, e.t, d.seat, "reject", {}))
        elif isinstance(d, pe.Forfeit):
            forfeit = d
        elif isinstance(d, pe.GameOver):
            reason = DiceReason(d.reason) if d.reason != "forfeit" else None
            evidence = None
            if reason is None:
                assert forfeit is not None
                reason = _FORFEIT_REASON[forfeit.reason]
                if forfeit.evidence is not None:
                    evidence = Evidence(last_roll_k + 1, forfeit.seat, forfeit.evidence)
            multiplier = ResultKind.of_word(d.result).value
            result = DiceResult(
                d.winner, reason, multiplier, cube, multiplier * cube, e.v, e.t, evidence
            )
    c0, c1 = commitments
    if result is None or c0 is None or c1 is None:
        raise KeyError(f"game {game_no} is not finished")
    return Transcript(
        game=GameId(bytes.fromhex(match_id), game_no),
        seats=(SeatInfo(0, names[0]), SeatInfo(1, names[1])),
        commitments=(c0, c1),
        recommitments=tuple(recommitments),
        rolls=tuple(rolls),
        actions=tuple(actions),
        result=result,
    )


# ---------------------------------------------------------------- .mat


def engine_events(log: list[Logged], options: MatchOptions) -> tuple[ev.Event, ...]:
    """The engine's view of the match (what :class:`MatchRecord` reads), from the wire events."""
    out: list[ev.Event] = []
    dice: tuple[int, int] = (0, 0)
    cube = 1
    pending_level = ResultKind.SINGLE
    forfeit: pe.Forfeit | None = None
    in_game = False
    for e in log:
        d = e.data
        if isinstance(d, pe.GameStarted):
            cube = 1
            in_game = True
            with_cube = options.mode is not Mode.SINGLE_GAME and not d.crawford
            out.append(ev.GameStarted(d.game, d.score, d.crawford, with_cube))
            # A single game forfeited before it started (its creator never came, a seat
            # silent in the roll-off): the wire names the forfeit first, the engine starts
            # the game and then forfeits it.
            if forfeit is not None and forfeit.game == d.game:
                out.append(ev.Forfeited(forfeit.seat, ForfeitReason(forfeit.reason)))
            else:
                forfeit = None
        elif isinstance(d, pe.Dice):
            dice = (d.d1, d.d2)
            if d.kind == "rolloff":
                first = None if d.d1 == d.d2 else (0 if d.d1 > d.d2 else 1)
                out.append(ev.RolledOff(dice, first))
            else:
                assert d.roller is not None
                out.append(ev.Rolled(d.roller, dice))
        elif isinstance(d, pe.Moved):
            out.append(ev.Moved(d.seat, dice, d.moves))
        elif isinstance(d, pe.Passed):
            out.append(ev.Passed(d.seat, dice))
        elif isinstance(d, pe.Doubled):
            out.append(ev.Doubled(d.seat, d.value))
        elif isinstance(d, pe.Taken):
            cube = d.value
            out.append(ev.Taken(d.seat, d.value))
        elif isinstance(d, pe.Beavered):
            cube = d.value
            out.append(ev.Beavered(d.seat, d.value))
        elif isinstance(d, pe.Dropped):
            out.append(ev.Dropped(d.seat, cube))
        elif isinstance(d, pe.ResignOffered):
            pending_level = ResultKind(d.level)
            out.append(ev.ResignOffered(d.seat, pending_level))
        elif isinstance(d, pe.ResignAccepted):
            out.append(ev.ResignAccepted(d.seat, pending_level))
        elif isinstance(d, pe.ResignRejected):
            out.append(ev.ResignRejected(d.seat, pending_level))
        elif isinstance(d, pe.Forfeit):
            forfeit = d
            if in_game:  # between games a forfeit loses the match, not a game
                out.append(ev.Forfeited(d.seat, ForfeitReason(d.reason)))
        elif isinstance(d, pe.GameOver):
            kind = ResultKind.of_word(d.result)
            reason = EndReason(d.reason)
            why = ForfeitReason(forfeit.reason) if reason is EndReason.FORFEIT and forfeit else None
            out.append(ev.GameOver(Result(d.winner, kind, cube, reason, why)))
            in_game = False
            previous = out_score(out)
            points = d.score[d.winner] - previous[d.winner]
            out.append(ev.GameScored(d.game, d.winner, points, d.score))
        elif isinstance(d, pe.MatchOver) and d.reason in ("completed", "forfeit", "stopped"):
            # The wire names who forfeited (the forfeit event), not who stopped a session.
            by = forfeit.seat if d.reason == "forfeit" and forfeit is not None else None
            out.append(ev.MatchOver(d.winner, d.score, ev.EndOfMatch(d.reason), by))
    return tuple(out)


def out_score(events: list[ev.Event]) -> tuple[int, int]:
    for event in reversed(events):
        if isinstance(event, ev.GameScored):
            return event.score
    return (0, 0)


def options_of(log: list[Logged]) -> MatchOptions:
    created = log[0].data
    assert isinstance(created, pe.MatchCreated)
    if created.mode == "match":
        return MatchOptions.match(created.length or 1)
    if created.mode == "money":
        return MatchOptions.money(jacoby=created.jacoby, beavers=created.beavers)
    return MatchOptions.single_game()


def match_record(log: list[Logged]) -> MatchRecord:
    """The engine's record of the match in ``log`` (games so far)."""
    names = ["", ""]
    for e in log:
        if isinstance(e.data, pe.Seated):
            names[e.data.seat] = e.data.name or f"Player {e.data.seat + 1}"
    options = options_of(log)
    return MatchRecord.from_events(options, (names[0], names[1]), engine_events(log, options))


def mat_text(log: list[Logged]) -> str:
    return export_mat(match_record(log))


def find_game(record: MatchRecord, game_no: int) -> GameRecord:
    """Game ``game_no`` of ``record`` (KeyError when it has not started)."""
    for game in record.games:
        if game.number == game_no:
            return game
    raise KeyError(game_no)
